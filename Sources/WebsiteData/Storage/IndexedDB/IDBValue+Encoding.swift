import Foundation

/// Why bytes could not be read as an encoded value (`IDBValue.init(encoded:)`) or key (`IDBKey.init(encoded:)`).
///
/// Decoders never trap on bad input: every malformed byte string ends in one of these.
public struct IDBDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong with the bytes.
    public struct Reason: RawRepresentable, Hashable, Sendable {
        /// The reason, in words.
        public let rawValue: String
        /// Creates a reason.
        ///
        /// - Parameter rawValue: the reason, in words.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The bytes end in the middle of an item.
        public static let truncated = Reason(rawValue: "the bytes end in the middle of an item")
        /// A type tag this format does not have.
        public static let unknownTag = Reason(rawValue: "unknown type tag")
        /// A string or binary item has no terminator.
        public static let unterminated = Reason(rawValue: "a string or binary item is not terminated")
        /// A number or date is NaN, which no key may be.
        public static let notANumber = Reason(rawValue: "a number or date key is NaN")
        /// The bytes decode, but are not the one encoding of what they hold (`-0`, padding, long varints).
        public static let nonCanonical = Reason(rawValue: "not the canonical encoding")
        /// A string is not valid UTF-16 (or UTF-8): an odd byte count or an unpaired surrogate.
        public static let invalidText = Reason(rawValue: "a string is not valid Unicode text")
        /// Arrays or objects nest deeper than allowed.
        public static let tooDeep = Reason(rawValue: "arrays or objects nest too deeply")
        /// Bytes follow the end of the item.
        public static let trailingBytes = Reason(rawValue: "bytes follow the end of the item")
        /// A length or count is larger than the bytes that remain.
        public static let badLength = Reason(rawValue: "a length or count exceeds the bytes that remain")
        /// The format version byte is not one this build reads.
        public static let unknownVersion = Reason(rawValue: "unknown format version")
    }

    /// What was wrong.
    public let reason: Reason
    /// The offset of the byte where it was found.
    public let offset: Int

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - reason: what was wrong.
    ///   - offset: where, in bytes from the start.
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// The reason and the offset.
    public var description: String { "\(reason.rawValue) (at byte \(offset))" }
}

/// The compact binary form of values, as records keep them.
///
/// A format byte (1), then the value: a tag byte and its payload. Integers that a double holds
/// exactly (|n| < 2^53, not `-0`) take a zig-zag varint, other numbers and dates 8 little-endian
/// bytes of their bit pattern (dates as seconds since 2001, exactly as `Date` holds them),
/// strings a varint byte count and UTF-8, arrays a varint count and their elements, objects
/// a varint count and (name, value) pairs.
enum ValueCoding {
    static let formatVersion: UInt8 = 1

    enum Tag: UInt8 {
        case undefined = 0, null, `false`, `true`, double, integer, string, date, binary, array, object, bigInt, regExp,
            error
    }

    static let binaryKinds: [IDBBinaryKind] = IDBBinaryKind.allCases

    struct Writer {
        var bytes: [UInt8] = [formatVersion]

        mutating func varint(_ value: UInt64) {
            var v = value
            while v >= 0x80 {
                bytes.append(UInt8(v & 0x7F) | 0x80)
                v >>= 7
            }
            bytes.append(UInt8(v))
        }

        mutating func fixed(_ value: UInt64) {
            for shift in stride(from: 0, to: 64, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }

        mutating func text(_ text: String) {
            varint(UInt64(text.utf8.count))
            bytes.append(contentsOf: text.utf8)
        }

        mutating func value(_ item: IDBValue) {
            switch item {
            case .undefined: bytes.append(Tag.undefined.rawValue)
            case .null: bytes.append(Tag.null.rawValue)
            case .bool(let flag): bytes.append(flag ? Tag.true.rawValue : Tag.false.rawValue)
            case .number(let number):
                if number == number.rounded(), abs(number) < 9_007_199_254_740_992,
                    !(number == 0 && number.sign == .minus)
                {
                    let n = Int64(number)
                    bytes.append(Tag.integer.rawValue)
                    varint(UInt64(bitPattern: (n << 1) ^ (n >> 63)))
                } else {
                    bytes.append(Tag.double.rawValue)
                    fixed(number.bitPattern)
                }
            case .bigInt(let digits):
                bytes.append(Tag.bigInt.rawValue)
                text(digits)
            case .string(let string):
                bytes.append(Tag.string.rawValue)
                text(string)
            case .date(let date):
                bytes.append(Tag.date.rawValue)
                fixed(date.timeIntervalSinceReferenceDate.bitPattern)
            case .binary(let data, let kind):
                bytes.append(Tag.binary.rawValue)
                bytes.append(UInt8(binaryKinds.firstIndex(of: kind)!))
                varint(UInt64(data.count))
                bytes.append(contentsOf: data)
            case .regExp(let pattern, let flags):
                bytes.append(Tag.regExp.rawValue)
                text(pattern)
                text(flags)
            case .error(let name, let message, let stack):
                bytes.append(Tag.error.rawValue)
                text(name)
                text(message)
                text(stack)
            case .array(let elements):
                bytes.append(Tag.array.rawValue)
                varint(UInt64(elements.count))
                for element in elements { value(element) }
            case .object(let object):
                bytes.append(Tag.object.rawValue)
                varint(UInt64(object.count))
                for property in object.properties {
                    text(property.name)
                    value(property.value)
                }
            }
        }
    }

    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        func fail(_ reason: IDBDecodingError.Reason) -> IDBDecodingError { IDBDecodingError(reason, at: offset) }

        mutating func byte() throws(IDBDecodingError) -> UInt8 {
            guard offset < bytes.count else { throw fail(.truncated) }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func varint() throws(IDBDecodingError) -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let start = offset
                let b = try byte()
                if shift == 63 && b > 1 { throw IDBDecodingError(.nonCanonical, at: start) }
                result |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 {
                    if b == 0 && shift > 0 { throw IDBDecodingError(.nonCanonical, at: start) }
                    return result
                }
                shift += 7
            }
        }

        mutating func fixed() throws(IDBDecodingError) -> UInt64 {
            guard bytes.count - offset >= 8 else { throw fail(.truncated) }
            var value: UInt64 = 0
            for i in 0..<8 { value |= UInt64(bytes[offset + i]) << UInt64(8 * i) }
            offset += 8
            return value
        }

        mutating func length() throws(IDBDecodingError) -> Int {
            let start = offset
            let n = try varint()
            guard n <= UInt64(bytes.count - offset) else { throw IDBDecodingError(.badLength, at: start) }
            return Int(n)
        }

        mutating func text() throws(IDBDecodingError) -> String {
            let count = try length()
            let start = offset
            guard let string = String(validating: bytes[offset..<offset + count], as: UTF8.self) else {
                throw IDBDecodingError(.invalidText, at: start)
            }
            offset += count
            return string
        }

        mutating func value(depth: Int) throws(IDBDecodingError) -> IDBValue {
            let start = offset
            guard let tag = Tag(rawValue: try byte()) else { throw IDBDecodingError(.unknownTag, at: start) }
            switch tag {
            case .undefined: return .undefined
            case .null: return .null
            case .false: return .bool(false)
            case .true: return .bool(true)
            case .double:
                let number = Double(bitPattern: try fixed())
                if number == number.rounded(), abs(number) < 9_007_199_254_740_992,
                    !(number == 0 && number.sign == .minus)
                {
                    throw IDBDecodingError(.nonCanonical, at: start)
                }
                return .number(number)
            case .integer:
                let zigzag = try varint()
                let n = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
                guard n > -9_007_199_254_740_992 && n < 9_007_199_254_740_992 else {
                    throw IDBDecodingError(.nonCanonical, at: start)
                }
                return .number(Double(n))
            case .bigInt: return .bigInt(try text())
            case .string: return .string(try text())
            case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try fixed())))
            case .binary:
                let kindIndex = Int(try byte())
                guard kindIndex < binaryKinds.count else { throw IDBDecodingError(.unknownTag, at: offset - 1) }
                let count = try length()
                defer { offset += count }
                return .binary(Data(bytes[offset..<offset + count]), kind: binaryKinds[kindIndex])
            case .regExp:
                let pattern = try text()
                return .regExp(pattern: pattern, flags: try text())
            case .error:
                let name = try text()
                let message = try text()
                return .error(name: name, message: message, stack: try text())
            case .array:
                guard depth < IDBValue.maxDepth else { throw IDBDecodingError(.tooDeep, at: start) }
                let count = try length()
                var elements: [IDBValue] = []
                elements.reserveCapacity(count)
                for _ in 0..<count { elements.append(try value(depth: depth + 1)) }
                return .array(elements)
            case .object:
                guard depth < IDBValue.maxDepth else { throw IDBDecodingError(.tooDeep, at: start) }
                let count = try length()
                var properties: [IDBObject.Property] = []
                var names = Set<[UInt8]>()
                for _ in 0..<count {
                    let nameStart = offset
                    let name = try text()
                    guard names.insert(Array(name.utf8)).inserted else {
                        throw IDBDecodingError(.nonCanonical, at: nameStart)
                    }
                    properties.append(IDBObject.Property(name: name, value: try value(depth: depth + 1)))
                }
                return .object(IDBObject(uniqueProperties: properties))
            }
        }
    }
}

extension IDBValue {
    /// The value in the compact binary form records are stored in.
    ///
    /// - Returns: the bytes; `IDBValue(encoded:)` reads them back.
    /// - Throws: `IDBError` `DataCloneError` when arrays or objects nest deeper than `IDBValue.maxDepth`.
    public func encoded() throws(IDBError) -> [UInt8] {
        guard !isNested(deeperThan: Self.maxDepth) else {
            throw IDBError(.dataClone, "the value nests arrays or objects more than \(Self.maxDepth) deep")
        }
        var writer = ValueCoding.Writer()
        writer.value(self)
        return writer.bytes
    }

    /// Reads a value from its compact binary form.
    ///
    /// Any byte string is safe to give: malformed input ends in an error, never a trap.
    ///
    /// - Parameter bytes: bytes `encoded()` wrote.
    /// - Throws: `IDBDecodingError` saying what is wrong and where.
    public init(encoded bytes: [UInt8]) throws(IDBDecodingError) {
        var reader = ValueCoding.Reader(bytes: bytes)
        guard try reader.byte() == ValueCoding.formatVersion else { throw IDBDecodingError(.unknownVersion, at: 0) }
        let value = try reader.value(depth: 0)
        guard reader.offset == bytes.count else { throw IDBDecodingError(.trailingBytes, at: reader.offset) }
        self = value
    }
}
