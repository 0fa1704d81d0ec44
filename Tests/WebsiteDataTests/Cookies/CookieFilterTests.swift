import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Playwright's filters: deleting by any of name, domain (with its subdomains when asked), path
/// and partition; `cookies(for: [URL])` as `context.cookies(urls)` reads; removal by partition.
@Suite(.bothEngines) struct CookieFilterTests {
    let dir = TemporaryDirectory()
    let clock = TestClock()

    /// A store with cookies of one name on several domains and paths, and partitioned ones.
    func filled() throws -> WebsiteDataStore {
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        let cookies = store.httpCookieStore
        try cookies.set("https://www.example.com/", "sid=1; Max-Age=3600", "theme=dark; Max-Age=3600")
        try cookies.set("https://www.example.com/account/x", "sid=2; Path=/account; Max-Age=3600")
        try cookies.set("https://example.com/", "sid=3; Max-Age=3600")
        try cookies.set("https://shop.example.com/", "sid=4; Domain=example.com; Max-Age=3600")
        try cookies.set("https://other.example.org/", "sid=5; Max-Age=3600", "lang=en")
        let embedded = CookieRequestContext(topLevelSite: URL(string: "https://news.example.net/")!)
        try cookies.set(
            "https://widget.example.org/", "chip=a; Secure; Path=/; SameSite=None; Partitioned; Max-Age=3600",
            context: embedded)
        let elsewhere = CookieRequestContext(topLevelSite: URL(string: "https://blog.example.io/")!)
        try cookies.set(
            "https://widget.example.org/", "chip=b; Secure; Path=/; SameSite=None; Partitioned; Max-Age=3600",
            context: elsewhere)
        return store
    }

    static func described(_ cookies: [Cookie]) -> Set<String> {
        Set(cookies.map { "\($0.name)=\($0.value)@\($0.domain)\($0.path)" })
    }

    @Test func aNameAloneIsDeletedEverywhereAndADryRunDeletesNothing() throws {
        let store = try filled()
        let cookies = store.httpCookieStore
        let wouldGo = try cookies.deleteCookies(matching: CookieFilter(name: "sid"), dryRun: true)
        #expect(wouldGo.count == 5)
        #expect(try cookies.allCookies().filter { $0.name == "sid" }.count == 5, "a dry run deletes nothing")
        let deleted = try cookies.deleteCookies(matching: CookieFilter(name: "sid"))
        #expect(Self.described(deleted) == Self.described(wouldGo))
        #expect(try cookies.allCookies().contains { $0.name == "sid" } == false)
        // Every other process's object sees it too: a fresh one reads the same.
        let reopened = try WebsiteDataStore.testing(dir.url, clock: clock)
        #expect(try reopened.httpCookieStore.allCookies().contains { $0.name == "sid" } == false)
        #expect(try reopened.httpCookieStore.header("https://www.example.com/") == "theme=dark")
    }

    @Test func aDomainMatchesItselfOrItsSubdomainsWhenAsked() throws {
        let store = try filled()
        let cookies = store.httpCookieStore
        let exact = try cookies.cookies(matching: CookieFilter(domain: ".Example.com"))
        #expect(Self.described(exact) == ["sid=3@example.com/", "sid=4@example.com/"])
        let wide = try cookies.cookies(matching: CookieFilter(domain: "example.com", includesSubdomains: true))
        #expect(
            Self.described(wide) == [
                "sid=1@www.example.com/", "theme=dark@www.example.com/", "sid=2@www.example.com/account",
                "sid=3@example.com/", "sid=4@example.com/",
            ])
        // A subdomain match is at a dot: `badexample.com` is not under `example.com`.
        try cookies.set("https://badexample.com/", "x=1; Max-Age=3600")
        #expect(
            !(try cookies.cookies(matching: CookieFilter(domain: "example.com", includesSubdomains: true))).contains {
                $0.domain == "badexample.com"
            })
        let deleted = try cookies.deleteCookies(
            matching: CookieFilter(name: "sid", domain: "example.com", includesSubdomains: true, path: "/"))
        #expect(Self.described(deleted) == ["sid=1@www.example.com/", "sid=3@example.com/", "sid=4@example.com/"])
        #expect(try cookies.header("https://www.example.com/account/y") == "sid=2; theme=dark")
        #expect(try cookies.header("https://other.example.org/") == "sid=5; lang=en")
    }

    @Test func partitionsAreListedAndRemovedAlone() throws {
        let store = try filled()
        let cookies = store.httpCookieStore
        let key = try #require(CookieFilter.partitionKey(forTopLevelSite: "https://www.news.example.net/page"))
        #expect(key == "https://example.net")
        #expect(CookieFilter.partitionKey(forTopLevelSite: "blog.example.io") == "https://example.io")
        #expect(CookieFilter.partitionKey(forTopLevelSite: "https://") == nil)
        let listed = try cookies.cookies(matching: CookieFilter(partitionKey: key))
        #expect(listed.map(\.value) == ["a"])
        #expect(try cookies.cookies(matching: CookieFilter(partitionKey: "")).count == 7, "the unpartitioned ones")

        // A removal by partition takes that partition's cookies and nothing of any other type.
        try store.localStorage.setItem("k", "v", origin: SecurityOrigin(string: "https://widget.example.org")!)
        let dry = try store.removeData(
            ofTypes: Set(WebsiteDataType.allCases), matching: RemovalFilter(partitionKey: key), dryRun: true)
        #expect(dry.map(\.displayName) == ["example.org"] && dry.first?.counts == [.cookies: 1])
        let removed = try store.removeData(
            ofTypes: Set(WebsiteDataType.allCases), matching: RemovalFilter(partitionKey: key))
        #expect(removed.first?.dataTypes == [.cookies])
        #expect(try cookies.allCookies().filter { $0.name == "chip" }.map(\.value) == ["b"])
        #expect(
            try store.localStorage.getItem("k", origin: SecurityOrigin(string: "https://widget.example.org")!) == "v")
    }

    @Test func cookiesForURLsReadAsPlaywrightWithoutTouchingAccessTimes() throws {
        let store = try filled()
        let cookies = store.httpCookieStore
        try cookies.set("https://www.example.com/", "strict=1; SameSite=Strict; Secure; HttpOnly; Max-Age=3600")
        let before = try cookies.allCookies()
        clock.advance(60)
        let read = try cookies.cookies(for: [
            URL(string: "https://www.example.com/account/page")!, URL(string: "http://other.example.org/")!,
        ])
        #expect(
            Self.described(read) == [
                "sid=1@www.example.com/", "theme=dark@www.example.com/", "sid=2@www.example.com/account",
                "sid=4@example.com/", "strict=1@www.example.com/", "sid=5@other.example.org/",
                "lang=en@other.example.org/",
            ])
        // A Secure cookie only for a secure URL; SameSite and partitions are not applied.
        let insecure = try cookies.cookies(for: [URL(string: "http://www.example.com/")!])
        #expect(!insecure.contains { $0.name == "strict" })
        let widget = try cookies.cookies(for: [URL(string: "https://widget.example.org/")!])
        #expect(Set(widget.map(\.value)) == ["a", "b"])
        #expect(try cookies.cookies(for: []).count == before.count)
        // Nothing was marked accessed.
        let after = try WebsiteDataStore.testing(dir.url, clock: clock).httpCookieStore.allCookies()
        #expect(
            Dictionary(uniqueKeysWithValues: after.map { ($0.key, $0.lastAccess) })
                == Dictionary(uniqueKeysWithValues: before.map { ($0.key, $0.lastAccess) }))
    }
}
