import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Crash safety of every persistent data type: a `wkstore-stress` writer is killed with SIGKILL
/// at a random moment (after a random number of acknowledged writes, then a random delay of up
/// to 3 ms, so the kill lands inside later writes), and the store is reopened and checked:
/// `PRAGMA integrity_check` is `ok`, every acknowledged write is there byte for byte, a write in
/// flight is whole or absent (a transaction's puts all or none; a disk-cache row written behind,
/// committed after `send` returned, likewise), and no body file is orphaned
/// after the next open. Cookies are covered by `ProcessTests.killedRightAfterACommitLosesNothing`.
/// On PostgreSQL the same writers are killed and the same rows checked; a killed client's open
/// transaction is rolled back by the server, and the checks of files are SQLite's alone.
///
/// 20 kills per kind on SQLite, 8 on PostgreSQL (each round there makes and migrates a schema),
/// a third of that under a sanitizer (`TestScale`); `WKSTORE_CRASH_KILLS=200` runs more.
@Suite(.ownThreads, .bothEngines) struct CrashSafetyTests {
    let dir = TemporaryDirectory()
    static var kills: Int {
        Int(ProcessInfo.processInfo.environment["WKSTORE_CRASH_KILLS"] ?? "")
            ?? TestScale.rounds(
                TestEngine.current == .postgreSQL ? 8 : 20, sanitized: TestEngine.current == .postgreSQL ? 3 : 7)
    }
    static var onSQLite: Bool { TestEngine.current == .sqlite }

    /// Kills a writer `kills` times, calling `verify(store, acknowledged, round)` after each kill
    /// (`acknowledged` is the highest `committed N` printed; write N+1 may have been in flight).
    func killRounds(
        _ mode: String, perBatch: Int = 5, maxAcknowledged: Int = 25,
        verify: (URL, Int, Int) async throws -> Void
    ) async throws {
        var total = 0
        for round in 0..<Self.kills {
            let store = dir.path("\(mode)-\(round)")
            let child = try LineChild(
                "wkstore-stress",
                [mode] + TestEngine.storeArguments(for: store) + [
                    "--batches", "1000000", "--per-batch", String(perBatch), "--prefix", "r\(round)_",
                ])
            var acknowledged = -1
            let stopAfter = Int.random(in: 0...maxAcknowledged)
            while acknowledged < stopAfter, let line = await child.nextLine() {
                guard line.hasPrefix("committed "), let n = Int(line.dropFirst("committed ".count)) else { break }
                acknowledged = n
            }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...3000)))
            child.kill()
            // Acknowledgements written before the kill still count.
            while let line = await child.nextLine() {
                if line.hasPrefix("committed "), let n = Int(line.dropFirst("committed ".count)) { acknowledged = n }
            }
            try #require(acknowledged >= stopAfter, "round \(round): the writer stopped early: \(child.standardError)")
            if Self.onSQLite {
                let check = try StoreFiles.integrityCheck(store.appendingPathComponent(StoreDatabase.fileName))
                #expect(check == "ok", "round \(round): integrity_check: \(check)")
            }
            try await verify(store, acknowledged, round)
            total += acknowledged + 1
        }
        print(
            "crash safety, \(mode), \(TestEngine.current): \(Self.kills) kills, \(total) acknowledged writes, none lost, none half-written"
        )
    }

    // MARK: - Disk cache

    @Test func diskCacheEntriesSurviveSIGKILL() async throws {
        var files = 0
        var orphans = 0
        try await killRounds("diskcache", maxAcknowledged: 20) { store, acknowledged, round in
            let folder = store.appendingPathComponent(HTTPDiskCache.folderName)
            if Self.onSQLite {
                // What the kill left: files no committed row names (a body written before its row,
                // a caller's temporary file, a read-back copy).
                let before = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                let db = try SQLiteConnection(location: .file(store.appendingPathComponent(StoreDatabase.fileName)))
                orphans +=
                    before.subtracting(
                        try db.rows("SELECT body_file FROM http_cache WHERE body_file IS NOT NULL") { $0.string(0) }
                    ).count
                // Let the next open treat every file left behind as old enough to be an orphan.
                StoreFiles.age(filesIn: folder, by: HTTPDiskCache.orphanGracePeriod + 60)
            }
            let reopened = try TestEngine.openStore(for: store)
            let rows = try reopened.database.read { db in
                try db.rows("SELECT url, headers, body, body_file, body_size FROM http_cache") {
                    (
                        $0.string(0), HTTPHeaders(serialized: $0.string(1)), $0.isNull(2) ? nil : Data($0.blob(2)),
                        $0.optionalString(3), Int($0.int(4))
                    )
                }
            }
            if Self.onSQLite {
                // Files on disk are exactly the bodies rows name.
                let onDisk = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                let named = Set(rows.compactMap(\.3))
                #expect(
                    onDisk == named,
                    "round \(round): files without rows \(onDisk.subtracting(named)), rows without files \(named.subtracting(onDisk))"
                )
                files += named.count
            }
            // Every row is whole: its body is the one its headers name, at its full size.
            var versions: [Int: Int] = [:]
            for (url, headers, inline, file, size) in rows {
                let entry = try #require(headers.first(named: "X-Entry").flatMap(Int.init), "round \(round): \(url)")
                let version = try #require(headers.first(named: "X-Version").flatMap(Int.init))
                #expect(url == CrashData.cacheURL(prefix: "r\(round)_", entry: entry).absoluteString)
                let expected = CrashData.cacheBody(entry: entry, version: version)
                // PostgreSQL keeps every body in the database: it is read through the public API.
                let body =
                    Self.onSQLite
                    ? try inline ?? Data(contentsOf: folder.appendingPathComponent(try #require(file)))
                    : try await Self.cachedBody(reopened, CrashData.cacheURL(prefix: "r\(round)_", entry: entry))
                #expect(
                    size == expected.count && body == expected,
                    "round \(round): entry \(entry) v\(version) is not whole")
                #expect(
                    versions.updateValue(version, forKey: entry) == nil, "round \(round): entry \(entry) stored twice")
            }
            // Every acknowledged write is there; the write in flight may be.
            var expected: [Int: Set<Int>] = [:]
            for n in 0...(acknowledged + 1) {
                let (entry, version) = CrashData.cacheTarget(n)
                if n == acknowledged + 1 {
                    expected[entry, default: version == 1 ? [] : [1]].insert(version)
                    if version == 1 { expected[entry]!.insert(0) } // 0: absent
                } else {
                    expected[entry] = [version]
                }
            }
            for (entry, allowed) in expected {
                #expect(
                    allowed.contains(versions[entry] ?? 0),
                    "round \(round): entry \(entry) is v\(versions[entry] ?? 0), expected one of \(allowed.sorted())")
            }
            #expect(Set(versions.keys).isSubset(of: Set(expected.keys)), "round \(round): entries never written")
            // And the public API serves them from disk.
            for (entry, version) in versions where entry % 4 == 0 {
                let response = try await reopened.httpCache.send(
                    CacheRequest(url: CrashData.cacheURL(prefix: "r\(round)_", entry: entry)),
                    mode: .onlyIfCached
                ) { _ in throw CancellationError() }
                #expect(response.status == 200 && response.outcome == .hit)
                #expect(try response.body.data() == CrashData.cacheBody(entry: entry, version: version))
                if case .file(let copy) = response.body { try FileManager.default.removeItem(at: copy) }
            }
        }
        guard Self.onSQLite else { return }
        print(
            "crash safety, diskcache: \(files) body files checked against their rows; \(orphans) orphaned files left by kills, all deleted by the next open"
        )
    }

    /// The body `store`'s disk cache serves for `url` without asking the origin.
    static func cachedBody(_ store: WebsiteDataStore, _ url: URL) async throws -> Data {
        let response = try await store.httpCache.send(CacheRequest(url: url), mode: .onlyIfCached) { _ in
            throw CancellationError()
        }
        let body = try response.body.data()
        if case .file(let copy) = response.body { try FileManager.default.removeItem(at: copy) }
        return body
    }

    // MARK: - IndexedDB

    @Test func indexedDBTransactionsAreAllOrNothingAfterSIGKILL() async throws {
        let perTransaction = 6
        try await killRounds("indexeddb", perBatch: perTransaction) { store, acknowledged, round in
            let reopened = try TestEngine.openStore(for: store)
            let db = try reopened.indexedDB.open(
                origin: SecurityOrigin(string: "https://app.example")!, name: "crash-r\(round)_")
            try db.transaction(["items", "meta"]) { tx in
                let items = try tx.objectStore("items")
                var byTransaction: [Int: Set<Int>] = [:]
                for value in try items.getAll() {
                    guard case .number(let n)? = value["tx"], case .number(let i)? = value["i"],
                        case .string(let payload)? = value["payload"]
                    else {
                        Issue.record("round \(round): a malformed record \(value)")
                        continue
                    }
                    #expect(payload == CrashData.idbPayload(Int(n), Int(i)))
                    byTransaction[Int(n), default: []].insert(Int(i))
                }
                let present = Set(byTransaction.keys)
                #expect(
                    present == Set(0...acknowledged) || present == Set(0...(acknowledged + 1)),
                    "round \(round): acknowledged through \(acknowledged), present \(present.sorted())")
                for (n, puts) in byTransaction {
                    #expect(
                        puts == Set(0..<perTransaction),
                        "round \(round): transaction \(n) is half there: \(puts.sorted())")
                    #expect(try items.index("byTx").count(.only(.number(Double(n)))) == perTransaction)
                }
                #expect(try items.index("byTx").count() == items.count())
                // The transaction's put into the other store committed with its puts.
                let last = try tx.objectStore("meta").get("last")
                #expect(
                    last?["last"] == .number(Double(present.max() ?? -1)),
                    "round \(round): meta \(String(describing: last))")
            }
        }
    }

    // MARK: - localStorage, WebSQL, application caches

    @Test func localStorageItemsSurviveSIGKILL() async throws {
        try await killRounds("localstorage", maxAcknowledged: 60) { store, acknowledged, round in
            let reopened = try TestEngine.openStore(for: store)
            let origin = SecurityOrigin(string: "https://local.example")!
            let keys = try reopened.localStorage.keys(origin: origin)
            let expected = (0...acknowledged).map { "r\(round)_\($0)" }
            #expect(
                keys == expected || keys == expected + ["r\(round)_\(acknowledged + 1)"],
                "round \(round): \(keys.count) keys")
            for (n, key) in keys.enumerated() {
                #expect(try reopened.localStorage.getItem(key, origin: origin) == CrashData.localValue(n))
            }
        }
    }

    @Test func webSQLTransactionsAreAllOrNothingAfterSIGKILL() async throws {
        let perTransaction = 6
        try await killRounds("websql", perBatch: perTransaction) { store, acknowledged, round in
            let folder = store.appendingPathComponent("websql")
            for name in try Self.onSQLite ? FileManager.default.contentsOfDirectory(atPath: folder.path) : []
            where name.hasSuffix(".sqlite") {
                let check = try StoreFiles.integrityCheck(folder.appendingPathComponent(name))
                #expect(check == "ok", "round \(round): \(name): \(check)")
            }
            let reopened = try TestEngine.openStore(for: store)
            let db = try reopened.webSQLDatabases.open(
                origin: SecurityOrigin(string: "https://sql.example")!, name: "crash-r\(round)_")
            let (counts, last) = try db.readTransaction { tx in
                let counts = try tx.executeSql("SELECT tx, count(*), group_concat(payload, '|') FROM items GROUP BY tx")
                    .rows.map { row in
                        (row[0], row[1], row[2])
                    }
                return (counts, try tx.executeSql("SELECT last FROM meta").rows.first?[0])
            }
            var present: Set<Int> = []
            for (tx, count, payloads) in counts {
                guard case .integer(let n) = tx else {
                    Issue.record("round \(round): tx \(tx)")
                    continue
                }
                present.insert(Int(n))
                #expect(count == .integer(Int64(perTransaction)), "round \(round): transaction \(n) is half there")
                #expect(
                    payloads
                        == .text((0..<perTransaction).map { CrashData.idbPayload(Int(n), $0) }.joined(separator: "|")))
            }
            #expect(
                present == Set(0...acknowledged) || present == Set(0...(acknowledged + 1)),
                "round \(round): \(present.sorted())")
            #expect(last == .integer(Int64(present.max() ?? -1)))
            if Self.onSQLite {
                // Only catalogued databases have files.
                let files = Set(
                    try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sqlite") })
                let catalogued = Set(
                    try reopened.database.read { try $0.rows("SELECT file FROM websql_databases") { $0.string(0) } })
                #expect(
                    files == catalogued, "round \(round): files \(files.sorted()), catalogued \(catalogued.sorted())")
            }
        }
    }

    @Test func applicationCacheGroupsAreReplacedWholeAfterSIGKILL() async throws {
        try await killRounds("appcache", maxAcknowledged: 40) { store, acknowledged, round in
            let reopened = try TestEngine.openStore(for: store)
            for g in 0..<5 {
                let base = "https://app\(g).example/r\(round)_"
                let writes = (0...(acknowledged + 1)).filter { $0 % 5 == g }
                let acknowledgedWrites = writes.filter { $0 <= acknowledged }
                var allowed = Set(acknowledgedWrites.suffix(1))
                if writes.last == acknowledged + 1 { allowed.insert(acknowledged + 1) }
                let group = try reopened.applicationCache.group(manifestURL: URL(string: "\(base)/manifest.appcache")!)
                guard let group else {
                    #expect(acknowledgedWrites.isEmpty, "round \(round): group \(g) lost")
                    continue
                }
                let manifest = String(decoding: group.manifest, as: UTF8.self)
                let version = try #require(
                    manifest.split(separator: " ").last.flatMap { Int($0.dropLast()) }, "\(manifest)")
                #expect(
                    allowed.contains(version),
                    "round \(round): group \(g) at version \(version), expected \(allowed.sorted())")
                let entries = try reopened.applicationCache.entries(
                    manifestURL: URL(string: "\(base)/manifest.appcache")!)
                #expect(entries.count == 3)
                for entry in entries {
                    let i = try #require(Int(String(entry.url.lastPathComponent.dropFirst(4).dropLast(3))))
                    #expect(
                        entry.headerValue("X-Version") == String(version), "round \(round): group \(g) mixes versions")
                    #expect(entry.body == CrashData.appCacheBody(version, i))
                }
            }
        }
    }
}
