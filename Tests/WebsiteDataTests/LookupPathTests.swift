import Foundation
import Testing
@testable import WebsiteData

/// The parts of a `Cookie` header lookup that stand in for slower general ones: the store's
/// table of hosts' sites, the header order of few and of many matches, the loopback test.
@Suite struct LookupPathTests {
    /// Every host, short or too long to be held, found again or new, after the table has grown
    /// and emptied itself, gives the site `Site.displayName(forHost:)` gives.
    @Test func theHostTableGivesEveryHostItsDisplayName() {
        #expect(HostSiteTable.entrySize == 64)
        let table = HostSiteTable(limit: 300)
        var random = SystemRandomNumberGenerator()
        var hosts = ["a.com", "example.co.uk", "www.example.co.uk", "localhost", "127.0.0.1", "::1", "github.io",
                     "user.github.io", String(repeating: "a", count: 31) , String(repeating: "a", count: 32),
                     String(repeating: "b", count: 30) + ".com", "x", "xn--bcher-kva.example"]
        for i in 0..<1_000 {
            let labels = (0..<Int.random(in: 1...4, using: &random)).map { _ in "h\(Int.random(in: 0..<50, using: &random))" }
            hosts.append(labels.joined(separator: ".") + [".com", ".co.uk", ".org", ".github.io"][i % 4])
        }
        for round in 0..<3 {
            for host in hosts.shuffled(using: &random) {
                let site = table.withSite(forHost: host) { $0 }
                #expect(site.name == Site.displayName(forHost: host), "round \(round): \(host)")
                #expect(site == SiteKey(Site.displayName(forHost: host)))
            }
            #expect(table.count <= table.limit)
        }
    }

    /// Hosts that differ only past their common bytes, or only in length, are not confused.
    @Test func hostsThatShareBytesAreKeptApart() {
        let table = HostSiteTable()
        let hosts = ["ab.com", "ab.co", "b.com", "ab.com.", "aab.com", "a.b.com", "example.com", "example.co"]
        for host in hosts + hosts.reversed() {
            #expect(table.withSite(forHost: host) { $0.name } == Site.displayName(forHost: host))
        }
    }

    /// Matches are put in header order (longer paths first, then earlier creation) both by the
    /// insertion sort of a few and by the general sort of many.
    @Test(arguments: [3, 20, 32, 33, 100])
    func matchesAreInHeaderOrderForFewAndMany(count: Int) throws {
        var site = SiteCookies()
        var cookies: [Cookie] = []
        let now = Date()
        var random = SystemRandomNumberGenerator()
        let paths = ["/", "/a", "/a/b", "/a/b/c"]
        for i in 0..<count {
            // Creation times out of insertion order, some equal.
            let created = now.addingTimeInterval(-Double(Int.random(in: 0..<(count / 2 + 1), using: &random)))
            let cookie = Cookie(name: "c\(i)", value: "\(i)", domain: "example.com", path: paths.randomElement(using: &random)!,
                                isHostOnly: true, created: created)
            site.append(cookie)
            cookies.append(cookie)
        }
        let url = try #require(URL(string: "http://example.com/a/b/c/d"))
        let request = try #require(CanonicalCookie.RequestFacts(url: url))
        var touched: [Cookie] = []
        let header = site.withMatches(request, url: url, context: .topLevelNavigation, api: .http, now: now, touched: &touched) { $0.header }
        // Ties (equal path length and creation) keep insertion order.
        let expected = cookies.enumerated().sorted { a, b in
            if a.element.path.utf8.count != b.element.path.utf8.count { return a.element.path.utf8.count > b.element.path.utf8.count }
            if a.element.created != b.element.created { return a.element.created < b.element.created }
            return a.offset < b.offset
        }.map { "\($0.element.name)=\($0.element.value)" }.joined(separator: "; ")
        #expect(header == expected)
    }

    @Test func loopbackHosts() {
        for host in ["localhost", "a.localhost", "x.y.localhost", "::1", "127.0.0.1", "127.1.2.3", "127.255.255.255"] {
            #expect(Site.isLoopback(host), "\(host)")
        }
        for host in ["", "localhost.com", "notlocalhost", "alocalhost", "::2", "::10", "127.", "127.example", "128.0.0.1",
                     "1127.0.0.1", "127.0.0.1.com", "localhos", "ocalhost"] {
            #expect(!Site.isLoopback(host), "\(host)")
        }
    }

    /// The host, path and secure-origin test read from a URL's string agree with `URL`'s own
    /// accessors for every URL built from these parts that `URL(string:)` accepts, and the
    /// common shapes take the quick way.
    @Test func urlPartsReadFromTheStringAgreeWithFoundation() throws {
        let schemes = ["http", "https", "HTTP", "HtTpS", "wss", "ws", "ftp", "h", ""]
        let separators = ["://", ":", ":/", ":///", "//"]
        let users = ["", "u@", "u:p@", "a@b@", "@", "u%40x@", ":@"]
        let hosts = ["example.com", "EXAMPLE.com", "www.Example.CO.uk", "[::1]", "[2001:DB8::1]", "[::1", "::1", "127.0.0.1",
                     "localhost", "a.localhost", "LocalHost", "A.LOCALHOST", "xn--bcher-kva.de", "bücher.de", "ex%41mple.com", "", "a b.com",
                     "example.com.", "-x-.com", "1.2.3", "[v1.x]", "exa_mple.com"]
        let ports = ["", ":80", ":", ":8080", ":x"]
        let paths = ["", "/", "/a/b", "/a%20b", "/ä", "/a/../b", "//x", "/a:b@c", "/%", "/a b", "/?", "/a#b"]
        let queries = ["", "?q", "?a/b", "?@x", "?#", "?x=%41"]
        let fragments = ["", "#f", "#/x", "#?y"]
        var random = SystemRandomNumberGenerator()
        var compared = 0, quick = 0
        for _ in 0..<20_000 {
            let string = schemes.randomElement(using: &random)! + separators.randomElement(using: &random)!
                + users.randomElement(using: &random)! + hosts.randomElement(using: &random)! + ports.randomElement(using: &random)!
                + paths.randomElement(using: &random)! + queries.randomElement(using: &random)! + fragments.randomElement(using: &random)!
            guard let url = URL(string: string) else { continue }
            compared += 1
            // What a lookup reads, the quick way or not: the facts `URL`'s accessors give.
            let reference = Site.foundationCanonicalHost(of: url).map { host -> (String, String, Bool) in
                let path = url.path(percentEncoded: true)
                return (host, path.isEmpty ? "/" : path, Site.isSecureOrigin(url, host: host))
            }
            let read = CanonicalCookie.RequestBytes.with(url) {
                (String(decoding: $0.host, as: UTF8.self), String(decoding: $0.path, as: UTF8.self), $0.isSecureOrigin)
            }
            #expect(read?.0 == reference?.0 && read?.1 == reference?.1 && read?.2 == reference?.2, "\(string)")
            guard let parts = Site.requestParts(of: url) else { continue }
            quick += 1
            let host = Site.foundationCanonicalHost(of: url)
            #expect(parts.host == host, "\(string)")
            #expect(Site.canonicalHost(of: url) == host, "\(string)")
            #expect(parts.path == url.path(percentEncoded: true), "\(string)")
            #expect(parts.isSecureOrigin == Site.isSecureOrigin(url, host: host), "\(string)")
        }
        print("URL parts: \(compared) URLs compared with Foundation's accessors, \(quick) read the quick way")
        #expect(compared > 5_000 && quick > 1_000, "\(compared) compared, \(quick) the quick way")
        for string in ["http://example.com/", "https://www.example.co.uk/a/b?q=1#f", "http://EXAMPLE.com", "http://[::1]:8080/x",
                       "http://user:pw@example.com:81/p", "wss://example.com/socket", "http://127.0.0.1/"] {
            let url = try #require(URL(string: string))
            #expect(Site.requestParts(of: url) != nil, "\(string)")
        }
        // Relative URLs, and hosts with escapes or non-ASCII bytes, are left to `URL`.
        let base = try #require(URL(string: "http://example.com/a/"))
        #expect(Site.requestParts(of: try #require(URL(string: "b?c", relativeTo: base))) == nil)
        #expect(Site.canonicalHost(of: try #require(URL(string: "b?c", relativeTo: base))) == "example.com")
        #expect(Site.requestParts(of: try #require(URL(string: "http://ex%41mple.com/"))) == nil)
        #expect(Site.canonicalHost(of: try #require(URL(string: "http://ex%41mple.com/"))) == "example.com")
    }
}
