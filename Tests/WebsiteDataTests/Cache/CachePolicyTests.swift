import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// The parts of the cache policy on their own: Cache-Control and date parsing, freshness and
/// age, storing rules, 304 merging; and the request paths of `HTTPCache` the suite touches
/// only in passing (modes, ranges, HEAD, invalidation, stale responses).
@Suite(.ownThreads, .bothEngines) struct CachePolicyTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func policy(
        _ headers: HTTPHeaders, status: Int = 200, method: String = "GET", request: HTTPHeaders = [],
        url: String = "https://example.com/r", requestTime: Date? = nil, responseTime: Date? = nil,
        options: CachePolicy.Options = .init()
    ) -> CachePolicy {
        CachePolicy(
            request: CacheRequest(method: method, url: URL(string: url)!, headers: request), status: status,
            headers: headers, requestTime: requestTime ?? t0, responseTime: responseTime ?? t0, options: options)
    }

    func get(_ headers: HTTPHeaders = [], url: String = "https://example.com/r") -> CacheRequest {
        CacheRequest(url: URL(string: url)!, headers: headers)
    }

    // MARK: Cache-Control

    @Test func cacheControlMembersAreSplitOutsideQuotesOnly() {
        let cc = CacheControl(["extension=\"max-age=3600, private\", max-age=1", "No-Cache=\"Set-Cookie, X-A\""])
        #expect(cc.seconds("max-age") == .seconds(1))
        #expect(cc.argument("extension") == "max-age=3600, private")
        #expect(!cc.contains("private"))
        #expect(cc.fieldNames("no-cache") == ["set-cookie", "x-a"])
    }

    @Test func theFirstOfRepeatedDirectivesWinsAcrossFields() {
        #expect(CacheControl(["max-age=1800, max-age=1"]).seconds("max-age") == .seconds(1800))
        #expect(CacheControl(["max-age=1", "max-age=1800"]).seconds("max-age") == .seconds(1))
    }

    @Test func malformedMembersAreIgnoredAndBadNumbersAreInvalid() {
        #expect(!CacheControl(["max-age =3600"]).contains("max-age"))
        #expect(!CacheControl(["max-age= 3600"]).contains("max-age"))
        #expect(!CacheControl(["max-age=\"3600"]).contains("max-age"))
        #expect(CacheControl(["MaX-aGe=003600"]).seconds("max-age") == .seconds(3600))
        #expect(CacheControl(["max-age=\"3600\""]).seconds("max-age") == .seconds(3600))
        #expect(CacheControl(["max-age='3600'"]).seconds("max-age") == .invalid)
        #expect(CacheControl(["max-age=-1"]).seconds("max-age") == .invalid)
        #expect(CacheControl(["max-age"]).seconds("max-age") == .invalid)
        #expect(CacheControl(["max-age=99999999999999999999"]).seconds("max-age") == .seconds(2_147_483_648))
        #expect(CacheControl([", , no-store ,"]).contains("no-store"))
    }

    // MARK: Dates

    @Test func theThreeDateFormsParseAndOthersDoNot() {
        let expected = Date(timeIntervalSince1970: 784_111_777) // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: t0) == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.parse("SUN, 06 NOV 1994 08:49:37 gmt") == expected)
        #expect(HTTPDate.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        for bad in [
            "0", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun 06 Nov 1994 08:49:37 GMT", "Sun, 06  Nov 1994 08:49:37 GMT",
            "Sun, 06-Nov-1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 06 Nov 1994 08.49.37 GMT", "Sun, 31 Feb 1994 08:49:37 GMT", "",
        ] {
            #expect(HTTPDate.parse(bad, now: t0) == nil, "\(bad)")
        }
        // A two-digit year more than 50 years ahead is in the past century.
        #expect(
            HTTPDate.parse("Thursday, 18-Aug-50 02:01:18 GMT", now: t0).map(HTTPDate.format)
                == "Thu, 18 Aug 2050 02:01:18 GMT")
        #expect(
            HTTPDate.parse("Monday, 18-Aug-99 02:01:18 GMT", now: t0).map(HTTPDate.format)
                == "Wed, 18 Aug 1999 02:01:18 GMT")
    }

    // MARK: Freshness and age

    @Test func freshnessComesFromMaxAgeThenExpiresThenTheHeuristic() {
        let date = HTTPDate.format(t0)
        #expect(
            policy(["Cache-Control": "max-age=60", "Expires": HTTPDate.format(t0 + 600), "Date": date])
                .freshnessLifetime == 60)
        #expect(policy(["Expires": HTTPDate.format(t0 + 600), "Date": date]).freshnessLifetime == 600)
        #expect(policy(["Expires": "0", "Date": date]).freshnessLifetime == 0)
        #expect(policy(["Last-Modified": HTTPDate.format(t0 - 1000), "Date": date]).freshnessLifetime == 100)
        #expect(
            policy(["Last-Modified": HTTPDate.format(t0 - 1000), "Date": date], status: 201).freshnessLifetime == 0)
        #expect(
            policy(["Last-Modified": HTTPDate.format(t0 - 1000), "Cache-Control": "public", "Date": date], status: 599)
                .freshnessLifetime == 100)
        #expect(policy(["Cache-Control": "s-maxage=60"]).freshnessLifetime == 0)
    }

    @Test func ageCountsTheAgeFieldTheResponseDelayAndResidentTime() {
        let p = policy(
            ["Cache-Control": "max-age=100", "Age": "30", "Date": HTTPDate.format(t0)],
            requestTime: t0 - 2, responseTime: t0)
        #expect(p.age(at: t0) == 32)
        #expect(p.age(at: t0 + 10) == 42)
        #expect(p.timeToLive(at: t0 + 10) == 58)
        #expect(p.responseHeaders(at: t0 + 10)["Age"] == "42")
        // The apparent age wins when the Date is older than the Age says.
        #expect(policy(["Date": HTTPDate.format(t0 - 50), "Age": "5"]).age(at: t0) == 50)
        // Only the first Age value counts; an invalid one counts as 0.
        #expect(policy(["Age": "0, 7200"]).age(at: t0) == 0)
        #expect(policy(["Age": "abc"]).age(at: t0) == 0)
        #expect(policy(["Age": "99999999999"]).age(at: t0) == 2_147_483_648)
    }

    // MARK: Storing

    @Test func whatAPrivateCacheStores() {
        #expect(policy(["Cache-Control": "max-age=60"]).isStorable)
        #expect(policy(["Cache-Control": "private, max-age=60"]).isStorable)
        #expect(policy(["Cache-Control": "max-age=60"], request: ["Authorization": "Basic x"]).isStorable)
        #expect(!policy(["Cache-Control": "no-store, max-age=60"]).isStorable)
        #expect(!policy(["Cache-Control": "max-age=60"], request: ["Cache-Control": "no-store"]).isStorable)
        #expect(policy(["Cache-Control": "no-store, must-understand, max-age=60"]).isStorable)
        #expect(!policy(["Cache-Control": "no-store, must-understand, max-age=60"], status: 599).isStorable)
        #expect(!policy(["Cache-Control": "max-age=60", "Vary": "Foo, *"]).isStorable)
        #expect(!policy(["Cache-Control": "max-age=60"], status: 206).isStorable)
        #expect(!policy(["Cache-Control": "max-age=60"], method: "HEAD").isStorable)
        #expect(!policy(["Last-Modified": HTTPDate.format(t0 - 1000)], status: 201).isStorable)
        // No freshness information and nothing to validate with: not worth storing. A lifetime
        // the origin gave (even 0) is kept, for max-stale and force-cache.
        #expect(!policy(["Date": HTTPDate.format(t0)]).isStorable)
        #expect(policy(["ETag": "\"a\""]).isStorable)
        #expect(policy(["Cache-Control": "max-age=0"]).isStorable)
        // A POST response is stored for GET only with explicit freshness and its own Content-Location.
        let post = policy(["Cache-Control": "max-age=60", "Content-Location": "/r"], method: "POST")
        #expect(post.isStorable && post.method == "GET")
        #expect(!policy(["Cache-Control": "max-age=60", "Content-Location": "/other"], method: "POST").isStorable)
        #expect(!policy(["Cache-Control": "max-age=60"], method: "PUT").isStorable)
    }

    @Test func storedHeadersDropHopByHopConnectionListedAndCookieFields() {
        let headers: HTTPHeaders = [
            ("Connection", "close, X-Hop"), ("X-Hop", "1"), ("Keep-Alive", "5"), ("Transfer-Encoding", "chunked"),
            ("Set-Cookie", "a=1"), ("Clear-Site-Data", "\"cache\""),
            ("Cache-Control", "max-age=5, no-cache=\"X-Secret\""),
            ("X-Secret", "s"), ("X-Kept", "k"),
        ]
        let kept = policy(headers).headers
        #expect(kept.fields.map(\.name) == ["Cache-Control", "X-Kept"])
        let strict = policy(headers, options: .init(storesCookieHeaders: true)).headers
        #expect(strict.fields.map(\.name) == ["Set-Cookie", "Clear-Site-Data", "Cache-Control", "X-Kept"])
    }

    @Test func a304UpdatesStoredFieldsButNotContentLength() {
        let stored = policy([
            ("Cache-Control", "max-age=1"), ("ETag", "\"v\""), ("Content-Length", "36"), ("X-A", "1"), ("X-B", "1"),
        ])
        let (updated, modified) = stored.revalidated(
            request: get(), status: 304,
            headers: [
                ("Cache-Control", "max-age=100"), ("Content-Length", "0"), ("X-A", "2"),
                ("X-A", "3"), ("Connection", "X-B"), ("X-B", "9"),
            ],
            requestTime: t0 + 10, responseTime: t0 + 10)
        #expect(!modified)
        #expect(updated.headers["Content-Length"] == "36")
        #expect(updated.headers["X-A"] == "2, 3")
        #expect(updated.headers["X-B"] == "1")
        #expect(updated.freshnessLifetime == 100)
        #expect(updated.age(at: t0 + 10) == 0)
        #expect(updated.headers["ETag"] == "\"v\"")
    }

    @Test func reuseFollowsRequestDirectives() {
        let p = policy(["Cache-Control": "max-age=100, stale-while-revalidate=50"])
        #expect(p.reuse(for: get(), at: t0 + 10) == .fresh)
        #expect(p.reuse(for: get(["Cache-Control": "max-age=5"]), at: t0 + 10) == .revalidate)
        #expect(p.reuse(for: get(["Cache-Control": "min-fresh=95"]), at: t0 + 10) == .revalidate)
        #expect(p.reuse(for: get(["Cache-Control": "no-cache"]), at: t0 + 10) == .revalidate)
        #expect(p.reuse(for: get(), at: t0 + 120) == .staleWhileRevalidate)
        #expect(p.reuse(for: get(), at: t0 + 151) == .revalidate)
        #expect(p.reuse(for: get(["Cache-Control": "max-stale=30"]), at: t0 + 120) == .staleAllowed)
        #expect(p.reuse(for: get(["Cache-Control": "max-stale"]), at: t0 + 9999) == .staleAllowed)
        #expect(p.reuse(for: get(url: "https://example.com/other"), at: t0) == .unusable)
        #expect(
            policy(["Cache-Control": "max-age=100, must-revalidate"]).reuse(
                for: get(["Cache-Control": "max-stale"]), at: t0 + 120) == .revalidate)
        #expect(policy(["Cache-Control": "max-age=100, no-cache"]).reuse(for: get(), at: t0) == .revalidate)
        // Pragma is deprecated and ignored.
        #expect(p.reuse(for: get(["Pragma": "no-cache"]), at: t0 + 10) == .fresh)
    }

    @Test func varyMatchingNormalisesValues() {
        let p = policy(["Cache-Control": "max-age=60", "Vary": "foo, BAR"], request: [("Foo", "1, 2"), ("Bar", "x")])
        #expect(p.matches(get([("Foo", "1"), ("Foo", "2"), ("Bar", "x")])))
        #expect(p.matches(get([("foo", " 1 ,2 "), ("bar", "x")])))
        #expect(!p.matches(get([("Foo", "1, 2")])))
        #expect(!p.matches(get([("Foo", "1, 2"), ("Bar", "")])))
        #expect(
            p.matches(
                CacheRequest(
                    method: "HEAD", url: URL(string: "https://example.com/r#frag")!,
                    headers: [("Foo", "1,2"), ("Bar", "x")])))
    }

    @Test func callerConditionsAreEvaluatedAgainstTheStoredResponse() {
        let p = policy(["ETag": "W/\"v1\"", "Last-Modified": HTTPDate.format(t0 - 100), "Cache-Control": "max-age=60"])
        #expect(p.conditionIsNotModified(get(["If-None-Match": "\"x\", \"v1\""])) == true)
        #expect(p.conditionIsNotModified(get(["If-None-Match": "\"x\""])) == false)
        #expect(p.conditionIsNotModified(get(["If-None-Match": "*"])) == true)
        #expect(p.conditionIsNotModified(get(["If-Modified-Since": HTTPDate.format(t0 - 100)])) == true)
        #expect(p.conditionIsNotModified(get(["If-Modified-Since": HTTPDate.format(t0 - 200)])) == false)
        #expect(p.conditionIsNotModified(get()) == nil)
        #expect(
            p.notModifiedHeaders(at: t0).fields.map(\.name).sorted() == [
                "Age", "Cache-Control", "ETag", "Last-Modified",
            ])
    }

    // MARK: The request paths of HTTPCache

    func cache() -> (WebsiteDataStore, TestClock) {
        let clock = TestClock(t0)
        return (try! WebsiteDataStore.testing(nil, clock: clock), clock)
    }

    @Test func headIsAnsweredFromAStoredGetAndRefreshesIt() async throws {
        let (store, clock) = cache()
        let origin = CacheTestOrigin { request, n in
            if request.normalizedMethod == "HEAD" {
                let etag = request.url.path == "/changed" ? "\"new\"" : "\"same\""
                return OriginResponse(
                    status: 200, headers: [("Cache-Control", "max-age=1000"), ("X-Version", "2"), ("ETag", etag)])
            }
            return OriginResponse(
                status: 200, headers: [("Cache-Control", "max-age=10"), ("X-Version", "1"), ("ETag", "\"same\"")],
                body: .data(Data("body".utf8)))
        }
        let http = store.httpCache
        _ = try await http.get("https://example.com/h", origin: origin.origin)
        let head = try await http.send(
            CacheRequest(method: "HEAD", url: URL(string: "https://example.com/h")!), origin: origin.origin)
        #expect(head.outcome == .hit && head.status == 200)
        #expect(try head.body.data().isEmpty)
        clock.advance(20)
        let forwarded = try await http.send(
            CacheRequest(method: "HEAD", url: URL(string: "https://example.com/h")!), origin: origin.origin)
        #expect(forwarded.outcome == .revalidated)
        #expect(forwarded.headers["X-Version"] == "2" && forwarded.headers["Age"] == "0")
        #expect(origin.requests.last?.normalizedMethod == "HEAD")
        let refreshed = try await http.get("https://example.com/h", origin: unreachableOrigin)
        #expect(refreshed.outcome == .hit)
        #expect(refreshed.headers["X-Version"] == "2")
        #expect(try refreshed.bytes() == Data("body".utf8))
        // A HEAD response for another representation (another ETag) updates nothing.
        _ = try await http.get("https://example.com/changed", origin: origin.origin)
        clock.advance(20)
        let other = try await http.send(
            CacheRequest(method: "HEAD", url: URL(string: "https://example.com/changed")!), origin: origin.origin)
        #expect(other.outcome == .miss && other.headers["ETag"] == "\"new\"")
        let stillStale = try await http.get("https://example.com/changed", origin: origin.origin)
        #expect(stillStale.outcome != .hit)
    }

    @Test func rangesAreServedFromAStoredCompleteResponse() async throws {
        let (store, _) = cache()
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=60"], body: Data("0123456789".utf8))
        let http = store.httpCache
        _ = try await http.get("https://example.com/r", origin: origin.origin)
        for (range, text, contentRange) in [
            ("bytes=2-4", "234", "bytes 2-4/10"), ("bytes=7-", "789", "bytes 7-9/10"),
            ("bytes=-2", "89", "bytes 8-9/10"), ("bytes=5-100", "56789", "bytes 5-9/10"),
        ] {
            let response = try await http.get("https://example.com/r", headers: ["Range": range], origin: origin.origin)
            #expect(response.status == 206 && response.outcome == .hit)
            #expect(try response.bytes() == Data(text.utf8))
            #expect(response.headers["Content-Range"] == contentRange)
        }
        // Several ranges go to the origin; a range past the end is ignored (RFC 9110 §14.2) and the whole body served.
        _ = try await http.get("https://example.com/r", headers: ["Range": "bytes=0-1, 3-4"], origin: origin.origin)
        #expect(origin.hits == 2)
        let whole = try await http.get("https://example.com/r", headers: ["Range": "bytes=10-"], origin: origin.origin)
        #expect(whole.status == 200 && whole.outcome == .hit)
        #expect(try whole.bytes() == Data("0123456789".utf8))
        #expect(origin.hits == 2)
    }

    @Test func unsafeRequestsInvalidateTheirURLAndSameOriginLocations() async throws {
        let (store, _) = cache()
        let pages = CacheTestOrigin(headers: ["Cache-Control": "max-age=600"])
        let http = store.httpCache
        for path in ["a", "b", "c"] { _ = try await http.get("https://example.com/\(path)", origin: pages.origin) }
        _ = try await http.get("https://other.example/c", origin: pages.origin)
        let post = CacheTestOrigin(
            status: 303, headers: [("Location", "/b"), ("Content-Location", "https://other.example/c")])
        _ = try await http.send(
            CacheRequest(method: "POST", url: URL(string: "https://example.com/a")!, body: Data("x".utf8)),
            origin: post.origin)
        #expect(try await http.get("https://example.com/a", origin: pages.origin).outcome == .miss)
        #expect(try await http.get("https://example.com/b", origin: pages.origin).outcome == .miss)
        #expect(try await http.get("https://example.com/c", origin: pages.origin).outcome == .hit)
        #expect(try await http.get("https://other.example/c", origin: pages.origin).outcome == .hit)
        // A failed unsafe request invalidates nothing.
        let failed = CacheTestOrigin(status: 500, headers: [])
        _ = try await http.send(
            CacheRequest(method: "DELETE", url: URL(string: "https://example.com/c")!), origin: failed.origin)
        #expect(try await http.get("https://example.com/c", origin: pages.origin).outcome == .hit)
    }

    @Test func revalidationSendsValidatorsAndMergesThe304() async throws {
        let (store, clock) = cache()
        let origin = CacheTestOrigin { request, n in
            if n == 1 {
                return OriginResponse(
                    status: 200,
                    headers: [
                        ("Cache-Control", "max-age=10"), ("ETag", "\"e1\""),
                        ("Last-Modified", "Wed, 01 Jan 2020 00:00:00 GMT"),
                    ],
                    body: .data(Data("v1".utf8)))
            }
            #expect(request.headers["If-None-Match"] == "\"e1\"")
            #expect(request.headers["If-Modified-Since"] == "Wed, 01 Jan 2020 00:00:00 GMT")
            return OriginResponse(status: 304, headers: [("Cache-Control", "max-age=100"), ("X-New", "1")])
        }
        let http = store.httpCache
        _ = try await http.get("https://example.com/v", origin: origin.origin)
        clock.advance(20)
        let revalidated = try await http.get("https://example.com/v", origin: origin.origin)
        #expect(revalidated.outcome == .revalidated && revalidated.status == 200)
        #expect(revalidated.networkHeaders?["X-New"] == "1")
        #expect(try revalidated.bytes() == Data("v1".utf8))
        clock.advance(50)
        let hit = try await http.get("https://example.com/v", origin: unreachableOrigin)
        #expect(hit.outcome == .hit && hit.headers["X-New"] == "1" && hit.headers["Age"] == "50")
    }

    @Test func staleWhileRevalidateServesStaleAndRefreshesInTheBackground() async throws {
        let (store, clock) = cache()
        let origin = CacheTestOrigin { _, n in
            OriginResponse(
                status: 200, headers: ["Cache-Control": "max-age=10, stale-while-revalidate=60"],
                body: .data(Data("v\(n)".utf8)))
        }
        let http = store.httpCache
        _ = try await http.get("https://example.com/s", origin: origin.origin)
        clock.advance(30)
        let stale = try await http.get("https://example.com/s", origin: origin.origin)
        #expect(stale.outcome == .stale)
        #expect(try stale.bytes() == Data("v1".utf8))
        await http.waitForBackgroundRevalidations()
        #expect(origin.hits == 2)
        let fresh = try await http.get("https://example.com/s", origin: origin.origin)
        #expect(fresh.outcome == .hit)
        #expect(try fresh.bytes() == Data("v2".utf8))
        clock.advance(100)
        #expect(try await http.get("https://example.com/s", origin: origin.origin).outcome == .miss)
    }

    @Test func errorsAndDisconnectionServeStaleOnlyWhereAllowed() async throws {
        let (store, clock) = cache()
        let http = store.httpCache
        let first = { (cc: String) in CacheTestOrigin(headers: ["Cache-Control": cc], body: Data("old".utf8)) }
        let down: HTTPCache.Origin = { _ in throw URLError(.cannotConnectToHost) }
        let failing = CacheTestOrigin(status: 503, headers: [], body: Data("error".utf8))

        _ = try await http.get("https://example.com/sie", origin: first("max-age=1, stale-if-error=60").origin)
        _ = try await http.get("https://example.com/plain", origin: first("max-age=1").origin)
        _ = try await http.get("https://example.com/must", origin: first("max-age=1, must-revalidate").origin)
        clock.advance(10)
        let sie = try await http.get("https://example.com/sie", origin: failing.origin)
        #expect(sie.outcome == .stale && sie.status == 200)
        #expect(try sie.bytes() == Data("old".utf8))
        let plain503 = try await http.get("https://example.com/plain", origin: failing.origin)
        #expect(plain503.outcome == .miss && plain503.status == 503)
        let plainDown = try await http.get("https://example.com/plain", origin: down)
        #expect(plainDown.outcome == .stale && plainDown.status == 200)
        let mustDown = try await http.get("https://example.com/must", origin: down)
        #expect(mustDown.status == 504 && mustDown.isSynthesized)
        // Nothing stored: the network error is the caller's.
        await #expect(throws: URLError.self) { try await http.get("https://example.com/none", origin: down) }
    }

    @Test func cacheModesBehaveAsFetchDefinesThem() async throws {
        let (store, clock) = cache()
        let http = store.httpCache
        let origin = CacheTestOrigin { _, n in
            OriginResponse(
                status: 200, headers: ["Cache-Control": "max-age=10", "ETag": "\"e\""], body: .data(Data("v\(n)".utf8)))
        }
        let url = "https://example.com/m"
        #expect(try await http.get(url, mode: .onlyIfCached, origin: unreachableOrigin).status == 504)
        _ = try await http.get(url, origin: origin.origin)
        #expect(try await http.get(url, mode: .noStore, origin: origin.origin).outcome == .miss)
        #expect(origin.requests.last?.headers["Cache-Control"] == "no-cache")
        #expect(origin.requests.last?.headers["Pragma"] == "no-cache")
        #expect(try await http.get(url, mode: .reload, origin: origin.origin).bytes() == Data("v3".utf8))
        _ = try await http.get(url, mode: .noCache, origin: origin.origin)
        #expect(origin.requests.last?.headers["Cache-Control"] == "max-age=0")
        #expect(origin.requests.last?.headers["If-None-Match"] == "\"e\"")
        clock.advance(1000)
        let forced = try await http.get(url, mode: .forceCache, origin: unreachableOrigin)
        #expect(forced.outcome == .stale)
        #expect(try await http.get(url, mode: .onlyIfCached, origin: unreachableOrigin).outcome == .stale)
        #expect(
            try await http.get(url, headers: ["Cache-Control": "only-if-cached"], origin: unreachableOrigin).status
                == 504)
    }

    @Test func theCallersOwnConditionalRequestGetsA304FromTheCache() async throws {
        let (store, _) = cache()
        let http = store.httpCache
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=60", "ETag": "\"v\""])
        _ = try await http.get("https://example.com/c", origin: origin.origin)
        let notModified = try await http.get(
            "https://example.com/c", headers: ["If-None-Match": "\"v\""], origin: unreachableOrigin)
        #expect(notModified.status == 304 && notModified.outcome == .hit)
        #expect(notModified.headers["ETag"] == "\"v\"")
        let full = try await http.get(
            "https://example.com/c", headers: ["If-None-Match": "\"other\""], origin: unreachableOrigin)
        #expect(full.status == 200)
        // Conditions the cache does not evaluate go to the origin.
        _ = try await http.get("https://example.com/c", headers: ["If-Match": "\"v\""], origin: origin.origin)
        #expect(origin.hits == 2)
    }
}
