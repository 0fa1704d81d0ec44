import Foundation
import Testing
import WebsiteDataTestSupport

/// The fuzz regression corpus (Fixtures/fuzz-regressions/TARGET/: every crash a fuzzer found,
/// plus hostile inputs written by hand) replayed through the same target code the fuzzers run,
/// in a `wkstore-fuzz TARGET FILE...` child process: a crash or a broken invariant ends it with
/// a non-zero status. Document-start scripts made from the user-script inputs are then run in
/// node (scripts/check-script-samples.js).
@Suite(.ownThreads) struct HardeningFuzzRegressionTests {
    static let corpus: URL = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent(
        "fuzz-regressions")
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The targets `wkstore-fuzz` knows, from its usage line.
    static func targets() async throws -> [String] {
        let usage = try await Command.run(Command.product("wkstore-fuzz"), [])
        let list = try #require(usage.stdout.components(separatedBy: "targets: ").last)
        return list.trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: ", ")
    }

    static func inputs(_ target: String) throws -> [URL] {
        let folder = corpus.appendingPathComponent(target)
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map {
            folder.appendingPathComponent($0)
        }
    }

    @Test func everyTargetHasRegressionInputsAndReplaysThemWithoutACrash() async throws {
        let targets = try await Self.targets()
        #expect(targets.count >= 9, "\(targets)")
        var total = 0
        for target in targets {
            let inputs = try Self.inputs(target)
            #expect(!inputs.isEmpty, "Fixtures/fuzz-regressions/\(target) is empty")
            let result = try await Command.run(Command.product("wkstore-fuzz"), [target] + inputs.map(\.path))
            #expect(
                result.status == 0 && result.stdout == "\(target): \(inputs.count) inputs replayed, no crash\n",
                "\(target): \(result)")
            total += inputs.count
        }
        print("fuzz regressions: \(total) inputs over \(targets.count) targets replayed, no crash")
    }

    @Test func userScriptRegressionsRunInNode() async throws {
        let samples = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "wkstore-samples-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: samples, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: samples) }
        // One process per input: each process writes its first script as a sample.
        var environment = ProcessInfo.processInfo.environment
        for (i, input) in try Self.inputs("user-script").enumerated() {
            let folder = samples.appendingPathComponent("\(i)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            environment["WKSTORE_FUZZ_SAMPLES"] = folder.path
            let result = try await Command.run(
                Command.product("wkstore-fuzz"), ["user-script", input.path], environment: environment)
            #expect(result.status == 0, "\(input.lastPathComponent): \(result)")
            let written = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(written.sorted() == ["sample-0.js", "sample-0.json"], "\(written)")
            for name in written {
                try FileManager.default.moveItem(
                    at: folder.appendingPathComponent(name),
                    to: samples.appendingPathComponent(name.replacingOccurrences(of: "sample-0", with: "sample-\(i)")))
            }
        }
        let node = try await Command.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "node", Self.repository.appendingPathComponent("scripts/check-script-samples.js").path, samples.path,
                "100",
            ])
        #expect(node.status == 0, "\(node)")
        #expect(node.stdout.hasSuffix(", 0 failures\n"), "\(node)")
        print(node.stdout, terminator: "")
    }
}
