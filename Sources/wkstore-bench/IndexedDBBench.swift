import CSQLite
import Foundation
import WebsiteData

/// Section 5: IndexedDB `put`, `get` and a range scan over N records in a persistent store,
/// against SQLite's own insert, select and range select of the same rows (an integer key and a
/// text value, in a table of its own) in the same run: the floor.
enum IndexedDBBench {
    static func run(_ context: Context) throws -> Table {
        let count = context.config.quick ? 10_000 : 100_000
        let scans = 200
        let scanLength = 1_000
        var table = Table("indexeddb: \(count.grouped) records, put / get / range scan (lower is better)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "wkstore-bench-idb-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let padding = String(repeating: "v", count: 80)
        var random = SystemRandomNumberGenerator()
        let order = (0..<count).shuffled(using: &random)
        let starts = (0..<scans).map { _ in Int.random(in: 0..<(count - scanLength), using: &random) }

        progress(
            "indexeddb: \(count.grouped) puts, gets and \(scans) scans of \(scanLength), ours then the SQLite floor")
        let store = try WebsiteDataStore(directory: directory.appendingPathComponent("store"))
        let db = try store.indexedDB.open(
            origin: SecurityOrigin(string: "https://bench.example")!, name: "bench", version: 1
        ) { tx, _ in
            _ = try tx.createObjectStore("records")
        }
        let oursPut = try measure {
            try db.transaction("records", mode: .readwrite) { tx in
                let records = try tx.objectStore("records")
                for i in order { _ = try records.put(.string("\(i)-\(padding)"), key: .number(Double(i))) }
            }
        }
        var found = 0
        let oursGet = try measure {
            try db.transaction("records") { tx in
                let records = try tx.objectStore("records")
                for i in order where try records.get(.number(Double(i))) != nil { found += 1 }
            }
        }
        var scanned = 0
        let oursScan = try measure {
            try db.transaction("records") { tx in
                let records = try tx.objectStore("records")
                for start in starts {
                    scanned += try records.getAll(
                        .bound(.number(Double(start)), .number(Double(start + scanLength - 1)))
                    ).count
                }
            }
        }
        guard found == count, scanned == scans * scanLength else {
            throw BenchError(
                "indexeddb: read back \(found) of \(count) records and \(scanned) of \(scans * scanLength) scanned")
        }

        let floor = try Floor(file: directory.appendingPathComponent("floor.sqlite"))
        let floorPut = try measure { try floor.insert(order, padding: padding) }
        let floorGet = try measure { found = try floor.get(order) }
        let floorScan = try measure { scanned = try floor.scan(starts, length: scanLength) }
        guard found == count, scanned == scans * scanLength else {
            throw BenchError("floor: read back \(found) and \(scanned)")
        }

        func row(_ what: String, _ ours: Double, _ floor: Double, operations: Int) {
            table.add(
                what, ours: Format.rate(Double(operations) / (ours / 1e9)),
                peer: Format.rate(Double(operations) / (floor / 1e9)),
                ratio: Format.times(ours / floor) + " floor", target: "(reported)")
        }
        row(
            "put, one readwrite transaction, random key order, vs INSERT in one transaction", oursPut, floorPut,
            operations: count)
        row(
            "get by key, random order, one readonly transaction, vs SELECT by primary key", oursGet, floorGet,
            operations: count)
        row(
            "range scan (getAll of \(scanLength) keys) vs SELECT … BETWEEN, records/s", oursScan, floorScan,
            operations: scans * scanLength)
        table.note(
            "ours keys are IndexedDB keys in an order-preserving byte encoding and values structured-clone encoded, with the change log and sizes kept; the floor stores INTEGER keys and TEXT values in a plain table of its own"
        )
        return table
    }

    /// SQLite doing the same work directly: the floor.
    final class Floor {
        let db: OpaquePointer?
        init(file: URL) throws {
            var handle: OpaquePointer?
            guard sqlite3_open(file.path, &handle) == SQLITE_OK else { throw BenchError("cannot open \(file.path)") }
            db = handle
            try exec(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE records (key INTEGER PRIMARY KEY, value TEXT NOT NULL)"
            )
        }
        deinit { sqlite3_close(db) }
        func exec(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                throw BenchError(String(cString: sqlite3_errmsg(db)))
            }
        }
        func prepare(_ sql: String) throws -> OpaquePointer? {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
                throw BenchError(String(cString: sqlite3_errmsg(db)))
            }
            return statement
        }
        func insert(_ order: [Int], padding: String) throws {
            try exec("BEGIN")
            let statement = try prepare("INSERT INTO records (key, value) VALUES (?, ?)")
            defer { sqlite3_finalize(statement) }
            for i in order {
                sqlite3_reset(statement)
                sqlite3_bind_int64(statement, 1, Int64(i))
                let value = "\(i)-\(padding)"
                _ = value.withCString {
                    sqlite3_bind_text(statement, 2, $0, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                }
                guard sqlite3_step(statement) == SQLITE_DONE else {
                    throw BenchError(String(cString: sqlite3_errmsg(db)))
                }
            }
            try exec("COMMIT")
        }
        func get(_ order: [Int]) throws -> Int {
            let statement = try prepare("SELECT value FROM records WHERE key = ?")
            defer { sqlite3_finalize(statement) }
            var found = 0
            for i in order {
                sqlite3_reset(statement)
                sqlite3_bind_int64(statement, 1, Int64(i))
                if sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0),
                    String(cString: text).count > 0
                {
                    found += 1
                }
            }
            return found
        }
        func scan(_ starts: [Int], length: Int) throws -> Int {
            let statement = try prepare("SELECT value FROM records WHERE key BETWEEN ? AND ? ORDER BY key")
            defer { sqlite3_finalize(statement) }
            var rows = 0
            for start in starts {
                sqlite3_reset(statement)
                sqlite3_bind_int64(statement, 1, Int64(start))
                sqlite3_bind_int64(statement, 2, Int64(start + length - 1))
                while sqlite3_step(statement) == SQLITE_ROW {
                    if let text = sqlite3_column_text(statement, 0), String(cString: text).count > 0 { rows += 1 }
                }
            }
            return rows
        }
    }
}
