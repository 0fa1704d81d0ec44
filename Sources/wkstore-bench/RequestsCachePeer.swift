import Foundation

/// Python's requests-cache (SQLite backend) as the cache section's peer: `CachedSession.get`
/// per URL on the same loopback server, in a venv of its own that `scripts/bench-peers.sh` installs
/// from PyPI (in `.build/bench-peers` of the package). Its fill uses `fast_save` (no `fsync` per
/// response, which made a 100,000-response fill take ten minutes); its hits use a new session.
struct RequestsCachePeer {
    /// The venv's Python.
    let python: URL

    /// Hits are timed on at most this many URLs, spread evenly over the store.
    static let timedHits = 2_000

    struct Result {
        /// Seconds per request while filling, and per hit, in nanoseconds.
        var fill: Double
        var hit: Double
        var timed: Int
        var version: String
    }

    static let script = #"""
        import importlib.metadata, sys, time, requests_cache
        path, count, timed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
        urls = [line.strip() for line in open(sys.argv[4])][:count]
        # fast_save (no fsync per response) for the fill only: the hits are what is compared.
        session = requests_cache.CachedSession(path, backend="sqlite", cache_control=True, fast_save=True)
        start = time.perf_counter()
        for url in urls:
            session.get(url)
        fill = (time.perf_counter() - start) / len(urls)
        session.close()
        sample = urls[:: max(1, len(urls) // timed)][:timed]
        session = requests_cache.CachedSession(path, backend="sqlite", cache_control=True)
        start = time.perf_counter()
        for url in sample:
            if not session.get(url).from_cache:
                sys.exit("not from the cache: " + url)
        hit = (time.perf_counter() - start) / len(sample)
        print(fill * 1e9, hit * 1e9, len(sample), importlib.metadata.version("requests-cache"))
        """#

    /// The package's root, from this file's place in it.
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The peer, installed now (with Scrapy, `ScrapyCachePeer`) when its venv lacks either.
    ///
    /// - Throws: `BenchError` with the reason when it cannot be installed.
    static func prepare() throws -> RequestsCachePeer {
        let root = packageRoot
        let venv = root.appendingPathComponent(".build/bench-peers")
        let python = venv.appendingPathComponent("bin/python")
        if try run(python, ["-c", "import requests_cache, scrapy"], quiet: true) != 0 {
            let installer = root.appendingPathComponent("scripts/bench-peers.sh")
            progress("cache: installing requests-cache and Scrapy into \(venv.path) (\(installer.path))")
            guard FileManager.default.isExecutableFile(atPath: installer.path) else {
                throw BenchError("cannot install requests-cache: \(installer.path) is missing (or run with --no-peers)")
            }
            let status = try run(URL(fileURLWithPath: "/bin/sh"), [installer.path, venv.path], quiet: false)
            guard status == 0 else {
                throw BenchError(
                    "cannot install requests-cache: scripts/bench-peers.sh exited with \(status) (needs python3-venv and PyPI; or run with --no-peers)"
                )
            }
        }
        return RequestsCachePeer(python: python)
    }

    /// Fills a requests-cache store with `urls` from the server, then times hits from a new session.
    func run(base: String, urls: [URL], scratch: ScratchDirectory) throws -> Result {
        progress("cache: requests-cache filling \(urls.count.grouped) responses, then hits")
        let (status, fields, _) = try runPeerScript(
            Self.script, named: "requests_cache_peer", python: python, urls: urls, timed: Self.timedHits,
            scratch: scratch, data: "requests-cache.sqlite")
        guard status == 0, fields.count == 4, let fill = Double(fields[0]), let hit = Double(fields[1]),
            let timed = Int(fields[2])
        else {
            throw BenchError("requests-cache failed (status \(status))")
        }
        return Result(fill: fill, hit: hit, timed: timed, version: String(fields[3]))
    }

    /// Runs a program and returns its exit status; `quiet` sends its output nowhere.
    static func run(_ executable: URL, _ arguments: [String], quiet: Bool) throws -> Int32 {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else { return 127 }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if quiet {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
