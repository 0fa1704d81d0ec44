import Foundation

/// A JSON value whose objects keep their members in order.
///
/// Playwright's storage state holds plain record keys and values as JSON (`key`, `value`), and
/// JavaScript objects keep their property order; `JSONEncoder` and `JSONDecoder` do not, so this
/// type reads and writes its own JSON text (`init(json:)`, `json(indent:)`) and keeps the order.
/// It is also `Codable`, for use inside other `Codable` types, where the coder decides the order.
public enum IDBJSONValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (always finite: JSON has no NaN or infinities).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([IDBJSONValue])
    /// An object, its members in order (a repeated name is kept as written).
    case object([Member])

    /// One member of a JSON object.
    public struct Member: Sendable, Hashable {
        /// The member name.
        public var name: String
        /// The member value.
        public var value: IDBJSONValue

        /// Creates a member.
        ///
        /// - Parameters:
        ///   - name: the member name.
        ///   - value: the member value.
        public init(_ name: String, _ value: IDBJSONValue) {
            self.name = name
            self.value = value
        }
    }

    /// The value of an object's member (the last one of that name), or `nil`.
    public subscript(name: String) -> IDBJSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.name == name }?.value
    }

    /// Parses JSON text (RFC 8259), keeping object members in order.
    ///
    /// - Parameter json: UTF-8 JSON text.
    /// - Throws: `IDBJSONError` naming the offset and what was wrong.
    public init(json: some Collection<UInt8>) throws(IDBJSONError) {
        self = try OrderedJSON.parse(Array(json))
    }

    /// The value as JSON text, as JavaScript's `JSON.stringify(value, null, indent)` writes it.
    ///
    /// - Parameters:
    ///   - indent: spaces per level, or `nil` for compact text with no spaces.
    ///   - level: the nesting level the text starts at (for text placed inside other indented text).
    /// - Returns: the JSON text.
    public func json(indent: Int? = nil, level: Int = 0) -> String {
        OrderedJSON.write(self, indent: indent, level: level)
    }

    /// The value as compact JSON text.
    public var description: String { json() }

    /// Decodes any JSON value.

    ///

    /// - Parameter decoder: the decoder to read from.
    /// - Throws: `DecodingError` when the data is not JSON.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer() {
            if container.decodeNil() {
                self = .null
                return
            }
            if let value = try? container.decode(Bool.self) {
                self = .bool(value)
                return
            }
            if let value = try? container.decode(Double.self) {
                self = .number(value)
                return
            }
            if let value = try? container.decode(String.self) {
                self = .string(value)
                return
            }
            if let value = try? container.decode([IDBJSONValue].self) {
                self = .array(value)
                return
            }
        }
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        var members: [Member] = []
        for key in container.allKeys {
            members.append(Member(key.stringValue, try container.decode(IDBJSONValue.self, forKey: key)))
        }
        self = .object(members)
    }

    /// Encodes the value.

    ///

    /// - Parameter encoder: the encoder to write to.
    /// - Throws: the encoder's error.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.singleValueContainer()
            try container.encode(values)
        case .object(let members):
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            for member in members { try container.encode(member.value, forKey: AnyCodingKey(member.name)) }
        }
    }
}

/// JSON text that is not valid JSON.
public struct IDBJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The byte offset where the problem was found.
    public let offset: Int
    /// What was wrong.
    public let reason: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - offset: the byte offset of the problem.
    ///   - reason: what was wrong.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// The reason and the offset.
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// A coding key for any member name.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

/// An order-keeping JSON reader and a writer that formats as JavaScript's `JSON.stringify` does.
enum OrderedJSON {
    /// Deeper nesting than this is refused rather than followed.
    static let maxDepth = 512

    static func parse(_ bytes: [UInt8]) throws(IDBJSONError) -> IDBJSONValue {
        var parser = Parser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.offset == bytes.count else {
            throw IDBJSONError(offset: parser.offset, reason: "text follows the JSON value")
        }
        return value
    }

    struct Parser {
        let bytes: [UInt8]
        var offset = 0

        func fail(_ reason: String) -> IDBJSONError { IDBJSONError(offset: offset, reason: reason) }

        mutating func skipSpace() {
            while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
        }

        mutating func value(depth: Int) throws(IDBJSONError) -> IDBJSONValue {
            guard offset < bytes.count else { throw fail("the text ends where a value was expected") }
            switch bytes[offset] {
            case UInt8(ascii: "{"):
                guard depth < OrderedJSON.maxDepth else { throw fail("nested more than \(OrderedJSON.maxDepth) deep") }
                offset += 1
                var members: [IDBJSONValue.Member] = []
                skipSpace()
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                    offset += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                        throw fail("expected a member name")
                    }
                    let name = try string()
                    skipSpace()
                    guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                    offset += 1
                    skipSpace()
                    members.append(IDBJSONValue.Member(name, try value(depth: depth + 1)))
                    skipSpace()
                    guard offset < bytes.count else { throw fail("the text ends inside an object") }
                    if bytes[offset] == UInt8(ascii: ",") {
                        offset += 1
                        continue
                    }
                    if bytes[offset] == UInt8(ascii: "}") {
                        offset += 1
                        return .object(members)
                    }
                    throw fail("expected ',' or '}'")
                }
            case UInt8(ascii: "["):
                guard depth < OrderedJSON.maxDepth else { throw fail("nested more than \(OrderedJSON.maxDepth) deep") }
                offset += 1
                var elements: [IDBJSONValue] = []
                skipSpace()
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                    offset += 1
                    return .array(elements)
                }
                while true {
                    skipSpace()
                    elements.append(try value(depth: depth + 1))
                    skipSpace()
                    guard offset < bytes.count else { throw fail("the text ends inside an array") }
                    if bytes[offset] == UInt8(ascii: ",") {
                        offset += 1
                        continue
                    }
                    if bytes[offset] == UInt8(ascii: "]") {
                        offset += 1
                        return .array(elements)
                    }
                    throw fail("expected ',' or ']'")
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            default:
                return .number(try number())
            }
        }

        mutating func literal(_ word: String) throws(IDBJSONError) {
            let utf8 = Array(word.utf8)
            guard bytes.count - offset >= utf8.count, Array(bytes[offset..<offset + utf8.count]) == utf8 else {
                throw fail("expected \(word)")
            }
            offset += utf8.count
        }

        mutating func number() throws(IDBJSONError) -> Double {
            let start = offset
            func digits() -> Int {
                let from = offset
                while offset < bytes.count, (48...57).contains(bytes[offset]) { offset += 1 }
                return offset - from
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            let intStart = offset
            let intDigits = digits()
            guard intDigits > 0 else { throw IDBJSONError(offset: start, reason: "expected a value") }
            if intDigits > 1 && bytes[intStart] == UInt8(ascii: "0") {
                throw IDBJSONError(offset: start, reason: "a number has a leading zero")
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
                offset += 1
                guard digits() > 0 else { throw fail("expected digits after '.'") }
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
                offset += 1
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                    offset += 1
                }
                guard digits() > 0 else { throw fail("expected digits in the exponent") }
            }
            guard let value = Double(String(decoding: bytes[start..<offset], as: UTF8.self)), value.isFinite else {
                throw IDBJSONError(offset: start, reason: "a number is out of range")
            }
            return value
        }

        mutating func hex4() throws(IDBJSONError) -> UInt16 {
            guard bytes.count - offset >= 4 else { throw fail("a \\u escape is cut short") }
            var value: UInt16 = 0
            for _ in 0..<4 {
                let byte = bytes[offset]
                let digit: UInt8
                switch byte {
                case 48...57: digit = byte - 48
                case 65...70: digit = byte - 55
                case 97...102: digit = byte - 87
                default: throw fail("a \\u escape has a character that is not hexadecimal")
                }
                value = value << 4 | UInt16(digit)
                offset += 1
            }
            return value
        }

        mutating func string() throws(IDBJSONError) -> String {
            offset += 1
            var units: [UInt16] = []
            var run: [UInt8] = []
            func flush() {
                if !run.isEmpty {
                    units.append(contentsOf: String(decoding: run, as: UTF8.self).utf16)
                    run.removeAll()
                }
            }
            while true {
                guard offset < bytes.count else { throw fail("a string is not closed") }
                let byte = bytes[offset]
                switch byte {
                case UInt8(ascii: "\""):
                    offset += 1
                    flush()
                    return String(decoding: units, as: UTF16.self)
                case UInt8(ascii: "\\"):
                    flush()
                    offset += 1
                    guard offset < bytes.count else { throw fail("a string ends in an escape") }
                    let escaped = bytes[offset]
                    offset += 1
                    switch escaped {
                    case UInt8(ascii: "\""): units.append(0x22)
                    case UInt8(ascii: "\\"): units.append(0x5C)
                    case UInt8(ascii: "/"): units.append(0x2F)
                    case UInt8(ascii: "b"): units.append(0x08)
                    case UInt8(ascii: "f"): units.append(0x0C)
                    case UInt8(ascii: "n"): units.append(0x0A)
                    case UInt8(ascii: "r"): units.append(0x0D)
                    case UInt8(ascii: "t"): units.append(0x09)
                    case UInt8(ascii: "u"): units.append(try hex4())
                    default: throw IDBJSONError(offset: offset - 1, reason: "unknown escape")
                    }
                case 0..<0x20:
                    throw fail("a control character in a string must be escaped")
                default:
                    run.append(byte)
                    offset += 1
                }
            }
        }
    }

    static func write(_ value: IDBJSONValue, indent: Int? = nil, level: Int = 0) -> String {
        var out = ""
        write(value, indent: indent, level: level, into: &out)
        return out
    }

    static func write(_ value: IDBJSONValue, indent: Int?, level: Int, into out: inout String) {
        func newline(_ level: Int) {
            guard let indent else { return }
            out += "\n" + String(repeating: " ", count: indent * level)
        }
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let number): out += number.isFinite ? javaScriptNumber(number) : "null"
        case .string(let text): out += quoted(text)
        case .array(let elements):
            if elements.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                newline(level + 1)
                write(element, indent: indent, level: level + 1, into: &out)
            }
            newline(level)
            out += "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                newline(level + 1)
                out += quoted(member.name) + (indent == nil ? ":" : ": ")
                write(member.value, indent: indent, level: level + 1, into: &out)
            }
            newline(level)
            out += "}"
        }
    }

    /// A JSON string literal as `JSON.stringify` writes it.
    static func quoted(_ text: String) -> String { JSONString.quoted(text) }

    /// A number as JavaScript's `Number.prototype.toString` writes it (ECMAScript Number::toString).
    static func javaScriptNumber(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value == 0 { return "0" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        if value < 0 { return "-" + javaScriptNumber(-value) }
        // Swift prints the shortest digits that read back as the same double; only the layout differs.
        let text = "\(value)"
        let parts = text.split(separator: "e", maxSplits: 1)
        let exponent = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        let mantissa = parts[0].split(separator: ".", maxSplits: 1)
        let integer = String(mantissa[0])
        let all = integer + (mantissa.count > 1 ? String(mantissa[1]) : "")
        let leadingZeros = all.prefix { $0 == "0" }.count
        var digits = String(all.dropFirst(leadingZeros))
        while digits.hasSuffix("0") { digits.removeLast() }
        let k = digits.count
        let n = integer.count + exponent - leadingZeros
        if k <= n && n <= 21 { return digits + String(repeating: "0", count: n - k) }
        if 0 < n && n <= 21 { return String(digits.prefix(n)) + "." + String(digits.dropFirst(n)) }
        if -6 < n && n <= 0 { return "0." + String(repeating: "0", count: -n) + digits }
        let e = n - 1
        let sign = e < 0 ? "-" : "+"
        let head = k == 1 ? digits : String(digits.prefix(1)) + "." + String(digits.dropFirst())
        return head + "e" + sign + String(abs(e))
    }
}
