import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// The http-tests/cache-tests suite replayed against `HTTPCache` below redirect following,
/// with an in-process mock origin and a test clock (Fixtures/http-cache-tests/FORMAT.md).
///
/// The target is the private profile (no `cdn_only`, no `browser_skip`): 137 required tests,
/// which Chrome, Firefox and Safari pass 117, 116 and 117 of. The `browser_skip` tests a
/// client library can run (3xx statuses, which browsers skip only because they follow
/// redirects; the cache answering the caller's own conditional requests) are run and
/// reported on a line of their own; those that cannot apply are listed with the reason.
///
/// The replay runs against each cache arrangement: the disk cache alone, the memory cache
/// alone (a non-persistent store), and both. With the store's default settings the cache
/// drops `Set-Cookie`, `Set-Cookie2` and `Clear-Site-Data` from stored responses (as
/// Chromium does), which three required tests check against; with
/// `cache.store-cookie-headers` set to `true` it keeps them and passes all 137.
@Suite(.serialized, .ownThreads, .bothEngines) struct CacheConformanceTests {
    /// The required tests that check cookie fields and `Clear-Site-Data` are replayed from storage.
    static let cookieFieldTests: Set<String> = [
        "headers-store-Set-Cookie", "headers-store-Set-Cookie2", "headers-store-Clear-Site-Data",
    ]

    enum Applicability: Equatable {
        case privateProfile
        case libraryRuns
        case notApplicable(String)
    }

    static func applicability(_ test: CacheSuite.Test) -> Applicability {
        if test.cdnOnly {
            return .notApplicable("cdn_only: CDN-Cache-Control and other rules for CDNs, not for a client cache")
        }
        if !test.browserSkip { return .privateProfile }
        switch test.suite {
        case "status", "conditional-lm", "conditional-inm": return .libraryRuns
        case "interim":
            return .notApplicable(
                "1xx interim responses are consumed by libcurl below the cache layer; the cache sees final responses only"
            )
        default: break
        }
        if test.id.contains("authorization") {
            return .notApplicable(
                "shared-cache rule: Authorization limits only shared caches (RFC 9111 §3.5); a private cache stores the response"
            )
        }
        if test.id.contains("s-maxage") || test.id.contains("smaxage") {
            return .notApplicable(
                "shared-cache rule: s-maxage binds only shared caches (RFC 9111 §5.2.2.10); a private cache ignores it")
        }
        if test.id.contains("proxy-revalidate") {
            return .notApplicable("shared-cache rule: proxy-revalidate binds only shared caches (RFC 9111 §5.2.2.8)")
        }
        if test.id.contains("private") {
            return .notApplicable(
                "shared-cache rule: private forbids only shared caches to store (RFC 9111 §5.2.2.7); a private cache stores it"
            )
        }
        return .notApplicable("browser_skip")
    }

    struct Summary {
        var passed: [String: Int] = [:]
        var total: [String: Int] = [:]
        var failures: [String] = []
        var notPassed: [String: [String]] = [:]
        var requiredFailures: Set<String> = []

        func line(_ kinds: [String] = ["required", "optimal", "check"]) -> String {
            kinds.map { "\($0) \(passed[$0] ?? 0)/\(total[$0] ?? 0)" }.joined(separator: ", ")
        }
    }

    /// Replays every applicable test against `store`; prints the report; returns the private-profile summary.
    static func replay(_ label: String, store: WebsiteDataStore, clock: TestClock, listNotApplicable: Bool = false)
        async throws -> Summary
    {
        let tests = try CacheSuite.load()
        let runner = CacheSuiteRunner(store: store, clock: clock)
        var results: [String: CacheTestResult] = [:]
        var notApplicable: [String] = []
        for test in tests {
            switch applicability(test) {
            case .notApplicable(let reason): notApplicable.append("\(test.id) (\(test.kind)): \(reason)")
            default: results[test.id] = await runner.run(test)
            }
        }
        let byID = Dictionary(uniqueKeysWithValues: tests.map { ($0.id, $0) })
        func summarize(_ selected: [CacheSuite.Test]) -> Summary {
            var summary = Summary()
            for test in selected {
                guard let result = results[test.id] else { continue }
                summary.total[test.kind, default: 0] += 1
                if result.passed {
                    summary.passed[test.kind, default: 0] += 1
                    continue
                }
                if test.kind == "required" { summary.requiredFailures.insert(test.id) }
                let dependencyFailed = test.dependsOn.contains {
                    results[$0]?.passed == false || (results[$0] == nil && byID[$0] != nil)
                }
                let message: String
                switch result {
                case .fail(let text): message = (dependencyFailed ? "dependency failed; " : "") + text
                case .setupFailed(let text): message = "setup failed: " + text
                case .pass: message = ""
                }
                summary.notPassed[test.kind, default: []].append("\(test.id) (\(message))")
            }
            return summary
        }
        let privateSummary = summarize(tests.filter { applicability($0) == .privateProfile })
        let libraryRuns = summarize(tests.filter { applicability($0) == .libraryRuns })
        let browsers = try CacheSuite.browserResults()
        let requiredPrivate = Set(
            tests.filter { applicability($0) == .privateProfile && $0.kind == "required" }.map(\.id))
        let baseline = ["chrome", "firefox", "safari"].map {
            "\($0) \(browsers[$0]!.intersection(requiredPrivate).count)"
        }
        print(
            "http-cache-tests [\(label)] private profile: \(privateSummary.line())   (browsers, required: \(baseline.joined(separator: ", ")))"
        )
        for kind in ["required", "optimal", "check"] {
            for line in privateSummary.notPassed[kind] ?? [] { print("  \(kind) not passed: \(line)") }
        }
        print(
            "http-cache-tests [\(label)] browser_skip tests a library runs (3xx below redirect following; 304s for the caller's own conditional requests): \(libraryRuns.line())"
        )
        for kind in ["required", "optimal", "check"] {
            for line in libraryRuns.notPassed[kind] ?? [] { print("  browser_skip \(kind) not passed: \(line)") }
        }
        if listNotApplicable {
            print("http-cache-tests: \(notApplicable.count) tests cannot apply to a client library's private cache:")
            for line in notApplicable { print("  not applicable: \(line)") }
        }
        return privateSummary
    }

    @Test func theFixtureIsTheSuiteFormatDescribes() throws {
        let tests = try CacheSuite.load()
        #expect(tests.count == 370)
        let privateProfile = tests.filter { Self.applicability($0) == .privateProfile }
        #expect(privateProfile.filter { $0.kind == "required" }.count == 137)
        #expect(privateProfile.filter { $0.kind == "optimal" }.count == 77)
        #expect(privateProfile.filter { $0.kind == "check" }.count == 86)
        // Every test is either run or listed as not applicable with a reason.
        let listed = tests.filter {
            if case .notApplicable(let reason) = Self.applicability($0) {
                return reason != "browser_skip"
            } else {
                return true
            }
        }
        #expect(listed.count == tests.count)
    }

    @Test func diskCacheAlonePassesEveryRequiredTest() async throws {
        let directory = TemporaryDirectory()
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(directory.url, clock: clock)
        try store.set(.memoryCacheMaxSize, to: "0")
        try store.set(.cacheStoresCookieHeaders, to: "true")
        let summary = try await Self.replay(
            "disk cache only, cache.store-cookie-headers=true", store: store, clock: clock,
            listNotApplicable: true)
        #expect(summary.passed["required"] == 137)
        #expect(summary.requiredFailures.isEmpty)
        #expect(try store.httpCache.diskUsage() > 0)
        #expect(store.httpCache.memoryUsage == 0)
    }

    @Test func memoryCacheAlonePassesEveryRequiredTest() async throws {
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(nil, clock: clock)
        try store.set(.cacheStoresCookieHeaders, to: "true")
        let summary = try await Self.replay(
            "non-persistent store: memory cache only, cache.store-cookie-headers=true", store: store, clock: clock)
        #expect(summary.passed["required"] == 137)
        #expect(summary.requiredFailures.isEmpty)
        #expect(try store.httpCache.diskUsage() == 0)
        #expect(store.httpCache.memoryUsage > 0)
    }

    @Test func memoryInFrontOfDiskPassesEveryRequiredTest() async throws {
        let directory = TemporaryDirectory()
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(directory.url, clock: clock)
        try store.set(.cacheStoresCookieHeaders, to: "true")
        let summary = try await Self.replay(
            "memory cache in front of disk cache, cache.store-cookie-headers=true", store: store, clock: clock)
        #expect(summary.passed["required"] == 137)
        #expect(summary.requiredFailures.isEmpty)
    }

    @Test func defaultSettingsFailOnlyTheCookieFieldTests() async throws {
        let directory = TemporaryDirectory()
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(directory.url, clock: clock)
        let summary = try await Self.replay(
            "default settings: Set-Cookie, Set-Cookie2, Clear-Site-Data not stored", store: store, clock: clock)
        #expect(summary.requiredFailures == Self.cookieFieldTests)
        #expect(summary.passed["required"] == 134)
    }
}
