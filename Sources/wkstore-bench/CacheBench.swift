import CSQLite
import Foundation
import WebsiteData
import WebsiteDataHTTP

/// Section 9: the HTTP cache through `HTTPClient`. Responses of `bodySize` bytes with
/// `max-age=3600` from a loopback server fill a fresh persistent store; every URL is then asked
/// again from a new store object (disk-cache hits) and again (memory-cache hits), against a
/// dictionary of the same bodies (memory floor), one indexed `SELECT` of each entry's row
/// (disk floor) and Python's requests-cache (SQLite backend) on the same server; Scrapy's cache
/// storages for information.
enum CacheBench {
    /// Bytes of each response body.
    static let bodySize = 1536

    static func run(_ context: Context) throws -> Table {
        let config = context.config
        var sizes = config.quick ? [1_000, 5_000] : [1_000, 10_000, 100_000]
        if let largest = config.cacheLargest {
            sizes = sizes.filter { $0 < largest } + [largest]
        }
        var table = Table("cache: responses through HTTPClient's HTTP cache, per request (lower is better)")
        let peer = try config.noPeers ? nil : RequestsCachePeer.prepare()
        let server = try HTTPBench.LoopbackServer(
            arguments: ["max-age=3600", String(bodySize)])
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        var smallestHit: (disk: Double, memory: Double)?
        for (index, count) in sizes.enumerated() {
            let urls = Self.urls(count, base: base)
            let scratch = ScratchDirectory("cache-\(count)")
            let storeDirectory = scratch.url.appendingPathComponent("store")
            let fill = try Self.fill(urls, into: storeDirectory, scratch: scratch)
            let hits = try Self.hits(urls, storeDirectory: storeDirectory, passes: count <= 10_000 ? 3 : 1)
            let n = count.grouped
            table.add(
                "fill \(n): cache on vs off (8 at a time)", ours: Format.perOp(fill.on), peer: Format.perOp(fill.off),
                ratio: Format.fixed(fill.cost * 100, 1) + "% cost", target: "<= 10%", met: Format.met(fill.cost <= 0.10)
            )
            table.add(
                "\(n): memory hit vs dictionary + Cookie lookup", ours: Format.perOp(hits.memory),
                peer: Format.perOp(hits.memoryFloor), ratio: Format.times(hits.memoryRatio), target: "<= 3x",
                met: Format.met(hits.memoryRatio <= 3))
            table.add(
                "\(n): disk hit (new store object) vs indexed SELECT", ours: Format.perOp(hits.disk),
                peer: Format.perOp(hits.diskFloor), ratio: Format.times(hits.diskRatio), target: "<= 3x",
                met: Format.met(hits.diskRatio <= 3))
            if let smallest = smallestHit, index == sizes.count - 1 {
                let ratio = hits.disk / smallest.disk
                table.add(
                    "disk hit, \(n) vs \(sizes[0].grouped) entries", ours: Format.perOp(hits.disk),
                    peer: Format.perOp(smallest.disk), ratio: Format.times(ratio), target: "<= 1.3x",
                    met: Format.met(ratio <= 1.3))
                let memoryRatio = hits.memory / smallest.memory
                table.add(
                    "memory hit, \(n) vs \(sizes[0].grouped) entries", ours: Format.perOp(hits.memory),
                    peer: Format.perOp(smallest.memory), ratio: Format.times(memoryRatio), target: "(reported)")
            }
            if index == 0 { smallestHit = (hits.disk, hits.memory) }
            if let peer {
                let result = try peer.run(base: base, urls: urls, scratch: scratch)
                let faster = result.hit / hits.disk
                let largest = index == sizes.count - 1
                table.add(
                    "\(n): disk hit vs requests-cache \(result.version) (SQLite)", ours: Format.perOp(hits.disk),
                    peer: Format.perOp(result.hit), ratio: Format.times(faster) + " faster",
                    target: largest ? ">= 30x faster" : "(reported)", met: largest ? Format.met(faster >= 30) : "-")
                table.note(
                    "requests-cache at \(n): fill \(Format.perOp(result.fill)) per request (one at a time), hits timed on \(result.timed.grouped) URLs spread over the \(n)"
                )
                let scrapy = try ScrapyCachePeer(python: peer.python)
                    .run(urls: urls, bodySize: bodySize, scratch: scratch)
                for (name, storage) in [("filesystem", scrapy.filesystem), ("DBM (\(scrapy.dbmModule))", scrapy.dbm)] {
                    table.add(
                        "\(n): disk hit vs Scrapy \(scrapy.version) \(name) storage's retrieve_response",
                        ours: Format.perOp(hits.disk), peer: Format.perOp(storage.hit),
                        ratio: Format.times(storage.hit / hits.disk) + " faster", target: "(reported)")
                }
                table.note(
                    "Scrapy at \(n): store_response \(Format.perOp(scrapy.filesystem.fill)) (filesystem), \(Format.perOp(scrapy.dbm.fill)) (DBM) per response; retrieve_response timed on \(scrapy.timed.grouped) URLs spread over the \(n); no HTTP: the middleware's own work and the download come on top"
                )
            }
            table.note(
                "\(n): fill on \(fill.onList), off \(fill.offList) per request (this process's CPU per request: on \(Format.perOp(fill.onCPU)), off \(Format.perOp(fill.offCPU))); disk hits \(hits.diskList) (\(hits.diskSpread)), memory hits \(hits.memoryList); floors: \(hits.floorList)"
            )
            if index == sizes.count - 1 { try clear(storeDirectory, scratch: scratch, into: &table) }
        }
        table.note(
            "bodies of \(bodySize.grouped) bytes with Cache-Control: max-age=3600; hits are sent one at a time and timed in wall time, the median of the passes (memory hits: of \(memoryRounds) rounds a pass); each tenth of a disk pass and each round of memory hits is followed by its floor, and a ratio is the median of theirs; a disk pass's time would include committing last-access times its hits left to be written behind, but they leave none (they come within a minute of their entries' storing, and a use is recorded once a minute at most); a memory hit includes the Cookie lookup every request makes, hence the floor's"
        )
        return table
    }

    /// `__profile cache-fill|cache-disk|cache-memory`: repeats one part of the section on 10,000 URLs.
    static func profile(_ what: String, seconds: Double) throws {
        let server = try HTTPBench.LoopbackServer(arguments: ["max-age=3600", String(bodySize)])
        defer { server.stop() }
        let urls = Self.urls(10_000, base: "http://127.0.0.1:\(server.port)")
        let deadline = now() + UInt64(seconds * 1e9)
        var rounds = 0
        var scratch = ScratchDirectory("profile-cache")
        var directory = scratch.url.appendingPathComponent("store")
        _ = try fill(urls, into: directory, scratch: scratch)
        let store = try WebsiteDataStore(directory: directory)
        let client = try HTTPClient(store: store, configuration: HTTPClientConfiguration(timeout: 30))
        while now() < deadline {
            let time: Double
            var cpu = ""
            switch what {
            case "fill":
                scratch = ScratchDirectory("profile-cache")
                directory = scratch.url.appendingPathComponent("store")
                let fill = try fill(urls, into: directory, scratch: scratch)
                time = fill.on
                cpu =
                    " (this process's CPU \(Format.perOp(fill.onCPU)); cache off \(Format.perOp(fill.off)), CPU \(Format.perOp(fill.offCPU)))"
            case "disk":
                let fresh = try HTTPClient(
                    store: try WebsiteDataStore(directory: directory),
                    configuration: HTTPClientConfiguration(timeout: 30))
                time = try timeHits(urls, fresh) / Double(urls.count)
            default:
                time = try timeHits(urls, client) / Double(urls.count)
            }
            rounds += 1
            FileHandle.standardError.write(Data("round \(rounds): \(Format.perOp(time)) per request\(cpu)\n".utf8))
        }
    }

    /// The section's URLs on the server at `base`: a path and a query each, as crawled pages have.
    static func urls(_ count: Int, base: String) -> [URL] {
        (0..<count).map { URL(string: "\(base)/page/\($0)?q=\($0 &* 2_654_435_761 % 1_000_003)")! }
    }

    // MARK: - Fill

    struct Fill {
        var on: Double
        var off: Double
        var ons: [Double]
        var offs: [Double]
        /// This process's CPU time per request (every thread: the requests, the cache's writer),
        /// the medians of the parts: what the cache costs a crawler, whatever the server costs.
        var onCPU: Double
        var offCPU: Double
        var cost: Double { on / off - 1 }
        var onList: String { ons.map(Format.perOp).joined(separator: ", ") }
        var offList: String { offs.map(Format.perOp).joined(separator: ", ") }
    }

    /// Fills a fresh store with `urls` through `HTTPClient`, in ten parts interleaved with the same
    /// parts sent with the cache off (to another fresh store); per request, the medians of the parts.
    static func fill(_ urls: [URL], into directory: URL, scratch: ScratchDirectory) throws -> Fill {
        progress("cache: filling \(urls.count.grouped) responses, cache on and off interleaved")
        let store = try WebsiteDataStore(directory: directory)
        try store.set(.memoryCacheMaxSize, to: "1GB")
        try store.set(.cacheMaxSize, to: "4GB")
        let off = try WebsiteDataStore(directory: scratch.url.appendingPathComponent("off"))
        let onClient = try HTTPClient(store: store, configuration: HTTPClientConfiguration(timeout: 30))
        let offClient = try HTTPClient(
            store: off, configuration: HTTPClientConfiguration(timeout: 30, usesCache: false))
        let requests = urls.map { HTTPRequest(url: $0) }
        // Warm both clients' connections and the server.
        let warm = (0..<64).map { HTTPRequest(url: URL(string: urls[0].absoluteString + "&warm=\($0)")!) }
        try HTTPBench.send(warm, with: offClient)
        try HTTPBench.send(warm, with: onClient)
        var ons: [Double] = []
        var offs: [Double] = []
        var onCPUs: [Double] = []
        var offCPUs: [Double] = []
        let part = max(1, urls.count / 10)
        for (p, start) in stride(from: 0, to: urls.count, by: part).enumerated() {
            let batch = Array(requests[start..<min(start + part, urls.count)])
            let order = p % 2 == 0 ? [true, false] : [false, true]
            for cacheOn in order {
                // The part's time includes committing the rows written behind.
                let time = try measureProcess {
                    try HTTPBench.send(batch, with: cacheOn ? onClient : offClient)
                    if cacheOn { store.httpCache.waitForPendingWrites() }
                }
                let perRequest = (wall: time.wall / Double(batch.count), cpu: time.cpu / Double(batch.count))
                if cacheOn {
                    ons.append(perRequest.wall)
                    onCPUs.append(perRequest.cpu)
                } else {
                    offs.append(perRequest.wall)
                    offCPUs.append(perRequest.cpu)
                }
            }
        }
        return Fill(
            on: median(ons), off: median(offs), ons: ons, offs: offs, onCPU: median(onCPUs), offCPU: median(offCPUs))
    }

    // MARK: - Hits

    struct Hits {
        /// Per pass, the disk hits' time per hit.
        var disks: [Double] = []
        /// Per round of memory hits, the time per hit.
        var memories: [Double] = []
        /// Per part of a disk pass, the time per hit over the `SELECT` floor's, timed right after.
        var diskRatios: [Double] = []
        /// Per round of memory hits, the time per hit over the memory floor's, timed right after.
        var memoryRatios: [Double] = []
        /// The floors per URL, as each was timed.
        var selects: [Double] = []
        var dictionaries: [Double] = []
        var cookies: [Double] = []
        var disk: Double { median(disks) }
        var memory: Double { median(memories) }
        var diskFloor: Double { median(selects) }
        var memoryFloor: Double { median(zip(dictionaries, cookies).map(+)) }
        var diskRatio: Double { median(diskRatios) }
        var memoryRatio: Double { median(memoryRatios) }
        var diskList: String { disks.map(Format.perOp).joined(separator: ", ") }
        var memoryList: String { memories.map(Format.perOp).joined(separator: ", ") }
        var floorList: String {
            "dictionary \(Format.perOp(median(dictionaries))), Cookie lookup \(Format.perOp(median(cookies))), SELECT \(Format.perOp(diskFloor))"
        }
        /// Every disk hit's own time, over the passes.
        let eachDisk = Locked<[Double]>([])
        /// The median and the 99th percentile of single disk hits: a mean includes whatever
        /// falls on a few hits (a commit of 256 recorded uses, a checkpoint of another writer).
        var diskSpread: String {
            let sorted = eachDisk.withLock { $0 }.sorted()
            guard !sorted.isEmpty else { return "" }
            return
                "disk hit p50 \(Format.perOp(percentile(sorted, 0.5))), p99 \(Format.perOp(percentile(sorted, 0.99)))"
        }
    }

    /// Rounds of memory hits per pass.
    static let memoryRounds = 5
    /// Parts of a disk pass, each followed by its floor.
    static let diskParts = 10

    /// Each pass: a new store object and client; every URL once (disk-cache hits), in parts, each
    /// followed by the `SELECT` floor of its URLs; then rounds of every URL again (memory-cache
    /// hits), each followed by the memory floor. On this shared machine the speed of everything
    /// drifts by up to 2x over seconds, so each ratio compares times taken a moment apart, and the
    /// section reports the median ratio.
    static func hits(_ urls: [URL], storeDirectory: URL, passes: Int) throws -> Hits {
        progress("cache: \(passes) pass(es) of \(urls.count.grouped) disk hits and memory hits, each beside its floor")
        var hits = Hits()
        let partitions = try Self.partitions(storeDirectory)
        let bodies = Dictionary(uniqueKeysWithValues: urls.map { ($0, Data(repeating: 120, count: bodySize)) })
        let partSize = max(1, urls.count / diskParts)
        for _ in 0..<passes {
            let store = try WebsiteDataStore(directory: storeDirectory)
            let client = try HTTPClient(store: store, configuration: HTTPClientConfiguration(timeout: 30))
            let select = try SelectFloor(storeDirectory, partitions: partitions)
            defer { select.close() }
            var disk = 0.0
            for start in stride(from: 0, to: urls.count, by: partSize) {
                let part = Array(urls[start..<min(start + partSize, urls.count)])
                var time = try timeHits(part, client, each: hits.eachDisk)
                // The pass's time includes committing the last-access times its hits left to be
                // written behind (every 256 hits): they are its work, not the memory hits' after it.
                if start + partSize >= urls.count { time += measure { store.httpCache.waitForPendingWrites() } }
                disk += time
                let floor = try select.time(part)
                hits.selects.append(floor)
                hits.diskRatios.append(time / Double(part.count) / floor)
            }
            hits.disks.append(disk / Double(urls.count))
            let cookies = store.httpCookieStore
            for _ in 0..<memoryRounds {
                let memory = try timeHits(urls, client) / Double(urls.count)
                let dictionary =
                    measure {
                        for url in urls { keep(bodies[url]!.withUnsafeBytes { Data($0) }) }
                    } / Double(urls.count)
                let cookie =
                    try measure {
                        for url in urls {
                            keep(try cookies.cookieHeader(for: url, context: HTTPBench.asHTTPClientAsks(url)))
                        }
                    } / Double(urls.count)
                hits.memories.append(memory)
                hits.dictionaries.append(dictionary)
                hits.cookies.append(cookie)
                hits.memoryRatios.append(memory / (dictionary + cookie))
            }
            if store.httpCache.memoryUsage == 0 { throw BenchError("cache: the memory cache kept nothing") }
        }
        return hits
    }

    /// Sends every URL once, one at a time, checking that each was a hit; nanoseconds in all.
    ///
    /// - Parameter each: when given, receives each hit's own time too (two clock reads a hit,
    ///   kept in the loop's own array and handed over after it).
    static func timeHits(_ urls: [URL], _ client: HTTPClient, each: Locked<[Double]>? = nil) throws -> Double {
        try blocking {
            var times: [Double] = []
            if each != nil { times.reserveCapacity(urls.count) }
            defer { each?.withLock { $0 += times } }
            let start = now()
            for url in urls {
                let hitStart = each == nil ? 0 : now()
                defer { if each != nil { times.append(Double(now() - hitStart)) } }
                let response = try await client.send(HTTPRequest(url: url))
                guard response.cacheOutcome == .hit, response.body.count == bodySize else {
                    throw BenchError("cache: \(url) was not a hit (\(String(describing: response.cacheOutcome)))")
                }
            }
            return Double(now() - start)
        }
    }

    // MARK: - Floors

    /// The partition of each stored URL.
    static func partitions(_ storeDirectory: URL) throws -> [String: String] {
        let db = try SQLiteFloor.open(storeDirectory.appendingPathComponent("store.sqlite"), readOnly: true)
        defer { sqlite3_close_v2(db) }
        let statement = try SQLiteFloor.prepare(db, "SELECT url, partition_key FROM http_cache")
        defer { sqlite3_finalize(statement) }
        var partitions: [String: String] = [:]
        while sqlite3_step(statement) == SQLITE_ROW {
            partitions[String(cString: sqlite3_column_text(statement, 0))] = String(
                cString: sqlite3_column_text(statement, 1))
        }
        return partitions
    }

    /// The disk floor: one prepared `SELECT` by the entry's key per URL, on a read-only
    /// connection of its own, reading the header text and the body into memory.
    final class SelectFloor {
        let db: OpaquePointer?
        let statement: OpaquePointer?
        let partitions: [String: String]

        init(_ storeDirectory: URL, partitions: [String: String]) throws {
            db = try SQLiteFloor.open(storeDirectory.appendingPathComponent("store.sqlite"), readOnly: true)
            do {
                statement = try SQLiteFloor.prepare(
                    db,
                    "SELECT status, headers, body FROM http_cache WHERE partition_key = ? AND method = 'GET' AND url = ? AND variant = ''"
                )
            } catch {
                sqlite3_close_v2(db)
                throw error
            }
            self.partitions = partitions
        }

        func close() {
            sqlite3_finalize(statement)
            sqlite3_close_v2(db)
        }

        /// Nanoseconds per URL for `urls`, each found.
        func time(_ urls: [URL]) throws -> Double {
            let keys = urls.map { ($0.absoluteString, partitions[$0.absoluteString] ?? "") }
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            var found = 0
            let time = measure {
                for (url, partition) in keys {
                    sqlite3_bind_text(statement, 1, partition, -1, transient)
                    sqlite3_bind_text(statement, 2, url, -1, transient)
                    if sqlite3_step(statement) == SQLITE_ROW {
                        let headers = String(cString: sqlite3_column_text(statement, 1))
                        let body = Data(
                            bytes: sqlite3_column_blob(statement, 2), count: Int(sqlite3_column_bytes(statement, 2)))
                        keep((headers, body))
                        found += 1
                    }
                    sqlite3_reset(statement)
                }
            }
            guard found == urls.count else {
                throw BenchError("cache: the SELECT floor found \(found) of \(urls.count)")
            }
            return time / Double(urls.count)
        }
    }

    // MARK: - Clear

    /// `clear --types diskcache --since` (what the command calls) on copies of the filled store,
    /// removing the most recently modified 1% and 50%, and the size accounting after each.
    static func clear(_ storeDirectory: URL, scratch: ScratchDirectory, into table: inout Table) throws {
        var perEntry: [Double] = []
        for percent in [1, 50] {
            let copy = scratch.url.appendingPathComponent("clear-\(percent)")
            try FileManager.default.copyItem(at: storeDirectory, to: copy)
            let file = copy.appendingPathComponent("store.sqlite")
            let (total, since) = try Self.cutoff(file, percent: percent)
            let store = try WebsiteDataStore(directory: copy)
            progress("cache: clearing \(percent)% of \(total.grouped) entries")
            let time = try measure {
                _ = try blocking { try await store.removeData(ofTypes: [.diskCache], modifiedSince: since) }
            }
            let (left, bytes) = try Self.rowsAndBytes(file)
            let usage = try store.httpCache.diskUsage()
            let removed = total - left
            guard usage == bytes else {
                throw BenchError("cache: after clearing, the usage counter says \(usage) bytes, the rows \(bytes)")
            }
            perEntry.append(time / Double(max(removed, 1)))
            table.add(
                "clear --types diskcache --since: \(removed.grouped) of \(total.grouped) (\(percent)%)",
                ours: Format.seconds(time), peer: "", ratio: Format.perOp(time / Double(max(removed, 1))) + "/entry",
                target: "(reported)")
            table.note(
                "after clearing \(percent)%: \(left.grouped) entries, the usage counter \(Int(usage).grouped) bytes = the rows' sizes"
            )
        }
        let ratio = perEntry[0] / perEntry[1]
        table.add(
            "clear: time per removed entry, 1% vs 50%", ours: Format.perOp(perEntry[0]),
            peer: Format.perOp(perEntry[1]),
            ratio: Format.times(ratio), target: "(proportional: near 1x)")
    }

    /// The entry count and the `modified` time above which about `percent`% of the entries lie.
    static func cutoff(_ file: URL, percent: Int) throws -> (Int, Date) {
        let db = try SQLiteFloor.open(file, readOnly: true)
        defer { sqlite3_close_v2(db) }
        let count = try SQLiteFloor.prepare(db, "SELECT count(*) FROM http_cache")
        defer { sqlite3_finalize(count) }
        guard sqlite3_step(count) == SQLITE_ROW else { throw BenchError("cache: cannot count entries") }
        let total = Int(sqlite3_column_int64(count, 0))
        let pick = try SQLiteFloor.prepare(
            db, "SELECT modified FROM http_cache ORDER BY modified DESC LIMIT 1 OFFSET \(total * percent / 100 - 1)")
        defer { sqlite3_finalize(pick) }
        guard sqlite3_step(pick) == SQLITE_ROW else { throw BenchError("cache: cannot pick a cutoff") }
        return (total, Date(timeIntervalSince1970: sqlite3_column_double(pick, 0)))
    }

    /// The entries and the sum of their sizes, as the rows say.
    static func rowsAndBytes(_ file: URL) throws -> (Int, Int64) {
        let db = try SQLiteFloor.open(file, readOnly: true)
        defer { sqlite3_close_v2(db) }
        let statement = try SQLiteFloor.prepare(db, "SELECT count(*), coalesce(sum(size), 0) FROM http_cache")
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchError("cache: cannot read the sizes") }
        return (Int(sqlite3_column_int64(statement, 0)), sqlite3_column_int64(statement, 1))
    }
}

/// Runs `body` in a task and waits for it on the calling thread.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Locked<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value: Result<T, any Error>
        do { value = .success(try await body()) } catch { value = .failure(error) }
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
