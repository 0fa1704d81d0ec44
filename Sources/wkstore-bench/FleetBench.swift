import Foundation
import PostgreSQLCluster
import WebsiteData

/// Section `fleet`: the store on PostgreSQL. Ingest against one `COPY` of the same rows, lookups
/// against the SQLite store's, reopening against a bare `SELECT` of the rows, and how soon a
/// commit in one process reaches the lookups and the change feeds of 8 other processes.
///
/// The server is the one `WKSTORE_BENCH_POSTGRES` names (a URI of a database whose role may
/// create schemas), or a private cluster started for the run with PostgreSQL's default
/// durability (`fsync` and `synchronous_commit` on), as the tests' is. Every store is a fresh
/// identifier's schema.
enum FleetBench {
    static let processes = 8

    static func run(_ context: Context) throws -> Table {
        let config = context.config
        var table = Table("fleet: the store on PostgreSQL (each row says which way is better)")
        let server = try Server()
        defer { server.stop() }
        let data = context.dataset(config.big)
        let headers = Double(data.headerCount)

        // Ingest, 8 threads: three fresh stores, the median of the three.
        progress(
            "PostgreSQL: ingesting \(data.headerCount.grouped) headers from \(config.threads) threads into 3 fresh stores"
        )
        var times: [Timing] = []
        var stores: [(WebsiteDataStore, UUID)] = []
        for _ in 0..<3 {
            let (store, identifier) = try server.freshStore()
            var result = Loader.Result()
            times.append(
                measureProcess {
                    result = Loader.ingest(data.responses, into: store, threads: config.threads)
                    // The folds the ingest made due are part of its work, though they run beside it.
                    store.waitForLogMaintenance()
                })
            try result.check(expected: config.big.cookies)
            stores.append((store, identifier))
        }
        let concurrent = median(times.map(\.wall))
        let (store, identifier) = stores[0]
        stores.removeAll()

        // The floor: the rows the engine wrote, sent by one COPY in one transaction into a fresh
        // store's cookies table.
        let rows = try SQLiteFloor.rows(of: store)
        guard rows.count == config.big.cookies else {
            throw BenchError("the PostgreSQL store holds \(rows.count) rows, not \(config.big.cookies)")
        }
        progress("copying the same \(rows.count.grouped) rows into a fresh store's table, 3 times")
        var floorTimes: [Double] = []
        for _ in 0..<3 { floorTimes.append(try server.copyFloor(rows)) }
        let floor = median(floorTimes)

        let many = config.threads * 4
        progress("ingesting the same responses from \(many) threads")
        let wide: Double
        do {
            let (wideStore, _) = try server.freshStore()
            var result = Loader.Result()
            wide = measure {
                result = Loader.ingest(data.responses, into: wideStore, threads: many)
                wideStore.waitForLogMaintenance()
            }
            try result.check(expected: config.big.cookies)
        }
        // One thread commits once per response and waits for the server's flush each time: a
        // tenth of the responses says its rate.
        let singleResponses = Array(data.responses.prefix(data.responses.count / 10))
        let singleHeaders = Double(singleResponses.reduce(0) { $0 + $1.headers.count })
        progress("ingesting \(singleResponses.count.grouped) responses from 1 thread")
        let single: Double
        do {
            let (singleStore, _) = try server.freshStore()
            var result = Loader.Result()
            single = measure {
                result = Loader.ingest(singleResponses, into: singleStore, threads: 1)
                singleStore.waitForLogMaintenance()
            }
            if let error = result.firstError { throw BenchError("1-thread ingest failed: \(error)") }
        }

        let floorRate = headers / (floor / 1e9)
        let oursRate = headers / (concurrent / 1e9)
        table.add(
            "ingest, \(config.threads) threads, \(data.headerCount.grouped) headers vs one COPY (higher is better)",
            ours: Format.rate(oursRate), peer: Format.rate(floorRate),
            ratio: Format.times(floorRate / oursRate) + " floor", target: "<= 5x floor",
            met: Format.met(floorRate / oursRate <= 5))
        let wideRate = headers / (wide / 1e9)
        table.add(
            "ingest, \(many) threads vs one COPY", ours: Format.rate(wideRate), peer: Format.rate(floorRate),
            ratio: Format.times(floorRate / wideRate) + " floor", target: "(reported)")
        let singleRate = singleHeaders / (single / 1e9)
        table.add(
            "ingest, 1 thread (a commit per response) vs one COPY", ours: Format.rate(singleRate),
            peer: Format.rate(floorRate), ratio: Format.times(floorRate / singleRate) + " floor",
            target: "(reported)")

        // Lookups: the PostgreSQL store's and the SQLite store's, both from memory.
        let sqliteDirectory = try context.persistentBigStore()
        let sqlite = try WebsiteDataStore(directory: sqliteDirectory)
        let urls = data.lookups
        let (pg, lite) = (store.httpCookieStore, sqlite.httpCookieStore)
        progress("timing \(config.passes) passes of \(urls.count.grouped) lookups, PostgreSQL and SQLite interleaved")
        let passes = LookupBench.interleaved(
            passes: config.passes, count: urls.count,
            [
                { for url in urls { keep(try? pg.cookieHeader(for: url)) } },
                { for url in urls { keep(try? lite.cookieHeader(for: url)) } },
            ])
        var differing = 0
        for url in urls
        where LookupBench.pairs(try pg.cookieHeader(for: url)) != LookupBench.pairs(try lite.cookieHeader(for: url)) {
            differing += 1
        }
        if differing > 0 { throw BenchError("the two stores answered \(differing) lookups differently") }
        let (pgLookup, liteLookup) = (passes[0].cpuMedian, passes[1].cpuMedian)
        table.add(
            "lookup, PostgreSQL store vs SQLite store (ns per lookup; lower is better)",
            ours: Format.perOp(pgLookup), peer: Format.perOp(liteLookup),
            ratio: Format.times(pgLookup / liteLookup) + " SQLite", target: "<= 1.2x SQLite",
            met: Format.met(pgLookup / liteLookup <= 1.2))

        // Strict coherence: each lookup first reads the change log's position on the server.
        let strictURLs = Array(urls.prefix(10_000))
        let strict = try WebsiteDataStore(
            url: server.url, identifier: identifier, configuration: .init(strictCoherence: true)
        ).httpCookieStore
        for url in strictURLs.prefix(100) { keep(try strict.cookieHeader(for: url)) }
        progress("timing \(strictURLs.count.grouped) lookups with strict coherence")
        let strictLookup = try measure { for url in strictURLs { keep(try strict.cookieHeader(for: url)) } }
        table.add(
            "lookup with strict coherence (a round trip each) vs SQLite store (ns per lookup)",
            ours: Format.perOp(strictLookup / Double(strictURLs.count)), peer: Format.perOp(liteLookup),
            ratio: Format.times(strictLookup / Double(strictURLs.count) / liteLookup) + " SQLite",
            target: "(reported)")

        // Reopening: a new store object and its first lookup, against a bare SELECT of the rows.
        let first = urls.first { !$0.host!.hasPrefix("www.unknown") }!
        progress("reopening the PostgreSQL store \(config.reopens) times, alternating with a bare SELECT")
        var openTimes: [Double] = []
        var selectTimes: [Double] = []
        var selected = 0
        for _ in 0..<config.reopens {
            openTimes.append(
                try measure {
                    let reopened = try WebsiteDataStore(url: server.url, identifier: identifier)
                    keep(try reopened.httpCookieStore.cookieHeader(for: first))
                })
            let scan = try server.selectFloor(identifier)
            selected = scan.rows
            selectTimes.append(scan.nanoseconds)
        }
        let (open, select) = (median(openTimes), median(selectTimes))
        table.add(
            "open: WebsiteDataStore(url:identifier:) + first lookup, \(config.big.cookies.grouped) cookies vs SELECT (lower is better)",
            ours: Format.seconds(open), peer: Format.seconds(select), ratio: Format.times(open / select) + " SELECT",
            target: "<= 2x SELECT", met: Format.met(open / select <= 2))

        // Propagation: a commit here, seen by the lookups and by the change feeds of 8 processes.
        let changes = config.quick ? 50 : 300
        for mode in ["__lookups", "__watch"] {
            progress(
                "starting \(processes) \(mode == "__lookups" ? "looking-up" : "subscriber") processes, then \(changes) changes 10 ms apart"
            )
            let (writer, writerIdentifier) = try server.freshStore()
            let url = URL(string: "https://feed.example/")!
            try writer.httpCookieStore.setCookies(fromSetCookieHeaders: ["start=1"], for: url)
            let arguments = [mode, server.url.absoluteString, writerIdentifier.uuidString]
            let watchers = try (0..<processes).map { _ in try FeedBench.Watcher(arguments: arguments) }
            for watcher in watchers { try watcher.waitUntilReady() }
            for _ in 0..<changes {
                let stamp = FeedBench.monotonicNanoseconds()
                try writer.httpCookieStore.setCookies(fromSetCookieHeaders: ["t=\(stamp)"], for: url)
                Thread.sleep(forTimeInterval: 0.01)
            }
            try writer.httpCookieStore.setCookies(fromSetCookieHeaders: ["done=1"], for: url)
            var delays: [Double] = []
            for watcher in watchers { delays += try watcher.finish(expecting: changes, orDone: mode == "__lookups") }
            delays.sort()
            let what = mode == "__lookups" ? "commit to lookup" : "commit to change feed"
            table.add(
                "\(what), \(processes) processes: p50 (lower is better)", ours: Format.seconds(percentile(delays, 0.5)),
                peer: "-")
            table.add(
                "\(what), \(processes) processes: p99", ours: Format.seconds(percentile(delays, 0.99)), peer: "-",
                target: "< 50 ms", met: Format.met(percentile(delays, 0.99) < 50e6))
            table.note(
                "\(what): \(delays.count.grouped) observations (\(changes) changes x \(processes) processes), max \(Format.seconds(delays.last ?? 0)), from just before the writing call\(mode == "__lookups" ? "; each process looks up every millisecond" : "")"
            )
        }

        table.note("server: \(server.description); each call returns after the server's flush")
        table.note(
            "ingest wall time: \(config.threads) threads median of 3 fresh stores (\(times.map { Format.seconds($0.wall) }.joined(separator: ", "))), \(many) threads \(Format.seconds(wide)), 1 thread \(Format.seconds(single)) for \(Int(singleHeaders).grouped) headers; COPY median of 3 (\(floorTimes.map { Format.seconds($0) }.joined(separator: ", "))), connect to commit"
        )
        table.note(
            "open: median of \(config.reopens) (ours \(openTimes.map { Format.seconds($0) }.joined(separator: ", ")); SELECT \(selectTimes.map { Format.seconds($0) }.joined(separator: ", ")): connect, \(selected.grouped) rows of the cookies table and the logged cookie changes not yet folded, every field read)"
        )
        withExtendedLifetime((store, sqlite)) {}
        return table
    }

    /// The subscriber of `__lookups URI IDENTIFIER`: prints `ready` once its store is open, then
    /// looks up `https://feed.example/` every millisecond and prints `WRITTEN SEEN` for each new
    /// value of cookie `t` it sees.
    static func lookupChild(_ arguments: [String]) throws {
        let store = try FeedBench.openStore(arguments)
        let url = URL(string: "https://feed.example/")!
        _ = try store.httpCookieStore.cookieHeader(for: url)
        print("ready")
        fflush(nil)
        var last = ""
        while true {
            let header = try store.httpCookieStore.cookieHeader(for: url) ?? ""
            let pairs = header.split(separator: "; ")
            if pairs.contains(where: { $0.hasPrefix("done=") }) {
                print("done")
                fflush(nil)
                return
            }
            if let pair = pairs.first(where: { $0.hasPrefix("t=") }), pair != last {
                last = String(pair)
                print(pair.dropFirst(2), FeedBench.monotonicNanoseconds())
                fflush(nil)
            }
            usleep(1000)
        }
    }

    /// The PostgreSQL server of the run.
    final class Server: CustomStringConvertible {
        /// The URI a store is opened with.
        let url: URL
        /// A libpq connection string of the same database, for the floors.
        let connectionString: String
        private let cluster: PostgreSQLTestCluster?

        init() throws {
            if let given = ProcessInfo.processInfo.environment["WKSTORE_BENCH_POSTGRES"], !given.isEmpty {
                guard let url = URL(string: given), given.hasPrefix("postgresql://") || given.hasPrefix("postgres://")
                else {
                    throw BenchError("WKSTORE_BENCH_POSTGRES must be a postgresql:// URI")
                }
                (self.url, connectionString, cluster) = (url, given, nil)
            } else {
                progress("starting a private PostgreSQL cluster")
                let cluster = try PostgreSQLTestCluster()
                connectionString = cluster.socketConnectionString()
                url = URL(string: PostgreSQLTestServer.uri(connectionString))!
                self.cluster = cluster
            }
        }

        var description: String {
            cluster.map { _ in "a private cluster of PostgreSQL's defaults (fsync on), over its Unix socket" }
                ?? "the one WKSTORE_BENCH_POSTGRES names"
        }

        /// A new identifier's store, its limits raised as `Loader.makeStore` raises them.
        func freshStore() throws -> (WebsiteDataStore, UUID) {
            let identifier = UUID()
            let store = try WebsiteDataStore(url: url, identifier: identifier)
            try store.set(.cookiesMaxTotal, to: "1000000")
            return (store, identifier)
        }

        /// Connects, sends `rows` to a fresh store's cookies table by one `COPY` in one
        /// transaction, and commits; the nanoseconds from connect to commit.
        func copyFloor(_ rows: [[SQLiteFloor.Value]]) throws -> Double {
            // The store object only makes the schema; closed at once.
            let (_, identifier) = try freshStore()
            let schema = PostgreSQLStoreLocation.schema(for: identifier)
            let values = rows.map { row in
                row.map { value -> PostgreSQLValue in
                    switch value {
                    case .null: return .null
                    case .integer(let v): return .int64(v)
                    case .real(let v): return .double(v)
                    case .text(let v): return .text(v)
                    }
                }
            }
            return try measure {
                let db = try PostgreSQLConnection(connectionString)
                try db.transaction {
                    let copied = try db.copy(
                        "COPY \(schema).cookies (\(SQLiteFloor.columns)) FROM STDIN", rows: values)
                    guard copied == rows.count else { throw BenchError("COPY stored \(copied) of \(rows.count) rows") }
                }
            }
        }

        /// Connects and reads every field of the store's cookies and of its logged cookie
        /// changes not yet folded (what opening the store reads); the rows and nanoseconds taken.
        func selectFloor(_ identifier: UUID) throws -> (rows: Int, nanoseconds: Double) {
            let schema = PostgreSQLStoreLocation.schema(for: identifier)
            var count = 0
            let time = try measure {
                let db = try PostgreSQLConnection(connectionString)
                var bytes = 0
                let logged =
                    "SELECT * FROM \(schema).change_log WHERE op IS NOT NULL AND seq > (SELECT coalesce(max(CAST(value AS bigint)), 0) FROM \(schema).settings WHERE key = 'cookies.folded_through')"
                for sql in ["SELECT * FROM \(schema).cookies", logged] {
                    for row in try db.execute(sql).rows {
                        for field in row.fields { bytes += field.text?.utf8.count ?? 0 }
                        count += 1
                    }
                }
                keep(bytes)
            }
            return (count, time)
        }

        func stop() { try? cluster?.stop(immediate: false) }
    }
}
