import Foundation

/// An IndexedDB key: a number, a date, a string, binary data, or an array of keys.
///
/// Keys are ordered as the IndexedDB specification orders them (3.0, "compare two keys"):
/// every number before every date, dates before strings, strings before binary, binary
/// before arrays. Numbers and dates compare by value (`-0` equals `0`), strings by their
/// UTF-16 code units (not by Unicode canonical equivalence, so `"é"` and `"e\u{301}"` are
/// different keys), binary byte by byte, and arrays element by element, a shorter array
/// that is a prefix of a longer one first. `==` and `hash(into:)` follow the same rules.
///
/// NaN (as a number or as a date) is not a valid key; `isValid` says whether a key can be
/// used. Arrays may nest `IDBKey.maxDepth` deep.
public enum IDBKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// A number (any `Double` but NaN; `-0` is the same key as `0`).
    case number(Double)
    /// A date (a JavaScript `Date`).
    case date(Date)
    /// A string, compared by UTF-16 code units.
    case string(String)
    /// Binary data (an `ArrayBuffer` or a view of one), compared byte by byte.
    case binary(Data)
    /// An array of keys, compared element by element.
    case array([IDBKey])

    /// How deeply arrays may nest in a key.
    public static let maxDepth = 256

    /// Whether the key is valid: no NaN number or date anywhere, arrays no deeper than `maxDepth`.
    public var isValid: Bool { isValid(depth: 0) }

    private func isValid(depth: Int) -> Bool {
        switch self {
        case .number(let value): return !value.isNaN
        case .date(let date): return !date.timeIntervalSinceReferenceDate.isNaN
        case .string, .binary: return true
        case .array(let elements):
            return depth < Self.maxDepth && elements.allSatisfy { $0.isValid(depth: depth + 1) }
        }
    }

    /// Checks the key is valid.
    ///
    /// - Throws: `IDBError` `DataError` naming what is wrong.
    func validate() throws(IDBError) {
        guard isValid else {
            throw IDBError(.data, "\(self) is not a valid key (NaN, or arrays nested more than \(Self.maxDepth) deep)")
        }
    }

    /// The type rank the specification orders keys by.
    private var rank: Int {
        switch self {
        case .number: 0
        case .date: 1
        case .string: 2
        case .binary: 3
        case .array: 4
        }
    }

    /// Compares two keys as the IndexedDB specification does.
    ///
    /// - Parameters:
    ///   - a: the first key.
    ///   - b: the second key.
    /// - Returns: `-1` when `a` sorts first, `0` when they are the same key, `1` when `b` sorts first.
    public static func compare(_ a: IDBKey, _ b: IDBKey) -> Int {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.date(let x), .date(let y)):
            let (s, t) = (x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
            return s < t ? -1 : (s > t ? 1 : 0)
        case (.string(let x), .string(let y)):
            var i = x.utf16.makeIterator()
            var j = y.utf16.makeIterator()
            while true {
                switch (i.next(), j.next()) {
                case (nil, nil): return 0
                case (nil, _): return -1
                case (_, nil): return 1
                case (let u?, let v?): if u != v { return u < v ? -1 : 1 }
                }
            }
        case (.binary(let x), .binary(let y)):
            var i = x.makeIterator()
            var j = y.makeIterator()
            while true {
                switch (i.next(), j.next()) {
                case (nil, nil): return 0
                case (nil, _): return -1
                case (_, nil): return 1
                case (let u?, let v?): if u != v { return u < v ? -1 : 1 }
                }
            }
        case (.array(let x), .array(let y)):
            for (u, v) in zip(x, y) {
                let order = compare(u, v)
                if order != 0 { return order }
            }
            return x.count < y.count ? -1 : (x.count > y.count ? 1 : 0)
        default:
            return a.rank < b.rank ? -1 : 1
        }
    }

    /// Whether `a` sorts before `b` (see `compare(_:_:)`).
    ///
    /// - Parameters:
    ///   - a: the first key.
    ///   - b: the second key.
    /// - Returns: `true` when `a` sorts first.
    public static func < (a: IDBKey, b: IDBKey) -> Bool { compare(a, b) < 0 }

    /// Whether `a` and `b` are the same key (see `compare(_:_:)`).
    ///
    /// - Parameters:
    ///   - a: the first key.
    ///   - b: the second key.
    /// - Returns: `true` when they compare equal.
    public static func == (a: IDBKey, b: IDBKey) -> Bool { compare(a, b) == 0 }

    /// Hashes the key consistently with `==`: strings by code units, `-0` as `0`.
    ///
    /// - Parameter hasher: the hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rank)
        switch self {
        case .number(let value): hasher.combine(value == 0 ? 0 : value)
        case .date(let date):
            hasher.combine(date.timeIntervalSinceReferenceDate == 0 ? 0 : date.timeIntervalSinceReferenceDate)
        case .string(let text):
            hasher.combine(text.utf16.count)
            for unit in text.utf16 { hasher.combine(unit) }
        case .binary(let bytes): hasher.combine(bytes)
        case .array(let elements):
            hasher.combine(elements.count)
            for element in elements { hasher.combine(element) }
        }
    }

    /// The key as JavaScript would show it: `1`, `"a"`, `Date(2025-01-01T00:00:00.000Z)`, `<0a ff>`, `[1, "a"]`.
    public var description: String {
        switch self {
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
            return "\(value)"
        case .date(let date): return "Date(\(JavaScriptDate.isoString(date) ?? "Invalid Date"))"
        case .string(let text): return "\"" + text.replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .binary(let bytes):
            return "<" + bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined(separator: " ") + ">"
        case .array(let elements): return "[" + elements.map(\.description).joined(separator: ", ") + "]"
        }
    }
}

extension IDBKey: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral
{
    /// A number key from an integer literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A number key from a floating-point literal.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A string key from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array key from an array literal.
    public init(arrayLiteral elements: IDBKey...) { self = .array(elements) }
}

extension IDBKey {
    /// The key as a value: what a key generator injects into a value, and what a key path
    /// finds in a value holding this key. Binary keys become `ArrayBuffer` values.
    public var value: IDBValue {
        switch self {
        case .number(let value): .number(value)
        case .date(let date): .date(date)
        case .string(let text): .string(text)
        case .binary(let bytes): .binary(bytes, kind: .arrayBuffer)
        case .array(let elements): .array(elements.map(\.value))
        }
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
