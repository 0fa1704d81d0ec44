import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

/// What one run of the `wkstore` executable did.
struct RunResult {
    /// The exit status.
    let status: Int32
    /// Standard output, as bytes.
    let stdoutData: Data
    /// Standard output.
    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    /// Standard error.
    let stderr: String

    /// Standard output's lines, without the final empty one.
    var lines: [String] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }

    /// Standard output parsed as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: stdoutData, options: [.fragmentsAllowed])
    }

    /// Standard output parsed as a JSON object.
    func object() throws -> [String: Any] {
        try #require(try json() as? [String: Any], "not a JSON object: \(stdout)")
    }

    /// Standard output parsed as a JSON array of objects.
    func objects() throws -> [[String: Any]] {
        try #require(try json() as? [[String: Any]], "not a JSON array of objects: \(stdout)")
    }

    /// Whether standard error is exactly one `wkstore: …` line.
    var isOneLineMessage: Bool {
        stderr.hasPrefix("wkstore: ") && stderr.hasSuffix("\n") && stderr.dropLast().firstIndex(of: "\n") == nil
    }
}

/// Locates the `wkstore` executable `swift test` built: it sits in the products directory,
/// which is where the test bundle is (or its parent, for a macOS `.xctest` bundle).
enum WKStoreExecutable {
    static let url: URL? = {
        let fm = FileManager.default
        var directories: [URL] = []
        if let override = ProcessInfo.processInfo.environment["WKSTORE_EXECUTABLE"] {
            return URL(fileURLWithPath: override)
        }
        directories.append(Bundle.main.bundleURL)
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        if let executable = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
        }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for directory in directories {
            let candidate = directory.appendingPathComponent("wkstore")
            var isDirectory: ObjCBool = false
            if fm.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                fm.isExecutableFile(atPath: candidate.path)
            {
                return candidate
            }
        }
        return nil
    }()
}

/// A temporary directory of a test's own, deleted when the test ends, with a store directory,
/// a home and an XDG data directory in it: no test ever touches the user's real stores.
///
/// The store of a directory is on the engine of the test that uses it (`TestEngine.current`): the
/// directory itself on SQLite, or on PostgreSQL a schema of the test database standing for it.
/// `storeArguments(_:)` names it to the tool, `openStore(_:)` opens it in the test process.
final class Sandbox {
    /// The temporary directory.
    let root: URL
    /// `--store` for commands run with `runInStore`.
    let store: URL
    /// `XDG_DATA_HOME` of every run.
    let dataHome: URL
    private var runs = 0

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "wkstore-cli-tests-\(UUID().uuidString.lowercased())")
        store = root.appendingPathComponent("store")
        dataHome = root.appendingPathComponent("data")
        // The store's directory is made as a user makes one before pointing --store at it.
        for directory in [
            root, store, dataHome, root.appendingPathComponent("home"), root.appendingPathComponent("tmp"),
        ] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    /// The environment of every run: a home, XDG data directory and TMPDIR inside the sandbox, UTC unless changed,
    /// and the sanitizer settings of the test run, so that a sanitized `wkstore` runs as the tests do (CI turns
    /// LeakSanitizer's reports off).
    var environment: [String: String] {
        var environment = [
            "HOME": root.appendingPathComponent("home").path,
            "XDG_DATA_HOME": dataHome.path,
            "TMPDIR": root.appendingPathComponent("tmp").path,
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "TZ": "UTC",
        ]
        for key in ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"] {
            if let value = ProcessInfo.processInfo.environment[key] { environment[key] = value }
        }
        return environment
    }

    /// Runs `wkstore` with `arguments`, `environment` plus `extra`, and `stdin` on standard input.
    func run(_ arguments: [String], environment extra: [String: String] = [:], stdin: Data? = nil) throws -> RunResult {
        let executable = try #require(
            WKStoreExecutable.url, "the wkstore executable was not found next to the test bundle")
        runs += 1
        let out = root.appendingPathComponent("run\(runs).stdout")
        let err = root.appendingPathComponent("run\(runs).stderr")
        let input = root.appendingPathComponent("run\(runs).stdin")
        try Data().write(to: out)
        try Data().write(to: err)
        try (stdin ?? Data()).write(to: input)

        let process = Subprocess()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }
        process.currentDirectoryURL = root
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        let inHandle = try FileHandle(forReadingFrom: input)
        defer {
            try? outHandle.close()
            try? errHandle.close()
            try? inHandle.close()
        }
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = inHandle
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "wkstore \(arguments) was killed by a signal")
        return RunResult(
            status: process.terminationStatus,
            stdoutData: try Data(contentsOf: out),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    /// The global options naming the store of `directory` (the sandbox store by default) on this
    /// test's engine: `--store DIR`, or `--store URI --identifier UUID`.
    func storeArguments(_ directory: URL? = nil) throws -> [String] {
        try TestEngine.storeArguments(for: directory ?? store)
    }

    /// Opens, in the test process, the store of `directory` (the sandbox store by default) that
    /// `storeArguments(_:)` names, creating it when it does not exist.
    func openStore(_ directory: URL? = nil) throws -> WebsiteDataStore {
        try TestEngine.openStore(for: directory ?? store)
    }

    /// Whether anything of a store was made for `directory` (the sandbox store by default): a file
    /// in the directory on SQLite, the store's schema on PostgreSQL.
    func storeWasMade(_ directory: URL? = nil) throws -> Bool {
        let directory = directory ?? store
        switch TestEngine.current {
        case .sqlite:
            return !(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        case .postgreSQL:
            let location = try TestEngine.postgreSQLStore(for: directory)
            let url = try #require(URL(string: PostgreSQLTestServer.uri(location.connectionString)))
            return try WebsiteDataStore.allDataStoreIdentifiers(in: url).contains(location.identifier)
        }
    }

    /// Runs `wkstore --store <sandbox store> arguments…`.
    func runInStore(_ arguments: [String], environment extra: [String: String] = [:], stdin: Data? = nil) throws
        -> RunResult
    {
        try run(try storeArguments() + arguments, environment: extra, stdin: stdin)
    }

    /// Runs a command in the sandbox store that must succeed, and returns what it did.
    @discardableResult
    func succeed(_ arguments: [String], stdin: Data? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> RunResult
    {
        let result = try runInStore(arguments, stdin: stdin)
        #expect(
            result.status == 0, "wkstore \(arguments.joined(separator: " ")) failed: \(result.stderr)",
            sourceLocation: sourceLocation)
        return result
    }
}
