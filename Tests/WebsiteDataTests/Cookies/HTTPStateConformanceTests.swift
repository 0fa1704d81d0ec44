import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// The IETF http-state cookie suite, replayed in process as its PROTOCOL.md says: for each test a
/// fresh store receives the test's `Set-Cookie` headers from `set_url` (a same-site top-level
/// response over http), then the `Cookie` header for `followup_url` is compared byte for byte
/// with `expected_cookie` (RFC 6265bis, with the four corrections the suite's README gives).
@Suite(.ownThreads, .bothEngines) struct HTTPStateConformanceTests {
    struct Case: Decodable {
        let id: String
        let set_url: String
        let followup_url: String
        let set_cookie_rfc6265bis_template: [String]
        let expected_cookie: String?
    }

    static func cases() throws -> [Case] {
        let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!
            .appendingPathComponent("cookies-http-state/manifest.json")
        return try JSONDecoder().decode([Case].self, from: Data(contentsOf: url))
    }

    /// Fills the suite's `Expires=PAST` / `Expires=FUTURE` placeholders with now -/+ one year.
    static func fill(_ header: String, now: Date) -> String {
        header.replacingOccurrences(of: "=PAST", with: "=" + CookieDate.format(now.addingTimeInterval(-365 * 86400)))
            .replacingOccurrences(of: "=FUTURE", with: "=" + CookieDate.format(now.addingTimeInterval(365 * 86400)))
    }

    @Test func httpStateSuite() throws {
        let cases = try Self.cases()
        #expect(cases.count == 222)
        var passed = 0
        var failed: [String] = []
        var disabled: [String] = []
        // On PostgreSQL one store serves every case, emptied before each.
        let shared =
            TestEngine.current == .postgreSQL
            ? try WebsiteDataStore(
                directory: nil, identifier: nil, clock: { Date() },
                postgreSQL: try TestEngine.postgreSQLLocation(for: nil)) : nil
        for test in cases {
            let store = shared ?? WebsiteDataStore.nonPersistent()
            if shared != nil { try store.removeData(ofTypes: [.cookies], matching: RemovalFilter()) }
            let now = Date()
            try store.httpCookieStore.setCookies(
                fromSetCookieHeaders: test.set_cookie_rfc6265bis_template.map { Self.fill($0, now: now) },
                for: URL(string: test.set_url)!)
            let header = try store.httpCookieStore.cookieHeader(for: URL(string: test.followup_url)!)
            let ok = header == test.expected_cookie
            if test.id.hasPrefix("disabled-") {
                disabled.append("\(test.id): \(ok ? "pass" : "fail (got \(header ?? "no header"))")")
                continue
            }
            if ok {
                passed += 1
            } else {
                failed.append(
                    "\(test.id): expected \(test.expected_cookie ?? "no header"), got \(header ?? "no header")")
            }
        }
        print("http-state (in process): \(passed) passed, \(failed.count) failed")
        for line in failed { print("  FAIL \(line)") }
        print("http-state disabled- tests (reported, not required): " + disabled.joined(separator: "; "))
        #expect(passed == 218)
        #expect(failed.isEmpty)
    }
}
