import Foundation

/// The command line: `wkstore-bench [--quick] [--threads N] [lookup] [ingest] [open] [memory] [indexeddb] [http] [feed] [fleet] [cache]`.
enum BenchCommand {
    static let sections = ["lookup", "ingest", "open", "memory", "indexeddb", "http", "feed", "fleet", "cache"]

    static let usage = """
        usage: wkstore-bench [--quick] [--threads N] [--cache-entries N] [--no-peers] [SECTION...]

        Measures the wkstore cookie engine against its peers and floors, in one run, and prints a
        table per section. Sections (default: all, in this order):
          lookup   Cookie header per URL: vs Foundation's HTTPCookieStorage and a plain dictionary
          ingest   Set-Cookie into a persistent store: vs a bare SQLite insert (and Python's http.cookiejar)
          open     reopening a store and answering the first lookup: vs a bare SQLite scan
          memory   peak memory holding the cookies, each engine in a process of its own
          indexeddb  IndexedDB put, get and range scan: vs SQLite's own insert and select
          http     requests per second through WebsiteDataHTTP: a 100,000-cookie store vs an empty one
          feed     delay from a commit to its delivery in 8 other processes' change feeds
          fleet    the store on PostgreSQL: ingest vs COPY, lookups vs SQLite, open vs SELECT, and
                   commit-to-lookup and commit-to-feed delays over 8 processes (a private cluster,
                   or the database WKSTORE_BENCH_POSTGRES names)
          cache    HTTP cache hits through HTTPClient: vs a dictionary, an indexed SELECT and Python's
                   requests-cache, with Scrapy's cache storages for information (both installed into a
                   venv by scripts/bench-peers.sh); fill vs cache off; clear --types diskcache --since
        Options:
          --quick      a scaled-down smoke run of a few seconds (numbers are not comparable to the full run)
          --threads N  writer threads for the concurrent ingest (default 8)
          --cache-entries N  the cache section's largest store (default 100000)
          --no-peers   skip peers that must be installed (requests-cache) instead of failing
        Build it in release mode: swift build -c release --product wkstore-bench
        """

    static func main(_ arguments: [String]) {
        if arguments.first == "__memory" {
            guard arguments.count == 3, let count = Int(arguments[2]), count > 0 else {
                fail("usage: __memory ENGINE COUNT", code: 2)
            }
            do { try MemoryBench.child(engine: arguments[1], count: count) } catch { fail("\(error)", code: 1) }
            return
        }
        if arguments.first == "__watch" {
            let done = DispatchSemaphore(value: 0)
            Task {
                do { try await FeedBench.child(Array(arguments.dropFirst())) } catch { fail("\(error)", code: 1) }
                done.signal()
            }
            done.wait()
            return
        }
        if arguments.first == "__lookups" {
            do { try FleetBench.lookupChild(Array(arguments.dropFirst())) } catch { fail("\(error)", code: 1) }
            return
        }
        if arguments.first == "__profile" {
            do { try ProfileLoop.run(Array(arguments.dropFirst())) } catch { fail("\(error)", code: 1) }
            return
        }
        var config = Config()
        var chosen: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": config.quick = true
            case "--threads":
                guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else {
                    fail("--threads needs a whole number above 0", code: 2)
                }
                config.threads = value
            case "--cache-entries":
                guard let value = rest.popFirst().flatMap({ Int($0) }), value >= 100 else {
                    fail("--cache-entries needs a whole number of at least 100", code: 2)
                }
                config.cacheLargest = value
            case "--no-peers": config.noPeers = true
            case "-h", "--help", "help":
                emit(usage)
                return
            default:
                guard sections.contains(argument) else {
                    fail("unknown section or option '\(argument)'\n\n\(usage)", code: 2)
                }
                if !chosen.contains(argument) { chosen.append(argument) }
            }
        }
        if chosen.isEmpty { chosen = sections }
        chosen.sort { sections.firstIndex(of: $0)! < sections.firstIndex(of: $1)! }
        #if DEBUG
            emit("warning: a debug build; build with -c release for meaningful numbers\n")
        #endif

        let context = Context(config: config)
        emit(
            "wkstore-bench\(config.quick ? " --quick (scaled down: not comparable to a full run)" : ""): \(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(loadAverage()), \(config.big), \(config.big.lookups.grouped) lookups\n"
        )
        let start = now()
        var failed = false
        for section in chosen {
            do {
                let table: Table
                switch section {
                case "lookup": table = try LookupBench.run(context)
                case "ingest": table = try IngestBench.run(context)
                case "open": table = try OpenBench.run(context)
                case "indexeddb": table = try IndexedDBBench.run(context)
                case "http": table = try HTTPBench.run(context)
                case "feed": table = try FeedBench.run(context)
                case "fleet": table = try FleetBench.run(context)
                case "cache": table = try CacheBench.run(context)
                default: table = try MemoryBench.run(context)
                }
                emit(table.render())
            } catch {
                emit("== \(section) ==\nfailed: \(error)\n")
                failed = true
            }
        }
        emit("total time \(Format.seconds(Double(now() - start))), load average at the end \(loadAverage())")
        if failed { exit(1) }
    }

    /// Writes a line to standard output at once (unbuffered), so that tables and the progress
    /// lines on standard error appear in order.
    static func emit(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// The 1-minute load average, to judge how busy the machine was.
    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init)
            ?? "?"
    }

    static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data(("wkstore-bench: " + message + "\n").utf8))
        exit(code)
    }
}
