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
        sqlite3_extended_result_codes(pointer, 1)
        let (seconds, attoseconds) = busyTimeout.components
        sqlite3_busy_timeout(pointer, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        _ = wk_sqlite_db_config_int(pointer, SQLITE_DBCONFIG_DEFENSIVE, 1)
    }

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
