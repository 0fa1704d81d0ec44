import Foundation
import WebsiteData

/// The size of a generated data set.
struct Shape: Sendable, CustomStringConvertible {
    /// Cookies in all.
    var cookies: Int
    /// Sites (registrable domains) they are spread over.
    var sites: Int
    /// Lookup URLs.
    var lookups: Int
    var seed: UInt64 = 0x5EED_C00C_1E5

    var description: String { "\(cookies.grouped) cookies over \(sites.grouped) sites" }

    /// The same shape with a tenth (or other fraction) of the cookies and sites.
    func scaled(cookies: Int) -> Shape {
        Shape(cookies: cookies, sites: max(1, sites * cookies / max(1, self.cookies)), lookups: lookups, seed: seed)
    }
}

/// One generated cookie: the `Set-Cookie` value a server sends, and what a correct engine stores.
struct GeneratedCookie: Sendable {
    enum Lifetime: Sendable {
        case session
        case maxAge(Int)
        /// `Expires` in 2099, which the 400-day cap shortens.
        case farFuture
    }

    var header: String
    var name: String
    var value: String
    var domain: String
    var path: String
    var isHostOnly: Bool
    var isSecure: Bool
    var isHTTPOnly: Bool
    var sameSite: CookieSameSite
    var lifetime: Lifetime

    /// The cookie an engine stores for this header, received at `now`.
    func cookie(at now: Date) -> Cookie {
        let expires: Date?
        switch lifetime {
        case .session: expires = nil
        case .maxAge(let seconds): expires = now.addingTimeInterval(TimeInterval(seconds))
        case .farFuture: expires = now.addingTimeInterval(400 * 24 * 3600)
        }
        return Cookie(
            name: name, value: value, domain: domain, path: path, isHostOnly: isHostOnly, isSecure: isSecure,
            isHTTPOnly: isHTTPOnly, sameSite: sameSite, expires: expires, created: now)
    }
}

/// One HTTP response: the URL it came from and its `Set-Cookie` headers (1 to 10).
struct GeneratedResponse: Sendable {
    var url: URL
    var cookies: [GeneratedCookie]
    var headers: [String] { cookies.map(\.header) }
}

/// A site of the data set: its registrable domain, the hosts that serve it, and how many cookies it holds.
struct GeneratedSite: Sendable {
    var domain: String
    var hosts: [String]
    var cookieCount: Int
}

/// A deterministic data set: sites with a skewed (Zipf-like) number of cookies each, the
/// responses that set them, and lookup URLs.
///
/// Site k (from 1) gets about C/k cookies, clamped to 1...180 (the per-site limit), with C chosen so
/// the total is exact: about one site in a hundred is at the limit, the median site has a handful.
/// Cookies mix host-only ones on subdomains and domain ones, root and deeper paths, Secure,
/// HttpOnly, SameSite and lifetimes, as a crawl of the web finds them.
struct Dataset: Sendable {
    let shape: Shape
    let sites: [GeneratedSite]
    /// Every response, in a shuffled order (sites interleave as in a crawl).
    let responses: [GeneratedResponse]
    let lookups: [URL]

    var cookieCount: Int { shape.cookies }
    var headerCount: Int { responses.reduce(0) { $0 + $1.cookies.count } }

    init(_ shape: Shape) {
        self.shape = shape
        let sites = Self.makeSites(shape)
        self.sites = sites
        var all: [GeneratedResponse] = []
        all.reserveCapacity(shape.cookies / 5)
        Self.forEachResponse(shape, sites: sites) { all.append($0) }
        var random = SplitMix64(seed: shape.seed &+ 2)
        for i in stride(from: all.count - 1, to: 0, by: -1) { all.swapAt(i, random.below(i + 1)) }
        self.responses = all
        self.lookups = Self.makeLookups(shape, sites: sites)
    }

    // MARK: Sites

    static let suffixes = [
        "com", "com", "com", "com", "com", "net", "org", "de", "co.uk", "io", "fr", "com.au", "nl", "co.jp",
    ]
    static let subdomains = ["www", "a", "api", "shop", "m", "img", "login", "static", "app", "news"]

    /// Cookies per site: Zipf-like, clamped to 1...180, summing exactly to `shape.cookies`.
    static func counts(_ shape: Shape, limit: Int = 180) -> [Int] {
        precondition(
            shape.cookies <= shape.sites * limit && shape.cookies >= shape.sites,
            "cannot spread \(shape) within 1...\(limit) per site")
        func counts(_ c: Double) -> [Int] { (1...shape.sites).map { min(limit, max(1, Int(c / Double($0)))) } }
        var low = 0.0
        var high = Double(shape.cookies) * 2
        for _ in 0..<100 {
            let mid = (low + high) / 2
            if counts(mid).reduce(0, +) > shape.cookies { high = mid } else { low = mid }
        }
        var result = counts(low)
        var missing = shape.cookies - result.reduce(0, +)
        var i = 0
        while missing > 0 {
            if result[i] < limit {
                result[i] += 1
                missing -= 1
            }
            i = (i + 1) % result.count
        }
        return result
    }

    static func makeSites(_ shape: Shape) -> [GeneratedSite] {
        var random = SplitMix64(seed: shape.seed)
        return counts(shape).enumerated().map { index, count in
            let domain = "\(random.label(4 + random.below(7)))\(index).\(random.pick(suffixes))"
            var hosts = [domain]
            var names = subdomains
            for _ in 0..<random.below(4) {
                hosts.append(names.remove(at: random.below(names.count)) + "." + domain)
            }
            return GeneratedSite(domain: domain, hosts: hosts, cookieCount: count)
        }
    }

    // MARK: Responses

    static let requestPaths = [
        "/", "/index.html", "/app", "/app/", "/app/page", "/app/v2/item?id=42", "/account",
        "/account/settings", "/static/js/main.js", "/search?q=cookies", "/news/2024/05/article",
    ]
    static let cookiePaths = ["/app", "/app/v2", "/account", "/static", "/search"]
    static let namePrefixes = ["sid", "_ga", "pref", "uid", "track", "csrftoken", "lang", "theme", "cart", "ab"]

    /// Generates the responses site after site (not shuffled), without keeping them: the
    /// memory bench streams them so that only the engine holds the cookies.
    static func forEachResponse(_ shape: Shape, sites: [GeneratedSite], _ body: (GeneratedResponse) -> Void) {
        var random = SplitMix64(seed: shape.seed &+ 1)
        for site in sites {
            var made = 0
            while made < site.cookieCount {
                let https = random.chance(70)
                let host = random.pick(site.hosts)
                let requestPath = random.pick(requestPaths)
                let url = URL(string: "\(https ? "https" : "http")://\(host)\(requestPath)")!
                let n = min(1 + random.below(10), site.cookieCount - made)
                var cookies: [GeneratedCookie] = []
                for _ in 0..<n {
                    cookies.append(
                        makeCookie(
                            &random, index: made, site: site.domain, host: host, https: https,
                            requestPath: requestPath))
                    made += 1
                }
                body(GeneratedResponse(url: url, cookies: cookies))
            }
        }
    }

    static func makeCookie(
        _ random: inout SplitMix64, index: Int, site: String, host: String, https: Bool,
        requestPath: String
    ) -> GeneratedCookie {
        var name = random.pick(namePrefixes) + String(index)
        let value = random.token(8 + random.below(41))
        let isDomain = random.chance(35)
        var attributes = ""
        if isDomain { attributes += random.chance(50) ? "; Domain=" + site : "; Domain=." + site }
        let path: String
        var explicitRoot = false
        switch random.below(10) {
        case 0..<5:
            path = "/"
            attributes += "; Path=/"
            explicitRoot = true
        case 5..<8:
            path = random.pick(cookiePaths)
            attributes += "; Path=" + path
        default:
            path = defaultPath(requestPath)
        }
        let secure = https && random.chance(40)
        if secure { attributes += "; Secure" }
        let httpOnly = random.chance(40)
        if httpOnly { attributes += "; HttpOnly" }
        var sameSite = CookieSameSite.unspecified
        let roll = random.below(100)
        if secure && roll < 20 {
            sameSite = .none
            attributes += "; SameSite=None"
        } else if roll >= 20 && roll < 50 {
            sameSite = .lax
            attributes += "; SameSite=Lax"
        } else if roll >= 50 && roll < 60 {
            sameSite = .strict
            attributes += "; SameSite=Strict"
        }
        let lifetime: GeneratedCookie.Lifetime
        switch random.below(100) {
        case 0..<50:
            let seconds = (1 + random.below(400)) * 86_400
            lifetime = .maxAge(seconds)
            attributes += "; Max-Age=\(seconds)"
        case 50..<65:
            lifetime = .farFuture
            attributes += "; Expires=Thu, 31 Dec 2099 23:59:59 GMT"
        default:
            lifetime = .session
        }
        if secure && !isDomain && explicitRoot && random.chance(15) { name = "__Host-" + name }
        return GeneratedCookie(
            header: name + "=" + value + attributes, name: name, value: value,
            domain: isDomain ? site : host, path: path, isHostOnly: !isDomain, isSecure: secure,
            isHTTPOnly: httpOnly, sameSite: sameSite, lifetime: lifetime)
    }

    /// RFC 6265bis 5.1.4: the directory of the request path (query excluded).
    static func defaultPath(_ requestPath: String) -> String {
        let path = requestPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }

    // MARK: Lookups

    /// 10% unknown sites; the rest half uniform over sites, half weighted by cookies held;
    /// hosts that set cookies, other subdomains and deeper ones; http and https; many paths.
    static func makeLookups(_ shape: Shape, sites: [GeneratedSite]) -> [URL] {
        var random = SplitMix64(seed: shape.seed &+ 3)
        var cumulative: [Int] = []
        cumulative.reserveCapacity(sites.count)
        var total = 0
        for site in sites {
            total += site.cookieCount
            cumulative.append(total)
        }
        return (0..<shape.lookups).map { i in
            let scheme = random.chance(70) ? "https" : "http"
            let path = random.pick(requestPaths)
            if random.chance(10) {
                return URL(string: "\(scheme)://www.unknown\(random.label(6))\(i).\(random.pick(suffixes))\(path)")!
            }
            let site: GeneratedSite
            if random.chance(50) {
                site = sites[random.below(sites.count)]
            } else {
                let target = random.below(total)
                var low = 0
                var high = cumulative.count - 1
                while low < high {
                    let mid = (low + high) / 2
                    if cumulative[mid] > target { high = mid } else { low = mid + 1 }
                }
                site = sites[low]
            }
            var host = random.pick(site.hosts)
            switch random.below(100) {
            case 0..<10: host = "deep." + host
            case 10..<20: host = "cdn\(random.below(5))." + site.domain
            default: break
            }
            return URL(string: "\(scheme)://\(host)\(path)")!
        }
    }
}

extension SplitMix64 {
    private static let lower = Array("abcdefghijklmnopqrstuvwxyz".utf8)

    /// A random lower-case label of `count` letters.
    mutating func label(_ count: Int) -> String {
        String(decoding: (0..<count).map { _ in Self.lower[below(Self.lower.count)] }, as: UTF8.self)
    }
}

extension Int {
    /// `100000` as `100,000`.
    var grouped: String {
        let digits = String(Swift.abs(self))
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return self < 0 ? "-" + out : out
    }
}
