import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData
@testable import WebsiteDataHTTP

/// A clock the test moves by hand, given to the store (and so to its cache).
final class ManualClock: Sendable {
    private let date: Locked<Date>

    init(_ start: Date = Date()) { date = Locked(start) }

    var now: Date { date.withLock { $0 } }

    func advance(by seconds: TimeInterval) { date.withLock { $0 += seconds } }
}

/// A test's directory, a loopback server that logs every request, and a persistent store in
/// the directory (reopened at will), optionally on a manual clock.
struct CacheFixture {
    let directory: TestDirectory
    let server: LoopbackServer
    let storeDirectory: URL
    let clock: ManualClock?

    init(clock: ManualClock? = nil) throws {
        directory = try TestDirectory()
        server = try LoopbackServer(in: directory.url)
        storeDirectory = directory.url.appendingPathComponent("store")
        self.clock = clock
    }

    /// Opens (or reopens) the store.
    func openStore() throws -> WebsiteDataStore {
        if let clock { return try WebsiteDataStore(directory: storeDirectory, identifier: nil, clock: { clock.now }) }
        return try WebsiteDataStore(directory: storeDirectory)
    }

    /// A client of `store` with the test hosts resolved to the server.
    func client(_ store: WebsiteDataStore, _ configure: (inout HTTPClientConfiguration) -> Void = { _ in }) throws
        -> HTTPClient
    {
        var configuration = HTTPClientConfiguration(proxy: "", resolve: server.resolve(Fixture.hosts))
        configure(&configuration)
        return try HTTPClient(store: store, configuration: configuration)
    }

    /// `http://a.example:PORT/c?k=KEY&…`: the server's cacheable resource, named by `key`, with
    /// the response header fields `headers` and other query parameters `extra`.
    func url(_ key: String, headers: [String] = [], _ extra: String = "", host: String = "a.example") -> URL {
        var text = "http://\(host):\(server.port)/c?k=\(key)"
        for field in headers { text += "&header=" + q(field) }
        if !extra.isEmpty { text += "&" + extra }
        return URL(string: text)!
    }

    /// The requests the server received for the resource `key`, oldest first.
    func hits(_ key: String, using client: HTTPClient) async throws -> [[String: Any]] {
        try await server.requestLog(using: client).filter { entry in
            guard entry["path"] as? String == "/c", let query = entry["query"] as? String else { return false }
            return query == "k=\(key)" || query.hasPrefix("k=\(key)&")
        }
    }

    /// Rows of the disk cache whose URL names the resource `key`.
    func storedRows(_ key: String, in store: WebsiteDataStore) throws -> Int {
        store.httpCache.waitForPendingWrites()
        return try store.database.read { db in
            try db.scalar(
                "SELECT count(*) FROM http_cache WHERE url LIKE ? OR url LIKE ?",
                [.text("%/c?k=\(key)&%"), .text("%/c?k=\(key)")])?.int64 ?? -1
        }.asInt
    }

    /// The names of the files in the store's `cache/` folder.
    var cacheFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: storeDirectory.appendingPathComponent("cache").path))
            ?? []).sorted()
    }
}

extension Int64 {
    var asInt: Int { Int(self) }
}

/// `n` bytes of the server's `/bytes` and `/c?n=` pattern.
func patternBytes(_ n: Int) -> Data {
    let pattern = Data((0..<251).map { UInt8($0) })
    var data = Data(capacity: n)
    while data.count + pattern.count <= n { data.append(pattern) }
    data.append(pattern.prefix(n - data.count))
    return data
}

/// The client and the store's HTTP cache end to end: libcurl against a loopback server that logs
/// every request it receives.
@Suite(.ownThreads) struct CacheTests {
    @Test func aFreshHitMakesNoRequest() async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        let client = try f.client(store)
        let url = f.url("fresh", headers: ["Cache-Control: max-age=3600"])
        let first = try await client.send(HTTPRequest(url: url))
        #expect(first.status == 200)
        #expect(first.cacheOutcome == .miss)
        #expect(first.hops.map(\.cacheOutcome) == [.miss])
        let second = try await client.send(HTTPRequest(url: url))
        #expect(second.status == 200)
        #expect(second.cacheOutcome == .hit)
        #expect(second.hops.map(\.cacheOutcome) == [.hit])
        #expect(second.body == first.body)
        #expect(try Echo(second).seq == Echo(first).seq)
        #expect(second.value(forHeader: "Age") != nil)
        #expect(second.value(forHeader: "Cache-Control") == "max-age=3600")
        #expect(try await f.hits("fresh", using: client).count == 1)
        #expect(try f.storedRows("fresh", in: store) == 1)

        // A HEAD is answered from the stored GET response.
        let head = try await client.send(HTTPRequest(url: url, method: "HEAD"))
        #expect(head.cacheOutcome == .hit)
        #expect(head.body.isEmpty)
        #expect(try await f.hits("fresh", using: client).count == 1)
    }

    @Test func aStaleEntryIsRevalidatedWithIfNoneMatch() async throws {
        let clock = ManualClock()
        let f = try CacheFixture(clock: clock)
        let store = try f.openStore()
        let client = try f.client(store)
        let url = f.url("stale", headers: ["Cache-Control: max-age=60"], "etag=" + q("\"v1\""))
        let first = try await client.send(HTTPRequest(url: url))
        #expect(first.cacheOutcome == .miss)
        #expect(try await client.send(HTTPRequest(url: url)).cacheOutcome == .hit)

        clock.advance(by: 120)
        let third = try await client.send(HTTPRequest(url: url))
        #expect(third.status == 200)
        #expect(third.cacheOutcome == .revalidated)
        #expect(third.body == first.body, "the stored body, served on the 304")
        #expect(try Echo(third).seq == Echo(first).seq)
        let hits = try await f.hits("stale", using: client)
        #expect(hits.count == 2)
        #expect(hits.first?["if_none_match"] is NSNull)
        #expect(hits.last?["if_none_match"] as? String == "\"v1\"")

        // Refreshed by the 304: fresh again for another minute.
        #expect(try await client.send(HTTPRequest(url: url)).cacheOutcome == .hit)
        #expect(try await f.hits("stale", using: client).count == 2)
    }

    @Test func varyKeepsVariantsApart() async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        let client = try f.client(store)
        let url = f.url("vary", headers: ["Cache-Control: max-age=3600", "Vary: Accept-Language"])
        func get(_ language: String) async throws -> HTTPResponse {
            try await client.send(HTTPRequest(url: url, headers: [HTTPHeaderField("Accept-Language", language)]))
        }
        let en = try await get("en")
        let fr = try await get("fr")
        #expect(en.cacheOutcome == .miss)
        #expect(fr.cacheOutcome == .miss)
        let en2 = try await get("en")
        let fr2 = try await get("fr")
        #expect(en2.cacheOutcome == .hit)
        #expect(fr2.cacheOutcome == .hit)
        #expect(try Echo(en2)["accept_language"] == "en")
        #expect(try Echo(fr2)["accept_language"] == "fr")
        #expect(en2.body == en.body)
        #expect(fr2.body == fr.body)
        #expect(try await f.hits("vary", using: client).count == 2)
        #expect(try f.storedRows("vary", in: store) == 2)
    }

    @Test func noStoreResponsesLeaveNoTraceOnDisk() async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        let client = try f.client(store)
        // Large enough to be streamed to a file of the cache folder while it arrives.
        let size = 3_000_000
        let large = f.url("nostore-large", headers: ["Cache-Control: no-store"], "n=\(size)")
        let small = f.url("nostore-small", headers: ["Cache-Control: no-store", "ETag: \"s\""])
        for _ in 0..<2 {
            let response = try await client.send(HTTPRequest(url: large))
            #expect(response.cacheOutcome == .miss)
            #expect(response.body == patternBytes(size))
            #expect(try await client.send(HTTPRequest(url: small)).cacheOutcome == .miss)
        }
        var download = HTTPRequest(url: large)
        download.destination = f.directory.url.appendingPathComponent("download.bin")
        #expect(try await client.send(download).bodyFile == download.destination)
        #expect(try Data(contentsOf: download.destination!) == patternBytes(size))

        #expect(try await f.hits("nostore-large", using: client).count == 3)
        #expect(try await f.hits("nostore-small", using: client).count == 2)
        #expect(try store.database.read { try $0.scalar("SELECT count(*) FROM http_cache")?.int64 } == 0)
        #expect(f.cacheFiles == [], "no body file, no temporary file left in <store>/cache/")
        #expect(try store.httpCache.diskUsage() == 0)
    }

    @Test func cacheModes() async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        let client = try f.client(store)
        func send(_ url: URL, _ mode: CacheMode) async throws -> HTTPResponse {
            var request = HTTPRequest(url: url)
            request.cacheMode = mode
            return try await client.send(request)
        }
        let url = f.url("modes", headers: ["Cache-Control: max-age=3600"], "etag=" + q("\"m\""))
        let stored = try await send(url, .default)
        #expect(stored.cacheOutcome == .miss)

        // reload: to the network, and the answer replaces the stored response.
        let reloaded = try await send(url, .reload)
        #expect(reloaded.cacheOutcome == .miss)
        #expect(try Echo(reloaded).seq != Echo(stored).seq)
        var hits = try await f.hits("modes", using: client)
        #expect(hits.count == 2)
        #expect(hits.last?["cache_control"] as? String == "no-cache")
        #expect(hits.last?["pragma"] as? String == "no-cache")
        #expect(hits.last?["if_none_match"] is NSNull)
        let afterReload = try await send(url, .default)
        #expect(afterReload.cacheOutcome == .hit)
        #expect(try Echo(afterReload).seq == Echo(reloaded).seq)

        // no-cache: a fresh stored response is revalidated all the same.
        let noCache = try await send(url, .noCache)
        #expect(noCache.cacheOutcome == .revalidated)
        #expect(try Echo(noCache).seq == Echo(reloaded).seq)
        hits = try await f.hits("modes", using: client)
        #expect(hits.count == 3)
        #expect(hits.last?["if_none_match"] as? String == "\"m\"")
        #expect(hits.last?["cache_control"] as? String == "max-age=0")

        // no-store: to the network, and the stored response is neither read nor replaced.
        let noStore = try await send(url, .noStore)
        #expect(noStore.cacheOutcome == .miss)
        #expect(try Echo(noStore).seq != Echo(reloaded).seq)
        hits = try await f.hits("modes", using: client)
        #expect(hits.count == 4)
        #expect(hits.last?["cache_control"] as? String == "no-cache")
        #expect(hits.last?["if_none_match"] is NSNull)
        #expect(try Echo(try await send(url, .default)).seq == Echo(reloaded).seq)

        // ...nor written when nothing was stored.
        let unstored = f.url("nowrite", headers: ["Cache-Control: max-age=3600"])
        #expect(try await send(unstored, .noStore).cacheOutcome == .miss)
        #expect(try f.storedRows("nowrite", in: store) == 0)

        // only-if-cached with nothing stored: a network error, as Fetch; the origin is not asked.
        for missing in [unstored, f.url("absent")] {
            let error = await #expect(throws: HTTPClientError.self) { try await send(missing, .onlyIfCached) }
            #expect(error?.kind == .notCached)
        }
        #expect(try await f.hits("absent", using: client).count == 0)
        #expect(try await f.hits("nowrite", using: client).count == 1)

        // force-cache and only-if-cached: a stale stored response, served without asking.
        let stale = f.url("force", headers: ["Cache-Control: max-age=0"], "etag=" + q("\"f\""))
        let original = try await send(stale, .default)
        let forced = try await send(stale, .forceCache)
        #expect(forced.cacheOutcome == .stale)
        #expect(forced.body == original.body)
        let onlyIfCached = try await send(stale, .onlyIfCached)
        #expect(onlyIfCached.cacheOutcome == .stale)
        #expect(onlyIfCached.body == original.body)
        #expect(try await f.hits("force", using: client).count == 1)
        // The default mode revalidates it: it was stale.
        #expect(try await send(stale, .default).cacheOutcome == .revalidated)
        #expect(try await f.hits("force", using: client).count == 2)
    }

    /// Also with `cache.store-cookie-headers` on, when the stored response (and so the hit) carries the `Set-Cookie`.
    @Test(arguments: [false, true])
    func aHitNeverReappliesSetCookie(storesCookieHeaders: Bool) async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        try store.set(.cacheStoresCookieHeaders, to: String(storesCookieHeaders))
        let client = try f.client(store)
        let url = f.url("cookie", headers: ["Cache-Control: max-age=3600"], "set=" + q("sid=1") + "&etag=" + q("\"c\""))
        let site = URL(string: "http://a.example/")!
        let first = try await client.send(HTTPRequest(url: url))
        #expect(first.cacheOutcome == .miss)
        #expect(first.headers.values(named: "Set-Cookie") == ["sid=1"])
        #expect(try store.httpCookieStore.cookieHeader(for: site) == "sid=1")

        #expect(try store.httpCookieStore.deleteCookies(named: "sid", domain: "a.example").count == 1)
        let hit = try await client.send(HTTPRequest(url: url))
        #expect(hit.cacheOutcome == .hit)
        #expect(hit.headers.values(named: "Set-Cookie") == (storesCookieHeaders ? ["sid=1"] : []))
        #expect(try store.httpCookieStore.cookieHeader(for: site) == nil, "the hit did not bring the cookie back")
        #expect(try await f.hits("cookie", using: client).count == 1)

        // A revalidation reaches the origin: the 304's Set-Cookie is applied.
        var revalidate = HTTPRequest(url: url)
        revalidate.cacheMode = .noCache
        let revalidated = try await client.send(revalidate)
        #expect(revalidated.cacheOutcome == .revalidated)
        #expect(try store.httpCookieStore.cookieHeader(for: site) == "sid=1")
        #expect(try await f.hits("cookie", using: client).count == 2)
    }

    @Test func aBackgroundRevalidationAppliesItsCookies() async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        let client = try f.client(store)
        let url = f.url("swr", headers: ["Cache-Control: max-age=0, stale-while-revalidate=3600"], "set=" + q("bg=1"))
        let site = URL(string: "http://a.example/")!
        #expect(try await client.send(HTTPRequest(url: url)).cacheOutcome == .miss)
        #expect(try store.httpCookieStore.deleteCookies(named: "bg", domain: "a.example").count == 1)

        let stale = try await client.send(HTTPRequest(url: url))
        #expect(stale.cacheOutcome == .stale)
        await store.httpCache.waitForBackgroundRevalidations()
        #expect(try await f.hits("swr", using: client).count == 2)
        #expect(try store.httpCookieStore.cookieHeader(for: site) == "bg=1", "set by the background revalidation")
    }

    @Test func aLargeResponseIsStreamedToDiskAndServedFromIt() async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        let client = try f.client(store)
        let size = 20_000_000
        let expected = patternBytes(size)
        let url = f.url("large", headers: ["Cache-Control: max-age=3600"], "n=\(size)")
        let first = try await client.send(HTTPRequest(url: url))
        #expect(first.cacheOutcome == .miss)
        #expect(first.body.count == size)
        #expect(first.body == expected)
        #expect(f.cacheFiles.count == 1, "the stored body, and no temporary file: \(f.cacheFiles)")
        #expect(f.cacheFiles.allSatisfy { !$0.hasPrefix("tmp-") })

        let second = try await client.send(HTTPRequest(url: url))
        #expect(second.cacheOutcome == .hit)
        #expect(second.body == expected)
        #expect(f.cacheFiles.count == 1)

        // From the cache to a file: the stored file's bytes under the caller's name, not a copy.
        var download = HTTPRequest(url: url)
        download.destination = f.directory.url.appendingPathComponent("large.bin")
        let saved = try await client.send(download)
        #expect(saved.cacheOutcome == .hit)
        #expect(saved.body.isEmpty)
        #expect(saved.bodyFile == download.destination)
        #expect(try Data(contentsOf: download.destination!) == expected)
        let links =
            try FileManager.default.attributesOfItem(atPath: download.destination!.path)[.referenceCount] as? NSNumber
        #expect(links?.intValue == 2, "a hard link of the stored body")
        #expect(try await f.hits("large", using: client).count == 1)

        // From the network to a file, stored on the way.
        let other = f.url("large-to-file", headers: ["Cache-Control: max-age=3600"], "n=\(size)")
        var fresh = HTTPRequest(url: other)
        fresh.destination = f.directory.url.appendingPathComponent("other.bin")
        let written = try await client.send(fresh)
        #expect(written.cacheOutcome == .miss)
        #expect(written.bodyFile == fresh.destination)
        #expect(try Data(contentsOf: fresh.destination!) == expected)
        let again = try await client.send(HTTPRequest(url: other))
        #expect(again.cacheOutcome == .hit)
        #expect(again.body == expected)
        #expect(try await f.hits("large-to-file", using: client).count == 1)
        #expect(f.cacheFiles.count == 2)
    }

    @Test func aSmallStoredBodyGoesToTheDestinationToo() async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        let client = try f.client(store)
        let url = f.url("small-file", headers: ["Cache-Control: max-age=3600"])
        let first = try await client.send(HTTPRequest(url: url))
        var request = HTTPRequest(url: url)
        request.destination = f.directory.url.appendingPathComponent("small.json")
        try Data("old".utf8).write(to: request.destination!)
        let saved = try await client.send(request)
        #expect(saved.cacheOutcome == .hit)
        #expect(saved.bodyFile == request.destination)
        #expect(try Data(contentsOf: request.destination!) == first.body)
    }

    @Test func aDestinationThatIsALinkIsWrittenThroughNotReplaced() async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        let client = try f.client(store)
        let size = 3_000_000
        let url = f.url("through-link", headers: ["Cache-Control: max-age=3600"], "n=\(size)")
        let target = f.directory.url.appendingPathComponent("target.bin")
        let link = f.directory.url.appendingPathComponent("link.bin")
        try Data().write(to: target)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        for _ in 0..<2 { // a miss (spilled to a file), then a hit (the stored body file)
            var request = HTTPRequest(url: url)
            request.destination = link
            _ = try await client.send(request)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
            #expect(try Data(contentsOf: target) == patternBytes(size))
        }
    }

    @Test func aReopenedStoreServesWhatAnotherClientStored() async throws {
        let f = try CacheFixture()
        let url = f.url("persist", headers: ["Cache-Control: max-age=3600"])
        let firstBody: Data
        do {
            let store = try f.openStore()
            let client = try f.client(store)
            let first = try await client.send(HTTPRequest(url: url))
            #expect(first.cacheOutcome == .miss)
            firstBody = first.body
            // Written behind: committed before another store object must see it.
            store.httpCache.waitForPendingWrites()
        }
        let reopened = try f.openStore()
        let client = try f.client(reopened)
        let second = try await client.send(HTTPRequest(url: url))
        #expect(second.cacheOutcome == .hit)
        #expect(second.body == firstBody)
        #expect(try await f.hits("persist", using: client).count == 1)
    }

    @Test func redirectsGoThroughTheCacheHopByHop() async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        let client = try f.client(store)
        let target = "/c?k=target&header=" + q("Cache-Control: max-age=3600")
        let url = f.url("redirect", headers: ["Cache-Control: max-age=3600", "Location: \(target)"], "status=301")
        let first = try await client.send(HTTPRequest(url: url))
        #expect(first.hops.map(\.status) == [301, 200])
        #expect(first.hops.map(\.cacheOutcome) == [.miss, .miss])
        let second = try await client.send(HTTPRequest(url: url))
        #expect(second.hops.map(\.status) == [301, 200])
        #expect(second.hops.map(\.cacheOutcome) == [.hit, .hit])
        #expect(second.cacheOutcome == .hit)
        #expect(second.url == first.url)
        #expect(second.body == first.body)
        #expect(try await f.hits("redirect", using: client).count == 1)
        #expect(try await f.hits("target", using: client).count == 1)
    }

    /// A client answers fresh hits first (`HTTPCache.freshHit`); one with that turned off takes
    /// the general path for them. Both must give the same responses, hop by hop.
    @Test func freshHitsFirstAnswerAsTheGeneralPathDoes() async throws {
        let clock = ManualClock()
        let f = try CacheFixture(clock: clock)
        let store = try f.openStore()
        let fast = try f.client(store) { $0.acceptLanguage = "en" }
        let general = try f.client(store) {
            $0.acceptLanguage = "en"
            $0.servesFreshHitsFirst = false
        }
        let target = "/c?k=target&header=" + q("Cache-Control: max-age=3600")
        let urls = [
            f.url("fresh", headers: ["Cache-Control: max-age=3600"]),
            f.url("short", headers: ["Cache-Control: max-age=30"]),
            f.url("vary", headers: ["Cache-Control: max-age=3600", "Vary: Accept-Language"]),
            f.url("validate", headers: ["Cache-Control: max-age=3600, no-cache", "ETag: \"v1\""]),
            f.url("redirect", headers: ["Cache-Control: max-age=3600", "Location: \(target)"], "status=301"),
            f.url("large", headers: ["Cache-Control: max-age=3600"], "n=200000"),
            f.url("cookie", headers: ["Cache-Control: max-age=3600", "Set-Cookie: a=1; Path=/"]),
        ]
        for url in urls { _ = try await general.send(HTTPRequest(url: url)) }
        var hits = 0
        for step in 0..<3 {
            for url in urls {
                // Whatever the fast client served from the cache, the general client serves
                // alike at the same time (an answer from the origin differs in its echo).
                let a = try await fast.send(HTTPRequest(url: url))
                let b = try await general.send(HTTPRequest(url: url))
                guard a.cacheOutcome == .hit else { continue }
                hits += 1
                #expect(b.cacheOutcome == .hit, "\(url) at step \(step)")
                #expect(a.status == b.status, "\(url) at step \(step)")
                #expect(a.url == b.url, "\(url) at step \(step)")
                #expect(a.httpVersion == b.httpVersion, "\(url) at step \(step)")
                #expect(a.body == b.body, "\(url) at step \(step)")
                #expect(a.bodyFile == nil && b.bodyFile == nil, "\(url) at step \(step)")
                #expect(a.headers == b.headers, "\(url) at step \(step)")
                #expect(a.hops == b.hops, "\(url) at step \(step)")
            }
            clock.advance(by: 20)
        }
        // fresh, vary, redirect, large and cookie three times; short twice (at 0 and 20 s of its 30).
        #expect(hits == 17)
        let fresh = try await fast.send(HTTPRequest(url: urls[0]))
        #expect(fresh.cacheOutcome == .hit)
        #expect(try await f.hits("fresh", using: general).count == 1)
    }

    @Test func entriesArePartitionedByTopLevelSite() async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        let client = try f.client(store)
        let url = f.url("partition", headers: ["Cache-Control: max-age=3600"])
        func fetch(from page: String) async throws -> HTTPResponse {
            try await client.send(HTTPRequest(url: url, topLevelSite: URL(string: page)!))
        }
        #expect(try await fetch(from: "https://news.example.net/").cacheOutcome == .miss)
        #expect(try await fetch(from: "https://shop.example.com/").cacheOutcome == .miss)
        #expect(
            try await fetch(from: "https://www.example.net/other").cacheOutcome == .hit, "same site as news.example.net"
        )
        // A top-level navigation is partitioned by its own URL's site.
        #expect(try await client.send(HTTPRequest(url: url)).cacheOutcome == .miss)
        #expect(try await client.send(HTTPRequest(url: url)).cacheOutcome == .hit)
        #expect(try f.storedRows("partition", in: store) == 3)
        #expect(try await f.hits("partition", using: client).count == 3)
    }

    @Test func postInvalidatesAndReportsNoOutcome() async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        let client = try f.client(store)
        let url = f.url("post", headers: ["Cache-Control: max-age=3600"])
        #expect(try await client.send(HTTPRequest(url: url)).cacheOutcome == .miss)
        #expect(try await client.send(HTTPRequest(url: url)).cacheOutcome == .hit)
        let post = try await client.send(HTTPRequest(url: url, method: "POST", body: Data("x".utf8)))
        #expect(post.cacheOutcome == nil)
        #expect(post.hops.map(\.cacheOutcome) == [nil])
        #expect(
            try await client.send(HTTPRequest(url: url)).cacheOutcome == .miss,
            "the POST invalidated the stored response")
        #expect(try await f.hits("post", using: client).map { $0["method"] as? String } == ["GET", "POST", "GET"])
    }

    @Test func usesCacheOffBypassesTheCache() async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        let client = try f.client(store) { $0.usesCache = false }
        let url = f.url("off", headers: ["Cache-Control: max-age=3600"])
        for _ in 0..<2 {
            let response = try await client.send(HTTPRequest(url: url))
            #expect(response.status == 200)
            #expect(response.cacheOutcome == nil)
            #expect(response.hops.map(\.cacheOutcome) == [nil])
        }
        #expect(try await f.hits("off", using: client).count == 2)
        #expect(try f.storedRows("off", in: store) == 0)
    }

    @Test func anUnreachableOriginGetsTheStaleResponseOrTheTransferError() async throws {
        let f = try CacheFixture()
        let store = try f.openStore()
        let client = try f.client(store)
        let lenient = f.url("down", headers: ["Cache-Control: max-age=0"], "etag=" + q("\"d\""))
        let strict = f.url("down-strict", headers: ["Cache-Control: max-age=0, must-revalidate"], "etag=" + q("\"d\""))
        let stored = try await client.send(HTTPRequest(url: lenient))
        _ = try await client.send(HTTPRequest(url: strict))
        f.server.stop()

        let stale = try await client.send(HTTPRequest(url: lenient))
        #expect(stale.cacheOutcome == .stale)
        #expect(stale.body == stored.body)
        let error = await #expect(throws: CurlError.self) { try await client.send(HTTPRequest(url: strict)) }
        #expect(error?.code == CurlError.couldNotConnect)
    }

    @Test func docsExample() async throws {
        let f = try CacheFixture()
        let storeDirectory = f.storeDirectory
        let site = "http://www.example.org:\(f.server.port)"
        let downloads = f.directory.url

        // --- as in Docs/http.md, "Caching" ---
        let store = try WebsiteDataStore(directory: storeDirectory)
        let client = try HTTPClient(
            store: store,
            configuration: HTTPClientConfiguration(
                proxy: "", resolve: f.server.resolve(["www.example.org"])))

        let styles = URL(string: "\(site)/c?k=styles&header=\(q("Cache-Control: max-age=600"))&etag=\(q("\"s1\""))")!
        let first = try await client.send(HTTPRequest(url: styles))
        let second = try await client.send(HTTPRequest(url: styles))
        print(first.cacheOutcome!.rawValue, second.cacheOutcome!.rawValue) // MISS HIT

        var revalidate = HTTPRequest(url: styles)
        revalidate.cacheMode = .noCache // Fetch's cache: "no-cache": ask the origin first
        print(try await client.send(revalidate).cacheOutcome!.rawValue) // REVALIDATED

        var offline = HTTPRequest(url: URL(string: "\(site)/c?k=never-fetched")!)
        offline.cacheMode = .onlyIfCached
        do {
            _ = try await client.send(offline)
        } catch let error as HTTPClientError where error.kind == .notCached {
            print(error.message) // http://www.example.org:PORT/c?k=never-fetched is not in the cache (only-if-cached)
        }

        let video = URL(string: "\(site)/c?k=video&n=50000000&header=\(q("Cache-Control: max-age=86400"))")!
        var download = HTTPRequest(url: video)
        download.destination = downloads.appendingPathComponent("video.bin")
        let saved = try await client.send(download) // streamed to disk, stored by hard link, moved to video.bin
        print(saved.cacheOutcome!.rawValue, saved.bodyFile!.lastPathComponent) // MISS video.bin
        // --- end ---

        #expect(first.cacheOutcome == .miss)
        #expect(second.cacheOutcome == .hit)
        #expect(
            try FileManager.default.attributesOfItem(atPath: download.destination!.path)[.size] as? NSNumber
                == 50_000_000)
        #expect(saved.cacheOutcome == .miss)
        #expect(try await f.hits("video", using: client).count == 1)
        #expect(try await f.hits("styles", using: client).count == 2)
        #expect(try await f.hits("never-fetched", using: client).count == 0)
        var again = HTTPRequest(url: video)
        again.cacheMode = .onlyIfCached
        again.destination = downloads.appendingPathComponent("video-again.bin")
        #expect(try await client.send(again).cacheOutcome == .hit)
    }
}
