import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// RFC 6265bis storage model and retrieval rules: each with a case that must be refused.
@Suite(.ownThreads, .bothEngines) struct CookieStorageModelTests {
    let clock = TestClock()
    let store: HTTPCookieStore
    let dataStore: WebsiteDataStore

    init() throws {
        dataStore = try WebsiteDataStore.testing(clock: clock)
        store = dataStore.httpCookieStore
    }

    func reasons(_ summary: CookieWriteSummary) -> [CookieRejection.Reason] { summary.rejected.map(\.reason) }

    // MARK: Domain and public suffixes

    @Test func domainCookieReachesSubdomains() throws {
        try store.set("http://www.example.com/", "a=1; Domain=example.com")
        #expect(try store.header("http://example.com/") == "a=1")
        #expect(try store.header("http://deep.www.example.com/") == "a=1")
        #expect(try store.header("http://notexample.com/") == nil)
    }

    @Test func hostOnlyCookieStaysOnItsHost() throws {
        try store.set("http://www.example.com/", "a=1")
        #expect(try store.header("http://www.example.com/") == "a=1")
        #expect(try store.header("http://sub.www.example.com/") == nil)
        #expect(try store.header("http://example.com/") == nil)
    }

    @Test func publicSuffixDomainsAreRefused() throws {
        #expect(reasons(try store.set("http://www.example.com/", "a=1; Domain=com")) == [.publicSuffixDomain])
        #expect(reasons(try store.set("http://www.example.co.uk/", "a=1; Domain=co.uk")) == [.publicSuffixDomain])
        #expect(reasons(try store.set("https://me.github.io/", "a=1; Domain=github.io")) == [.publicSuffixDomain])
        #expect(try store.allCookies().isEmpty)
    }

    @Test func publicSuffixHostKeepsAHostOnlyCookieUnderItsOwnName() async throws {
        // The Domain equals the host, which is a public suffix: it becomes host-only (5.7 step 6).
        #expect(try store.set("https://github.io/", "a=1; Domain=github.io").stored == 1)
        let cookie = try #require(try store.allCookies().first)
        #expect(cookie.isHostOnly && cookie.domain == "github.io")
        #expect(try store.header("https://me.github.io/") == nil)
        let records = try await dataStore.dataRecords(ofTypes: [.cookies])
        #expect(records.map(\.displayName) == ["github.io"])
    }

    @Test func domainMustMatchTheHost() throws {
        #expect(reasons(try store.set("http://www.example.com/", "a=1; Domain=other.com")) == [.domainMismatch])
        #expect(reasons(try store.set("http://example.com/", "a=1; Domain=www.example.com")) == [.domainMismatch])
        #expect(try store.set("http://www.example.com/", "a=1; Domain=.EXAMPLE.com").stored == 1)
        #expect(try store.allCookies().first?.domain == "example.com")
    }

    @Test func ipAddressesTakeNoDomainCookiesForOthers() throws {
        #expect(reasons(try store.set("http://10.0.0.1/", "a=1; Domain=0.0.1")) == [.domainMismatch])
        #expect(try store.set("http://10.0.0.1/", "b=2").stored == 1)
        #expect(try store.header("http://10.0.0.1/") == "b=2")
    }

    // MARK: Prefixes

    @Test func securePrefixNeedsSecure() throws {
        #expect(reasons(try store.set("https://example.com/", "__Secure-a=1")) == [.prefix])
        #expect(reasons(try store.set("https://example.com/", "__SECURE-a=1")) == [.prefix])
        #expect(try store.set("https://example.com/", "__Secure-a=1; Secure").stored == 1)
        #expect(reasons(try store.set("http://example.com/", "__Secure-b=1; Secure")) == [.secureFromInsecureOrigin])
    }

    @Test func hostPrefixNeedsSecureHostOnlyRootPath() throws {
        #expect(
            reasons(try store.set("https://example.com/", "__Host-a=1; Secure; Path=/; Domain=example.com")) == [
                .prefix
            ])
        #expect(reasons(try store.set("https://example.com/x/y", "__Host-a=1; Secure")) == [.prefix])
        #expect(reasons(try store.set("https://example.com/", "__Host-a=1; Path=/")) == [.prefix])
        #expect(reasons(try store.set("https://example.com/", "__host-a=1; Secure; Path=/x")) == [.prefix])
        #expect(try store.set("https://example.com/", "__Host-a=1; Secure; Path=/").stored == 1)
    }

    @Test func namelessCookiesCannotHidePrefixes() throws {
        #expect(reasons(try store.set("https://example.com/", "__Host-x; Secure; Path=/")) == [.prefix])
        #expect(reasons(try store.set("https://example.com/", "__Secure-x; Secure")) == [.prefix])
    }

    // MARK: Secure

    @Test func secureOnlyFromSecureOrigins() throws {
        #expect(reasons(try store.set("http://example.com/", "a=1; Secure")) == [.secureFromInsecureOrigin])
        #expect(try store.set("https://example.com/", "a=1; Secure").stored == 1)
        #expect(try store.set("http://localhost:8080/", "b=1; Secure").stored == 1)
        #expect(try store.set("http://127.0.0.1/", "c=1; Secure").stored == 1)
    }

    @Test func secureCookiesAreNotSentOverHTTPExceptToLocalhost() throws {
        try store.set("https://example.com/", "a=1; Secure", "b=2")
        #expect(try store.header("https://example.com/") == "a=1; b=2")
        #expect(try store.header("http://example.com/") == "b=2")
        try store.set("http://localhost/", "c=3; Secure")
        #expect(try store.header("http://localhost/") == "c=3")
    }

    @Test func insecureOriginCannotOverwriteOrShadowSecureCookie() throws {
        try store.set("https://example.com/", "a=secure; Secure; Path=/")
        #expect(reasons(try store.set("http://example.com/", "a=plain")) == [.wouldOverwriteSecure])
        #expect(
            reasons(try store.set("http://www.example.com/", "a=plain; Domain=example.com; Path=/deeper")) == [
                .wouldOverwriteSecure
            ])
        #expect(try store.header("https://example.com/") == "a=secure")
        // Another name is fine, and a secure origin may overwrite.
        #expect(try store.set("http://example.com/", "b=plain").stored == 1)
        #expect(try store.set("https://example.com/", "a=new; Secure").stored == 1)
        #expect(try store.header("https://example.com/") == "a=new; b=plain")
    }

    // MARK: HttpOnly

    @Test func scriptCannotSetOrOverwriteHttpOnly() throws {
        #expect(reasons(try store.set("https://example.com/", "a=1; HttpOnly", api: .nonHTTP)) == [.httpOnlyFromScript])
        try store.set("https://example.com/", "b=http; HttpOnly")
        #expect(reasons(try store.set("https://example.com/", "b=script", api: .nonHTTP)) == [.httpOnlyFromScript])
        #expect(try store.header("https://example.com/") == "b=http")
        #expect(try store.cookies(for: URL(string: "https://example.com/")!, api: .nonHTTP).isEmpty)
        try store.set("https://example.com/", "c=script", api: .nonHTTP)
        #expect(try store.cookies(for: URL(string: "https://example.com/")!, api: .nonHTTP).map(\.pair) == ["c=script"])
    }

    // MARK: Expiry

    @Test func maxAgeZeroOrNegativeDeletes() throws {
        try store.set("http://example.com/", "a=1", "b=2", "c=3")
        let summary = try store.set("http://example.com/", "a=x; Max-Age=0", "b=x; Max-Age=-5")
        #expect(summary.deleted == 2)
        #expect(try store.header("http://example.com/") == "c=3")
    }

    @Test func expiresInThePastDeletes() throws {
        try store.set("http://example.com/", "a=1")
        try store.set("http://example.com/", "a=1; Expires=Thu, 01 Jan 2015 00:00:00 GMT")
        #expect(try store.header("http://example.com/") == nil)
    }

    @Test func maxAgeWinsOverExpires() throws {
        try store.set("http://example.com/", "a=1; Expires=Thu, 01 Jan 2015 00:00:00 GMT; Max-Age=60")
        #expect(try store.header("http://example.com/") == "a=1")
        clock.advance(61)
        #expect(try store.header("http://example.com/") == nil)
    }

    @Test func expiryIsCappedAt400Days() throws {
        try store.set("http://example.com/", "a=1; Max-Age=999999999", "b=1; Expires=Fri, 01 Jan 9999 00:00:00 GMT")
        for cookie in try store.allCookies() {
            #expect(cookie.expires == clock.now.addingTimeInterval(400 * 86400))
        }
    }

    @Test func cookiesExpireWithTheClock() throws {
        try store.set("http://example.com/", "a=1; Max-Age=10", "b=2")
        clock.advance(10)
        #expect(try store.header("http://example.com/") == "b=2")
    }

    // MARK: Size limits

    @Test func nameAndValueLimitIs4096Bytes() throws {
        let fits = "n=" + String(repeating: "v", count: 4095)
        let over = "n=" + String(repeating: "v", count: 4096)
        #expect(try store.set("http://example.com/", fits).stored == 1)
        #expect(reasons(try store.set("http://example.com/", over)) == [.malformed])
        #expect(try store.allCookies().first?.value.count == 4095)
    }

    @Test func attributeOver1024BytesIsIgnored() throws {
        let longPath = "/" + String(repeating: "p", count: 1024)
        try store.set("http://example.com/dir/page", "a=1; Path=\(longPath)")
        #expect(try store.allCookies().first?.path == "/dir")
    }

    @Test func controlCharactersRefuseTheCookie() throws {
        #expect(reasons(try store.set("http://example.com/", "a=b\u{01}c")) == [.malformed])
        #expect(reasons(try store.set("http://example.com/", "a=b\u{7F}")) == [.malformed])
        #expect(try store.set("http://example.com/", "a=b\tc").stored == 1)
    }

    // MARK: Paths and ordering

    @Test func defaultPathIsTheDirectoryOfTheRequest() throws {
        try store.set("http://example.com/docs/guide/page.html", "a=1")
        try store.set("http://example.com/top", "b=1")
        try store.set("http://example.com/x/", "c=1; Path=relative")
        let paths = Dictionary(uniqueKeysWithValues: try store.allCookies().map { ($0.name, $0.path) })
        #expect(paths == ["a": "/docs/guide", "b": "/", "c": "/x"])
        #expect(try store.header("http://example.com/docs/guide") == "a=1; b=1")
        #expect(try store.header("http://example.com/docs/guidebook") == "b=1")
    }

    @Test func orderIsLongerPathFirstThenEarlierCreation() throws {
        try store.set("http://example.com/", "first=1; Path=/")
        clock.advance(1)
        try store.set("http://example.com/", "deep=1; Path=/a/b")
        clock.advance(1)
        try store.set("http://example.com/", "second=1; Path=/")
        clock.advance(1)
        try store.set("http://example.com/", "mid=1; Path=/a")
        #expect(try store.header("http://example.com/a/b/c") == "deep=1; mid=1; first=1; second=1")
    }

    @Test func overwriteKeepsCreationTimeAndUpdatesModification() throws {
        try store.set("http://example.com/", "a=1")
        let created = clock.now
        clock.advance(5)
        try store.set("http://example.com/", "b=1")
        clock.advance(5)
        try store.set("http://example.com/", "a=2")
        let a = try #require(try store.allCookies().first { $0.name == "a" })
        #expect(a.created == created)
        #expect(a.modified == clock.now)
        #expect(try store.header("http://example.com/") == "a=2; b=1")
    }

    @Test func readingNeverChangesModificationTime() throws {
        try store.set("http://example.com/", "a=1")
        let before = try store.allCookies()[0]
        clock.advance(120)
        _ = try store.header("http://example.com/")
        let after = try store.allCookies()[0]
        #expect(after.modified == before.modified)
        #expect(after.lastAccess == clock.now)
    }

    // MARK: SameSite

    let page = URL(string: "https://news.example/")!
    let otherPage = URL(string: "https://other.test/")!

    @Test func strictIsSentOnlySameSite() throws {
        try store.set("https://news.example/", "s=1; SameSite=Strict; Secure")
        #expect(try store.header("https://news.example/", context: .init(topLevelSite: page)) == "s=1")
        #expect(try store.header("https://news.example/", context: .init(topLevelSite: otherPage)) == nil)
        #expect(
            try store.header("https://news.example/", context: .init(topLevelSite: otherPage, isNavigation: true))
                == nil)
    }

    @Test func laxIsSentOnCrossSiteTopLevelSafeNavigationsOnly() throws {
        try store.set("https://news.example/", "l=1; SameSite=Lax", "d=1")
        let navigation = CookieRequestContext(topLevelSite: otherPage, isNavigation: true)
        #expect(try store.header("https://news.example/", context: navigation) == "l=1; d=1")
        let post = CookieRequestContext(topLevelSite: otherPage, method: "POST", isNavigation: true)
        #expect(try store.header("https://news.example/", context: post) == nil)
        let subresource = CookieRequestContext(topLevelSite: otherPage)
        #expect(try store.header("https://news.example/", context: subresource) == nil)
    }

    @Test func noneIsSentCrossSiteAndNeedsSecure() throws {
        #expect(reasons(try store.set("https://news.example/", "n=1; SameSite=None")) == [.sameSite])
        try store.set("https://news.example/", "n=1; SameSite=None; Secure")
        #expect(try store.header("https://news.example/", context: .init(topLevelSite: otherPage)) == "n=1")
    }

    @Test func sameSiteIsSchemeful() throws {
        try store.set("https://news.example/", "s=1; SameSite=Strict")
        let insecureTop = CookieRequestContext(topLevelSite: URL(string: "http://news.example/")!)
        #expect(try store.header("https://news.example/", context: insecureTop) == nil)
    }

    @Test func sameSiteCookiesAreNotSetFromCrossSiteSubresources() throws {
        let crossSite = CookieRequestContext(topLevelSite: otherPage)
        #expect(reasons(try store.set("https://news.example/", "l=1; SameSite=Lax", context: crossSite)) == [.sameSite])
        #expect(reasons(try store.set("https://news.example/", "d=1", context: crossSite)) == [.sameSite])
        #expect(try store.set("https://news.example/", "n=1; SameSite=None; Secure", context: crossSite).stored == 1)
        let navigation = CookieRequestContext(topLevelSite: otherPage, isNavigation: true)
        #expect(try store.set("https://news.example/", "l=1; SameSite=Lax", context: navigation).stored == 1)
    }

    // MARK: Partitioned

    @Test func partitionedCookiesStayInTheirTopLevelSite() throws {
        let embedded = CookieRequestContext(topLevelSite: URL(string: "https://site-a.example/")!)
        #expect(
            reasons(try store.set("https://widget.example/", "p=1; Partitioned; SameSite=None", context: embedded)) == [
                .sameSite
            ])
        #expect(
            reasons(try store.set("https://widget.example/", "p=1; Partitioned", context: .init())) == [.partitioned])
        try store.set("https://widget.example/", "p=1; Partitioned; Secure; SameSite=None", context: embedded)
        #expect(try store.header("https://widget.example/", context: embedded) == "p=1")
        let elsewhere = CookieRequestContext(topLevelSite: URL(string: "https://site-b.example/")!)
        #expect(try store.header("https://widget.example/", context: elsewhere) == nil)
    }

    // MARK: Limits and eviction

    @Test func perSiteLimitEvictsLeastRecentlyUsedNonSecureFirst() throws {
        try dataStore.set(.cookiesMaxPerSite, to: "3")
        try store.set("https://example.com/", "secure-old=1; Secure")
        clock.advance(100)
        try store.set("https://example.com/", "plain-old=1")
        clock.advance(100)
        try store.set("https://example.com/", "plain-new=1")
        clock.advance(100)
        let summary = try store.set("https://example.com/", "newest=1")
        #expect(summary.evicted == 1)
        let names = Set(try store.allCookies().map(\.name))
        #expect(names == ["secure-old", "plain-new", "newest"])
        // Another site is not affected by this site's limit.
        try store.set("https://other.example/", "x=1")
        #expect(try store.allCookies().count == 4)
    }

    @Test func accessRefreshesAgainstEviction() throws {
        try dataStore.set(.cookiesMaxPerSite, to: "2")
        try store.set("https://example.com/a", "a=1; Path=/a")
        clock.advance(100)
        try store.set("https://example.com/b", "b=1; Path=/b")
        clock.advance(100)
        _ = try store.header("https://example.com/a")
        clock.advance(100)
        try store.set("https://example.com/", "c=1")
        #expect(Set(try store.allCookies().map(\.name)) == ["a", "c"])
    }

    @Test func totalLimitEvictsAcrossSites() throws {
        try dataStore.set(.cookiesMaxTotal, to: "10")
        for i in 0..<10 {
            try store.set("https://site\(i).example/", "c=\(i)")
            clock.advance(1)
        }
        #expect(try store.allCookies().count == 10)
        let summary = try store.set("https://site10.example/", "c=10")
        #expect(summary.evicted >= 1)
        let kept = try store.allCookies()
        #expect(kept.count <= 10)
        #expect(kept.contains { $0.value == "10" })
        #expect(!kept.contains { $0.value == "0" }, "the least recently used cookie goes first")
    }

    // MARK: Policy

    @Test func blockThirdPartyStoresAndSendsNothingCrossSite() throws {
        try dataStore.set(.cookiesPolicy, to: "block-third-party")
        let embedded = CookieRequestContext(topLevelSite: otherPage)
        #expect(
            reasons(try store.set("https://news.example/", "n=1; SameSite=None; Secure", context: embedded)) == [
                .policy
            ])
        try store.set("https://news.example/", "n=1; SameSite=None; Secure")
        #expect(try store.header("https://news.example/", context: embedded) == nil)
        #expect(try store.header("https://news.example/") == "n=1")
    }

    @Test func disallowStoresAndSendsNothing() throws {
        try store.set("https://news.example/", "a=1")
        try dataStore.set(.cookiesPolicy, to: "disallow")
        #expect(reasons(try store.set("https://news.example/", "b=1")) == [.policy])
        #expect(try store.header("https://news.example/") == nil)
        #expect(throws: StoreError.self) { try dataStore.set(.cookiesPolicy, to: "sometimes") }
    }

    /// The typed policy, as WebKit's cookie store has it: set on one store object, read by
    /// another on the same directory (as another process would), kept in the settings.
    @Test(.sqliteOnly) func theTypedCookiePolicyIsSharedThroughTheSettings() throws {
        let dir = TemporaryDirectory()
        let crawler = try WebsiteDataStore.testing(dir.url)
        let other = try WebsiteDataStore.testing(dir.url)
        #expect(try crawler.httpCookieStore.cookiePolicy == .allowAll)
        try other.httpCookieStore.setCookiePolicy(.disallow)
        #expect(try crawler.httpCookieStore.cookiePolicy == .disallow)
        #expect(reasons(try crawler.httpCookieStore.set("https://news.example/", "b=1")) == [.policy])
        #expect(try crawler.settings()[.cookiesPolicy] == "disallow")
        try other.httpCookieStore.setCookiePolicy(.allowAll)
        try crawler.httpCookieStore.set("https://news.example/", "b=1")
        #expect(try crawler.httpCookieStore.header("https://news.example/") == "b=1")
        let readOnly = try WebsiteDataStore(directory: dir.url, configuration: .init(readOnly: true))
        #expect(throws: StoreError.self) { try readOnly.httpCookieStore.setCookiePolicy(.disallow) }
        #expect(try readOnly.httpCookieStore.cookiePolicy == .allowAll)
    }

    // MARK: API writes

    @Test func apiSetCookieMeetsTheSameRules() throws {
        #expect(throws: CookieRejection(.publicSuffixDomain, name: "a")) {
            try store.setCookie(Cookie(name: "a", value: "1", domain: ".co.uk", isHostOnly: false))
        }
        #expect(throws: CookieRejection(.prefix, name: "__Host-a")) {
            try store.setCookie(Cookie(name: "__Host-a", value: "1", domain: "example.com", path: "/"))
        }
        try store.setCookie(Cookie(name: "a", value: "1", domain: ".example.com", path: "/"))
        #expect(try store.header("https://www.example.com/") == "a=1")
    }

    @Test func deleteRemovesExactlyThatCookie() throws {
        try store.set("https://example.com/", "a=1", "b=2")
        let a = try #require(try store.allCookies().first { $0.name == "a" })
        try store.delete(a)
        #expect(try store.header("https://example.com/") == "b=2")
        #expect(try store.deleteCookies(named: "b", domain: "example.com").count == 1)
        #expect(try store.allCookies().isEmpty)
    }

    @Test func foundationCookiesConvertBothWays() throws {
        try store.set(
            "https://www.example.com/", "a=1; Domain=example.com; Secure; HttpOnly; SameSite=Strict; Max-Age=3600")
        let cookie = try store.allCookies()[0]
        let foundation = try #require(cookie.httpCookie)
        #expect(foundation.domain == ".example.com")
        #expect(foundation.isSecure && foundation.isHTTPOnly)
        let back = Cookie(foundation, now: clock.now)
        #expect(back.key == cookie.key)
        #expect(back.isSecure && back.isHTTPOnly && back.expires == cookie.expires)
    }

    @Test func observersSeeChanges() async throws {
        let changes = store.changes()
        try store.set("https://example.com/", "a=1")
        try store.set("https://example.com/", "a=2")
        try store.set("https://example.com/", "a=2; Max-Age=0")
        var seen: [CookieChangeCause] = []
        for await change in changes {
            seen.append(change.cause)
            if seen.count == 3 { break }
        }
        #expect(seen == [.inserted, .overwritten, .expired])
    }

    /// A subscriber whose stream is full loses the changes made meanwhile, never silently: the
    /// next change it gets counts them. Those it got before are the oldest, without a gap.
    @Test func anObserverThatFallsBehindIsToldHowManyChangesItMissed() async throws {
        let changes = store.changes(bufferLimit: 2)
        for index in 0..<5 { try store.set("https://example.com/", "c\(index)=1") }
        var reader = changes.makeAsyncIterator()
        var seen: [String] = []
        for _ in 0..<2 {
            if let change = await reader.next() { seen.append("\(change.cookie.name) \(change.missedBefore)") }
        }
        try store.set("https://example.com/", "late=1")
        if let change = await reader.next() { seen.append("\(change.cookie.name) \(change.missedBefore)") }
        #expect(seen == ["c0 0", "c1 0", "late 3"])
    }
}

extension CookieStorageModelTests {
    @Test func loweringALimitEvictsAtOnce() throws {
        for i in 0..<5 {
            try store.set("https://example.com/", "c\(i)=1")
            clock.advance(1)
        }
        try dataStore.set(.cookiesMaxPerSite, to: "2")
        #expect(Set(try store.allCookies().map(\.name)) == ["c3", "c4"])
    }
}

extension CookieStorageModelTests {
    @Test func aURLWithAnEmptyPathMatchesTheRootPath() throws {
        try store.set("http://example.com", "a=1; Path=/")
        try store.set("http://example.com?from=query", "b=2")
        #expect(try store.allCookies().map(\.path) == ["/", "/"])
        #expect(try store.header("http://example.com") == "a=1; b=2")
        #expect(try store.header("http://example.com?q=1") == "a=1; b=2")
    }
}
