import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Processes side by side: 4 processes with 8 concurrent tasks each read and write one store while
/// another process clears part of it every second. No error reaches a caller, nothing
/// acknowledged is lost except by the clears, and the final counts add up. On SQLite and on
/// PostgreSQL.
@Suite(.ownThreads, .bothEngines) struct SideBySideTests {
    let dir = TemporaryDirectory()

    @Test func fourProcessesAndAClearerShareOneStore() throws {
        let store = dir.path("store")
        do {
            let setup = try TestEngine.openStore(for: store)
            try setup.set(.cookiesMaxTotal, to: "10000000")
            try setup.set(.cookiesMaxPerSite, to: "10000000")
        }
        let writers = try (0..<4).map { p in
            try ChildProcess(
                "wkstore-stress",
                ["mixed"] + TestEngine.storeArguments(for: store) + [
                    "--tasks", "8", "--duration", "4", "--prefix", "p\(p)",
                ])
        }
        var clears = 0
        let deadline = Date().addingTimeInterval(4)
        while Date() < deadline {
            let clearer = try ChildProcess(
                "wkstore-stress",
                ["clear"] + TestEngine.storeArguments(for: store) + [
                    "--sites", "clear0.example,clear1.example,clear2.example,clear3.example",
                ])
            #expect(clearer.wait() == 0)
            clears += 1
            Thread.sleep(forTimeInterval: 1)
        }
        var acknowledged = 0
        var operations = 0
        var longest = 0
        for (p, writer) in writers.enumerated() {
            var fields: [String: Int] = [:]
            while let line = writer.readLine() {
                let parts = line.split(separator: " ")
                if parts.count == 2, let n = Int(parts[1]) { fields[String(parts[0])] = n }
            }
            #expect(writer.wait() == 0, "writer \(p)")
            #expect(fields["errors"] == 0, "writer \(p) saw errors")
            #expect(fields["outage-errors"] == 0, "writer \(p) lost its server")
            acknowledged += fields["keep-acknowledged"] ?? 0
            operations += fields["operations"] ?? 0
            longest = max(longest, fields["longest-wait-ms"] ?? 0)
        }
        let final = try TestEngine.openStore(for: store).httpCookieStore.allCookies()
        let kept = final.filter { $0.domain.hasPrefix("keep") }
        #expect(acknowledged > 0)
        #expect(kept.count == acknowledged, "every acknowledged cookie of the sites never cleared is there")
        print(
            "side by side, \(TestEngine.current): 4 processes x 8 tasks, \(clears) clears, \(operations) operations, \(acknowledged) acknowledged kept cookies all present, longest wait \(longest) ms"
        )
    }
}
