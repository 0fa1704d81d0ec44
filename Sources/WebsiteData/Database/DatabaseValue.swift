import CPostgreSQL
import CSQLite
import Foundation

/// A value bound to, or read from, an SQL statement, on either engine.
enum DatabaseValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension DatabaseValue {
    /// The value as an integer, when it is one.
    var int64: Int64? {
        switch self {
        case .integer(let v): v
        case .real(let v): Int64(exactly: v)
        default: nil
        }
    }
    /// The value as text, when it is text.
    var text: String? { if case .text(let v) = self { v } else { nil } }
}

/// The current row of a query, read column by column; valid only inside the closure it is
/// handed to.
///
/// On SQLite it reads the stepping statement; on PostgreSQL, one row of a result in
/// PostgreSQL's text form (booleans `t`/`f`, `bytea` in hex), converted as each accessor asks.
/// Either way a column is read as the data types store it: integers, doubles, text, blobs.
struct Row {
    /// The SQLite statement, or the PostgreSQL result (`PGresult`).
    private let handle: OpaquePointer
    /// The PostgreSQL row number; -1 on SQLite.
    private let pgRow: Int32

    /// The current row of a SQLite statement.
    init(sqlite statement: OpaquePointer) {
        self.handle = statement
        self.pgRow = -1
    }

    /// Row `row` of a PostgreSQL result.
    init(postgreSQL result: OpaquePointer, row: Int32) {
        self.handle = result
        self.pgRow = row
    }

    private var isSQLite: Bool { pgRow < 0 }

    /// The number of columns.
    var count: Int { Int(isSQLite ? sqlite3_column_count(handle) : PQnfields(handle)) }

    /// The column as the engine typed it.
    subscript(index: Int32) -> DatabaseValue {
        if isSQLite {
            switch sqlite3_column_type(handle, index) {
            case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
            case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
            case SQLITE_TEXT: return .text(string(index))
            case SQLITE_BLOB: return .blob(blob(index))
            default: return .null
            }
        }
        if isNull(index) { return .null }
        switch PQftype(handle, index) {
        case PostgreSQLField.int2OID, PostgreSQLField.int4OID, PostgreSQLField.int8OID, PostgreSQLField.boolOID:
            return .integer(int(index))
        case PostgreSQLField.float4OID, PostgreSQLField.float8OID, PostgreSQLField.numericOID:
            return .real(double(index))
        case PostgreSQLField.byteaOID:
            return .blob(blob(index))
        default:
            return .text(string(index))
        }
    }

    func isNull(_ index: Int32) -> Bool {
        isSQLite ? sqlite3_column_type(handle, index) == SQLITE_NULL : PQgetisnull(handle, pgRow, index) == 1
    }

    func int(_ index: Int32) -> Int64 {
        if isSQLite { return sqlite3_column_int64(handle, index) }
        guard let text = PQgetvalue(handle, pgRow, index) else { return 0 }
        switch UInt8(bitPattern: text.pointee) {
        case UInt8(ascii: "t"): return 1
        case UInt8(ascii: "f"): return 0
        default:
            // A column such as sum() of integers is numeric in PostgreSQL: its text may end in
            // a fraction, which is read as SQLite reads a REAL as an integer.
            return strtoll(text, nil, 10)
        }
    }

    func double(_ index: Int32) -> Double {
        if isSQLite { return sqlite3_column_double(handle, index) }
        guard let text = PQgetvalue(handle, pgRow, index) else { return 0 }
        return strtod(text, nil)
    }

    func bool(_ index: Int32) -> Bool { int(index) != 0 }

    func string(_ index: Int32) -> String {
        if isSQLite {
            guard let text = sqlite3_column_text(handle, index) else { return "" }
            let count = Int(sqlite3_column_bytes(handle, index))
            return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
        }
        // A bytea column holds text that PostgreSQL's text cannot (`DatabaseEngine.anyText`).
        if PQftype(handle, index) == PostgreSQLField.byteaOID {
            return String(decoding: blob(index), as: UTF8.self)
        }
        guard let text = PQgetvalue(handle, pgRow, index) else { return "" }
        let count = Int(PQgetlength(handle, pgRow, index))
        return text.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    func optionalString(_ index: Int32) -> String? { isNull(index) ? nil : string(index) }
    func optionalDouble(_ index: Int32) -> Double? { isNull(index) ? nil : double(index) }

    func blob(_ index: Int32) -> [UInt8] {
        if isSQLite {
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return [] }
            return Array(UnsafeRawBufferPointer(start: bytes, count: count))
        }
        guard let text = PQgetvalue(handle, pgRow, index) else { return [] }
        let count = Int(PQgetlength(handle, pgRow, index))
        return text.withMemoryRebound(to: UInt8.self, capacity: count) {
            PostgreSQLField.decodeHex(Array(UnsafeBufferPointer(start: $0, count: count))) ?? []
        }
    }
}
