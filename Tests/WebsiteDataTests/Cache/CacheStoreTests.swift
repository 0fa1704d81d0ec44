import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// An origin for cache tests: counts the requests that reach it and answers with `handler`.
final class CacheTestOrigin: Sendable {
    private let state = Locked<[CacheRequest]>([])
    let handler: @Sendable (CacheRequest, Int) throws -> OriginResponse

    init(_ handler: @escaping @Sendable (CacheRequest, Int) throws -> OriginResponse) { self.handler = handler }

    /// Always the same response.
    convenience init(status: Int = 200, headers: HTTPHeaders, body: Data = Data("hello".utf8)) {
        self.init { _, _ in OriginResponse(status: status, headers: headers, body: .data(body)) }
    }

    var hits: Int { state.withLock { $0.count } }
    var requests: [CacheRequest] { state.withLock { $0 } }

    var origin: HTTPCache.Origin {
        { request in
            let n = self.state.withLock { s -> Int in
                s.append(request)
                return s.count
            }
            return try self.handler(request, n)
        }
    }
}

/// An origin that must not be reached.
let unreachableOrigin: HTTPCache.Origin = { request in
    Issue.record("the origin was asked for \(request.url)")
    throw URLError(.notConnectedToInternet)
}

extension HTTPCache {
    /// A GET of `url` (tests' shorthand).
    func get(
        _ url: String, headers: HTTPHeaders = [], mode: CacheMode = .default, topLevelSite: URL? = nil,
        origin: @escaping Origin
    ) async throws -> CachedResponse {
        try await send(
            CacheRequest(url: URL(string: url)!, headers: headers), mode: mode, topLevelSite: topLevelSite,
            origin: origin)
    }
}

extension CachedResponse {
    /// The body's bytes; a file body is read and deleted, as a caller would.
    func bytes() throws -> Data {
        let data = try body.data()
        if case .file(let url) = body { try FileManager.default.removeItem(at: url) }
        return data
    }
}

/// The disk cache and the memory cache in the store: persistence, limits, removal, variants,
/// partitions and the cross-process coherence of the memory cache.
@Suite(.ownThreads, .bothEngines) struct CacheStoreTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    var cacheFolder: URL { directory.url.appendingPathComponent("cache") }

    func store() throws -> WebsiteDataStore { try WebsiteDataStore.testing(directory.url, clock: clock) }

    /// Files in the cache folder, temporary ones included.
    func files() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cacheFolder.path)) ?? []).sorted()
    }

    /// Body files the rows name.
    func rowFiles(_ store: WebsiteDataStore) throws -> [String] {
        store.httpCache.waitForPendingWrites()
        return try store.database.read { db in
            try db.rows("SELECT body_file FROM http_cache WHERE body_file IS NOT NULL ORDER BY body_file") {
                $0.string(0)
            }
        }
    }

    func rowCount(_ store: WebsiteDataStore) throws -> Int64 {
        store.httpCache.waitForPendingWrites()
        return try store.database.read { try $0.scalar("SELECT count(*) FROM http_cache")?.int64 ?? -1 }
    }

    static func body(_ size: Int, _ byte: UInt8 = 0x61) -> Data { Data(repeating: byte, count: size) }

    // MARK: Persistence

    @Test func storedResponsesSurviveReopeningTheStore() async throws {
        let small = CacheTestOrigin(headers: ["Cache-Control": "max-age=3600"], body: Data("small".utf8))
        let large = CacheTestOrigin(
            headers: ["Cache-Control": "max-age=3600", "ETag": "\"big\""], body: Self.body(200_000))
        do {
            let cache = try store().httpCache
            #expect(try await cache.get("https://example.com/small", origin: small.origin).outcome == .miss)
            #expect(try await cache.get("https://example.com/large", origin: large.origin).outcome == .miss)
        }
        clock.advance(60)
        let reopened = try store()
        let cache = reopened.httpCache
        #expect(cache.memoryUsage == 0)
        let first = try await cache.get("https://example.com/small", origin: unreachableOrigin)
        #expect(first.outcome == .hit)
        #expect(try first.bytes() == Data("small".utf8))
        #expect(first.headers["Age"] == "60")
        let second = try await cache.get("https://example.com/large", origin: unreachableOrigin)
        #expect(second.outcome == .hit)
        // A store directory serves a large body from its file; PostgreSQL keeps it in the row.
        if case .data = second.body, TestEngine.current == .sqlite {
            Issue.record("a large body is served as a file")
            return
        }
        #expect(try second.bytes() == Self.body(200_000))
        #expect(second.headers["ETag"] == "\"big\"")
        #expect(small.hits == 1 && large.hits == 1)
    }

    @Test(.sqliteOnly) func largeBodiesAreFilesAndSmallOnesStayInTheRow() async throws {
        let store = try store()
        let cache = store.httpCache
        let origin = CacheTestOrigin { request, _ in
            let size = request.url.path == "/large" ? HTTPDiskCache.inlineLimit + 1 : HTTPDiskCache.inlineLimit
            return OriginResponse(status: 200, headers: ["Cache-Control": "max-age=60"], body: .data(Self.body(size)))
        }
        _ = try await cache.get("https://example.com/small", origin: origin.origin)
        _ = try await cache.get("https://example.com/large", origin: origin.origin)
        #expect(try rowCount(store) == 2)
        let names = try rowFiles(store)
        #expect(names.count == 1)
        #expect(files() == names)
        let attributes = try FileManager.default.attributesOfItem(
            atPath: cacheFolder.appendingPathComponent(names[0]).path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: cacheFolder.path)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
    }

    @Test(.sqliteOnly) func aStreamedBodyIsAdoptedWithoutACopyAndHandedBackAsTheCallersFile() async throws {
        let store = try store()
        let cache = store.httpCache
        let download = try cache.makeTemporaryBodyFile()
        #expect(download.deletingLastPathComponent().standardizedFileURL == cacheFolder.standardizedFileURL)
        try Self.body(300_000, 0x62).write(to: download)
        let origin = CacheTestOrigin { _, _ in
            OriginResponse(status: 200, headers: ["Cache-Control": "max-age=60"], body: .file(download))
        }
        let miss = try await cache.get("https://example.com/video", origin: origin.origin)
        #expect(miss.outcome == .miss)
        #expect(miss.body == .file(download))
        // The stored body is the same inode: a second name, not a copy.
        let stored = cacheFolder.appendingPathComponent(try #require(try rowFiles(store).first))
        let a = try FileManager.default.attributesOfItem(atPath: stored.path)
        let b = try FileManager.default.attributesOfItem(atPath: download.path)
        #expect((a[.systemFileNumber] as? NSNumber) == (b[.systemFileNumber] as? NSNumber))
        // The caller may delete its file: the entry keeps its own name.
        try FileManager.default.removeItem(at: download)
        let hit = try await cache.get("https://example.com/video", origin: unreachableOrigin)
        #expect(hit.outcome == .hit)
        #expect(try hit.bytes() == Self.body(300_000, 0x62))
        #expect(files() == (try rowFiles(store)))
    }

    // MARK: Size limit

    /// A store whose disk cache holds 350 KB and whose memory cache nothing, and an origin whose
    /// responses are 80,000 bytes, fresh for an hour: the fifth entry takes the cache past its limit.
    private func limitedStore() throws -> (WebsiteDataStore, CacheTestOrigin) {
        let store = try store()
        try store.set(.cacheMaxSize, to: "350KB")
        try store.set(.memoryCacheMaxSize, to: "0")
        let origin = CacheTestOrigin { _, _ in
            OriginResponse(status: 200, headers: ["Cache-Control": "max-age=3600"], body: .data(Self.body(80_000)))
        }
        return (store, origin)
    }

    /// Entries evicted to make room are reported for their own site, with cause eviction, not
    /// only as the writer's write: b.example's writes evict a.example's oldest entry.
    @Test func anEvictionIsReportedForTheSiteWhoseEntriesWent() async throws {
        let (store, origin) = try limitedStore()
        let cache = store.httpCache
        for i in 0..<3 {
            _ = try await cache.get("https://a.example/\(i)", origin: origin.origin)
            clock.advance(1)
        }
        cache.waitForPendingWrites()
        let feed = try store.changes(ofTypes: [.diskCache, .localStorage])
        // The second entry of b.example takes the cache past its limit.
        for i in 0..<2 {
            _ = try await cache.get("https://b.example/\(i)", origin: origin.origin)
            clock.advance(1)
        }
        cache.waitForPendingWrites()
        // A change after the eviction: an eviction logged only as b.example's write makes it the third event.
        try store.localStorage.setItem("k", "v", origin: SecurityOrigin(string: "https://c.example")!)
        let events = try await ChangeFeedTests.first(3, of: feed)
        #expect(
            events.map(ChangeFeedTests.describe) == [
                "diskcache b.example write", "diskcache b.example write", "diskcache a.example eviction",
            ])
        #expect(try rowCount(store) == 4)
    }

    @Test func theLeastRecentlyUsedEntriesAreEvictedToStayWithinTheLimit() async throws {
        let (store, origin) = try limitedStore()
        let cache = store.httpCache
        for i in 0..<4 {
            _ = try await cache.get("https://example.com/\(i)", origin: origin.origin)
            clock.advance(1)
        }
        #expect(try rowCount(store) == 4)
        // Use entry 0 again, so 1 is now the least recently used. A use is recorded on disk
        // once a minute at most: this one comes later than that after storing.
        clock.advance(HTTPMemoryCache.diskAccessInterval)
        let reused = try await cache.get("https://example.com/0", origin: unreachableOrigin)
        #expect(reused.outcome == .hit)
        #expect(try reused.bytes().count == 80_000)
        clock.advance(1)
        _ = try await cache.get("https://example.com/4", origin: origin.origin)
        clock.advance(1)
        _ = try await cache.get("https://example.com/5", origin: origin.origin)
        #expect(try cache.diskUsage() <= 350 * 1024)
        store.httpCache.waitForPendingWrites()
        let urls = try store.database.read { db in
            try db.rows("SELECT url FROM http_cache ORDER BY url") { $0.string(0) }
        }
        #expect(
            urls == [
                "https://example.com/0", "https://example.com/3", "https://example.com/4", "https://example.com/5",
            ])
        #expect(files() == (try rowFiles(store)))
        #expect(origin.hits == 6)
        // A response larger than a quarter of the limit is not stored at all.
        let huge = CacheTestOrigin(headers: ["Cache-Control": "max-age=3600"], body: Self.body(150_000))
        _ = try await cache.get("https://example.com/huge", origin: huge.origin)
        #expect(try await cache.get("https://example.com/huge", origin: huge.origin).outcome == .miss)
        #expect(huge.hits == 2)
    }

    // MARK: Removal

    @Test(.sqliteOnly) func removalByDateTakesExactlyTheEntriesModifiedSinceAndTheirFiles() async throws {
        let store = try store()
        let cache = store.httpCache
        let origin = CacheTestOrigin { request, _ in
            let size = request.url.path.hasSuffix("big") ? 100_000 : 10
            return OriginResponse(
                status: 200, headers: ["Cache-Control": "max-age=86400"], body: .data(Self.body(size)))
        }
        _ = try await cache.get("https://old.example/big", origin: origin.origin)
        _ = try await cache.get("https://old.example/small", origin: origin.origin)
        clock.advance(100)
        let cut = clock.now
        _ = try await cache.get("https://new.example/big", origin: origin.origin)
        _ = try await cache.get("https://new.example/small", origin: origin.origin)
        #expect(files().count == 2)

        let removed = try await store.removeData(ofTypes: [.diskCache], modifiedSince: cut)
        #expect(removed.map(\.displayName) == ["new.example"])
        store.httpCache.waitForPendingWrites()
        let urls = try store.database.read { db in
            try db.rows("SELECT url FROM http_cache ORDER BY url") { $0.string(0) }
        }
        #expect(urls == ["https://old.example/big", "https://old.example/small"])
        #expect(files() == (try rowFiles(store)))
        #expect(files().count == 1)
        let records = try await store.dataRecords(ofTypes: [.diskCache])
        #expect(records.map(\.displayName) == ["old.example"])
        #expect(records.first?.sizes[.diskCache] ?? 0 > 100_000)
    }

    @Test func removalByRecordAndDryRun() async throws {
        let store = try store()
        let cache = store.httpCache
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=60"], body: Self.body(70_000))
        _ = try await cache.get("https://a.example/x", origin: origin.origin)
        _ = try await cache.get("https://www.b.example/y", origin: origin.origin)
        let records = try await store.dataRecords(ofTypes: [.diskCache])
        #expect(records.map(\.displayName) == ["a.example", "b.example"])
        let dry = try store.removeData(
            ofTypes: [.diskCache], matching: RemovalFilter(sites: ["b.example"]), dryRun: true)
        #expect(dry.map(\.displayName) == ["b.example"])
        #expect(try rowCount(store) == 2)
        try await store.removeData(ofTypes: [.diskCache], for: records.filter { $0.displayName == "b.example" })
        #expect(try await store.dataRecords(ofTypes: [.diskCache]).map(\.displayName) == ["a.example"])
        #expect(files() == (try rowFiles(store)))
        // The memory cache keeps only bodies kept inline: this one (over the inline limit) was
        // on disk alone, so it is gone.
        #expect(try await cache.get("https://www.b.example/y", origin: origin.origin).outcome == .miss)
    }

    @Test(.sqliteOnly) func orphanedBodyFilesAreDeletedOnOpenOnceOld() async throws {
        do {
            let cache = try store().httpCache
            let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=60"], body: Self.body(70_000))
            _ = try await cache.get("https://example.com/kept", origin: origin.origin)
        }
        let old = cacheFolder.appendingPathComponent("0123456789abcdef")
        let recent = cacheFolder.appendingPathComponent("tmp-being-written")
        try Data("orphan".utf8).write(to: old)
        try Data("in progress".utf8).write(to: recent)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-HTTPDiskCache.orphanGracePeriod - 60)],
            ofItemAtPath: old.path)
        let reopened = try store()
        let names = files()
        #expect(!names.contains(old.lastPathComponent))
        #expect(names.contains(recent.lastPathComponent))
        #expect(Set(try rowFiles(reopened)).isSubset(of: Set(names)))
        #expect(try await reopened.httpCache.get("https://example.com/kept", origin: unreachableOrigin).outcome == .hit)
    }

    // MARK: What is stored

    @Test func varyKeepsVariantsApart() async throws {
        let store = try store()
        let cache = store.httpCache
        let origin = CacheTestOrigin { request, _ in
            let language = request.headers["Accept-Language"] ?? "none"
            return OriginResponse(
                status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"],
                body: .data(Data(language.utf8)))
        }
        let url = "https://example.com/page"
        #expect(
            try await cache.get(url, headers: ["Accept-Language": "en"], origin: origin.origin).bytes()
                == Data("en".utf8))
        #expect(
            try await cache.get(url, headers: ["Accept-Language": "de"], origin: origin.origin).bytes()
                == Data("de".utf8))
        let en = try await cache.get(url, headers: ["Accept-Language": "en"], origin: origin.origin)
        let de = try await cache.get(url, headers: ["Accept-Language": "de"], origin: origin.origin)
        #expect(en.outcome == .hit && de.outcome == .hit)
        #expect(try en.bytes() == Data("en".utf8))
        #expect(try de.bytes() == Data("de".utf8))
        #expect(try await cache.get(url, origin: origin.origin).outcome == .miss)
        #expect(origin.hits == 3)
        #expect(try rowCount(store) == 3)
        // Small bodies only: the cache folder was never needed, so it was never made.
        #expect(!FileManager.default.fileExists(atPath: cacheFolder.path))
    }

    @Test func aResponseThatVariesOnOtherFieldsReplacesEveryVariant() async throws {
        let store = try store()
        let cache = store.httpCache
        let plain = CacheTestOrigin(headers: ["Cache-Control": "max-age=60"], body: Data("plain".utf8))
        let varying = CacheTestOrigin { request, _ in
            OriginResponse(
                status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"],
                body: .data(Data((request.headers["Accept-Language"] ?? "-").utf8)))
        }
        let url = "https://example.com/v"
        _ = try await cache.get(url, origin: plain.origin)
        // A reload brings a response that varies: the old one, which would match every request, goes.
        _ = try await cache.get(url, headers: ["Accept-Language": "en"], mode: .reload, origin: varying.origin)
        #expect(try rowCount(store) == 1)
        #expect(
            try await cache.get(url, headers: ["Accept-Language": "fr"], origin: varying.origin).bytes()
                == Data("fr".utf8))
        #expect(
            try await cache.get(url, headers: ["Accept-Language": "en"], origin: unreachableOrigin).bytes()
                == Data("en".utf8))
        #expect(try rowCount(store) == 2)
        #expect(varying.hits == 2)
    }

    @Test func storedVariantsAreOfferedForValidationWhenNoneMatches() async throws {
        let store = try store()
        let cache = store.httpCache
        let origin = CacheTestOrigin { request, n in
            if n == 1 {
                return OriginResponse(
                    status: 200,
                    headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language", "ETag": "\"one\""],
                    body: .data(Self.body(100_000)))
            }
            if request.headers["Accept-Language"] == "fr" {
                #expect(request.headers["If-None-Match"] == "\"one\"")
                return OriginResponse(status: 304, headers: ["ETag": "\"one\"", "Cache-Control": "max-age=120"])
            }
            // A 304 that names no stored variant cannot answer the caller: it is asked again without condition.
            if request.headers["If-None-Match"] != nil {
                return OriginResponse(status: 304, headers: ["ETag": "\"two\""])
            }
            return OriginResponse(
                status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language", "ETag": "\"two\""],
                body: .data(Data("de".utf8)))
        }
        let url = "https://example.com/doc"
        _ = try await cache.get(url, headers: ["Accept-Language": "en"], origin: origin.origin)
        let french = try await cache.get(url, headers: ["Accept-Language": "fr"], origin: origin.origin)
        #expect(french.outcome == .revalidated && french.status == 200)
        #expect(try french.bytes() == Self.body(100_000))
        #expect(
            try await cache.get(url, headers: ["Accept-Language": "fr"], origin: unreachableOrigin).bytes()
                == Self.body(100_000))
        let german = try await cache.get(url, headers: ["Accept-Language": "de"], origin: origin.origin)
        #expect(german.status == 200 && german.outcome == .miss)
        #expect(try german.bytes() == Data("de".utf8))
        #expect(origin.hits == 4)
        #expect(try rowCount(store) == 3)
        #expect(files() == (try rowFiles(store)))
    }

    @Test(.sqliteOnly) func aFiftyMegabyteResponseIsStreamedStoredAndServedWithoutEnteringMemory() async throws {
        let store = try store()
        let cache = store.httpCache
        let download = try cache.makeTemporaryBodyFile()
        let handle = try FileHandle(forWritingTo: download)
        let chunk = Self.body(1 << 20, 0x7A)
        for _ in 0..<50 { try handle.write(contentsOf: chunk) }
        try handle.close()
        let origin = CacheTestOrigin { _, _ in
            OriginResponse(
                status: 200, headers: ["Cache-Control": "max-age=600", "Content-Length": "52428800"],
                body: .file(download))
        }
        let miss = try await cache.get("https://example.com/big.bin", origin: origin.origin)
        #expect(miss.body == .file(download))
        #expect(cache.memoryUsage == 0)
        try FileManager.default.removeItem(at: download)
        let hit = try await cache.get("https://example.com/big.bin", origin: unreachableOrigin)
        #expect(hit.outcome == .hit)
        guard case .file(let copy) = hit.body else {
            Issue.record("a large body is served as a file")
            return
        }
        let stored = cacheFolder.appendingPathComponent(try #require(try rowFiles(store).first))
        let a = try FileManager.default.attributesOfItem(atPath: stored.path)
        let b = try FileManager.default.attributesOfItem(atPath: copy.path)
        #expect((a[.systemFileNumber] as? NSNumber) == (b[.systemFileNumber] as? NSNumber))
        #expect((b[.size] as? NSNumber)?.int64Value == 50 << 20)
        try FileManager.default.removeItem(at: copy)
        #expect(cache.memoryUsage == 0)
        #expect(try cache.diskUsage() > 50 << 20)
    }

    /// A 200 MB download stored, then served to a second store object, by a process of its own
    /// (`wkstore-stress bigbody`): on SQLite a file in the cache folder, on PostgreSQL chunks in
    /// the database, never the whole body in memory.
    @Test func aTwoHundredMegabyteBodyIsStoredAndServedInBoundedMemory() async throws {
        let child = try ChildProcess(
            "wkstore-stress",
            ["bigbody"] + (try TestEngine.storeArguments(for: directory.url)) + ["--megabytes", "200"])
        var fields: [String: String] = [:]
        while let line = child.readLine() {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        #expect(child.wait() == 0)
        #expect(fields["outcome"] == "hit")
        #expect(fields["served-bytes"] == String(200 << 20))
        #expect(fields["same"] == "1")
        let growth = (Int(fields["peak-growth-kb"] ?? "") ?? Int.max / 2048) * 1024
        print("200 MB cache body on \(TestEngine.current): peak RSS growth \(growth / 1024) kB")
        // Holding the body whole once would grow it by 200 MB.
        #expect(growth < 100 << 20, "peak RSS grew by \(growth) bytes for a 200 MB body")
    }

    @Test func noStoreResponsesLeaveNoTraceOnDisk() async throws {
        let store = try store()
        let cache = store.httpCache
        let origin = CacheTestOrigin(headers: ["Cache-Control": "no-store, max-age=3600"], body: Self.body(200_000))
        let first = try await cache.get("https://example.com/secret", origin: origin.origin)
        #expect(first.outcome == .miss)
        #expect(try first.bytes().count == 200_000)
        // A streamed body stays the caller's file, and nothing else is written.
        let download = try cache.makeTemporaryBodyFile()
        try Self.body(200_000).write(to: download)
        let streamed = CacheTestOrigin { _, _ in
            OriginResponse(status: 200, headers: ["Cache-Control": "no-store"], body: .file(download))
        }
        let second = try await cache.get("https://example.com/secret2", origin: streamed.origin)
        #expect(second.body == .file(download))
        try FileManager.default.removeItem(at: download)
        #expect(try rowCount(store) == 0)
        #expect(files().isEmpty)
        #expect(store.httpCache.memoryUsage == 0)
        #expect(try await store.dataRecords(ofTypes: [.diskCache, .memoryCache]).isEmpty)
        // A request's own no-store bypasses the cache both ways.
        let cacheable = CacheTestOrigin(headers: ["Cache-Control": "max-age=3600"])
        _ = try await cache.get(
            "https://example.com/asked", headers: ["Cache-Control": "no-store"], origin: cacheable.origin)
        #expect(try rowCount(store) == 0)
    }

    @Test func cookieFieldsAreNotStoredByDefault() async throws {
        let store = try store()
        let cache = store.httpCache
        let origin = CacheTestOrigin(headers: [
            "Cache-Control": "max-age=60", "Set-Cookie": "sid=secret", "X-Kept": "1",
        ])
        let miss = try await cache.get("https://example.com/", origin: origin.origin)
        #expect(miss.headers["Set-Cookie"] == "sid=secret")
        #expect(miss.networkHeaders?["Set-Cookie"] == "sid=secret")
        store.httpCache.waitForPendingWrites()
        let text = try store.database.read { try $0.scalar("SELECT headers FROM http_cache")?.text ?? "" }
        #expect(!text.lowercased().contains("set-cookie") && !text.contains("secret"))
        let hit = try await cache.get("https://example.com/", origin: unreachableOrigin)
        #expect(hit.outcome == .hit)
        #expect(hit.headers["Set-Cookie"] == nil && hit.headers["X-Kept"] == "1")
        #expect(hit.networkHeaders == nil)
    }

    @Test func aSettingChangedByAnyStoreObjectAppliesToTheNextRequest() async throws {
        let crawler = try store()
        let operatorStore = try store()
        let cache = crawler.httpCache
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=60", "Set-Cookie": "sid=1"])
        _ = try await cache.get("https://example.com/a", origin: origin.origin)
        #expect(try await cache.get("https://example.com/a", origin: unreachableOrigin).headers["Set-Cookie"] == nil)
        // Another store object, as another process would.
        try operatorStore.set(.cacheStoresCookieHeaders, to: "true")
        _ = try await cache.get("https://example.com/b", origin: origin.origin)
        #expect(
            try await cache.get("https://example.com/b", origin: unreachableOrigin).headers["Set-Cookie"] == "sid=1")
        // This store object.
        try crawler.reset(.cacheStoresCookieHeaders)
        _ = try await cache.get("https://example.com/c", origin: origin.origin)
        #expect(try await cache.get("https://example.com/c", origin: unreachableOrigin).headers["Set-Cookie"] == nil)
    }

    @Test func entriesArePartitionedByTopLevelSite() async throws {
        let store = try store()
        let cache = store.httpCache
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=60"])
        let script = "https://cdn.example/lib.js"
        #expect(
            try await cache.get(script, topLevelSite: URL(string: "https://a.example/")!, origin: origin.origin).outcome
                == .miss)
        #expect(
            try await cache.get(script, topLevelSite: URL(string: "https://www.a.example/page")!, origin: origin.origin)
                .outcome == .hit)
        #expect(
            try await cache.get(script, topLevelSite: URL(string: "https://b.example/")!, origin: origin.origin).outcome
                == .miss)
        #expect(origin.hits == 2)
        store.httpCache.waitForPendingWrites()
        let partitions = try store.database.read { db in
            try db.rows("SELECT partition_key, site FROM http_cache ORDER BY partition_key") {
                "\($0.string(0)) \($0.string(1))"
            }
        }
        #expect(partitions == ["https://a.example cdn.example", "https://b.example cdn.example"])
    }

    @Test func writesAreRecordedInTheChangeLog() async throws {
        let store = try store()
        let before = try store.database.newestSequence()
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=60"])
        _ = try await store.httpCache.get("https://www.example.com/a", origin: origin.origin)
        store.httpCache.waitForPendingWrites()
        let entries = try store.database.read { db in
            try db.rows("SELECT type, site, cause FROM change_log WHERE seq > ?", [.integer(before)]) {
                "\($0.int(0)) \($0.string(1)) \($0.int(2))"
            }
        }
        // Type 2 is the disk cache, cause 1 a write.
        #expect(entries == ["2 example.com 1"])
    }

    // MARK: Memory cache

    @Test func theMemoryCacheIsBoundedAndEvictsTheLeastRecentlyUsed() async throws {
        let store = try WebsiteDataStore.testing(nil, clock: clock)
        try store.set(.memoryCacheMaxSize, to: "80KB")
        let cache = store.httpCache
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=3600"], body: Self.body(9_000))
        for i in 0..<12 {
            _ = try await cache.get("https://example.com/\(i)", origin: origin.origin)
            // Keep entry 0 in use.
            #expect(try await cache.get("https://example.com/0", origin: origin.origin).outcome == .hit)
        }
        #expect(cache.memoryUsage <= 80 * 1024)
        #expect(cache.memoryUsage > 70 * 1024)
        #expect(try await cache.get("https://example.com/0", origin: origin.origin).outcome == .hit)
        #expect(try await cache.get("https://example.com/11", origin: origin.origin).outcome == .hit)
        #expect(try await cache.get("https://example.com/1", origin: origin.origin).outcome == .miss)
        // An entry over an eighth of the cache is not kept.
        let big = CacheTestOrigin(headers: ["Cache-Control": "max-age=3600"], body: Self.body(11_000))
        _ = try await cache.get("https://example.com/big", origin: big.origin)
        #expect(try await cache.get("https://example.com/big", origin: big.origin).outcome == .miss)
        let records = try await store.dataRecords(ofTypes: [.memoryCache])
        #expect(records.map(\.displayName) == ["example.com"])
        #expect(records.first?.sizes[.memoryCache] == cache.memoryUsage)
    }

    /// Stores `url` from `origin` (max-age=3600) through a store object of its own, its row
    /// committed; returns the time it was stored.
    func storeCommitted(_ url: String, from origin: CacheTestOrigin) async throws -> Date {
        let store = try store()
        _ = try await store.httpCache.get(url, origin: origin.origin)
        store.httpCache.waitForPendingWrites()
        return clock.now
    }

    @Test func diskCacheHitsRecordTheirUseOnceAMinute() async throws {
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=3600"])
        let url = "https://example.com/page"
        let stored = try await storeCommitted(url, from: origin)
        // Each hit from a store object of its own, whose memory cache is empty: a disk hit.
        func diskHit() async throws -> Date? {
            let store = try store()
            #expect(try await store.httpCache.get(url, origin: unreachableOrigin).outcome == .hit)
            store.httpCache.waitForPendingWrites()
            return try store.component(HTTPDiskCache.self).rows(url: url, options: CachePolicy.Options()).first?
                .lastAccess
        }
        clock.advance(10)
        #expect(try await diskHit() == stored)
        clock.advance(60)
        let recorded = clock.now
        #expect(try await diskHit() == recorded)
        clock.advance(30)
        #expect(try await diskHit() == recorded)
        clock.advance(31)
        #expect(try await diskHit() == clock.now)
        #expect(origin.hits == 1)
    }

    /// A disk hit that records no use (the row's is recent) leaves its memory copy the row's
    /// time: the copy's next hit records one once that time is a minute old, not a minute
    /// after the disk hit.
    @Test func aMemoryCopyOfARowReadCountsFromTheRowsRecordedUse() async throws {
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=3600"])
        let url = "https://example.com/page"
        let stored = try await storeCommitted(url, from: origin)
        let reader = try store()
        let disk = reader.component(HTTPDiskCache.self)
        func lastAccess() throws -> Date? { try disk.rows(url: url, options: CachePolicy.Options()).first?.lastAccess }
        clock.advance(50)
        #expect(try await reader.httpCache.get(url, origin: unreachableOrigin).outcome == .hit)
        #expect(try lastAccess() == stored)
        clock.advance(15)
        #expect(try await reader.httpCache.get(url, origin: unreachableOrigin).outcome == .hit)
        #expect(try lastAccess() == clock.now)
        #expect(origin.hits == 1)
    }

    @Test func memoryCacheHitsRecordTheirUseOnDiskOnceAMinute() async throws {
        let store = try store()
        let cache = store.httpCache
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=3600"])
        let url = "https://example.com/page"
        _ = try await cache.get(url, origin: origin.origin)
        let stored = clock.now
        // The disk entry's last access, recorded or waiting to be written with the next write.
        let disk = store.component(HTTPDiskCache.self)
        func lastAccess() throws -> Date? { try disk.rows(url: url, options: CachePolicy.Options()).first?.lastAccess }
        clock.advance(10)
        #expect(try await cache.get(url, origin: unreachableOrigin).outcome == .hit)
        #expect(try lastAccess() == stored)
        clock.advance(60)
        #expect(try await cache.get(url, origin: unreachableOrigin).outcome == .hit)
        let recorded = clock.now
        #expect(try lastAccess() == recorded)
        clock.advance(30)
        #expect(try await cache.get(url, origin: unreachableOrigin).outcome == .hit)
        #expect(try lastAccess() == recorded)
        // This process's listing counts every use.
        #expect(try cache.entries(for: URL(string: url)!).first?.lastAccess == clock.now)
    }

    @Test func aMemoryCacheClearInAnotherProcessIsHonouredOnTheNextAccess() async throws {
        let crawler = try store()
        let operatorStore = try store()
        let cache = crawler.httpCache
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=3600"])
        _ = try await cache.get("https://a.example/1", origin: origin.origin)
        clock.advance(100)
        let cut = clock.now
        _ = try await cache.get("https://a.example/2", origin: origin.origin)
        _ = try await cache.get("https://b.example/1", origin: origin.origin)
        #expect(
            try await crawler.dataRecords(ofTypes: [.memoryCache]).map(\.displayName) == ["a.example", "b.example"])

        // The other store object has its own connection, as another process would; its own memory cache is empty.
        #expect(try await operatorStore.dataRecords(ofTypes: [.memoryCache]).isEmpty)
        try operatorStore.removeData(
            ofTypes: [.memoryCache], matching: RemovalFilter(modifiedSince: cut, sites: ["a.example"]))
        let logged = try operatorStore.database.read { db in
            try db.rows("SELECT site, since FROM change_log WHERE type = 3 AND cause = 2") {
                ($0.string(0), $0.optionalDouble(1))
            }
        }
        #expect(logged.count == 1 && logged[0].0 == "a.example" && logged[0].1 == cut.timeIntervalSince1970)

        // Only a.example's entry modified at or after the cut is gone from the crawler's memory.
        let sizes = try crawler.component(HTTPMemoryCache.self).siteSizes()
        #expect(Set(sizes.keys) == ["a.example", "b.example"])
        let memory = crawler.component(HTTPMemoryCache.self)
        let resource = { (url: String) in
            CacheResourceKey(
                partition: CacheEntryKey.partition(topLevelSite: nil, url: URL(string: url)!),
                method: "GET", url: url)
        }
        #expect(memory.entries(for: resource("https://a.example/1")).count == 1)
        #expect(memory.entries(for: resource("https://a.example/2")).isEmpty)
        #expect(memory.entries(for: resource("https://b.example/1")).count == 1)

        // A clear of every site.
        try await operatorStore.removeData(ofTypes: [.memoryCache], modifiedSince: .distantPast)
        #expect(try await crawler.dataRecords(ofTypes: [.memoryCache]).isEmpty)
        #expect(crawler.httpCache.memoryUsage == 0)
        // The disk cache was not cleared: the crawler still has the responses.
        #expect(try await cache.get("https://a.example/2", origin: unreachableOrigin).outcome == .hit)
        #expect(origin.hits == 3)
    }

    @Test func aMemoryOnlyStoreRemovesBySite() async throws {
        let store = try WebsiteDataStore.testing(nil, clock: clock)
        let cache = store.httpCache
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=3600"])
        _ = try await cache.get("https://a.example/", origin: origin.origin)
        _ = try await cache.get("https://b.example/", origin: origin.origin)
        let removed = try await store.removeData(
            ofTypes: [.memoryCache],
            for: [WebsiteDataRecord(displayName: "a.example", dataTypes: [.memoryCache])])
        #expect(removed.map(\.displayName) == ["a.example"])
        #expect(try await cache.get("https://a.example/", origin: origin.origin).outcome == .miss)
        #expect(try await cache.get("https://b.example/", origin: origin.origin).outcome == .hit)
        #expect(try await store.dataRecords(ofTypes: [.diskCache]).isEmpty)
    }
}

/// The size settings' syntax, read as the cache reads it at every write.
@Suite struct CacheSizeSettingTests {
    @Test func sizesAreWholeNumbersWithAnOptionalUnitInPowersOf1024() {
        #expect(CacheSettings.byteCount("350KB") == 358_400)
        #expect(CacheSettings.byteCount(" \t1 GiB ") == 1 << 30)
        #expect(CacheSettings.byteCount("12") == 12)
        #expect(CacheSettings.byteCount("7b") == 7)
        #expect(CacheSettings.byteCount("3m") == 3 << 20)
        for bad in ["", "  ", "MB", "1.5GB", "-1", "10 TB", "9223372036854775807G", "1 2"] {
            #expect(CacheSettings.byteCount(bad) == nil, "\(bad)")
        }
    }
}
