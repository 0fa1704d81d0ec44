import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

@Suite(.ownThreads, .bothEngines) struct WebStorageApplicationCacheTests {
    let dir = TemporaryDirectory()
    let manifestURL = URL(string: "https://www.example.com/app.appcache")!

    private func entry(_ path: String, _ body: String, kind: ApplicationCacheEntry.Kind = .explicit)
        -> ApplicationCacheEntry
    {
        ApplicationCacheEntry(
            url: URL(string: "https://www.example.com\(path)")!, kind: kind, statusCode: 200,
            headers: [HTTPHeaderField("Content-Type", "text/plain"), HTTPHeaderField("ETag", "\"\(body)\"")],
            body: Data(body.utf8))
    }

    @Test func storesAGroupAndLooksUpEntriesByURL() throws {
        let cache = try WebsiteDataStore.testing(dir.url).applicationCache
        let manifest = Data("CACHE MANIFEST\n/index.html\n/app.js\n".utf8)
        let group = try cache.replaceGroup(
            manifestURL: manifestURL, manifest: manifest,
            entries: [entry("/index.html", "<html>", kind: .master), entry("/app.js", "run()")])
        #expect(group.origin == SecurityOrigin(string: "https://www.example.com"))
        #expect(group.site == "example.com" && group.entryCount == 2 && group.manifest == manifest)

        let reopened = try WebsiteDataStore.testing(dir.url).applicationCache
        let found = try #require(
            try reopened.entry(for: URL(string: "https://www.example.com/app.js#top")!, manifestURL: manifestURL))
        #expect(found.body == Data("run()".utf8) && found.statusCode == 200 && found.kind == .explicit)
        #expect(found.headerValue("etag") == "\"run()\"")
        #expect(found.headers.map(\.name) == ["Content-Type", "ETag"])
        #expect(
            try reopened.entry(for: URL(string: "https://www.example.com/missing.js")!, manifestURL: manifestURL) == nil
        )
        #expect(try reopened.entry(for: URL(string: "https://www.example.com/index.html")!)?.manifestURL == manifestURL)
        #expect(try reopened.entries(manifestURL: manifestURL).map(\.url.path) == ["/app.js", "/index.html"])
        #expect(try reopened.groups(origin: group.origin).map(\.manifestURL) == [manifestURL])
        #expect(try reopened.groups(origin: WebStorageOrigins.other).isEmpty)
    }

    @Test func anUpdateReplacesTheWholeGroup() throws {
        let clock = TestClock()
        let cache = try WebsiteDataStore.testing(dir.url, clock: clock).applicationCache
        let first = try cache.replaceGroup(
            manifestURL: manifestURL, manifest: Data("v1".utf8),
            entries: [entry("/a.js", "a1"), entry("/b.js", "b1")])
        clock.advance(60)
        let second = try cache.replaceGroup(
            manifestURL: manifestURL, manifest: Data("v2".utf8),
            entries: [entry("/a.js", "a2"), entry("/c.js", "c2")])
        #expect(second.created == first.created && second.modified == first.modified + 60)
        #expect(second.manifest == Data("v2".utf8))
        #expect(
            try cache.entries(manifestURL: manifestURL).map { String(decoding: $0.body, as: UTF8.self) } == [
                "a2", "c2",
            ])
        #expect(try cache.entry(for: URL(string: "https://www.example.com/b.js")!) == nil)
    }

    @Test(.sqliteOnly) func aFailedUpdateLeavesTheOldVersionWhole() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let cache = store.applicationCache
        try cache.replaceGroup(
            manifestURL: manifestURL, manifest: Data("v1".utf8), entries: [entry("/a.js", "a1"), entry("/b.js", "b1")])
        // Make the database refuse one entry of the update, after the old entries were deleted.
        let raw = try SQLiteConnection(location: .file(dir.path("store.sqlite")))
        try raw.execute(
            """
            CREATE TRIGGER refuse BEFORE INSERT ON appcache_entries WHEN NEW.url LIKE '%boom%'
            BEGIN SELECT RAISE(ABORT, 'refused'); END
            """)
        #expect(throws: StoreError.self) {
            try cache.replaceGroup(
                manifestURL: manifestURL, manifest: Data("v2".utf8),
                entries: [entry("/a.js", "a2"), entry("/boom.js", "x"), entry("/c.js", "c2")])
        }
        let group = try #require(try cache.group(manifestURL: manifestURL))
        #expect(group.manifest == Data("v1".utf8))
        #expect(
            try cache.entries(manifestURL: manifestURL).map { String(decoding: $0.body, as: UTF8.self) } == [
                "a1", "b1",
            ])
    }

    @Test func lookupAcrossGroupsPrefersTheNewest() throws {
        let clock = TestClock()
        let cache = try WebsiteDataStore.testing(dir.url, clock: clock).applicationCache
        let other = URL(string: "https://www.example.com/other.appcache")!
        try cache.replaceGroup(manifestURL: manifestURL, manifest: Data(), entries: [entry("/shared.css", "old")])
        clock.advance(1)
        try cache.replaceGroup(manifestURL: other, manifest: Data(), entries: [entry("/shared.css", "new")])
        let found = try #require(try cache.entry(for: URL(string: "https://www.example.com/shared.css")!))
        #expect(found.manifestURL == other && found.entry.body == Data("new".utf8))
        #expect(try cache.deleteGroup(manifestURL: other))
        #expect(
            try cache.entry(for: URL(string: "https://www.example.com/shared.css")!)?.entry.body == Data("old".utf8))
        #expect(try !cache.deleteGroup(manifestURL: other))
    }

    @Test func aManifestURLWithoutAnOriginIsRefused() throws {
        let cache = try WebsiteDataStore.testing(dir.url).applicationCache
        #expect(throws: StoreError.self) {
            try cache.replaceGroup(
                manifestURL: URL(string: "data:text/cache-manifest,CACHE")!, manifest: Data(), entries: [])
        }
    }
}
