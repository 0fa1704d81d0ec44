import CSQLite
import Foundation
import WebsiteData

/// The SQLite floors: inserting rows with one prepared statement in one transaction, and
/// scanning a table, on a bare connection with the store's own schema and PRAGMAs.
enum SQLiteFloor {
    /// The columns the engine writes, in its order.
    static let columns =
        "site, name, value, domain, path, host_only, secure, http_only, same_site, partition_key, expires, created, last_access, modified"

    /// A cookies row value.
    enum Value {
        case null, integer(Int64), real(Double), text(String)
    }

    /// The rows of every cookie a store holds (its cookies table and the cookie changes logged
    /// after the last fold, as the engine reads them), in the engine's column order, in the
    /// order they arrived (creation time): the order the engine inserted them in.
    static func rows(of directory: URL) throws -> [[Value]] {
        try rows(of: WebsiteDataStore(directory: directory))
    }

    /// The rows of every cookie `store` holds, as `rows(of:)` gives a directory's.
    static func rows(of store: WebsiteDataStore) throws -> [[Value]] {
        let cookies = try store.httpCookieStore.allCookies().sorted { $0.created < $1.created }
        return cookies.map { c in
            [
                .text(c.site), .text(c.name), .text(c.value), .text(c.domain), .text(c.path),
                .integer(c.isHostOnly ? 1 : 0), .integer(c.isSecure ? 1 : 0), .integer(c.isHTTPOnly ? 1 : 0),
                .text(c.sameSite.rawValue), .text(c.partitionKey),
                c.expires.map { .real($0.timeIntervalSince1970) } ?? .null,
                .real(c.created.timeIntervalSince1970), .real(c.lastAccess.timeIntervalSince1970),
                .real(c.modified.timeIntervalSince1970),
            ]
        }
    }

    /// A fresh copy of the store's schema: a `WebsiteDataStore` made in `directory` and closed again.
    static func freshStoreFile(in directory: URL) throws -> URL {
        do { _ = try WebsiteDataStore(directory: directory) }
        return directory.appendingPathComponent("store.sqlite")
    }

    /// Inserts `rows` into `file` in one transaction with one prepared statement (WAL,
    /// synchronous=NORMAL, as the store); returns the time taken from open to commit.
    static func insert(_ rows: [[Value]], into file: URL) throws -> Timing {
        try measureProcess {
            let db = try open(file, readOnly: false)
            defer { sqlite3_close_v2(db) }
            try exec(db, "PRAGMA journal_mode = WAL")
            try exec(db, "PRAGMA synchronous = NORMAL")
            // An 8 MB page cache, four times the store writer's (StoreTuning): the floor is
            // SQLite's insert at its fastest, so a smaller cache of ours shows in the ratio
            // rather than slowing the floor alike.
            try exec(db, "PRAGMA cache_size = -8192")
            try exec(db, "PRAGMA wal_autocheckpoint = \(StoreTuning.walAutocheckpointPages)")
            try exec(db, "BEGIN IMMEDIATE")
            let statement = try prepare(
                db, "INSERT OR REPLACE INTO cookies (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            defer { sqlite3_finalize(statement) }
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            for row in rows {
                for (offset, value) in row.enumerated() {
                    let i = Int32(offset + 1)
                    switch value {
                    case .null: sqlite3_bind_null(statement, i)
                    case .integer(let v): sqlite3_bind_int64(statement, i, v)
                    case .real(let v): sqlite3_bind_double(statement, i, v)
                    case .text(let v): sqlite3_bind_text(statement, i, v, -1, transient)
                    }
                }
                guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError("insert failed: \(message(db))") }
                sqlite3_reset(statement)
            }
            try exec(db, "COMMIT")
        }
    }

    /// Opens `file` and steps through `SELECT * FROM cookies` and the change log's cookie
    /// changes after the last fold (the rows not yet folded into the table), reading every column's size;
    /// returns the rows seen and the nanoseconds taken from open to close.
    static func scan(_ file: URL) throws -> (rows: Int, nanoseconds: Double) {
        var count = 0
        let time = try measure {
            let db = try open(file, readOnly: true)
            defer { sqlite3_close_v2(db) }
            var bytes = 0
            let logged =
                "SELECT * FROM change_log WHERE op IS NOT NULL AND seq > (SELECT coalesce(max(value + 0), 0) FROM settings WHERE key = 'cookies.folded_through')"
            for sql in ["SELECT * FROM cookies", logged] {
                let statement = try prepare(db, sql)
                defer { sqlite3_finalize(statement) }
                while sqlite3_step(statement) == SQLITE_ROW {
                    for i in 0..<sqlite3_column_count(statement) { bytes += Int(sqlite3_column_bytes(statement, i)) }
                    count += 1
                }
            }
            keep(bytes)
        }
        return (count, time)
    }

    static func open(_ file: URL, readOnly: Bool) throws -> OpaquePointer? {
        var db: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        guard sqlite3_open_v2(file.path, &db, flags, nil) == SQLITE_OK else {
            defer { sqlite3_close_v2(db) }
            throw BenchError("cannot open \(file.path): \(message(db))")
        }
        // A store object opened just before may still be setting up the log's index, which makes
        // another connection's first statement busy for a moment.
        sqlite3_busy_timeout(db, 10_000)
        return db
    }

    static func prepare(_ db: OpaquePointer?, _ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw BenchError("cannot prepare \(sql): \(message(db))")
        }
        return statement
    }

    static func exec(_ db: OpaquePointer?, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError("\(sql) failed: \(message(db))")
        }
    }

    static func message(_ db: OpaquePointer?) -> String {
        db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
    }
}
