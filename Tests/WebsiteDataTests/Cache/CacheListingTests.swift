import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// `HTTPCache.entries(sites:)` and `entries(for:)`: listing the disk and memory caches without using them.
@Suite(.ownThreads, .bothEngines) struct CacheListingTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    static let page = "https://www.example.com/page"
    static let script = "https://cdn.example.org/lib.js"

    /// A page of example.com (fresh for 600 s) and a script of example.org fetched for it,
    /// varying on `Accept-Language` (fresh for 60 s).
    func populate(_ store: WebsiteDataStore) async throws {
        let page = CacheTestOrigin(
            headers: ["Cache-Control": "max-age=600", "ETag": "\"p1\""], body: Data("page body".utf8))
        let script = CacheTestOrigin(
            headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"],
            body: Data("script body!".utf8))
        let cache = store.httpCache
        #expect(try await cache.get(Self.page, origin: page.origin).outcome == .miss)
        #expect(
            try await cache.get(
                Self.script, headers: ["Accept-Language": "en"], topLevelSite: URL(string: Self.page)!,
                origin: script.origin
            ).outcome == .miss)
    }

    @Test func listsTheEntriesOfEverySiteWithTheirPolicy() async throws {
        let store = try WebsiteDataStore.testing(directory.url, clock: clock)
        let stored = clock.now
        try await populate(store)
        clock.advance(100)

        let entries = try store.httpCache.entries()
        #expect(entries.map(\.site) == ["example.com", "example.org"])
        let page = try #require(entries.first)
        #expect(page.url.absoluteString == Self.page)
        #expect(page.method == "GET")
        #expect(page.partition == "https://example.com")
        #expect(page.variant.isEmpty)
        #expect(page.status == 200)
        #expect(page.bodySize == 9)
        #expect(page.size == Int64(Self.page.utf8.count + page.policy.headers.byteCount) + 9)
        #expect(page.created == stored && page.modified == stored && page.lastAccess == stored)
        #expect(page.policy.requestTime == stored && page.policy.responseTime == stored)
        #expect(page.policy.timeToLive(at: clock.now) == 500)
        #expect(!page.policy.isStale(at: clock.now))
        #expect(page.isOnDisk && page.isInMemory)

        let script = entries[1]
        #expect(script.url.absoluteString == Self.script)
        #expect(script.partition == "https://example.com")
        #expect(script.variant == [HTTPCache.StoredEntry.VariantField(name: "accept-language", value: "en")])
        #expect(script.bodySize == 12)
        #expect(script.policy.isStale(at: clock.now))
        #expect(script.policy.timeToLive(at: clock.now) == 0)
        #expect(script.policy.age(at: clock.now) == 100)
        // Which request it answers: its partition and variant.
        let english = CacheRequest(url: URL(string: Self.script)!, headers: ["Accept-Language": "en"])
        #expect(script.matches(english, topLevelSite: URL(string: Self.page)!))
        #expect(!script.matches(english))
        #expect(
            !script.matches(
                CacheRequest(url: URL(string: Self.script)!, headers: ["Accept-Language": "fr"]),
                topLevelSite: URL(string: Self.page)!))

        // By site, and by URL (the fragment ignored).
        #expect(try store.httpCache.entries(sites: ["example.org"]).map(\.url.absoluteString) == [Self.script])
        #expect(try store.httpCache.entries(sites: ["example.com", "example.org"]).count == 2)
        #expect(try store.httpCache.entries(sites: []).isEmpty)
        #expect(try store.httpCache.entries(sites: ["example.net"]).isEmpty)
        #expect(try store.httpCache.entries(for: URL(string: Self.page + "#top")!).map(\.site) == ["example.com"])
        #expect(try store.httpCache.entries(for: URL(string: "https://www.example.com/other")!).isEmpty)

        // Another process sees the disk entries (and has none in memory).
        let other = try WebsiteDataStore.testing(directory.url, clock: clock)
        let seen = try other.httpCache.entries()
        #expect(seen.map(\.url.absoluteString) == [Self.page, Self.script])
        #expect(seen.allSatisfy { $0.isOnDisk && !$0.isInMemory })
        #expect(seen.map(\.policy) == entries.map(\.policy))
    }

    @Test func listingIsNotAUse() async throws {
        let store = try WebsiteDataStore.testing(directory.url, clock: clock)
        let stored = clock.now
        try await populate(store)
        for _ in 0..<3 {
            clock.advance(10)
            #expect(try store.httpCache.entries().map(\.lastAccess) == [stored, stored])
            #expect(try store.httpCache.entries(for: URL(string: Self.page)!).map(\.lastAccess) == [stored])
        }
        store.httpCache.waitForPendingWrites()
        let rows = try store.database.read { db in
            try db.rows("SELECT last_access FROM http_cache ORDER BY url DESC") { $0.double(0) }
        }
        #expect(rows == [stored.timeIntervalSince1970, stored.timeIntervalSince1970])

        // A use shows (before it is persisted, and after). The memory copy records a use on disk
        // once a minute at most: this one comes later than that after storing.
        clock.advance(HTTPMemoryCache.diskAccessInterval)
        let used = clock.now
        #expect(try await store.httpCache.get(Self.page, origin: unreachableOrigin).outcome == .hit)
        clock.advance(10)
        #expect(try store.httpCache.entries().map(\.lastAccess) == [used, stored])
        let reopened = try WebsiteDataStore.testing(directory.url, clock: clock)
        #expect(try reopened.httpCache.entries().map(\.lastAccess) == [stored, stored]) // not yet written
        try await populateAgain(store)
        store.httpCache.waitForPendingWrites()
        #expect(try reopened.httpCache.entries().first?.lastAccess == used)
    }

    /// A write (a new entry of another site) persists the last-access times of earlier uses.
    func populateAgain(_ store: WebsiteDataStore) async throws {
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=60"])
        _ = try await store.httpCache.get("https://example.net/", origin: origin.origin)
    }

    @Test func aNonPersistentStoreListsItsMemoryCache() async throws {
        let store = try WebsiteDataStore.testing(clock: clock)
        let stored = clock.now
        try await populate(store)
        clock.advance(30)
        let entries = try store.httpCache.entries()
        #expect(entries.map(\.site) == ["example.com", "example.org"])
        #expect(entries.allSatisfy { !$0.isOnDisk && $0.isInMemory })
        #expect(entries.map(\.lastAccess) == [stored, stored])
        #expect(entries.map(\.created) == [stored, stored])
        #expect(entries.first?.policy.timeToLive(at: clock.now) == 570)
        #expect(entries.first?.bodySize == 9)
        #expect(try store.httpCache.entries(sites: ["example.org"]).map(\.variant.first?.value) == ["en"])

        // A hit is a use; listing again is not.
        #expect(try await store.httpCache.get(Self.page, origin: unreachableOrigin).outcome == .hit)
        let used = clock.now
        clock.advance(30)
        #expect(try store.httpCache.entries().map(\.lastAccess) == [used, stored])
        #expect(try store.httpCache.entries().map(\.lastAccess) == [used, stored])
    }
}
