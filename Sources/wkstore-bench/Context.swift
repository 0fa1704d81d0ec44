import Foundation
import Synchronization
import WebsiteData

/// How big a run is: the full run, or `--quick`.
struct Config {
    var quick = false
    /// Writer threads for the concurrent ingest.
    var threads = 8
    /// The cache section's largest store (`--cache-entries N`), or `nil` for the default.
    var cacheLargest: Int?
    /// Whether sections run without their installed peers (`--no-peers`).
    var noPeers = false

    /// The main data set: 100,000 cookies over 10,000 sites, 10,000 lookups.
    var big: Shape {
        quick
            ? Shape(cookies: 10_000, sites: 1_000, lookups: 2_000)
            : Shape(cookies: 100_000, sites: 10_000, lookups: 10_000)
    }
    /// The data set Foundation can load in reasonable time: a tenth, same shape.
    var small: Shape {
        quick
            ? Shape(cookies: 1_000, sites: 100, lookups: 2_000) : Shape(cookies: 10_000, sites: 1_000, lookups: 10_000)
    }
    /// Timed passes over the lookup URLs (after one warm-up pass).
    var passes: Int { quick ? 3 : 7 }
    /// Lookups timed on Foundation (each scans every cookie it holds), the first of the small set's URLs.
    var foundationLookups: Int { quick ? 500 : 2_000 }
    /// Repetitions of the reopen measurement.
    var reopens: Int { quick ? 2 : 3 }
}

/// What the sections of one run share: the data sets (generated once) and a persistent store
/// of the big data set (built by the ingest section, reused by the open section).
final class Context {
    let config: Config
    private var datasets: [Int: Dataset] = [:]
    /// A persistent store directory holding the big data set, with its scratch directory.
    var bigStore: ScratchDirectory?

    init(config: Config) { self.config = config }

    func dataset(_ shape: Shape) -> Dataset {
        if let cached = datasets[shape.cookies] { return cached }
        progress("generating \(shape) and \(shape.lookups.grouped) lookup URLs")
        let dataset = Dataset(shape)
        datasets[shape.cookies] = dataset
        return dataset
    }

    /// The big data set in a persistent store, built now when no section built it yet.
    func persistentBigStore() throws -> URL {
        if let bigStore { return bigStore.url.appendingPathComponent("store") }
        let scratch = ScratchDirectory("open")
        let directory = scratch.url.appendingPathComponent("store")
        progress("building a persistent store of \(config.big)")
        let store = try Loader.makeStore(directory: directory)
        let result = Loader.ingest(dataset(config.big).responses, into: store, threads: config.threads)
        try result.check(expected: config.big.cookies)
        bigStore = scratch
        return directory
    }
}

/// Feeds responses to a store as clients do: one `setCookies(fromSetCookieHeaders:for:)` per response.
enum Loader {
    struct Result {
        var stored = 0
        var rejected = 0
        var failed = 0
        var firstError: String?

        func check(expected: Int) throws {
            if let firstError { throw BenchError("ingest failed \(failed) times: \(firstError)") }
            if stored != expected || rejected != 0 {
                throw BenchError(
                    "ingest stored \(stored) of \(expected) cookies (\(rejected) refused): the data set is wrong")
            }
        }
    }

    /// A store with the total limit raised (1,000,000) so that nothing is evicted; persistent
    /// when `directory` is given.
    static func makeStore(directory: URL?) throws -> WebsiteDataStore {
        let store = try directory.map { try WebsiteDataStore(directory: $0) } ?? WebsiteDataStore.nonPersistent()
        try store.set(.cookiesMaxTotal, to: "1000000")
        return store
    }

    /// Ingests `responses` from `threads` threads, which take the next response from a shared counter.
    static func ingest(_ responses: [GeneratedResponse], into store: WebsiteDataStore, threads: Int) -> Result {
        let cookies = store.httpCookieStore
        let next = Counter()
        let totals = Totals()
        runThreads(threads) { _ in
            var local = Result()
            while true {
                let i = next.value.add(1, ordering: .relaxed).oldValue
                guard i < responses.count else { break }
                let response = responses[i]
                do {
                    let summary = try cookies.setCookies(fromSetCookieHeaders: response.headers, for: response.url)
                    local.stored += summary.stored
                    local.rejected += summary.rejected.count
                } catch {
                    local.failed += 1
                    if local.firstError == nil { local.firstError = "\(error)" }
                }
            }
            totals.merge(local)
        }
        return totals.result.withLock { $0 }
    }

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    final class Totals: Sendable {
        let result = Locked(Result())
        func merge(_ other: Result) {
            result.withLock { r in
                r.stored += other.stored
                r.rejected += other.rejected
                r.failed += other.failed
                if r.firstError == nil { r.firstError = other.firstError }
            }
        }
    }
}

/// Runs `body(index)` on `count` threads of their own (not the dispatch pool, which on a small
/// machine runs only as many blocking workers as it has cores) and waits for all of them.
func runThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    if count == 1 { return body(0) }
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 1 << 21
        thread.start()
    }
    group.wait()
}

/// A failure of the bench itself (not a measurement).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a peer's Python `script` (written as `name.py` into `scratch`) with `python`, and its
/// arguments: the path `data` in `scratch` for its store, how many `urls` there are, how many
/// hits to time, the file listing the URLs, then `extra`.
func runPeerScript(
    _ script: String, named name: String, python: URL, urls: [URL], timed: Int, scratch: ScratchDirectory,
    data: String, extra: [String] = []
) throws -> (status: Int32, fields: [Substring], output: String) {
    let list = scratch.url.appendingPathComponent("\(name)-urls.txt")
    try urls.map(\.absoluteString).joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
    let code = scratch.url.appendingPathComponent("\(name).py")
    try script.write(to: code, atomically: true, encoding: .utf8)
    let store = scratch.url.appendingPathComponent(data)
    let arguments = [code.path, store.path, String(urls.count), String(timed), list.path]
    return try childFields(python, arguments + extra)
}

/// Runs a child process to its end and returns its exit status and the whitespace-separated
/// fields of its standard output (and that output whole, for error messages).
func childFields(_ executable: URL, _ arguments: [String]) throws -> (
    status: Int32, fields: [Substring], output: String
) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: try pipe.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output.split(whereSeparator: \.isWhitespace), output)
}
