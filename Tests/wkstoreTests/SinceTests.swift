import Foundation
import Testing
import WebsiteDataTestSupport

/// Every form of `clear --since WHEN`, read through the binary: `clear --dry-run --json` reports
/// the date it parsed. Local times are read in Asia/Kolkata (UTC+05:30, no daylight saving),
/// so a local-time bug cannot hide behind UTC.
@Suite(.ownThreads) struct SinceTests {
    static let zone = ["TZ": "Asia/Kolkata"]

    func parsedSince(_ when: String, in sandbox: Sandbox) throws -> (String, [String: Any]) {
        let result = try sandbox.runInStore(
            ["clear", "--types", "cookies", "--dry-run", "--json", "--since", when],
            environment: Self.zone)
        #expect(result.status == 0, "--since \(when): \(result.stderr)")
        let object = try result.object()
        return (try #require(object["since"] as? String), object)
    }

    @Test(
        "absolute forms",
        arguments: [
            ("2026-11-01", "2026-10-31T18:30:00.000Z"),
            ("2026-11-01T08:00", "2026-11-01T02:30:00.000Z"),
            ("2026-11-01T08:00:30", "2026-11-01T02:30:30.000Z"),
            ("2026-11-01T08:00:30.250", "2026-11-01T02:30:30.250Z"),
            ("2026-11-01T08:00Z", "2026-11-01T08:00:00.000Z"),
            ("2026-11-01T08:00:30Z", "2026-11-01T08:00:30.000Z"),
            ("2026-11-01T08:00+02:00", "2026-11-01T06:00:00.000Z"),
            ("2026-11-01T08:00:30-05:00", "2026-11-01T13:00:30.000Z"),
            ("2026-11-01T08:00+0200", "2026-11-01T06:00:00.000Z"),
            ("2024-02-29", "2024-02-28T18:30:00.000Z"),
            ("1767225600", "2026-01-01T00:00:00.000Z"),
            ("0", "1970-01-01T00:00:00.000Z"),
            ("20261101", "1970-08-23T12:05:01.000Z"),
        ])
    func absolute(_ when: String, _ expected: String) throws {
        let sandbox = try Sandbox()
        let (since, object) = try parsedSince(when, in: sandbox)
        #expect(since == expected, "--since \(when)")
        #expect(object["dryRun"] as? Bool == true)
    }

    @Test(
        "durations back from now",
        arguments: [("90s", 90.0), ("15m", 900.0), ("2h", 7200.0), ("7d", 604_800.0), ("0s", 0.0)])
    func relative(_ when: String, _ seconds: Double) throws {
        let sandbox = try Sandbox()
        let before = Date()
        let (since, _) = try parsedSince(when, in: sandbox)
        let after = Date()
        let date = try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(since)
        // Milliseconds are printed, so allow for the rounding of the last one.
        #expect(date.timeIntervalSince1970 >= before.timeIntervalSince1970 - seconds - 0.001)
        #expect(date.timeIntervalSince1970 <= after.timeIntervalSince1970 - seconds + 0.001)
    }

    @Test(
        "forms that are not accepted exit 2",
        arguments: [
            "yesterday", "2026-02-30", "2026-13-01", "2026-1-01", "2026-11-01T24:00", "2026-11-01T08",
            "2026-11-01T08:00:61", "2026-11-01T08:00+25:00", "5y", "1.5h", "-5s", "h", "2026-11-01T08:00 UTC", "１２３",
        ])
    func rejected(_ when: String) throws {
        let sandbox = try Sandbox()
        let result = try sandbox.runInStore(["clear", "--types", "cookies", "--since", when])
        #expect(result.status == 2, "--since \(when) exited \(result.status)")
        #expect(result.isOneLineMessage)
        #expect(result.stderr.contains("Unix timestamp"))
    }

    @Test func aFutureSinceRemovesNothingAndSaysSo() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://example.com/", "a=1; Max-Age=600", "b=2"])
        let tomorrow = String(Int(Date().timeIntervalSince1970) + 86_400)
        for when in ["2999-01-01", tomorrow] {
            let text = try sandbox.succeed(["clear", "--types", "all", "--since", when])
            #expect(text.stdout.hasPrefix("nothing to remove: --since "), "\(text.stdout)")
            #expect(text.stdout.contains("in the future"))
            let json = try sandbox.succeed(["clear", "--types", "all", "--since", when, "--json"]).object()
            #expect(json["sinceIsInFuture"] as? Bool == true)
            #expect((json["removed"] as? [Any])?.isEmpty == true)
        }
        #expect(try sandbox.succeed(["cookies", "list"]).lines.count == 2)
    }
}
