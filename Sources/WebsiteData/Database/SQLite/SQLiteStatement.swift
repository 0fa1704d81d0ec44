import CSQLite
import Foundation

/// A prepared SQLite statement that owns its pointer and finalises it when released.
///
/// Not thread-safe: a statement belongs to one `SQLiteConnection` and is used under its lock.
final class SQLiteStatement: DatabaseStatement {
    let handle: OpaquePointer
    let sql: String
    unowned let connection: SQLiteConnection

    init(connection: SQLiteConnection, sql: String) throws(DatabaseError) {
        var pointer: OpaquePointer?
        var code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        if code != SQLITE_OK {
            // Preparing the first statement reads the schema, through the index (`step(after:)`).
            code = connection.waitingOutAnIndexBeingBuilt(after: code) {
                sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
            }
        }
        guard code == SQLITE_OK, let pointer else {
            throw DatabaseError(connection: connection.handle, code: code, sql: sql)
        }
        self.handle = pointer
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    func reset() throws(DatabaseError) { try reset(binding: []) }

    /// Resets the statement and binds `values` to its parameters, in order.
    func reset(binding values: [DatabaseValue]) throws(DatabaseError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    func bind(_ value: DatabaseValue, at index: Int32) throws(DatabaseError) {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let v): code = sqlite3_bind_int64(handle, index, v)
        case .real(let v): code = sqlite3_bind_double(handle, index, v)
        case .text(var v):
            // With its byte count, not -1: text may hold NUL characters (a localStorage value can).
            // From the string's own bytes: passing the String as a C string copies a short
            // (inline) string to the heap first. SQLite copies the bytes (transient).
            code = v.withUTF8 { bytes in
                guard let base = bytes.baseAddress else {
                    return sqlite3_bind_text64(handle, index, "", 0, wk_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text64(
                        handle, index, $0, sqlite3_uint64(bytes.count), wk_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let v):
            code = v.withUnsafeBytes {
                sqlite3_bind_blob64(handle, index, $0.baseAddress, sqlite3_uint64($0.count), wk_sqlite_transient())
            }
        }
        guard code == SQLITE_OK else { throw DatabaseError(connection: connection.handle, code: code, sql: sql) }
    }

    /// Steps once: `true` when a row is ready, `false` when done.
    @discardableResult
    func step() throws(DatabaseError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        return try step(after: code)
    }

    /// Steps again after `failure` when it is one that passes, else throws it: a read that
    /// meets an index being built (`SQLiteConnection.waitingOutAnIndexBeingBuilt`).
    private func step(after failure: Int32) throws(DatabaseError) -> Bool {
        var code = failure
        if sqlite3_stmt_readonly(handle) != 0 {
            code = connection.waitingOutAnIndexBeingBuilt(after: failure) {
                sqlite3_reset(handle)
                return sqlite3_step(handle)
            }
            if code == SQLITE_ROW { return true }
            if code == SQLITE_DONE { return false }
        }
        let error = DatabaseError(connection: connection.handle, code: code, sql: sql)
        sqlite3_reset(handle)
        throw error
    }

    /// Runs the statement to completion with `values` bound.
    func execute(_ values: [DatabaseValue] = []) throws(DatabaseError) {
        try reset(binding: values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Runs the statement to completion with the values bound since the last `reset`.
    func run() throws(DatabaseError) {
        while try step() {}
        sqlite3_reset(handle)
    }

    func runInsert() throws(DatabaseError) -> Int64? {
        try run()
        return sqlite3_last_insert_rowid(connection.handle)
    }

    /// Runs the statement and collects one value per row with `read`.
    func rows<T>(_ values: [DatabaseValue] = [], _ read: (Row) throws -> T) throws -> [T] {
        try reset(binding: values)
        defer { sqlite3_reset(handle) }
        var result: [T] = []
        let row = Row(sqlite: handle)
        while try step() { result.append(try read(row)) }
        return result
    }

    /// Runs the statement and reads the first column of the first row, if any.
    func scalar(_ values: [DatabaseValue] = []) throws(DatabaseError) -> DatabaseValue? {
        try reset(binding: values)
        defer { sqlite3_reset(handle) }
        guard try step() else { return nil }
        return Row(sqlite: handle)[0]
    }
}
