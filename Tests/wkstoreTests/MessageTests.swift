import Foundation
import Testing
import WebsiteDataTestSupport

/// Messages say what was wrong with what the user gave, in words they can act on.
@Suite(.ownThreads) struct MessageTests {
    @Test func aRefusedCookieSaysWhichRuleItBroke() throws {
        let sandbox = try Sandbox()
        let big = "big=" + String(repeating: "x", count: 5000)
        let result = try sandbox.runInStore([
            "cookies", "set", "--url", "https://example.com/", big, "=", "ctl=a\u{01}b", " ; Path=/", "ok=1",
        ])
        #expect(result.status == 0, "one cookie was stored")
        #expect(result.stdout == "stored 1 cookie, refused 4\n")
        #expect(
            result.stderr.split(separator: "\n") == [
                "wkstore: cookie refused: its name and value are 5003 bytes, over the 4096-byte limit",
                "wkstore: cookie refused: its name and value are empty",
                "wkstore: cookie refused: it holds the control character U+0001",
                "wkstore: cookie refused: its name and value are empty",
            ])
        let alone = try sandbox.runInStore(["cookies", "set", "--url", "https://example.com/", big, "--json"])
        #expect(alone.status == 1, "nothing was stored")
        let json = try alone.object()
        let refused = try #require((json["refused"] as? [[String: Any]])?.first)
        #expect(refused["reason"] as? String == "malformed")
        #expect((refused["message"] as? String)?.contains("over the 4096-byte limit") == true)
    }

    @Test func fileErrorsNameThePathAndTheCauseNeverFoundationsCode() throws {
        let sandbox = try Sandbox()
        let directory = sandbox.root.appendingPathComponent("a-directory")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for command in [
            ["import", directory.path],
            ["cookies", "set", "--url", "https://example.com/", "--headers-file", directory.path],
            ["cookies", "ingest-report", directory.path],
        ] {
            let result = try sandbox.runInStore(command)
            #expect(result.status == 1, "\(command)")
            #expect(result.isOneLineMessage, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(directory.path), "\(command): \(result.stderr)")
            #expect(result.stderr.contains("Is a directory"), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("NSCocoaErrorDomain"), "\(command): \(result.stderr)")
        }
    }
}
