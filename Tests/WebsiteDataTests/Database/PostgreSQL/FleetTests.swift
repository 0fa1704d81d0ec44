import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// A fleet on one PostgreSQL store: 4 processes that share nothing but the URI, 8 tasks each,
/// write cookies and cache entries while a fifth process runs `wkstore clear` on sites of its own
/// every second, and the server is stopped as a crash stops it and started again once.
/// Once the writing ends, each writer's lookups must agree with a store opened afresh from the
/// database within the feed's delay (the writers report the sites where they do not).
///
/// The server is a cluster of the test's own (restarting the shared one would cut off every
/// other test), with PostgreSQL's default durability.
@Suite(.ownThreads) struct FleetTests {
    static let clearSites = (0..<4).map { "clear\($0).example" }

    @Test func fourProcessesAClearerAndAServerRestartLoseNothingAcknowledged() async throws {
        let cluster = try PostgreSQLTestCluster()
        defer { try? cluster.stop(immediate: false) }
        let uri = PostgreSQLTestServer.uri(cluster.socketConnectionString())
        do {
            let setup = try WebsiteDataStore(url: URL(string: uri)!)
            try setup.set(.cookiesMaxTotal, to: "10000000")
            try setup.set(.cookiesMaxPerSite, to: "10000000")
            try setup.set(.cacheMaxSize, to: "1GB")
        }
        let dir = TemporaryDirectory()
        let stop = dir.path("stop")
        let settle = dir.path("settled")
        let writers = try (0..<4).map { p in
            try ChildProcess(
                "wkstore-stress",
                [
                    "mixed", "--store", uri, "--tasks", "8", "--duration", "600", "--prefix", "p\(p)", "--cache", "yes",
                    "--stop-file", stop.path, "--settle-file", settle.path,
                ])
        }
        // Each writer's output, read as it comes: "written" when its writing is over, then its counts.
        let outputs = Locked<[[String]]>(Array(repeating: [], count: writers.count))
        let reading = DispatchGroup()
        for (p, writer) in writers.enumerated() {
            DispatchQueue.global().async(group: reading) {
                while let line = writer.readLine() { outputs.withLock { $0[p].append(line) } }
            }
        }
        func allWritten() -> Bool { outputs.withLock { $0.allSatisfy { $0.contains("written") } } }
        func clear() throws -> (status: Int32, output: String) {
            let clearer = try ChildProcess(
                "wkstore",
                ["--store", uri, "clear", "--types", "cookies,diskcache"] + Self.clearSites.flatMap { ["--site", $0] })
            var output = ""
            while let line = clearer.readLine() { output += line + "\n" }
            return (clearer.wait(), output)
        }

        // Clears every second: the server restarted after the second, the writers stopped after the sixth.
        var clears = 0
        var restarted = false
        var clearsRefusedInOutage = 0
        while clears < 6 {
            if clears == 2 && !restarted {
                try cluster.stop(immediate: true)
                // A clear while the server is down fails with a message, changing nothing.
                let (status, _) = try clear()
                #expect(status != 0)
                clearsRefusedInOutage += 1
                try await Task.sleep(for: .seconds(1))
                try cluster.start()
                restarted = true
            }
            let (status, output) = try clear()
            #expect(status == 0, "wkstore clear: \(output)")
            clears += 1
            try await Task.sleep(for: .seconds(1))
        }
        #expect(FileManager.default.createFile(atPath: stop.path, contents: nil))
        while !allWritten() { try await Task.sleep(for: .milliseconds(50)) }
        // The last clear, after every writer stopped writing; then the writers compare their lookups.
        #expect(try clear().status == 0)
        #expect(FileManager.default.createFile(atPath: settle.path, contents: nil))
        var acknowledged = 0
        var ambiguous = 0
        var outageErrors = 0
        var operations = 0
        var disagreeing = 0
        for (p, writer) in writers.enumerated() {
            #expect(writer.wait() == 0, "writer \(p)")
        }
        reading.wait()
        for (p, lines) in outputs.withLock({ $0 }).enumerated() {
            var fields: [String: Int] = [:]
            for line in lines {
                let parts = line.split(separator: " ")
                if parts.count == 2, let n = Int(parts[1]) { fields[String(parts[0])] = n }
            }
            #expect(fields["errors"] == 0, "writer \(p): errors other than the outage's")
            #expect(fields["disagreements"] == 0, "writer \(p): sites whose lookups differ from the database's")
            disagreeing += max(0, fields["disagreements"] ?? 0)
            acknowledged += fields["keep-acknowledged"] ?? 0
            ambiguous += fields["ambiguous"] ?? 0
            outageErrors += fields["outage-errors"] ?? 0
            operations += fields["operations"] ?? 0
        }
        #expect(restarted && clearsRefusedInOutage == 1)
        let final = try WebsiteDataStore(url: URL(string: uri)!)
        let cookies = try final.httpCookieStore.allCookies()
        let kept = cookies.filter { $0.domain.hasPrefix("keep") }.count
        #expect(acknowledged > 0)
        // Every acknowledged cookie is there; a write cut off by the restart may have committed.
        #expect(kept >= acknowledged && kept <= acknowledged + ambiguous)
        #expect(!cookies.contains { $0.domain.hasPrefix("clear") }, "the clearer's sites hold no cookie")
        let cached = Set(try await final.dataRecords(ofTypes: [.diskCache]).map(\.displayName))
        #expect(
            !cached.isEmpty && cached.allSatisfy { $0.hasPrefix("keep") }, "the clearer's sites hold no cache entry")
        print(
            "fleet: 4 processes x 8 tasks on PostgreSQL, \(clears) clears, one server restart, \(operations) operations, \(outageErrors) outage errors, \(acknowledged) acknowledged kept cookies all present (\(kept) kept, \(ambiguous) cut off), \(disagreeing) sites whose lookups in a writer still differed from the database's after 5 s"
        )
    }
}
