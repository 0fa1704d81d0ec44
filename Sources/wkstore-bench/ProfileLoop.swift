import Foundation
import WebsiteData
import WebsiteDataHTTP

/// A hidden subcommand for profilers: `wkstore-bench __profile lookup|lookup-http|lookup-memory|ingest|ingest1
/// [SECONDS]` builds the big data set and then repeats only the lookups (or only the ingest) for
/// about SECONDS (default 10), so that `perf record` or `valgrind --tool=callgrind` sees little
/// else. `lookup-http` asks as `HTTPClient` and the http section do: http URLs, each a navigation
/// whose top-level site is itself. `http` and `http-empty` send the http section's requests
/// through `HTTPClient` to its loopback server, with the 100,000-cookie store or an empty one;
/// `http-given` through an empty store, each request given the full store's `Cookie` header.
/// `cold` times the parts of 1,500 lookups one by one, each after 48 MB have been read (every
/// line of the store cold, as after a request): the URL's host, its display name, the header,
/// and the header again (warm). `cold-batch` times the http section's cookie work as it is timed
/// there, 5,000 headers in a row after 48 MB have been read (as after a round of requests), 40
/// times, beside a chain of dependent reads of random lines of 256 MB: on this shared machine the
/// time of a read from memory changes from run to run by half, and the headers' time in reads
/// compares builds where their times in nanoseconds do not. `ingest-postgresql` repeats the
/// fleet section's 8-thread ingest into fresh PostgreSQL stores (`WKSTORE_BENCH_POSTGRES`, or a
/// private cluster). `cache-fill` fills fresh stores with the cache section's 10,000 responses
/// over and over; `cache-disk` and `cache-memory` fill one and then repeat its disk hits (each pass
/// from a new store object) or its memory hits.
enum ProfileLoop {
    /// `HTTPBench.lookupsAsHTTPClientAsks` after the first round, in a function of its own:
    /// `valgrind --toggle-collect='*ProfileLoop*steadyLookups*'` counts only these.
    @inline(never)
    static func steadyLookups(_ urls: [URL], _ engine: HTTPCookieStore) throws {
        try HTTPBench.lookupsAsHTTPClientAsks(urls, engine)
    }

    /// A store (in `directory`, or non-persistent) holding the big data set's cookies.
    static func loadedStore(_ data: Dataset, _ config: Config, directory: URL?) throws -> WebsiteDataStore {
        let store = try Loader.makeStore(directory: directory)
        try Loader.ingest(data.responses, into: store, threads: config.threads).check(expected: config.big.cookies)
        return store
    }

    static func run(_ arguments: [String]) throws {
        guard let what = arguments.first,
            [
                "lookup", "lookup-http", "lookup-memory", "ingest", "ingest1", "ingest-memory", "http", "http-empty",
                "http-given", "cold", "cold-batch", "ingest-postgresql", "cache-fill", "cache-disk", "cache-memory",
            ].contains(what)
        else {
            throw BenchError(
                "usage: __profile lookup|lookup-http|lookup-memory|ingest|ingest1|ingest-memory|ingest-postgresql|http|http-empty|http-given|cold|cold-batch|cache-fill|cache-disk|cache-memory [SECONDS] [--quick]"
            )
        }
        let seconds = arguments.dropFirst().first.flatMap { Double($0) } ?? 10
        var config = Config()
        config.quick = arguments.contains("--quick")
        let data = Dataset(config.big)
        var rounds = 0
        switch what {
        case "cold":
            let scratch = ScratchDirectory("profile")
            let engine = try loadedStore(data, config, directory: scratch.url.appendingPathComponent("store"))
                .httpCookieStore
            let urls = HTTPBench.httpURLs(data.lookups.prefix(1_500))
            let evictor = Evictor()
            var parts = [[Double]](repeating: [], count: 4)
            for url in urls {
                evictor.evict()
                let context = HTTPBench.asHTTPClientAsks(url)
                let t0 = now()
                let host = Site.canonicalHost(of: url)!
                let t1 = now()
                keep(Site.displayName(forHost: host))
                let t2 = now()
                keep(try engine.cookieHeader(for: url, context: context))
                let t3 = now()
                keep(try engine.cookieHeader(for: url, context: context))
                let t4 = now()
                parts[0].append(Double(t1 - t0))
                parts[1].append(Double(t2 - t1))
                parts[2].append(Double(t3 - t2))
                parts[3].append(Double(t4 - t3))
            }
            for (name, values) in zip(
                ["host", "display name", "header (host, site warm)", "header again (warm)"], parts)
            {
                print(
                    "\(name): median \(Int(median(values))) ns, mean \(Int(values.reduce(0, +) / Double(values.count))) ns"
                )
            }
        case "cold-batch":
            let scratch = ScratchDirectory("profile")
            let engine = try loadedStore(data, config, directory: scratch.url.appendingPathComponent("store"))
                .httpCookieStore
            let urls = HTTPBench.httpURLs(data.lookups.prefix(5_000))
            let evictor = Evictor()
            let chase = MemoryChase(bytes: 256 << 20)
            var sink = 0
            var headers: [Double] = []
            var reads: [Double] = []
            try HTTPBench.lookupsAsHTTPClientAsks(urls, engine)
            for _ in 0..<40 {
                evictor.evict()
                let t0 = threadCPUTime()
                try HTTPBench.lookupsAsHTTPClientAsks(urls, engine)
                let t1 = threadCPUTime()
                sink &+= chase.follow(20_000)
                let t2 = threadCPUTime()
                headers.append(Double(t1 - t0) / Double(urls.count))
                reads.append(Double(t2 - t1) / 20_000)
            }
            keep(sink)
            let header = median(headers)
            let read = median(reads)
            print(
                "cold batch: header \(Int(header)) ns, read from memory \(Int(read)) ns: \(Format.fixed(header / read, 2)) reads per header"
            )
        case "cache-fill", "cache-disk", "cache-memory":
            try CacheBench.profile(String(what.dropFirst(6)), seconds: seconds)
        case "http", "http-empty", "http-given":
            let scratch = ScratchDirectory("profile")
            let directory = scratch.url.appendingPathComponent("store")
            let urls = HTTPBench.httpURLs(data.lookups.prefix(5_000))
            var requests = urls.map { HTTPRequest(url: $0) }
            if what != "http-empty" {
                let loaded = try loadedStore(data, config, directory: what == "http" ? directory : nil)
                // The full store's Cookie headers, given to requests through an empty store.
                if what == "http-given" { requests = try HTTPBench.requests(urls, givenTheHeadersOf: loaded) }
            }
            let store = try WebsiteDataStore(directory: directory)
            let server = try HTTPBench.LoopbackServer()
            defer { server.stop() }
            let client = try HTTPClient(
                store: store,
                configuration: HTTPClientConfiguration(
                    timeout: 30, proxy: "http://127.0.0.1:\(server.port)", usesCache: false))
            FileHandle.standardError.write(Data("loaded; sending requests\n".utf8))
            let deadline = now() + UInt64(seconds * 1e9)
            while now() < deadline {
                let start = now()
                try HTTPBench.send(requests, with: client)
                FileHandle.standardError.write(
                    Data(
                        "pass \(rounds + 1): \(Format.rate(Double(urls.count) / (Double(now() - start) / 1e9)))\n".utf8)
                )
                rounds += 1
            }
            print("\(rounds) passes of \(urls.count) requests")
        case "lookup", "lookup-http", "lookup-memory":
            let scratch = ScratchDirectory("profile")
            let store = try loadedStore(
                data, config, directory: what == "lookup-memory" ? nil : scratch.url.appendingPathComponent("store"))
            let engine = store.httpCookieStore
            FileHandle.standardError.write(Data("loaded; looking up\n".utf8))
            let deadline = now() + UInt64(seconds * 1e9)
            let http = HTTPBench.httpURLs(data.lookups)
            while now() < deadline {
                if what == "lookup-http" {
                    // The first round finds hosts not seen yet.
                    if rounds == 0 {
                        try HTTPBench.lookupsAsHTTPClientAsks(http, engine)
                    } else {
                        try steadyLookups(http, engine)
                    }
                } else {
                    for url in data.lookups { keep(try engine.cookieHeader(for: url)) }
                }
                rounds += 1
            }
            print("\(rounds) rounds of \(data.lookups.count) lookups")
        case "ingest-postgresql":
            let server = try FleetBench.Server()
            defer { server.stop() }
            let deadline = now() + UInt64(seconds * 1e9)
            while now() < deadline {
                let (store, _) = try server.freshStore()
                let start = now()
                try Loader.ingest(data.responses, into: store, threads: config.threads).check(
                    expected: config.big.cookies)
                let elapsed = Double(now() - start)
                FileHandle.standardError.write(
                    Data(
                        "round \(rounds + 1): \(Format.seconds(elapsed)), \(Format.rate(Double(data.headerCount) / (elapsed / 1e9)))\n"
                            .utf8))
                rounds += 1
            }
            print("\(rounds) rounds of ingesting \(data.headerCount) headers into PostgreSQL")
        default:
            let deadline = now() + UInt64(seconds * 1e9)
            let threads = what == "ingest" ? config.threads : 1
            while now() < deadline {
                let scratch = ScratchDirectory("profile")
                let store = try Loader.makeStore(
                    directory: what == "ingest-memory" ? nil : scratch.url.appendingPathComponent("store"))
                let start = now()
                try Loader.ingest(data.responses, into: store, threads: threads).check(expected: config.big.cookies)
                FileHandle.standardError.write(
                    Data("round \(rounds + 1): \(Format.seconds(Double(now() - start)))\n".utf8))
                rounds += 1
            }
            print("\(rounds) rounds of ingesting \(data.headerCount) headers")
        }
    }
}

/// Lines of a large buffer linked in a random cycle: following it reads memory, each read
/// waiting for the one before (no prefetcher guesses the next).
final class MemoryChase {
    private let lines: UnsafeMutablePointer<Int>
    private let count: Int
    private var at = 0

    init(bytes: Int) {
        count = bytes / 64
        lines = UnsafeMutablePointer<Int>.allocate(capacity: count * 8)
        var order = Array(0..<count)
        var random = SplitMix64(seed: 7)
        for i in stride(from: count - 1, to: 0, by: -1) { order.swapAt(i, random.below(i + 1)) }
        for k in 0..<count { lines[order[k] * 8] = order[(k + 1) % count] }
    }

    deinit { lines.deallocate() }

    /// Follows `steps` links; returns where it ended.
    func follow(_ steps: Int) -> Int {
        var i = at
        for _ in 0..<steps { i = lines[i * 8] }
        at = i
        return i
    }
}

/// 48 MB read a line at a time: after it, no line of a store is in the caches, as after a
/// request.
final class Evictor {
    private let buffer: UnsafeMutableRawBufferPointer
    private var sink: UInt64 = 0

    init() {
        buffer = .allocate(byteCount: 48 << 20, alignment: 64)
        buffer.initializeMemory(as: UInt8.self, repeating: 1)
    }

    deinit {
        keep(sink)
        buffer.deallocate()
    }

    /// Reads every line of the buffer.
    func evict() {
        for i in stride(from: 0, to: buffer.count, by: 64) { sink &+= UInt64(buffer[i]) }
    }
}
