import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

/// `wkstore watch`: another process's changes, printed as they are committed.
@Suite(.ownThreads, .bothEngines) struct WatchTests {
    /// Starts `wkstore --store <sandbox store> watch arguments…` with its output in a file.
    func startWatch(_ sandbox: Sandbox, _ arguments: [String]) throws -> (Subprocess, URL) {
        let output = sandbox.root.appendingPathComponent("watch-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        let process = Subprocess()
        process.executableURL = WKStoreExecutable.url
        process.arguments = try sandbox.storeArguments() + ["watch"] + arguments
        process.environment = sandbox.environment
        process.standardOutput = handle
        process.standardError = FileHandle.standardError
        try process.run()
        return (process, output)
    }

    @Test func watchPrintsOtherProcessesChangesInOrderAndStopsAfterCount() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://example.com/", "old=1"])
        // Position 1 is the cookie above: the watch prints what follows, however soon it starts.
        let (watch, output) = try startWatch(sandbox, ["--since", "1", "--count", "3", "--json"])
        try sandbox.succeed(["cookies", "set", "--url", "https://example.org/", "new=1; Max-Age=600"])
        try sandbox.succeed(["storage", "set", "--origin", "https://example.net", "k", "v"])
        try sandbox.succeed(["clear", "--types", "cookies", "--site", "example.com"])
        watch.waitUntilExit()
        #expect(watch.terminationStatus == 0)
        let lines = String(decoding: try Data(contentsOf: output), as: UTF8.self).split(separator: "\n")
        let objects = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(
            objects.map { "\($0["type"]!) \($0["site"]!) \($0["cause"]!)" } == [
                "cookies example.org write", "localstorage example.net write", "cookies example.com removal",
            ])
        #expect(objects.map { $0["position"] as? Int } == [2, 3, 4])
        #expect(((objects[0]["cookie"] as? [String: Any])?["name"] as? String) == "new")
        #expect(objects.map { $0["removed"] as? Bool } == [false, nil, true])
    }

    @Test func watchFiltersBySiteAndTypeInText() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://example.com/", "a=1"])
        try sandbox.succeed(["cookies", "set", "--url", "https://example.org/", "b=1"])
        try sandbox.succeed(["storage", "set", "--origin", "https://example.org", "k", "v"])
        let result = try sandbox.succeed([
            "watch", "--since", "0", "--site", "example.org", "--types", "cookies", "--count", "1",
        ])
        let words = result.stdout.split(separator: " ").map(String.init)
        #expect(
            words.count == 8 && words[0] == "2"
                && words[2...].joined(separator: " ") == "cookies example.org write b example.org /\n")
    }

    @Test(.sqliteOnly) func badOptionsAndMissingStoresAreOneLineErrors() throws {
        let sandbox = try Sandbox()
        let negative = try sandbox.runInStore(["watch", "--since", "-3"])
        #expect(negative.status == 2 && negative.isOneLineMessage)
        #expect(negative.stderr.contains("--since"))
        let missing = try sandbox.run(["watch", "--store", sandbox.root.appendingPathComponent("nothing").path])
        #expect(missing.status == 1 && missing.isOneLineMessage)
        #expect(!FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("nothing").path))
    }
}
