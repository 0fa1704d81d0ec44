import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// A process that makes one lookup on a read-only store (`wkstore cookies header`) reads the
/// request's site alone, and answers exactly what a store holding every cookie answers.
@Suite(.ownThreads, .bothEngines) struct OneLookupTests {
    let dir = TemporaryDirectory()
    let clock = TestClock()

    /// The store `dir` holds, opened read-only: it reads no cookie until a call needs them.
    func readOnly() throws -> WebsiteDataStore {
        guard TestEngine.current == .postgreSQL else {
            return try WebsiteDataStore(directory: dir.url, identifier: nil, clock: clock.function, readOnly: true)
        }
        return try WebsiteDataStore(
            directory: nil, identifier: nil, clock: clock.function, readOnly: true,
            postgreSQL: try TestEngine.postgreSQLLocation(for: dir.url))
    }

    /// Many sites, each with host-only and domain cookies on several hosts and paths, Secure,
    /// HttpOnly, every SameSite, Partitioned cookies for two top-level sites, cookies that expire
    /// before the lookups, a batch made in one call (equal creation times, so header order falls
    /// back to load order), and changes logged after the last fold: sets, deletes, overwrites and
    /// accesses.
    func fill() throws -> [URL] {
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        try store.set(.cookiesMaxTotal, to: "100000")
        let cookies = store.httpCookieStore
        var urls: [URL] = []
        let embedded = CookieRequestContext(topLevelSite: URL(string: "https://news.example.net/")!)
        let elsewhere = CookieRequestContext(topLevelSite: URL(string: "https://blog.example.io/")!)
        func write(_ i: Int, generation: Int) throws {
            let site = "site\(i).com"
            for host in [site, "www.\(site)", "a.b.\(site)"] {
                let url = "https://\(host)/a/b/page"
                urls.append(URL(string: url)!)
                try cookies.set(
                    url, "host\(generation)=\(i); Path=/", "path=\(generation); Path=/a",
                    "deep=\(generation); Path=/a/b; Secure; HttpOnly",
                    "dom\(generation % 2)=\(host); Domain=\(site); Path=/; Max-Age=86400",
                    "strict=1; Domain=\(site); SameSite=Strict", "lax=1; SameSite=Lax; Path=/a",
                    "none=1; SameSite=None; Secure", "short\(generation)=1; Max-Age=50")
                clock.advance(1)
            }
            urls.append(URL(string: "https://widget.\(site)/")!)
            try cookies.set(
                "https://widget.\(site)/", "chip=\(generation); Secure; Path=/; SameSite=None; Partitioned",
                context: i % 2 == 0 ? embedded : elsewhere)
            clock.advance(1)
        }
        for i in 0..<30 { try write(i, generation: 0) }
        // Equal creation times: one call, one clock reading.
        try cookies.setCookies(
            (0..<30).flatMap { i in
                (0..<4).map { n in
                    Cookie(
                        name: "batch\(n)", value: "\(i)", domain: "site\(i % 10).com", path: n % 2 == 0 ? "/" : "/a",
                        isHostOnly: n == 3, expires: clock.now.addingTimeInterval(86400), created: clock.now)
                }
            })
        for url in urls.prefix(40) { _ = try cookies.cookieHeader(for: url) }
        clock.advance(30)
        try store.database.foldChangeLog()
        // Logged after the fold: overwrites, new cookies and sites, deletes, accesses.
        for i in stride(from: 0, to: 40, by: 3) { try write(i, generation: 1) }
        for i in stride(from: 1, to: 30, by: 4) {
            try cookies.set(
                "https://www.site\(i).com/", "host0=; Path=/; Max-Age=0", "dom0=; Domain=site\(i).com; Max-Age=0")
        }
        for url in urls.suffix(40) { _ = try cookies.cookieHeader(for: url) }
        try cookies.set("https://www.site2.com/", "late=1")
        // Some cookies expire before the lookups: those of the table and those of the log.
        clock.advance(40)
        for host in ["127.0.0.1", "localhost", "foo.github.io", "www.example.co.uk"] {
            try cookies.set("http://\(host)/", "h=\(host)", "p=1; Path=/x")
            urls += [URL(string: "http://\(host)/x/y")!, URL(string: "http://\(host)/")!]
        }
        urls += ["https://unknown.example/", "https://site1.com/", "http://site3.com/a", "https://c.www.site6.com/a/b"]
            .map { URL(string: $0)! }
        return urls
    }

    /// Every way of asking: navigations, same-site and cross-site subresources, the two
    /// partitions, a cross-site POST.
    let contexts: [CookieRequestContext] = [
        .topLevelNavigation,
        CookieRequestContext(topLevelSite: URL(string: "https://www.site3.com/")!),
        CookieRequestContext(topLevelSite: URL(string: "https://news.example.net/")!),
        CookieRequestContext(topLevelSite: URL(string: "https://blog.example.io/")!, method: "POST"),
        CookieRequestContext(topLevelSite: URL(string: "https://other.example/")!, isNavigation: true),
    ]

    @Test func oneLookupAnswersWhatTheWholeStoreAnswers() throws {
        var urls = try fill()
        urls += urls.map { URL(string: $0.absoluteString.replacingOccurrences(of: "/a/b/page", with: "/"))! }
        let whole = try readOnly()
        #expect(try whole.httpCookieStore.allCookies().count > 500)
        // Each of its lookups reads the database again, as a process that makes one lookup does.
        let one = try readOnly().httpCookieStore
        var compared = 0
        var sent = 0
        for url in urls {
            for context in contexts {
                let expected = try whole.httpCookieStore.cookies(for: url, context: context)
                let found = try one.cookiesOfOneLookup(for: url, context: context)
                #expect(found == expected, "\(url) from \(context.topLevelSite?.absoluteString ?? "the address bar")")
                // It read one site: the store's own memory is still unread.
                #expect(!one.memoryHoldsCookies)
                compared += 1
                sent += found.count
            }
        }
        #expect(compared > 500)
        #expect(sent > 1000)
    }

    /// A row filed under another site than its domain's (as an older public suffix list filed
    /// it, before a writable open refiles it) is still found, as the whole store finds it.
    @Test func aCookieFiledUnderAParentDomainIsFound() throws {
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        try store.httpCookieStore.set("https://a.b.example.com/", "old=1; Max-Age=3600", "other=2; Max-Age=3600")
        try store.database.foldChangeLog()
        let side = try sideConnection(to: dir.url)
        try side.execute("UPDATE cookies SET site = 'b.example.com' WHERE name = 'old'", [])
        let url = URL(string: "https://a.b.example.com/")!
        let expected = try readOnly().httpCookieStore.cookies(for: url)
        #expect(Set(expected.map(\.name)) == ["old", "other"])
        #expect(try readOnly().httpCookieStore.cookiesOfOneLookup(for: url) == expected)
    }

    /// The jar of one site holds that site's cookies and no other's.
    @Test func theJarOfOneSiteHoldsItsSiteAlone() throws {
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        try store.httpCookieStore.set("https://www.example.com/", "a=1; Domain=example.com", "b=2")
        try store.httpCookieStore.set("https://example.org/", "c=3")
        let jar = try store.database.read { db in
            try CookiePersistence.loadSite(ofHost: "shop.example.com", db, limits: CookieLimits())
        }
        #expect(Set(jar.all.map(\.name)) == ["a", "b"])
    }

    /// A writable store holds every cookie: its one lookup is its ordinary lookup.
    @Test func aWritableStoreAnswersFromMemory() throws {
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        try store.httpCookieStore.set("https://www.example.com/", "a=1")
        let url = URL(string: "https://www.example.com/")!
        #expect(try store.httpCookieStore.cookiesOfOneLookup(for: url).map(\.pair) == ["a=1"])
    }
}
