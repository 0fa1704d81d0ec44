import CPSL
import Foundation

/// The `Cookie` header lookup written plainly from RFC 6265bis 5.8.3, over `Cookie` values: the
/// model the fast path (`SiteCookies.withMatches`, through `HTTPCookieStore.cookieHeader(for:context:)`)
/// is tested against, never used to serve a request.
///
/// It shares no code with the engine's lookup: it reads the request from `URL`'s own accessors,
/// and has its own secure-origin test, same-site test, domain match, path match, order and
/// serialisation, so that a mistake in one of the engine's is not made here too. It follows the
/// engine's reading of the RFC where the RFC leaves a choice: a loopback host is a secure
/// origin; SameSite `Default` (unspecified) is enforced as `Lax`; a `Partitioned` cookie is sent
/// only within its partition (the top-level site, schemeful).
enum ReferenceCookieLookup {
    /// What the retrieval algorithm reads of a request.
    struct Request {
        /// The canonical host: lower case, without an IPv6 literal's brackets.
        var host: String
        /// The path, percent-encoded as the URL holds it; `/` for an empty one.
        var path: String
        /// Whether the request is sent over a secure protocol, or to a loopback host.
        var isSecure: Bool
        /// Whether the request is same-site (5.2), schemefully.
        var isSameSite: Bool
        /// Whether cross-site `Lax` cookies go too: a top-level navigation with a safe method,
        /// through HTTP.
        var sendsLaxCrossSite: Bool
        /// The API the cookies are read through.
        var api: CookieAPI
        /// The partition a `Partitioned` cookie must be kept for to be sent (`scheme://site`).
        var partition: String

        /// The request to `url` in `context` through `api`, or `nil` when the URL has no host.
        init?(url: URL, context: CookieRequestContext, api: CookieAPI) {
            guard let host = ReferenceCookieLookup.host(of: url) else { return nil }
            self.host = host
            let path = url.path(percentEncoded: true)
            self.path = path.isEmpty ? "/" : path
            let scheme = url.scheme?.lowercased() ?? ""
            isSecure = scheme == "https" || scheme == "wss" || ReferenceCookieLookup.isLoopback(host)
            let site = ReferenceCookieLookup.schemefulSite(of: url)
            if !context.isSameSiteChain {
                isSameSite = false
            } else if let top = context.topLevelSite {
                isSameSite = ReferenceCookieLookup.schemefulSite(of: top) == site
            } else {
                isSameSite = true
            }
            let safe = ["GET", "HEAD", "OPTIONS", "TRACE"].contains(context.method.uppercased())
            sendsLaxCrossSite = context.isNavigation && safe && api == .http
            self.api = api
            partition = (context.topLevelSite.flatMap(ReferenceCookieLookup.schemefulSite(of:)) ?? site) ?? ""
        }
    }

    /// The cookies among `cookies` that a request to `url` in `context` through `api` carries at
    /// `now`, in header order (5.8.3): each cookie is tested on its own, then all are sorted.
    static func cookies(
        _ cookies: some Sequence<Cookie>, for url: URL, context: CookieRequestContext, api: CookieAPI, now: Date
    ) -> [Cookie] {
        guard let request = Request(url: url, context: context, api: api) else { return [] }
        return ordered(cookies.filter { isSent($0, to: request, now: now) })
    }

    /// The `Cookie` header of `cookies` (already in order), or `nil` for none.
    static func header(_ cookies: [Cookie]) -> String? {
        guard !cookies.isEmpty else { return nil }
        var header = ""
        for (n, cookie) in cookies.enumerated() {
            if n > 0 { header += "; " }
            // 5.8.3 step 4: a cookie with an empty name is serialised as its value alone.
            if !cookie.name.isEmpty { header += cookie.name + "=" }
            header += cookie.value
        }
        return header
    }

    /// The domains a cookie sent to `host` can have: the host itself and every domain it ends
    /// in after a dot. A caller that holds cookies by domain hands `cookies(_:for:...)` those of
    /// these domains, and misses none it would send.
    static func candidateDomains(ofHost host: String) -> [String] {
        var domains = [host]
        var rest = Substring(host)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if !rest.isEmpty { domains.append(String(rest)) }
        }
        return domains
    }

    // MARK: 5.8.3 step 1

    /// Whether `cookie` goes with `request` at `now`.
    static func isSent(_ cookie: Cookie, to request: Request, now: Date) -> Bool {
        // Host-only: the host is the domain. Otherwise the host domain-matches it (5.1.3).
        if cookie.isHostOnly {
            guard same(request.host, cookie.domain) else { return false }
        } else {
            guard domainMatches(request.host, cookie.domain) else { return false }
        }
        guard pathMatches(request.path, cookie.path) else { return false }
        if cookie.isSecure && !request.isSecure { return false }
        if cookie.isHTTPOnly && request.api == .nonHTTP { return false }
        if cookie.sameSite != .none && !request.isSameSite {
            if cookie.sameSite == .strict { return false }
            if !request.sendsLaxCrossSite { return false }
        }
        if !cookie.partitionKey.isEmpty && cookie.partitionKey != request.partition { return false }
        if let expires = cookie.expires, expires <= now { return false }
        return true
    }

    /// 5.1.3: the strings are identical, or the domain is a suffix of the host after a dot and
    /// the host is a host name, not an IP address.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if same(host, domain) { return true }
        let h = Array(host.utf8)
        let d = Array(domain.utf8)
        guard h.count > d.count, h[h.count - d.count - 1] == UInt8(ascii: "."), h.suffix(d.count).elementsEqual(d)
        else { return false }
        return !isIPAddress(host)
    }

    /// 5.1.4: the paths are identical, or the cookie path is a prefix of the request path and
    /// either ends in `/` or is followed in the request path by `/`.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if same(requestPath, cookiePath) { return true }
        let r = Array(requestPath.utf8)
        let c = Array(cookiePath.utf8)
        guard r.count > c.count, r.prefix(c.count).elementsEqual(c) else { return false }
        return c.last == UInt8(ascii: "/") || r[c.count] == UInt8(ascii: "/")
    }

    // MARK: 5.8.3 step 2

    /// Longer paths first, then earlier creation; cookies equal in both keep their order.
    static func ordered(_ cookies: [Cookie]) -> [Cookie] {
        cookies.enumerated().sorted { a, b in
            let pathA = a.element.path.utf8.count
            let pathB = b.element.path.utf8.count
            if pathA != pathB { return pathA > pathB }
            if a.element.created != b.element.created { return a.element.created < b.element.created }
            return a.offset < b.offset
        }.map(\.element)
    }

    // MARK: The request

    /// Byte-for-byte equality, as cookies compare (not Swift's canonical equivalence).
    private static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    /// The host of `url`, lower case, an IPv6 literal without its brackets; `nil` when it has none.
    static func host(of url: URL) -> String? {
        guard var host = url.host(percentEncoded: false), !host.isEmpty else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.lowercased()
    }

    /// `scheme://site` for `url`, `ws` and `wss` counted as `http` and `https`; the site is the
    /// registrable domain, or the host itself for an IP address, `localhost` or a public
    /// suffix. `nil` when the URL has no host (but for `file:`, whose URLs share one site).
    static func schemefulSite(of url: URL) -> String? {
        var scheme = url.scheme?.lowercased() ?? ""
        if scheme == "file" { return scheme + "://" + Site.localFilesDisplayName }
        if scheme == "ws" { scheme = "http" }
        if scheme == "wss" { scheme = "https" }
        guard let host = host(of: url) else { return nil }
        return scheme + "://" + registrableDomain(host)
    }

    /// The registrable domain of `host` from libpsl's built-in list, or `host` when it has none.
    private static func registrableDomain(_ host: String) -> String {
        if isIPAddress(host) { return host }
        return host.withCString { name in
            psl_registrable_domain(psl_builtin(), name).map { String(cString: $0) }
        } ?? host
    }

    /// An IPv6 literal (it has a colon, which no host name has) or four dot-separated decimal
    /// numbers of 1 to 3 digits, each at most 255.
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                (1...3).contains(part.count) && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
                    && Int(part).map { $0 <= 255 } == true
            }
    }

    /// `localhost`, a name ending in `.localhost`, `::1`, or an IPv4 address in 127.0.0.0/8.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        return isIPAddress(host) && !host.contains(":") && host.split(separator: ".").first == "127"
    }
}
