import CSQLite
import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// What one run of a child process did.
struct CommandResult: CustomStringConvertible {
    let status: Int32
    let stdout: String
    let stderr: String

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }

    /// Whether standard error is exactly one line starting with `prefix`.
    func isOneLineMessage(_ prefix: String = "wkstore: ") -> Bool {
        stderr.hasPrefix(prefix) && stderr.hasSuffix("\n") && stderr.dropLast().firstIndex(of: "\n") == nil
    }
}

/// Runs child processes: the built products (`wkstore`, `wkstore-stress`, `wkstore-fuzz`), as
/// this user or as an unprivileged one.
enum Command {
    /// The unprivileged user and group (`nobody` / `nogroup` on Debian).
    static let nobody: UInt32 = 65534

    /// A built product's path.
    static func product(_ name: String) -> URL { productsDirectory.appendingPathComponent(name) }

    /// Runs an executable to its end; its output is collected through files, so nothing it
    /// writes can block it. The wait happens on a thread of its own (see `offPool`).
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
        input: Data? = nil, asUser uid: UInt32? = nil
    ) async throws -> CommandResult {
        try await offPool { try runToEnd(executable, arguments, environment: environment, input: input, asUser: uid) }
    }

    private static func runToEnd(
        _ executable: URL, _ arguments: [String], environment: [String: String]?,
        input: Data?, asUser uid: UInt32?
    ) throws -> CommandResult {
        let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "wkstore-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out")
        let err = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Subprocess()
        if let uid {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments =
                ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        var env = environment ?? ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = env["SWIFT_BACKTRACE"] ?? "enable=no"
        process.environment = env
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        process.standardOutput = outHandle
        process.standardError = errHandle
        let inputPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
        try process.run()
        if let input {
            try inputPipe.fileHandleForWriting.write(contentsOf: input)
            try inputPipe.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return CommandResult(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    /// Unmounts a file system (lazily: it goes once nothing uses it).
    static func unmount(_ mountPoint: URL) {
        let process = Subprocess()
        process.executableURL = URL(fileURLWithPath: "/bin/umount")
        process.arguments = ["-l", mountPoint.path]
        guard (try? process.run()) != nil else { return }
        process.waitUntilExit()
    }

    /// Runs the `wkstore` command with a private home and data directory under `sandbox`.
    static func wkstore(
        _ arguments: [String], sandbox: URL, environment: [String: String] = [:],
        asUser uid: UInt32? = nil
    ) async throws -> CommandResult {
        var env = [
            "HOME": sandbox.appendingPathComponent("home").path,
            "XDG_DATA_HOME": sandbox.appendingPathComponent("data").path,
            "PATH": "/usr/bin:/bin", "TZ": "UTC",
        ]
        env.merge(environment) { $1 }
        return try await run(product("wkstore"), arguments, environment: env, asUser: uid)
    }
}

/// A child process whose standard output is read line by line while it runs (standard error
/// goes to a file, shown when something goes wrong).
final class LineChild: @unchecked Sendable {
    let process = Subprocess()
    private let output = Pipe()
    private var buffer = Data()
    private let errorFile: URL

    init(_ executable: String, _ arguments: [String]) throws {
        errorFile = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "wkstore-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.executableURL = Command.product(executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = env
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
    }

    deinit { try? FileManager.default.removeItem(at: errorFile) }

    /// The next line of output, or nil at end of file (or when the pipe cannot be read). read on a thread of its own (see `offPool`).
    func nextLine() async -> String? {
        (try? await offPool { self.readLine() }) ?? nil
    }

    /// The next line of output, or nil at end of file (or when the pipe cannot be read).
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = (try? output.fileHandleForReading.readSome()) ?? Data()
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// What the process wrote to standard error.
    var standardError: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    /// Kills the process with SIGKILL and reaps it.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Runs blocking work (waiting for a child process or its output) on a thread of its own and
/// awaits it, so that the wait never holds one of the few threads Swift concurrency runs every
/// test on: with two cores, two blocked tests would stall every other test's async work (the
/// HTTP client's tests time out). Record no issues inside `body`: return what to check.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result(catching: body)) }.start()
    }
}

enum StoreFiles {
    /// `PRAGMA integrity_check` of an SQLite file, read through a connection of its own
    /// (which, like any opener, replays a write-ahead log left by a killed writer).
    static func integrityCheck(_ file: URL) throws -> String {
        let db = try SQLiteConnection(location: .file(file))
        return try db.rows("PRAGMA integrity_check") { $0.string(0) }.joined(separator: "; ")
    }

    /// Sets the modification time of every file in `folder` to `seconds` ago.
    static func age(filesIn folder: URL, by seconds: TimeInterval) {
        let then = Date().addingTimeInterval(-seconds)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            try? FileManager.default.setAttributes(
                [.modificationDate: then], ofItemAtPath: folder.appendingPathComponent(name).path)
        }
    }

    /// Every file and directory under `root` with its permission bits, relative paths sorted.
    static func modes(under root: URL) -> [(path: String, mode: Int, isDirectory: Bool)] {
        var result: [(String, Int, Bool)] = []
        let fm = FileManager.default
        func walk(_ url: URL, _ relative: String) {
            guard let attributes = try? fm.attributesOfItem(atPath: url.path) else { return }
            let isDirectory = (attributes[.type] as? FileAttributeType) == .typeDirectory
            result.append((relative, (attributes[.posixPermissions] as? Int) ?? -1, isDirectory))
            if isDirectory {
                for name in ((try? fm.contentsOfDirectory(atPath: url.path)) ?? []).sorted() {
                    walk(url.appendingPathComponent(name), relative.isEmpty ? name : relative + "/" + name)
                }
            }
        }
        walk(root, "")
        return result
    }

    /// A fingerprint of a directory tree: each path with its size, mode and content digest.
    static func fingerprint(_ root: URL) -> [String] {
        modes(under: root).map { entry in
            let url = entry.path.isEmpty ? root : root.appendingPathComponent(entry.path)
            if entry.isDirectory { return "\(entry.path)/ \(String(entry.mode, radix: 8))" }
            let data = (try? Data(contentsOf: url)) ?? Data()
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return "\(entry.path) \(data.count) \(String(entry.mode, radix: 8)) \(String(hash, radix: 16))"
        }
    }

    /// Changes the owner of a tree (root only).
    static func chown(_ root: URL, to uid: UInt32) {
        for entry in modes(under: root) {
            let url = entry.path.isEmpty ? root : root.appendingPathComponent(entry.path)
            Foundation.chown(url.path, uid, uid)
        }
    }
}

/// The data the `wkstore-stress` crash writers write (a copy of Sources/wkstore-stress/CrashWriters.swift's
/// `CrashData`: both must agree).
enum CrashData {
    static func bytes(seed: Int, count: Int) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            let p = raw.bindMemory(to: UInt8.self)
            var x = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
            for i in 0..<count {
                x ^= x << 13
                x ^= x >> 7
                x ^= x << 17
                p[i] = UInt8(truncatingIfNeeded: x)
            }
        }
        return data
    }

    static func cacheTarget(_ n: Int) -> (entry: Int, version: Int) { n % 10 == 9 ? (n - 5, 2) : (n, 1) }

    static func cacheBodySize(entry: Int, version: Int) -> Int {
        switch entry % 3 {
        case 0: return 200 + (entry * 7919 + version * 31) % 4000
        default: return 64 * 1024 + 1 + (entry * 7919 + version * 104_729) % 150_000
        }
    }

    static func cacheURL(prefix: String, entry: Int) -> URL {
        URL(string: "https://site\(entry % 17).example/\(prefix)\(entry)")!
    }

    static func cacheBody(entry: Int, version: Int) -> Data {
        bytes(seed: entry * 10 + version, count: cacheBodySize(entry: entry, version: version))
    }

    static func idbPayload(_ n: Int, _ i: Int) -> String {
        String(repeating: "\(n).\(i);", count: 1 + (n * 31 + i) % 400)
    }
    static func localValue(_ n: Int) -> String { String(repeating: "v\(n)|", count: 1 + n % 300) }
    static func appCacheBody(_ n: Int, _ i: Int) -> Data {
        Data(String(repeating: "version \(n) file \(i)\n", count: 1 + (n + i) % 200).utf8)
    }
}
