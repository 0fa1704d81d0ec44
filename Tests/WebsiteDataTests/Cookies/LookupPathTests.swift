import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// The parts of a `Cookie` header lookup that stand in for slower general ones: the store's
/// table of hosts' sites, the header order of few and of many matches, the loopback test.
@Suite(.ownThreads) struct LookupPathTests {
    /// A site table holding one cookie for each of `names`.
    static func sites(_ names: some Sequence<String>) -> SiteTable {
        var table = SiteTable()
        for name in names {
            var site = table.checkOut(SiteKey(name))
            site.cookies.append(Cookie(name: "n", value: "v", domain: name, created: Date()))
            table.checkIn(site)
        }
        return table
    }

    /// Every host, short or too long to be held, found again or new, after the table has grown
    /// and emptied itself, and after sites have come and gone (slots freed and taken again by
    /// other sites, sites getting their first cookies, the whole table replaced), gives the slot
    /// of the site `Site.displayName(forHost:)` names, or none when that site has no cookies.
    @Test func theHostTableGivesEveryHostItsSitesSlot() {
        #expect(HostSiteTable.entrySize == 80)
        let table = HostSiteTable(limit: 300)
        var random = SystemRandomNumberGenerator()
        var hosts = [
            "a.com", "example.co.uk", "www.example.co.uk", "localhost", "127.0.0.1", "::1", "github.io",
            "user.github.io", String(repeating: "a", count: 39), String(repeating: "a", count: 40),
            String(repeating: "b", count: 38) + ".com", "x", "xn--bcher-kva.example",
        ]
        for i in 0..<1_000 {
            let labels = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                "h\(Int.random(in: 0..<50, using: &random))"
            }
            hosts.append(labels.joined(separator: ".") + [".com", ".co.uk", ".org", ".github.io"][i % 4])
        }
        let names = Array(Set(hosts.map(Site.displayName(forHost:))))
        var sites = Self.sites(names.filter { _ in Bool.random(using: &random) })
        var stale = 0
        for round in 0..<8 {
            for host in hosts.shuffled(using: &random) {
                let expected = sites.slot(of: SiteKey(Site.displayName(forHost: host)))?.index
                #expect(table.slot(forHost: host, in: sites) == expected, "round \(round): \(host)")
            }
            #expect(table.count <= table.limit)
            // Sites come and go between rounds: a third of them removed, others added (taking
            // the freed slots), or every site in a new table.
            if round == 5 {
                sites = Self.sites(names.shuffled(using: &random).prefix(names.count / 2))
                continue
            }
            for name in names where Int.random(in: 0..<3, using: &random) == 0 {
                if sites.removeValue(forKey: SiteKey(name)) == nil {
                    var site = sites.checkOut(SiteKey(name))
                    site.cookies.append(Cookie(name: "n", value: "v", domain: name, created: Date()))
                    sites.checkIn(site)
                }
                stale += 1
            }
        }
        #expect(stale > 100)
    }

    /// Enough hosts to fill several blocks of entries, then more than the table holds: every
    /// host gives its site's slot as it is added and when found again (a host held is found,
    /// not added twice), and once the table has emptied itself and filled again.
    @Test func hostsOverSeveralBlocksOfEntriesAreFoundAfterGrowingAndEmptying() {
        let table = HostSiteTable(limit: 2_600)
        let hosts = (0..<3_000).map { "h\($0).site\($0 % 700).example" }
        let sites = Self.sites(Set(hosts.map(Site.displayName(forHost:))).filter { !$0.hasPrefix("site1") })
        func lookUp(_ hosts: ArraySlice<String>) {
            for host in hosts {
                let expected = sites.slot(of: SiteKey(Site.displayName(forHost: host)))?.index
                #expect(table.slot(forHost: host, in: sites) == expected, "\(host)")
            }
        }
        lookUp(hosts.prefix(2_500))
        #expect(table.count == 2_500)
        lookUp(hosts.prefix(2_500).reversed()[...])
        #expect(table.count == 2_500)
        // 100 more fill it; the next empties it first, and the 400 after it are held.
        lookUp(hosts[...])
        #expect(table.count == 400)
        lookUp(hosts.suffix(400))
        #expect(table.count == 400)
        #expect(sites.slot(of: SiteKey("site1.example")) == nil)
    }

    /// Hosts that differ only past their common bytes, or only in length, are not confused.
    @Test func hostsThatShareBytesAreKeptApart() {
        let table = HostSiteTable()
        let hosts = ["ab.com", "ab.co", "b.com", "ab.com.", "aab.com", "a.b.com", "example.com", "example.co"]
        let sites = Self.sites(hosts.map(Site.displayName(forHost:)))
        for host in hosts + hosts.reversed() {
            #expect(
                table.slot(forHost: host, in: sites) == sites.slot(of: SiteKey(Site.displayName(forHost: host)))?.index)
        }
    }

    /// Through a store, persistent and not: a host looked up while its site had no cookies gets
    /// them once set; a site emptied sends nothing, and another site taking its slot is not sent
    /// to its hosts; cookies set again are found again; after another process's change the
    /// store reloads, and lookups follow.
    @Test func lookupsFollowSitesThatComeAndGo() throws {
        let dir = TemporaryDirectory()
        for store in [WebsiteDataStore.nonPersistent(), try WebsiteDataStore(directory: dir.url)] {
            let cookies = store.httpCookieStore
            let a = try #require(URL(string: "https://www.a-site.example/"))
            let b = try #require(URL(string: "https://b-site.example/x"))
            try cookies.setCookies(fromSetCookieHeaders: ["x=1"], for: a)
            #expect(try cookies.cookieHeader(for: a) == "x=1")
            #expect(try cookies.cookieHeader(for: b) == nil)
            try cookies.setCookies(fromSetCookieHeaders: ["x=1; Max-Age=0"], for: a)
            #expect(try cookies.cookieHeader(for: a) == nil)
            try cookies.setCookies(fromSetCookieHeaders: ["y=2"], for: b)
            #expect(try cookies.cookieHeader(for: b) == "y=2")
            #expect(try cookies.cookieHeader(for: a) == nil)
            try cookies.setCookies(fromSetCookieHeaders: ["z=3"], for: a)
            #expect(try cookies.cookieHeader(for: a) == "z=3")
            #expect(try cookies.cookieHeader(for: b) == "y=2")
        }
        // Another process's store removes one site and adds another.
        let mine = try WebsiteDataStore(directory: dir.url).httpCookieStore
        let c = try #require(URL(string: "https://c-site.example/"))
        #expect(try mine.cookieHeader(for: c) == nil)
        let other = try WebsiteDataStore(directory: dir.url).httpCookieStore
        try other.setCookies(
            fromSetCookieHeaders: ["z=3; Max-Age=0"], for: try #require(URL(string: "https://www.a-site.example/")))
        try other.setCookies(fromSetCookieHeaders: ["w=4"], for: c)
        #expect(try mine.cookieHeader(for: c) == "w=4")
        #expect(try mine.cookieHeader(for: try #require(URL(string: "https://www.a-site.example/"))) == nil)
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
            let cookie = Cookie(
                name: "c\(i)", value: "\(i)", domain: "example.com", path: paths.randomElement(using: &random)!,
                isHostOnly: true, created: created)
            site.append(cookie)
            cookies.append(cookie)
        }
        let url = try #require(URL(string: "http://example.com/a/b/c/d"))
        let request = try #require(CanonicalCookie.RequestFacts(url: url))
        var touched: [Cookie] = []
        let header = site.withMatches(
            request, url: url, context: .topLevelNavigation, api: .http, now: now, touched: &touched
        ) { $0.header }
        // Ties (equal path length and creation) keep insertion order.
        let expected = cookies.enumerated().sorted { a, b in
            if a.element.path.utf8.count != b.element.path.utf8.count {
                return a.element.path.utf8.count > b.element.path.utf8.count
            }
            if a.element.created != b.element.created { return a.element.created < b.element.created }
            return a.offset < b.offset
        }.map { "\($0.element.name)=\($0.element.value)" }.joined(separator: "; ")
        #expect(header == expected)
    }

    @Test func loopbackHosts() {
        for host in ["localhost", "a.localhost", "x.y.localhost", "::1", "127.0.0.1", "127.1.2.3", "127.255.255.255"] {
            #expect(Site.isLoopback(host), "\(host)")
        }
        for host in [
            "", "localhost.com", "notlocalhost", "alocalhost", "::2", "::10", "127.", "127.example", "128.0.0.1",
            "1127.0.0.1", "127.0.0.1.com", "localhos", "ocalhost",
        ] {
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
        let hosts = [
            "example.com", "EXAMPLE.com", "www.Example.CO.uk", "[::1]", "[2001:DB8::1]", "[::1", "::1", "127.0.0.1",
            "localhost", "a.localhost", "LocalHost", "A.LOCALHOST", "xn--bcher-kva.de", "bücher.de", "ex%41mple.com",
            "", "a b.com",
            "example.com.", "-x-.com", "1.2.3", "[v1.x]", "exa_mple.com",
        ]
        let ports = ["", ":80", ":", ":8080", ":x"]
        let paths = ["", "/", "/a/b", "/a%20b", "/ä", "/a/../b", "//x", "/a:b@c", "/%", "/a b", "/?", "/a#b"]
        let queries = ["", "?q", "?a/b", "?@x", "?#", "?x=%41"]
        let fragments = ["", "#f", "#/x", "#?y"]
        var random = SystemRandomNumberGenerator()
        var compared = 0
        var quick = 0
        for _ in 0..<20_000 {
            let string =
                schemes.randomElement(using: &random)! + separators.randomElement(using: &random)!
                + users.randomElement(using: &random)! + hosts.randomElement(using: &random)! + ports.randomElement(
                    using: &random)!
                + paths.randomElement(using: &random)! + queries.randomElement(using: &random)!
                + fragments.randomElement(using: &random)!
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
        for string in [
            "http://example.com/", "https://www.example.co.uk/a/b?q=1#f", "http://EXAMPLE.com", "http://[::1]:8080/x",
            "http://user:pw@example.com:81/p", "wss://example.com/socket", "http://127.0.0.1/",
        ] {
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
