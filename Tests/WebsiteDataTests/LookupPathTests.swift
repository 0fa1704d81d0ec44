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
}
