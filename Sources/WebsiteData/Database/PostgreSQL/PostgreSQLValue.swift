import Foundation

/// A parameter of a PostgreSQL statement, or a field of a row given to `copy`.
///
/// Text, numbers and booleans are sent in PostgreSQL's text form, and the server reads them as
/// the type the statement gives the parameter (`$1::bigint` where the statement does not say
/// it). Bytes are sent in binary, as `bytea`, so any byte (NUL included) arrives as it was.
public enum PostgreSQLValue: Sendable, Equatable {
    /// SQL `NULL`.
    case null
    /// Text, sent as it is (a NUL character cannot be sent: PostgreSQL text cannot hold one).
    case text(String)
    /// Bytes, sent as `bytea`.
    case bytes([UInt8])
    /// An integer, in decimal.
    case int64(Int64)
    /// A floating-point number, in the shortest form that reads back as the same `Double`.
    case double(Double)
    /// A boolean, as `t` or `f`.
    case bool(Bool)

    /// The text form of a value that is not `null` or `bytes`.
    var textForm: String? {
        switch self {
        case .null, .bytes: return nil
        case .text(let text): return text
        case .int64(let value): return String(value)
        case .double(let value):
            if value.isNaN { return "NaN" }
            if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
            return "\(value)"
        case .bool(let value): return value ? "t" : "f"
        }
    }
}

/// One field of a result row, in PostgreSQL's text form, read as the type asked for.
///
/// Each accessor returns `nil` for SQL `NULL`, and for a field whose text is not of that type.
public struct PostgreSQLField: Sendable, Equatable {
    /// The field's bytes as the server sent them, or `nil` for SQL `NULL`.
    let raw: [UInt8]?
    /// The type of the column, as PostgreSQL's type OID (17 is `bytea`, 20 `bigint`, 25 `text`).
    public let typeOID: UInt32

    /// Whether the field is SQL `NULL`.
    public var isNull: Bool { raw == nil }

    /// The field as text.
    public var text: String? { raw.map { String(decoding: $0, as: UTF8.self) } }

    /// The field's bytes: a `bytea` decoded from its hex form, any other type's text as UTF-8.
    public var bytes: [UInt8]? {
        guard let raw else { return nil }
        guard typeOID == PostgreSQLField.byteaOID else { return raw }
        return Self.decodeHex(raw)
    }

    /// The field as an integer, for a field of an integer type (or text holding one).
    public var int64: Int64? { text.flatMap { Int64($0) } }

    /// The field as a floating-point number (`NaN` and `Infinity` included).
    public var double: Double? {
        guard let text else { return nil }
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: return Double(text)
        }
    }

    /// The field as a boolean, for a `boolean` field.
    public var bool: Bool? {
        switch text {
        case "t", "true": return true
        case "f", "false": return false
        default: return nil
        }
    }

    static let byteaOID: UInt32 = 17
    static let boolOID: UInt32 = 16
    static let int8OID: UInt32 = 20
    static let int2OID: UInt32 = 21
    static let int4OID: UInt32 = 23
    static let float4OID: UInt32 = 700
    static let float8OID: UInt32 = 701
    static let numericOID: UInt32 = 1700

    /// The bytes of a `bytea` in hex output form (`\x` then two digits a byte), the form a server
    /// of version 9.0 or later sends; `nil` for any other form.
    static func decodeHex(_ raw: [UInt8]) -> [UInt8]? {
        guard raw.count >= 2, raw[0] == UInt8(ascii: "\\"), raw[1] == UInt8(ascii: "x"), raw.count % 2 == 0 else {
            return nil
        }
        func nibble(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count / 2 - 1)
        var index = 2
        while index < raw.count {
            guard let high = nibble(raw[index]), let low = nibble(raw[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}

/// One row of a result.
public struct PostgreSQLRow: Sendable, Equatable {
    /// The fields, in column order.
    public let fields: [PostgreSQLField]
    /// The column names, in order.
    let columns: [String]

    /// The field of column `index` (from 0).
    public subscript(index: Int) -> PostgreSQLField { fields[index] }

    /// The field of the first column named `name`, or `nil` if no column has that name.
    public subscript(name: String) -> PostgreSQLField? {
        columns.firstIndex(of: name).map { fields[$0] }
    }
}

/// The result of a statement: its rows, copied out of libpq, and the number of rows it changed.
public struct PostgreSQLResult: Sendable, Equatable {
    /// The column names, in order (empty for a statement that returns no rows).
    public let columns: [String]
    /// The rows, in the order the server sent them.
    public let rows: [PostgreSQLRow]
    /// The rows an `INSERT`, `UPDATE`, `DELETE`, `MERGE`, `COPY` or `SELECT` affected, as the
    /// server reports it; 0 for other statements.
    public let affectedRows: Int

    /// The first field of the first row, or `nil` when there is no row.
    public var scalar: PostgreSQLField? { rows.first?.fields.first }
}

/// A notification received on a channel the connection listens on.
public struct PostgreSQLNotification: Sendable, Equatable {
    /// The channel it was sent on.
    public let channel: String
    /// Its payload (empty when none was given).
    public let payload: String
    /// The process ID of the server process of the connection that sent it.
    public let senderProcessID: Int32
}
