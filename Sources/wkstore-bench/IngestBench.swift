import Foundation
import WebsiteData

/// Section 2: `Set-Cookie` ingest into a persistent store, against inserting the same rows into
/// SQLite with one prepared statement in one transaction.
enum IngestBench {
    static func run(_ context: Context) throws -> Table {
        let config = context.config
        let data = context.dataset(config.big)
        let headers = data.headerCount
        var table = Table("ingest: Set-Cookie headers into a persistent store (cookies per second; higher is better)")

        // Ours, from several threads, so that commits are shared (group commit): three fresh
        // stores, as the floor gets three fresh files, and the median of the three. (The first
        // run of a process is often the slowest: its allocations grow the heap.) The first
        // store is the big store the later sections open.
        let scratch = ScratchDirectory("ingest")
        let directory = scratch.url.appendingPathComponent("store")
        progress(
            "ingesting \(headers.grouped) headers in \(data.responses.count.grouped) responses from \(config.threads) threads, 3 times"
        )
        var concurrentTimes: [Timing] = []
        for run in 0..<3 {
            let runScratch = run == 0 ? scratch : ScratchDirectory("ingest-\(run)")
            let store = try Loader.makeStore(directory: runScratch.url.appendingPathComponent("store"))
            var result = Loader.Result()
            concurrentTimes.append(
                measureProcess { result = Loader.ingest(data.responses, into: store, threads: config.threads) })
            try result.check(expected: config.big.cookies)
        }
        let concurrent = Timing(wall: median(concurrentTimes.map(\.wall)), cpu: median(concurrentTimes.map(\.cpu)))
        context.bigStore = scratch

        // The floor: the rows the engine wrote, inserted into a fresh copy of the schema.
        let rows = try SQLiteFloor.rows(of: directory)
        guard rows.count == config.big.cookies else {
            throw BenchError("the store holds \(rows.count) rows, not \(config.big.cookies)")
        }
        progress("inserting the same \(rows.count.grouped) rows into bare SQLite, 3 times")
        var floorTimes: [Timing] = []
        for _ in 0..<3 {
            let floorScratch = ScratchDirectory("ingest-floor")
            let file = try SQLiteFloor.freshStoreFile(in: floorScratch.url)
            floorTimes.append(try SQLiteFloor.insert(rows, into: file))
        }
        let floor = median(floorTimes.map(\.wall))
        let floorCPU = median(floorTimes.map(\.cpu))

        // More clients share more commits.
        let many = config.threads * 4
        progress("ingesting the same responses from \(many) threads")
        let wide: Timing
        do {
            let wideScratch = ScratchDirectory("ingest-wide")
            let store = try Loader.makeStore(directory: wideScratch.url.appendingPathComponent("store"))
            var result = Loader.Result()
            wide = measureProcess { result = Loader.ingest(data.responses, into: store, threads: many) }
            try result.check(expected: config.big.cookies)
        }

        // Ours from one thread: every response is a commit of its own.
        progress("ingesting the same responses from 1 thread")
        let single: Timing
        do {
            let singleScratch = ScratchDirectory("ingest-single")
            let store = try Loader.makeStore(directory: singleScratch.url.appendingPathComponent("store"))
            var result = Loader.Result()
            single = measureProcess { result = Loader.ingest(data.responses, into: store, threads: 1) }
            try result.check(expected: config.big.cookies)
        }

        let n = Double(headers)
        let oursRate = n / (concurrent.wall / 1e9)
        let floorRate = n / (floor / 1e9)
        let singleRate = n / (single.wall / 1e9)
        table.add(
            "ours, \(config.threads) threads, \(headers.grouped) headers vs SQLite insert floor",
            ours: Format.rate(oursRate), peer: Format.rate(floorRate),
            ratio: Format.times(floorRate / oursRate) + " floor",
            target: "<= 3x floor", met: Format.met(floorRate / oursRate <= 3))
        let wideRate = n / (wide.wall / 1e9)
        table.add(
            "ours, \(many) threads vs floor",
            ours: Format.rate(wideRate), peer: Format.rate(floorRate),
            ratio: Format.times(floorRate / wideRate) + " floor",
            target: "(reported)")
        table.add(
            "ours, 1 thread (a commit per response) vs floor",
            ours: Format.rate(singleRate), peer: Format.rate(floorRate),
            ratio: Format.times(floorRate / singleRate) + " floor",
            target: "(reported)")
        let cpuRatio = concurrent.cpu / floorCPU
        table.add(
            "CPU per cookie (all threads), ours \(config.threads) threads vs floor",
            ours: Format.perOp(concurrent.cpu / n), peer: Format.perOp(floorCPU / n),
            ratio: Format.times(cpuRatio) + " floor",
            target: "(reported)")

        if let python = try PythonPeer.ingest(data) {
            table.add(
                "ours, \(config.threads) threads vs Python http.cookiejar (in memory, reference)",
                ours: Format.rate(oursRate), peer: Format.rate(python.rate),
                ratio: Format.times(oursRate / python.rate) + " faster",
                target: "(reference)")
            table.note(
                "Python \(python.version): CookieJar.extract_cookies per response, \(python.stored.grouped) of \(headers.grouped) cookies kept, \(Format.seconds(python.seconds * 1e9))"
            )
        } else {
            table.note("python3 not found: no http.cookiejar reference row")
        }
        table.note(
            "\(data.responses.count.grouped) responses of 1-10 Set-Cookie headers (\(Format.fixed(n / Double(data.responses.count), 2)) on average), one setCookies call each; every call returns committed; limits raised (cookies.max-total = 1,000,000)"
        )
        table.note(
            "wall time: ours \(config.threads) threads median of 3 fresh stores (\(concurrentTimes.map { Format.seconds($0.wall) }.joined(separator: ", "))), \(many) threads \(Format.seconds(wide.wall)), 1 thread \(Format.seconds(single.wall)); floor median of 3 fresh files (\(floorTimes.map { Format.seconds($0.wall) }.joined(separator: ", "))), open to commit, WAL, synchronous=NORMAL, INSERT OR REPLACE with the store's indexes"
        )
        table.note(
            "process CPU time: ours \(config.threads) threads \(Format.seconds(concurrent.cpu)), \(many) threads \(Format.seconds(wide.cpu)), 1 thread \(Format.seconds(single.cpu)), floor \(Format.seconds(floorCPU))"
        )
        return table
    }
}
