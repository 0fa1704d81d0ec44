/// A value bound to a WebSQL statement's `?` parameter, or read from a row it returned.
public enum WebSQLValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    /// SQL `NULL`.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double-precision number.
    case real(Double)
    /// Text (it may hold NUL characters).
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// A text value from a string literal.
    ///
    /// - Parameter value: the text.
    public init(stringLiteral value: String) { self = .text(value) }

    /// An integer value from an integer literal.
    ///
    /// - Parameter value: the number.
    public init(integerLiteral value: Int64) { self = .integer(value) }

    /// A real value from a floating-point literal.
    ///
    /// - Parameter value: the number.
    public init(floatLiteral value: Double) { self = .real(value) }

    /// `NULL` from `nil`.
    ///
    /// - Parameter nilLiteral: nothing.
    public init(nilLiteral: ()) { self = .null }

    /// The value as text, when it is text.
    public var string: String? { if case .text(let v) = self { v } else { nil } }

    /// The value as an integer, when it is an integer (or a real with no fraction).
    public var int64: Int64? {
        switch self {
        case .integer(let v): v
        case .real(let v): Int64(exactly: v)
        default: nil
        }
    }

    /// The value as a double, when it is a number.
    public var double: Double? {
        switch self {
        case .integer(let v): Double(v)
        case .real(let v): v
        default: nil
        }
    }

    /// Whether the value is SQL `NULL`.
    public var isNull: Bool { self == .null }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let v): .integer(v)
        case .real(let v): .real(v)
        case .text(let v): .text(v)
        case .blob(let v): .blob(v)
        }
    }

    init(_ value: DatabaseValue) {
        switch value {
        case .null: self = .null
        case .integer(let v): self = .integer(v)
        case .real(let v): self = .real(v)
        case .text(let v): self = .text(v)
        case .blob(let v): self = .blob(v)
        }
    }
}
