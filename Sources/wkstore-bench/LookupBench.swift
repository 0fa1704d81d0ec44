import CSQLite
import Foundation
import WebsiteData

/// Section 1: `Cookie` header lookups, against Foundation's `HTTPCookieStorage` (at the
/// smaller data set) and against the dictionary floor (at the big one).
enum LookupBench {
    static func run(_ context: Context) throws -> Table {
        let config = context.config
        var table = Table("lookup: Cookie header for a URL (ns per lookup; lower is better)")
        let big = context.dataset(config.big)

        // Ours, persistent, at the big data set; the floor holds the very cookies the engine stored.
        let scratch = ScratchDirectory("lookup")
        let directory = scratch.url.appendingPathComponent("store")
        progress("loading \(config.big) into a persistent store")
        let store = try Loader.makeStore(directory: directory)
        try Loader.ingest(big.responses, into: store, threads: config.threads).check(expected: config.big.cookies)
        let cookies = try store.httpCookieStore.allCookies()
        let floor = DictionaryFloor(cookies)
        let engine = store.httpCookieStore
        let urls = big.lookups

        // The same cookies in a non-persistent store: no reader connection, no cross-process check.
        progress("loading \(config.big) into a non-persistent store")
        let memoryStore = try Loader.makeStore(directory: nil)
        try Loader.ingest(big.responses, into: memoryStore, threads: config.threads).check(expected: config.big.cookies)
        let memoryEngine = memoryStore.httpCookieStore

        progress("timing \(config.passes) passes of \(urls.count.grouped) lookups, engines and floor interleaved")
        let times = interleaved(
            passes: config.passes, count: urls.count,
            [
                { for url in urls { keep(try? engine.cookieHeader(for: url)) } },
                { for url in urls { keep(floor.cookieHeader(for: url)) } },
                { for url in urls { keep(try? memoryEngine.cookieHeader(for: url)) } },
            ])
        let (oursTimes, floorTimes, memoryTimes) = (times[0], times[1], times[2])
        let ours = oursTimes.cpuMedian
        let floorNs = floorTimes.cpuMedian
        let memory = memoryTimes.cpuMedian

        // Both must answer the same (as sets: equal creation times may order differently).
        var differing = 0
        var withCookies = 0
        var sent = 0
        var scanned = 0
        for url in urls {
            scanned += Site.canonicalHost(of: url).flatMap { floor.sites[Site.displayName(forHost: $0)]?.count } ?? 0
            let a = try engine.cookieHeader(for: url)
            let b = floor.cookieHeader(for: url)
            if pairs(a) != pairs(b) { differing += 1 }
            if a != nil { withCookies += 1 }
            sent += pairs(a).count
        }

        // Foundation at the small data set, and ours at the same.
        let small = context.dataset(config.small)
        let smallScratch = ScratchDirectory("lookup-small")
        progress("loading \(config.small) into a persistent store and into Foundation's HTTPCookieStorage")
        let smallStore = try Loader.makeStore(directory: smallScratch.url.appendingPathComponent("store"))
        try Loader.ingest(small.responses, into: smallStore, threads: config.threads).check(
            expected: config.small.cookies)
        let smallCookies = try smallStore.httpCookieStore.allCookies()
        let foundation = FoundationPeer()
        var foundationHeld = 0
        let foundationLoad = measure { foundationHeld = foundation.load(smallCookies) }
        let foundationURLs = Array(small.lookups.prefix(config.foundationLookups))
        progress(
            "Foundation loaded \(foundationHeld.grouped) cookies in \(Format.seconds(foundationLoad)); timing \(foundationURLs.count.grouped) of its lookups"
        )
        let foundationTime = measureTiming {
            for url in foundationURLs { keep(foundation.cookieHeader(for: url)) }
        }
        var foundationSent = 0
        for url in foundationURLs.prefix(200) { foundationSent += pairs(foundation.cookieHeader(for: url)).count }
        let done = foundationURLs.count
        let foundationNs = foundationTime.cpu / Double(done)
        let subset = foundationURLs
        let smallEngine = smallStore.httpCookieStore
        var smallSent = 0
        for url in subset.prefix(200) { smallSent += pairs(try smallEngine.cookieHeader(for: url)).count }
        let smallTimes = interleaved(
            passes: config.passes, count: subset.count,
            [
                { for url in subset { keep(try? smallEngine.cookieHeader(for: url)) } }
            ])[0]
        let oursSmall = smallTimes.cpuMedian

        let faster = foundationNs / oursSmall
        table.add(
            "ours vs Foundation HTTPCookieStorage, \(config.small.cookies.grouped) cookies (a tenth: Foundation loads in O(n^2))",
            ours: Format.perOp(oursSmall), peer: Format.perOp(foundationNs), ratio: Format.times(faster) + " faster",
            target: ">= 100x faster", met: Format.met(faster >= 100))
        let slower = ours / floorNs
        table.add(
            "ours vs dictionary floor, \(config.big.cookies.grouped) cookies",
            ours: Format.perOp(ours), peer: Format.perOp(floorNs), ratio: Format.times(slower) + " floor",
            target: "<= 3x floor", met: Format.met(slower <= 3))
        table.add(
            "ours non-persistent (no cross-process check) vs floor, \(config.big.cookies.grouped)",
            ours: Format.perOp(memory), peer: Format.perOp(floorNs), ratio: Format.times(memory / floorNs) + " floor")

        // Where a lookup's time goes: the shared steps, timed alone over the same URLs.
        let parts = try breakdown(
            urls: urls, file: directory.appendingPathComponent("store.sqlite"), passes: config.passes)
        for (name, ns) in parts { table.add("  part: \(name)", ours: Format.perOp(ns), peer: "") }
        table.add("  part: persistent minus non-persistent store", ours: Format.perOp(ours - memory), peer: "")

        table.note(
            "times are thread CPU time per lookup (the machine is shared); wall-clock medians: ours \(Format.perOp(oursTimes.wallMedian)), floor \(Format.perOp(floorTimes.wallMedian)), non-persistent \(Format.perOp(memoryTimes.wallMedian)), ours at \(config.small.cookies.grouped) \(Format.perOp(smallTimes.wallMedian)), Foundation \(Format.perOp(foundationTime.wall / Double(done)))"
        )
        table.note(
            "\(urls.count.grouped) lookup URLs: 10% unknown sites, the rest over known sites (subdomains, paths, http/https); median of \(config.passes) passes after a warm-up, the three interleaved"
        )
        table.note(
            "engine and floor sent the same cookies for \(urls.count - differing) of \(urls.count) URLs (compared as sets); \(withCookies.grouped) URLs got cookies, \(Format.fixed(Double(sent) / Double(urls.count), 1)) cookies per lookup, out of \(Format.fixed(Double(scanned) / Double(urls.count), 1)) held by the URL's site on average"
        )
        table.note(
            "Foundation: ephemeral HTTPCookieStorage held \(foundationHeld.grouped) of \(smallCookies.count.grouped) cookies after a \(Format.seconds(foundationLoad)) load; its lookups timed on the first \(done.grouped) of the \(small.lookups.count.grouped) URLs, once (ours on the same URLs); it filters by host only on Linux, so it sent \(Format.fixed(Double(foundationSent) / Double(min(200, done)), 1)) cookies per lookup (first 200 URLs) where ours sent \(Format.fixed(Double(smallSent) / Double(min(200, done)), 1))"
        )
        withExtendedLifetime((store, memoryStore, smallStore, scratch, smallScratch)) {}
        return table
    }

    /// Per-operation times of several passes: thread CPU time (what the tables show) and wall time.
    struct Passes {
        var cpu: [Double] = []
        var wall: [Double] = []
        var cpuMedian: Double { median(cpu) }
        var wallMedian: Double { median(wall) }
    }

    /// Times `passes` rounds of every body in turn (interleaved, so that a busy spell of the
    /// machine hits them alike), after one warm-up pass of each.
    static func interleaved(passes: Int, count: Int, _ bodies: [() -> Void]) -> [Passes] {
        for body in bodies { body() }
        var result = [Passes](repeating: Passes(), count: bodies.count)
        for _ in 0..<passes {
            for (n, body) in bodies.enumerated() {
                let t = measureTiming(body)
                result[n].cpu.append(t.cpu / Double(count))
                result[n].wall.append(t.wall / Double(count))
            }
        }
        return result
    }

    /// The steps every lookup takes before matching, each timed alone per URL.
    static func breakdown(urls: [URL], file: URL, passes: Int) throws -> [(String, Double)] {
        var result: [(String, Double)] = []
        let hosts = urls.map { Site.canonicalHost(of: $0) ?? "" }
        func time(_ name: String, _ body: () -> Void) {
            body()
            result.append((name, median((0..<passes).map { _ in measureTiming(body).cpu / Double(urls.count) })))
        }
        time("URL host + path + scheme (Site.canonicalHost, url.path, Site.isSecureOrigin)") {
            for url in urls {
                keep(Site.canonicalHost(of: url))
                keep(url.path(percentEncoded: true))
                keep(Site.isSecureOrigin(url))
            }
        }
        time("site of the host (Site.displayName(forHost:): libpsl, cached by host)") {
            for host in hosts { keep(Site.displayName(forHost: host)) }
        }
        time("clock (Date())") { for _ in urls { keep(Date().timeIntervalSince1970) } }
        var db: OpaquePointer?
        guard sqlite3_open_v2(file.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw BenchError("cannot open \(file.path)")
        }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT max(seq) FROM change_log", -1, &statement, nil) == SQLITE_OK else {
            throw BenchError("cannot prepare the change-log query")
        }
        defer { sqlite3_finalize(statement) }
        // What the shared change counter saves a lookup: the change-log check it makes only when
        // another process has committed (raw SQLite, a read transaction on a second connection).
        time("change-log check when another process committed (raw SQLite, prepared once)") {
            for _ in urls {
                sqlite3_step(statement)
                keep(sqlite3_column_int64(statement, 0))
                sqlite3_reset(statement)
            }
        }
        return result
    }

    /// The `name=value` pairs of a `Cookie` header, sorted.
    static func pairs(_ header: String?) -> [Substring] {
        guard let header else { return [] }
        return header.split(separator: "; ").sorted()
    }
}

/// Keeps a value alive so the optimiser cannot drop the work that made it.
@inline(never)
func keep<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
