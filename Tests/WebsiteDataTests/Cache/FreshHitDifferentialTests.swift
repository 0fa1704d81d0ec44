import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// `HTTPCache.freshHit` (the fenced fast path in `Cache/FreshHit/`) against the general path,
/// `HTTPCache.send`: over random requests on responses of every kind of freshness, whenever the
/// fast path answers, the general path answers the same; and whenever the general path serves a
/// plain request from memory-sized stored bytes without asking the origin, the fast path answered it.
@Suite(.ownThreads, .bothEngines) struct FreshHitDifferentialTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    /// The response header fields of resource `i`: every rule of freshness the cache applies.
    static func responseHeaders(_ i: Int, at now: Date) -> HTTPHeaders {
        let date = HTTPDate.format(now)
        let past = HTTPDate.format(now.addingTimeInterval(-10 * 86_400))
        switch i % 13 {
        case 0: return ["Cache-Control": "max-age=3600", "Date": date]
        case 1: return ["Cache-Control": "max-age=50", "Date": date]
        case 2: return ["Cache-Control": "max-age=3600, no-cache", "ETag": "\"e\(i)\"", "Date": date]
        case 3: return ["Cache-Control": "max-age=3600", "Vary": "Accept-Language", "Date": date]
        case 4: return ["Expires": HTTPDate.format(now.addingTimeInterval(300)), "Date": date]
        case 5: return ["Last-Modified": past, "Date": date]
        case 6: return ["Cache-Control": "max-age=100, must-revalidate", "ETag": "\"m\(i)\"", "Date": date]
        case 7: return ["Cache-Control": "max-age=3600", "Age": "3500", "Date": date]
        case 8: return ["Cache-Control": "max-age=60, stale-while-revalidate=600", "Date": date]
        case 9: return ["Cache-Control": "no-store", "Date": date]
        case 10: return ["Cache-Control": "max-age=3600", "Date": date, "X-Kind": "not found"]
        case 11: return ["Cache-Control": "max-age=3600", "Vary": "*", "Date": date]
        default: return ["Cache-Control": "max-age=3600", "Date": date, "X-Kind": "large"]
        }
    }

    /// Resource `i`'s status and body (large ones are kept in a file by a SQLite store).
    static func response(_ i: Int, at now: Date) -> OriginResponse {
        let size = i % 13 == 12 ? HTTPDiskCache.inlineLimit + 1000 : 100 + i
        return OriginResponse(
            status: i % 13 == 10 ? 404 : 200, headers: Self.responseHeaders(i, at: now),
            body: .data(Data(repeating: UInt8(i % 251), count: size)))
    }

    /// Request header fields, plain ones and those that send a request the general way.
    static let requestHeaders: [HTTPHeaders] = [
        [], [], [], ["Accept-Language": "en"], ["Accept-Language": "fr"], ["Accept": "*/*"],
        ["Cache-Control": "max-age=0"], ["Cache-Control": "no-cache"], ["cache-control": "min-fresh=100"],
        ["Range": "bytes=0-9"], ["If-None-Match": "\"e1\""], ["If-Modified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"],
        ["if-match": "*"],
    ]

    @Test(arguments: [UInt64(1), 2])
    func theFastPathAnswersAsTheGeneralPathDoes(seed: UInt64) async throws {
        var random = IDBTestRandom(seed: seed)
        let resources = 52
        let urls = (0..<resources).map { "https://site\($0 % 5).example/r/\($0)?q=\($0 * 7)" }
        let origin: HTTPCache.Origin = { [clock] request in
            let i = Int(request.url.lastPathComponent)!
            return Self.response(i, at: clock.now)
        }
        var store = try WebsiteDataStore.testing(directory.url, clock: clock)
        for url in urls {
            for language in ["en", "fr"] {
                _ = try await store.httpCache.get(url, headers: ["Accept-Language": language], origin: origin)
            }
        }
        var answered = 0
        var handedOver = 0
        for step in 0..<1_000 {
            if step % 250 == 249 {
                // A new store object: its first uses read the disk cache.
                await store.httpCache.waitForBackgroundRevalidations()
                store.httpCache.waitForPendingWrites()
                store = try WebsiteDataStore.testing(directory.url, clock: clock)
            }
            if Int.random(in: 0..<10, using: &random) == 0 {
                clock.advance(Double(Int.random(in: 1...90, using: &random)))
            }
            let url = URL(string: urls[Int.random(in: 0..<resources, using: &random)])!
            let method = ["GET", "GET", "GET", "HEAD", "get"][Int.random(in: 0..<5, using: &random)]
            let headers = Self.requestHeaders[Int.random(in: 0..<Self.requestHeaders.count, using: &random)]
            let topLevel = Int.random(in: 0..<4, using: &random) == 0 ? URL(string: "https://other.example/")! : nil
            let request = CacheRequest(method: method, url: url, headers: headers)
            let partition = CacheEntryKey.partition(topLevelSite: topLevel, url: url)

            let answer = try store.httpCache.freshHit(request, partition: partition)
            // A declined request's lookup goes to the general path, as `HTTPClient` gives it, on
            // every other step; on the others the general path looks the request up itself.
            var lookedUp: HTTPCache.Lookup?
            if case .declined(let found) = answer, step % 2 == 0 { lookedUp = found }
            if let lookedUp {
                // What the general path would have found itself (a second use changes nothing it reads).
                let own = try store.httpCache.lookup(request, partition: partition) {
                    store.httpCache.memory.settingsOrDefaults()
                }
                #expect(lookedUp.entry?.key == own.entry?.key, "\(url) at step \(step)")
                #expect(lookedUp.entry?.policy.responseTime == own.entry?.policy.responseTime, "\(url) at step \(step)")
                #expect(lookedUp.variants.map(\.key) == own.variants.map(\.key), "\(url) at step \(step)")
                handedOver += 1
            }
            let general = try await store.httpCache.send(
                request, mode: .default, partition: partition, lookedUp: lookedUp, origin: origin)
            let generalBody = try general.bytes()
            let plain = method == "GET" && FreshHit.isPlain(headers)
            if case .served(let fast) = answer {
                answered += 1
                #expect(plain, "the fast path answered \(method) \(url) with \(headers)")
                #expect(general.outcome == .hit, "\(url) at step \(step)")
                #expect(fast.status == general.status, "\(url) at step \(step)")
                #expect(fast.headers == general.headers, "\(url) at step \(step)")
                #expect(try fast.bytes() == generalBody, "\(url) at step \(step)")
            } else if plain, general.outcome == .hit, generalBody.count < HTTPDiskCache.inlineLimit {
                Issue.record(
                    "the general path served a fresh hit of \(url) with \(headers) the fast path declined, at step \(step)"
                )
            }
        }
        await store.httpCache.waitForBackgroundRevalidations()
        // Most plain requests are for fresh resources: the fast path must have answered many.
        #expect(answered > 60, "the fast path answered \(answered) requests")
        #expect(handedOver > 60, "the fast path handed over \(handedOver) lookups")
    }

    @Test func aNonPersistentStoreAnswersFromMemory() async throws {
        let store = try WebsiteDataStore.testing(nil, clock: clock)
        let origin: HTTPCache.Origin = { [clock] _ in Self.response(0, at: clock.now) }
        let url = URL(string: "https://a.example/r/0")!
        _ = try await store.httpCache.send(CacheRequest(url: url), origin: origin)
        clock.advance(10)
        let partition = CacheEntryKey.partition(topLevelSite: nil, url: url)
        guard case .served(let fast) = try store.httpCache.freshHit(CacheRequest(url: url), partition: partition) else {
            Issue.record("a fresh response in memory was not served")
            return
        }
        #expect(fast.outcome == .hit)
        #expect(fast.headers["Age"] == "10")
        #expect(try fast.bytes().count == 100)
        clock.advance(3600)
        guard case .declined(let lookedUp) = try store.httpCache.freshHit(CacheRequest(url: url), partition: partition)
        else {
            Issue.record("a stale response was served")
            return
        }
        // The stale entry found, handed to the general path.
        #expect(lookedUp?.entry?.key.url == url.absoluteString)
    }
}
