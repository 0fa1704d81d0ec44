import CSQLite
import Foundation

/// One SQLite connection, with its prepared-statement cache.
///
/// Not thread-safe: every use goes through the lock of the object that owns it
/// (`LockedConnection`), or of the WebSQL-style database that owns it. A connection opens in WAL mode with a busy timeout, so
/// several processes can read while one writes and a writer waits out another's lock.
final class SQLiteConnection: DatabaseConnection {
    var engine: DatabaseEngine { .sqlite }
    /// Where a connection's data lives.
    enum Location: Sendable, Equatable {
        /// A file on disk.
        case file(URL)
        /// A private in-memory database, gone when the connection closes.
        case memory
    }

    let handle: OpaquePointer
    let location: Location
    /// How long the connection waits for another connection's lock (or index) before failing.
    let busyTimeout: Duration
    /// Whether the connection was opened without write access.
    let isReadOnly: Bool
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens a connection.
    ///
    /// - Parameters:
    ///   - location: the file, or memory.
    ///   - readOnly: open without write access (the file must exist).
    ///   - busyTimeout: how long to wait for another connection's lock before failing with `.busy`.
    ///   - uriParameters: query parameters of a `file:` URI for a file (`immutable=1`), or `nil`.
    init(
        location: Location, readOnly: Bool = false, busyTimeout: Duration = .seconds(30),
        uriParameters: String? = nil
    ) throws(DatabaseError) {
        var pointer: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var path: String
        switch location {
        case .file(let url): path = url.path
        case .memory: path = ":memory:"
        }
        if let uriParameters, case .file(let url) = location {
            // Characters a URI path may not hold as they are (`?`, `#`, `%`…) are escaped.
            var allowed = CharacterSet.urlPathAllowed
            allowed.remove(charactersIn: "?#%;")
            path = "file:" + (url.path.addingPercentEncoding(withAllowedCharacters: allowed) ?? url.path)
            path += "?" + uriParameters
            flags |= SQLITE_OPEN_URI
        }
        let code = sqlite3_open_v2(path, &pointer, flags, nil)
        guard code == SQLITE_OK, let pointer else {
            let error = DatabaseError(connection: pointer, code: code)
            sqlite3_close_v2(pointer)
            throw error
        }
        self.handle = pointer
        self.location = location
        self.busyTimeout = busyTimeout
        self.isReadOnly = readOnly
        sqlite3_extended_result_codes(pointer, 1)
        let (seconds, attoseconds) = busyTimeout.components
        sqlite3_busy_timeout(pointer, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        _ = wk_sqlite_db_config_int(pointer, SQLITE_DBCONFIG_DEFENSIVE, 1)
    }

    /// The result of `again`, called after pauses while `failure` and its results say that an
    /// index being built stands in the way; else `failure`.
    ///
    /// A read through an index opened read-only (`readonly_shm`, a read-only store's) can find
    /// the index just created by a writer that opened the store and not yet built by it:
    /// SQLite then fails the read with a `SQLITE_READONLY` code (`_RECOVERY`, `_CANTINIT`, or
    /// the plain one when the index is still too short to map), where a read needs no write.
    /// The read has started no transaction yet, and the writer builds the index in
    /// milliseconds, holding it as it would hold a lock: the read is tried again after pauses
    /// of up to 64 ms, for as long as the connection waits out a lock (its busy timeout). Only
    /// a connection opened read-only waits: for a writable one, `SQLITE_READONLY` is a condition
    /// that lasts (a read-only file or directory).
    func waitingOutAnIndexBeingBuilt(after failure: Int32, again: () -> Int32) -> Int32 {
        guard isReadOnly else { return failure }
        var code = failure
        var pauses = DoublingPauses(for: busyTimeout)
        while Self.indexBeingBuilt.contains(code) && pauses.next() { code = again() }
        return code
    }

    /// `SQLITE_READONLY`, `SQLITE_READONLY_RECOVERY` and `SQLITE_READONLY_CANTINIT` (C macros
    /// Swift does not import).
    private static let indexBeingBuilt: Set<Int32> = [
        SQLITE_READONLY, SQLITE_READONLY | (1 << 8), SQLITE_READONLY | (5 << 8),
    ]

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// A cached prepared statement for `sql`.
    func statement(_ sql: String) throws(DatabaseError) -> any DatabaseStatement { try sqliteStatement(sql) }

    /// A cached prepared statement for `sql`, as SQLite's own.
    func sqliteStatement(_ sql: String) throws(DatabaseError) -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs one or more SQL statements that return no rows.
    func execute(_ sql: String) throws(DatabaseError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(message)
            throw DatabaseError(code: .init(rawValue: sqlite3_extended_errcode(handle)), message: text, sql: sql)
        }
    }

    /// Runs one statement with `values` bound.
    func execute(_ sql: String, _ values: [DatabaseValue]) throws(DatabaseError) {
        try sqliteStatement(sql).execute(values)
    }

    /// Reads rows of one statement: every statement is cached already.
    func repeatedRows<T>(_ sql: String, _ values: [DatabaseValue], _ read: (Row) throws -> T) throws -> [T] {
        try rows(sql, values, read)
    }

    /// Reads rows of one statement.
    func rows<T>(_ sql: String, _ values: [DatabaseValue], _ read: (Row) throws -> T) throws -> [T] {
        try sqliteStatement(sql).rows(values, read)
    }

    /// Reads the first column of the first row.
    func scalar(_ sql: String, _ values: [DatabaseValue]) throws(DatabaseError) -> DatabaseValue? {
        try sqliteStatement(sql).scalar(values)
    }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Whether a transaction is open.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction and commits it; rolls back if `body` throws.
    ///
    /// Writes use `BEGIN IMMEDIATE`, so the write lock is taken (or waited for) up front and a
    /// transaction never fails half-way for lack of it.
    func transaction<T>(write: Bool, _ body: () throws -> T) throws -> T {
        // Prepared once and cached, like every statement: a commit per call is the common case.
        try execute(write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED", [])
        do {
            let result = try body()
            try execute("COMMIT", [])
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }
}
