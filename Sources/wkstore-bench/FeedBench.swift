import Foundation
import WebsiteData

/// Section `feed`: how soon a change committed by one process reaches the change feed
/// (`WebsiteDataStore.changes`) of 8 other, idle processes on the same store.
///
/// The writer (this process) sets one cookie at a time, its value the monotonic clock just
/// before the call, every 10 ms. Each subscriber (`wkstore-bench __watch DIR`, a process that
/// makes no calls of its own) prints, for each cookie it hears of, that value and the monotonic
/// clock at delivery; the delay is their difference: the commit, the feed noticing the shared
/// change counter, reading the log and delivering. The monotonic clock is the system's, the same
/// in every process.
enum FeedBench {
    static let subscribers = 8

    static func run(_ context: Context) throws -> Table {
        let changes = context.config.quick ? 50 : 400
        var table = Table("feed: commit in one process to delivery in another's change feed (lower is better)")
        let scratch = ScratchDirectory("feed")
        let directory = scratch.url.appendingPathComponent("store")
        let store = try WebsiteDataStore(directory: directory)
        try store.httpCookieStore.setCookies(
            fromSetCookieHeaders: ["start=1"], for: URL(string: "https://feed.example/")!)
        progress("starting \(subscribers) subscriber processes, then \(changes) changes 10 ms apart")
        let watchers = try (0..<subscribers).map { _ in try Watcher(arguments: ["__watch", directory.path]) }
        for watcher in watchers { try watcher.waitUntilReady() }
        for _ in 0..<changes {
            let stamp = monotonicNanoseconds()
            try store.httpCookieStore.setCookies(
                fromSetCookieHeaders: ["t=\(stamp)"], for: URL(string: "https://feed.example/")!)
            Thread.sleep(forTimeInterval: 0.01)
        }
        var delays: [Double] = []
        for watcher in watchers { delays += try watcher.finish(expecting: changes) }
        delays.sort()
        let p99 = percentile(delays, 0.99)
        table.add(
            "SQLite store, \(subscribers) idle processes: p50", ours: Format.seconds(percentile(delays, 0.5)), peer: "-"
        )
        table.add(
            "SQLite store, \(subscribers) idle processes: p99", ours: Format.seconds(p99), peer: "-",
            target: "< 50 ms", met: p99 < 50e6 ? "yes" : "NO")
        table.note(
            "\(delays.count.grouped) deliveries (\(changes) changes x \(subscribers) processes); max \(Format.seconds(delays.last ?? 0)); from just before the writing call to delivery"
        )
        return table
    }

    /// The monotonic clock, in nanoseconds.
    static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// One subscriber process and its output.
    final class Watcher {
        let process = Process()
        let pipe = Pipe()
        var buffer = Data()

        /// Starts this program with `arguments` (`__watch STORE…` or `__lookups STORE…`).
        init(arguments: [String]) throws {
            let selfPath = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            process.executableURL = URL(fileURLWithPath: selfPath)
            process.arguments = arguments
            process.standardOutput = pipe
            try process.run()
        }

        /// The next line the subscriber printed, `nil` at its end.
        func readLine() throws -> String? {
            while true {
                if let newline = buffer.firstIndex(of: 10) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    return line
                }
                let chunk = try pipe.fileHandleForReading.readSome()
                if chunk.isEmpty { return nil }
                buffer.append(chunk)
            }
        }

        func waitUntilReady() throws {
            guard try readLine() == "ready" else { throw BenchError("a feed subscriber did not start") }
        }

        /// The delays (nanoseconds) of the `count` changes, once the subscriber reported them all
        /// (or, with `orDone`, once it printed `done`: a process that looks up rather than
        /// listens sees two changes as one when they land between two of its lookups).
        func finish(expecting count: Int, orDone: Bool = false) throws -> [Double] {
            var delays: [Double] = []
            while delays.count < count, let line = try readLine() {
                if orDone && line == "done" { break }
                let fields = line.split(separator: " ").compactMap { UInt64($0) }
                guard fields.count == 2 else { throw BenchError("a feed subscriber printed '\(line)'") }
                delays.append(Double(fields[1] &- fields[0]))
            }
            process.terminate()
            process.waitUntilExit()
            guard delays.count == count || (orDone && !delays.isEmpty) else {
                throw BenchError("a feed subscriber heard \(delays.count) of \(count) changes")
            }
            return delays
        }
    }

    /// The store a child process names: `DIR`, or `URI IDENTIFIER` of a PostgreSQL store.
    static func openStore(_ arguments: [String]) throws -> WebsiteDataStore {
        switch arguments.count {
        case 1: return try WebsiteDataStore(directory: URL(fileURLWithPath: arguments[0]))
        case 2:
            guard let url = URL(string: arguments[0]), let identifier = UUID(uuidString: arguments[1]) else {
                throw BenchError("a child's store is DIR or URI IDENTIFIER")
            }
            return try WebsiteDataStore(url: url, identifier: identifier)
        default: throw BenchError("a child's store is DIR or URI IDENTIFIER")
        }
    }

    /// The subscriber of `__watch STORE…`: prints `ready` once its feed is running, then
    /// `WRITTEN DELIVERED` for each cookie `t` it hears of.
    static func child(_ arguments: [String]) async throws {
        let store = try openStore(arguments)
        let feed = try store.changes(ofTypes: [.cookies])
        print("ready")
        fflush(nil)
        for try await event in feed {
            guard case .change(let change) = event, let cookie = change.cookie, cookie.name == "t",
                !change.cookieRemoved, let written = UInt64(cookie.value)
            else { continue }
            print(written, monotonicNanoseconds())
            fflush(nil)
        }
    }
}
