import Foundation
import WebsiteData

/// A hidden subcommand for profilers: `wkstore-bench __profile lookup|lookup-http|lookup-memory|ingest|ingest1
/// [SECONDS]` builds the big data set and then repeats only the lookups (or only the ingest) for
/// about SECONDS (default 10), so that `perf record` or `valgrind --tool=callgrind` sees little
/// else. `lookup-http` asks as `HTTPClient` and the http section do: http URLs, each a navigation
/// whose top-level site is itself.
enum ProfileLoop {
    static func run(_ arguments: [String]) throws {
        guard let what = arguments.first, ["lookup", "lookup-http", "lookup-memory", "ingest", "ingest1", "ingest-memory"].contains(what) else {
            throw BenchError("usage: __profile lookup|lookup-http|lookup-memory|ingest|ingest1|ingest-memory [SECONDS] [--quick]")
        }
        let seconds = arguments.dropFirst().first.flatMap { Double($0) } ?? 10
        var config = Config()
        config.quick = arguments.contains("--quick")
        let data = Dataset(config.big)
        var rounds = 0
        switch what {
        case "lookup", "lookup-http", "lookup-memory":
            let scratch = ScratchDirectory("profile")
            let store = try Loader.makeStore(directory: what == "lookup-memory" ? nil : scratch.url.appendingPathComponent("store"))
            try Loader.ingest(data.responses, into: store, threads: config.threads).check(expected: config.big.cookies)
            let engine = store.httpCookieStore
            FileHandle.standardError.write(Data("loaded; looking up\n".utf8))
            let deadline = now() + UInt64(seconds * 1e9)
            let http = data.lookups.map { url -> URL in
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
                components.scheme = "http"
                return components.url!
            }
            while now() < deadline {
                if what == "lookup-http" {
                    for url in http {
                        let context = CookieRequestContext(topLevelSite: url, method: "GET", isNavigation: true)
                        keep(try engine.cookieHeader(for: url, context: context))
                    }
                } else {
                    for url in data.lookups { keep(try engine.cookieHeader(for: url)) }
                }
                rounds += 1
            }
            print("\(rounds) rounds of \(data.lookups.count) lookups")
        default:
            let deadline = now() + UInt64(seconds * 1e9)
            let threads = what == "ingest" ? config.threads : 1
            while now() < deadline {
                let scratch = ScratchDirectory("profile")
                let store = try Loader.makeStore(directory: what == "ingest-memory" ? nil : scratch.url.appendingPathComponent("store"))
                let start = now()
                try Loader.ingest(data.responses, into: store, threads: threads).check(expected: config.big.cookies)
                FileHandle.standardError.write(Data("round \(rounds + 1): \(Format.seconds(Double(now() - start)))\n".utf8))
                rounds += 1
            }
            print("\(rounds) rounds of ingesting \(data.headerCount) headers")
        }
    }
}
