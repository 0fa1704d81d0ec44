import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// `SiteCookies` answers lookups from its compact keys and byte buffer: after any sequence of
/// changes, what it finds, the header it builds and the cookie it finds by key are what a plain
/// scan of its cookies with the RFC 6265bis matching functions finds, in the same order.
@Suite(.ownThreads) struct SiteCookiesTests {
    static let hosts = [
        "example.com", "www.example.com", "a.b.example.com", "shop.example.com", "api.example.com",
        "m.example.com", "example.com.", "x.example.com", "static.example.com", "img.example.com",
    ]
    static let paths = ["/", "/app", "/app/", "/app/v2", "/account", "/static", "/search", "/a/b/c", "/appx", ""]
    static let requestPaths = [
        "/", "/app", "/app/", "/app/v2/item", "/appx", "/account/settings", "/static/js/x.js",
        "/search", "/a/b/c/d", "/b",
    ]

    /// A random cookie of the site: host-only on one of many hosts or a domain cookie, many
    /// paths (more distinct domains and paths than a lookup remembers), nameless ones, flags.
    /// With `sentEverywhere`, a cookie for every host of the site on "/" or "/app", mostly sent.
    static func randomCookie(_ random: inout SystemRandomNumberGenerator, created: Date, sentEverywhere: Bool = false)
        -> Cookie
    {
        let hostOnly = !sentEverywhere && Bool.random(using: &random)
        let domain =
            hostOnly
            ? hosts.randomElement(using: &random)!
            : sentEverywhere ? "example.com" : ["example.com", "b.example.com"].randomElement(using: &random)!
        let name = Int.random(in: 0..<12, using: &random) == 0 ? "" : "c\(Int.random(in: 0..<8, using: &random))"
        let value =
            String(repeating: "v", count: Int.random(in: 0..<40, using: &random))
            + "\(Int.random(in: 0..<1000, using: &random))"
        let expires: Date? =
            switch Int.random(in: 0..<4, using: &random) {
            case 0: nil
            case 1: created.addingTimeInterval(-10)
            default: created.addingTimeInterval(Double.random(in: 1...1000, using: &random))
            }
        let path = sentEverywhere ? ["/", "/app"].randomElement(using: &random)! : paths.randomElement(using: &random)!
        return Cookie(
            name: name, value: value, domain: domain, path: path, isHostOnly: hostOnly,
            isSecure: Int.random(in: 0..<3, using: &random) == 0,
            isHTTPOnly: Int.random(in: 0..<3, using: &random) == 0,
            sameSite: CookieSameSite.allCases.randomElement(using: &random)!, expires: expires, created: created)
    }

    /// What a scan of the cookies finds for a request, in header order: longer paths first,
    /// then earlier creation, then the order they are held in.
    static func reference(_ cookies: [Cookie], _ request: CanonicalCookie.RequestFacts, api: CookieAPI, now: Date)
        -> [Cookie]
    {
        cookies.enumerated().filter { _, c in
            (c.isHostOnly ? c.domain == request.host : CanonicalCookie.domainMatches(request.host, c.domain))
                && CanonicalCookie.pathMatches(request.path, c.path)
                && (!c.isSecure || request.isSecureOrigin) && !(c.isHTTPOnly && api == .nonHTTP)
                && !c.isExpired(at: now)
        }.sorted { a, b in
            let (i, x) = a
            let (j, y) = b
            if x.path.utf8.count != y.path.utf8.count { return x.path.utf8.count > y.path.utf8.count }
            return x.created != y.created ? x.created < y.created : i < j
        }.map(\.element)
    }

    static func header(_ cookies: [Cookie]) -> String? {
        cookies.isEmpty ? nil : cookies.map(\.pair).joined(separator: "; ")
    }

    /// Random appends, replacements, removals and lookups. Cookies are often created in the
    /// same second (header order then goes by the order they are held in). With
    /// `sentEverywhere`, the site grows to a few hundred cookies and lookups send many of them
    /// (more than are put in order by insertion).
    @Test(arguments: [false, true])
    func lookupsAndKeysAgreeWithAScanAfterRandomChanges(sentEverywhere: Bool) throws {
        var random = SystemRandomNumberGenerator()
        var site = SiteCookies()
        var model: [Cookie] = []
        var created = Date(timeIntervalSinceReferenceDate: 800_000_000)
        var lookups = 0
        var found = 0
        var mostSent = 0
        for step in 0..<4000 {
            if Int.random(in: 0..<3, using: &random) == 0 { created = created.addingTimeInterval(1) }
            switch Int.random(in: 0..<(sentEverywhere ? 100 : 10), using: &random) {
            case 0..<4, 10..<60:
                let cookie = Self.randomCookie(&random, created: created, sentEverywhere: sentEverywhere)
                site.append(cookie)
                model.append(cookie)
            case 4 where !model.isEmpty:
                let i = Int.random(in: 0..<model.count, using: &random)
                let cookie = Self.randomCookie(&random, created: created, sentEverywhere: sentEverywhere)
                site.replace(at: i, with: cookie)
                model[i] = cookie
            case 5 where !model.isEmpty:
                let i = Int.random(in: 0..<model.count, using: &random)
                #expect(site.remove(at: i) == model.remove(at: i))
            case 6 where !model.isEmpty:
                var indices = IndexSet()
                for i in model.indices where Int.random(in: 0..<4, using: &random) == 0 { indices.insert(i) }
                let removed = site.remove(at: indices)
                #expect(removed == indices.map { model[$0] })
                model = model.indices.filter { !indices.contains($0) }.map { model[$0] }
            default:
                let host = Self.hosts.randomElement(using: &random)!.replacingOccurrences(of: "x.", with: "deep.x.")
                let scheme = Bool.random(using: &random) ? "https" : "http"
                let url = try #require(
                    URL(string: "\(scheme)://\(host)\(Self.requestPaths.randomElement(using: &random)!)"))
                let request = try #require(CanonicalCookie.RequestFacts(url: url))
                let api: CookieAPI = Bool.random(using: &random) ? .http : .nonHTTP
                // SameSite is not in play: the reference has no context; every request is same-site.
                let expected = Self.reference(model, request, api: api, now: created)
                var touched: [Cookie] = []
                let (header, cookies, indices) = site.withMatches(
                    request, url: url, context: .topLevelNavigation, api: api, now: created,
                    touched: &touched
                ) { ($0.header, $0.cookies, Array($0.indices)) }
                #expect(header == Self.header(expected), "step \(step): \(url)")
                #expect(cookies.map(\.key) == expected.map(\.key))
                #expect(cookies.allSatisfy { $0.lastAccess == created })
                #expect(indices.map { model[$0].key } == expected.map(\.key))
                for i in indices { model[i].lastAccess = created }
                lookups += 1
                if !expected.isEmpty { found += 1 }
                mostSent = max(mostSent, expected.count)
            }
            #expect(site.cookies == model)
            if let probe = model.randomElement(using: &random) {
                #expect(site.index(ofKey: probe) == model.firstIndex { $0.hasSameKey(as: probe) })
            }
            let stranger = Self.randomCookie(&random, created: created, sentEverywhere: sentEverywhere)
            #expect(site.index(ofKey: stranger) == model.firstIndex { $0.hasSameKey(as: stranger) })
        }
        #expect(lookups > (sentEverywhere ? 1_000 : 500))
        #expect(found > 100)
        // Lookups put many matches in order at once, not only a few.
        #expect(mostSent > (sentEverywhere ? 96 : 2), "at most \(mostSent) sent")
    }

    /// A site keeps no `Cookie`: what `cookie(at:)` and `cookies` make from its records, places,
    /// keys and bytes is, byte for byte, what was stored: long pairs (kept as strings of their
    /// own) with and without a name, names and values whose bytes differ from a canonically
    /// equal string's, a partition, a session cookie beside one that expires, a modification
    /// time apart from the creation time; after replacements and removals too.
    @Test func cookiesComeBackByteForByteFromTheCompactForm() {
        let created = Date(timeIntervalSinceReferenceDate: 800_000_000.25)
        let long = String(repeating: "x", count: SiteCookies.longestPairKept + 44)
        var cookies = [
            Cookie(name: "a", value: "1", domain: "example.com", created: created),
            Cookie(name: "", value: "nameless=with=equals", domain: "example.com", path: "/app", created: created),
            Cookie(name: "long", value: long, domain: "www.example.com", path: "/a/b/c", created: created),
            Cookie(name: "", value: long + "=", domain: "example.com", created: created),
            Cookie(name: "caf\u{E9}", value: "e\u{301}t\u{E9}", domain: "example.com", created: created),
            Cookie(name: "cafe\u{301}", value: "\u{E9}te\u{301}", domain: "example.com", created: created),
            Cookie(
                name: "p", value: "2", domain: "shop.example.com", isHostOnly: false, isSecure: true,
                isHTTPOnly: true, sameSite: .strict, partitionKey: "https://top.example",
                expires: created.addingTimeInterval(3600.5), created: created.addingTimeInterval(1),
                lastAccess: created.addingTimeInterval(2), modified: created.addingTimeInterval(3)),
            Cookie(name: "=", value: "", domain: "example.com", path: "/", sameSite: .lax, created: created),
        ]
        func sameBytes(_ a: [Cookie], _ b: [Cookie]) -> Bool {
            a.count == b.count
                && zip(a, b).allSatisfy { x, y in
                    [x.name, x.value, x.domain, x.path, x.partitionKey].map { Array($0.utf8) }
                        == [y.name, y.value, y.domain, y.path, y.partitionKey].map { Array($0.utf8) }
                        && x.isHostOnly == y.isHostOnly && x.isSecure == y.isSecure && x.isHTTPOnly == y.isHTTPOnly
                        && x.sameSite == y.sameSite && x.expires == y.expires && x.created == y.created
                        && x.lastAccess == y.lastAccess && x.modified == y.modified
                }
        }
        var site = SiteCookies(cookies)
        #expect(sameBytes(site.cookies, cookies))
        #expect(sameBytes((0..<site.count).map(site.cookie(at:)), cookies))
        // The two canonically equal names are two cookies.
        #expect(site.index(ofKey: cookies[5]) == 5)
        #expect(site.index(ofKey: cookies[4]) == 4)
        cookies[2].value = "short"
        site.replace(at: 2, with: cookies[2])
        cookies[0].value = long
        site.replace(at: 0, with: cookies[0])
        #expect(sameBytes([site.remove(at: 3)], [cookies.remove(at: 3)]))
        site.append(cookies[1])
        cookies.append(cookies[1])
        #expect(sameBytes(site.cookies, cookies))
    }

    /// A key is 32 bytes: a site's scan reads two to a cache line.
    @Test func aKeyIsThirtyTwoBytes() {
        #expect(MemoryLayout<SiteCookies.Key>.stride == 32)
    }

    /// A record is 32 bytes: the partition and a long pair, which few cookies have, are behind
    /// one reference, and it repeats nothing the key and the place hold.
    @Test func aRecordIsThirtyTwoBytes() {
        #expect(MemoryLayout<SiteCookies.Stored>.stride == 32)
    }

    /// A site with more distinct paths than `find` looks back through stores some paths twice:
    /// every cookie is still found by its key, and lookups still agree with a scan.
    @Test func pathsStoredAgainBeyondTheInternWindowAreStillFound() throws {
        var site = SiteCookies()
        var model: [Cookie] = []
        let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let count = 4 * SiteCookies.internWindow
        for i in 0..<count {
            // Paths /p0 … /pN, then the same paths again under other names, far back.
            let cookie = Cookie(
                name: "n\(i)", value: "v\(i)", domain: "example.com", path: "/p\(i % (count / 2))",
                created: now.addingTimeInterval(Double(i)))
            site.append(cookie)
            model.append(cookie)
        }
        for (i, cookie) in model.enumerated() {
            #expect(site.index(ofKey: cookie) == i)
            var other = cookie
            other.path += "x"
            #expect(site.index(ofKey: other) == nil)
        }
        for p in [0, 1, count / 4, count / 2 - 1] {
            let url = try #require(URL(string: "https://example.com/p\(p)"))
            let request = try #require(CanonicalCookie.RequestFacts(url: url))
            var touched: [Cookie] = []
            let header = site.withMatches(
                request, url: url, context: .topLevelNavigation, api: .http, now: now.addingTimeInterval(Double(count)),
                touched: &touched
            ) { $0.header }
            #expect(
                header
                    == Self.header(
                        Self.reference(model, request, api: .http, now: now.addingTimeInterval(Double(count)))))
            #expect(header == "n\(p)=v\(p); n\(p + count / 2)=v\(p + count / 2)")
        }
    }

    /// An IP-address host domain-matches no domain cookie, even one whose bytes end the host.
    @Test func anIPAddressHostMatchesOnlyItsHostOnlyCookies() throws {
        var site = SiteCookies()
        let now = Date()
        site.append(Cookie(name: "domain", value: "1", domain: "0.0.1", isHostOnly: false, created: now))
        site.append(
            Cookie(name: "host", value: "2", domain: "10.0.0.1", isHostOnly: true, created: now.addingTimeInterval(1)))
        let url = try #require(URL(string: "http://10.0.0.1/"))
        let request = try #require(CanonicalCookie.RequestFacts(url: url))
        var touched: [Cookie] = []
        #expect(
            site.withMatches(request, url: url, context: .topLevelNavigation, api: .http, now: now, touched: &touched) {
                $0.header
            } == "host=2")
    }

    /// A site whose cookies are replaced again and again with new paths keeps few places (the
    /// places of cookies gone go at the next rebuild), and its lookups still agree with a scan.
    @Test func placesOfReplacedCookiesDoNotPileUp() throws {
        var site = SiteCookies()
        var model: [Cookie] = []
        let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
        for i in 0..<40 {
            let cookie = Cookie(
                name: "n\(i)", value: "v", domain: "example.com", path: "/p\(i % 4)",
                created: now.addingTimeInterval(Double(i)))
            site.append(cookie)
            model.append(cookie)
        }
        var most = 0
        for step in 0..<5_000 {
            let i = step % model.count
            let cookie = Cookie(
                name: "n\(i)", value: "v\(step)", domain: step % 3 == 0 ? "www.example.com" : "example.com",
                path: "/p\(step)", isHostOnly: step % 3 == 0, created: now.addingTimeInterval(Double(100 + step)))
            site.replace(at: i, with: cookie)
            model[i] = cookie
            most = max(most, site.places.count)
        }
        #expect(most < 200, "\(most) places for 40 cookies")
        for path in ["/p4999", "/p4998", "/p4960", "/p1"] {
            let url = try #require(URL(string: "https://www.example.com\(path)"))
            let request = try #require(CanonicalCookie.RequestFacts(url: url))
            let later = now.addingTimeInterval(10_000)
            var touched: [Cookie] = []
            let header = site.withMatches(
                request, url: url, context: .topLevelNavigation, api: .http, now: later, touched: &touched
            ) { $0.header }
            #expect(header == Self.header(Self.reference(model, request, api: .http, now: later)), "\(path)")
        }
    }

    /// A lookup of a site while a copy of it is alive (as while a listing holds one) moves on the
    /// access times of its own cookies only, and its hints then name its own keys again, which
    /// the write moved.
    @Test func aLookupBesideACopyWritesItsOwnKeysAndHintsAtThem() throws {
        var site = SiteCookies()
        let created = Date(timeIntervalSinceReferenceDate: 800_000_000)
        for i in 0..<6 {
            site.append(
                Cookie(
                    name: "n\(i)", value: "v\(i)", domain: "example.com", path: i % 2 == 0 ? "/" : "/a",
                    created: created.addingTimeInterval(Double(i))))
        }
        let url = try #require(URL(string: "https://example.com/a"))
        let request = try #require(CanonicalCookie.RequestFacts(url: url))
        var touched: [Cookie] = []
        let first = created.addingTimeInterval(100)
        #expect(
            site.withMatches(request, url: url, context: .topLevelNavigation, api: .http, now: first, touched: &touched)
            { $0.header }
                == "n1=v1; n3=v3; n5=v5; n0=v0; n2=v2; n4=v4")
        #expect(site.hints == site.currentHints)
        let copy = site
        let later = created.addingTimeInterval(200)
        #expect(
            site.withMatches(request, url: url, context: .topLevelNavigation, api: .http, now: later, touched: &touched)
            { $0.header }
                == "n1=v1; n3=v3; n5=v5; n0=v0; n2=v2; n4=v4")
        #expect(site.cookies.allSatisfy { $0.lastAccess == later })
        #expect(copy.cookies.allSatisfy { $0.lastAccess == first })
        #expect(site.hints == site.currentHints)
        #expect(site.hints.keys != copy.hints.keys)
    }
}
