import Foundation

/// The order-preserving byte form of keys: comparing two encodings byte by byte (`memcmp`,
/// shorter first when one is a prefix of the other, as SQLite compares BLOBs) gives the same
/// order as `IDBKey.compare(_:_:)`, so the database sorts and ranges keys by itself.
///
/// Each key is a type tag, ascending in the specification's type order, then its payload:
///
/// | tag | key | payload |
/// | --- | --- | --- |
/// | `0x10` | number | 8 bytes big-endian: the IEEE-754 bits with the sign bit set for positives, all bits flipped for negatives |
/// | `0x20` | date | the same, of the seconds since 2001 `Date` holds |
/// | `0x30` | string | each UTF-16 code unit in 1 to 3 bytes (below), then `0x00` |
/// | `0x40` | binary | each byte in 1 or 2 bytes (below), then `0x00` |
/// | `0x50` | array | each element's encoding, then `0x00` |
///
/// A code unit `u` (or a byte) takes one byte `u + 1` when `u <= 0x7E`; two bytes
/// `u - 0x7F + 0x8000` when `u <= 0x407E`; else three bytes `(u << 6) | 0xC00000` (Gecko's
/// IndexedDB key encoding). The three forms are increasing and start with disjoint first bytes
/// (`0x01…0x7F`, `0x80…0xBF`, `0xC0…0xFF`), none with `0x00`, so the terminator `0x00` sorts a
/// string before every string it is a prefix of, and an ASCII character costs one byte.
/// `-0` is written as `0`; NaN has no encoding.
enum KeyCoding {
    static let numberTag: UInt8 = 0x10
    static let dateTag: UInt8 = 0x20
    static let stringTag: UInt8 = 0x30
    static let binaryTag: UInt8 = 0x40
    static let arrayTag: UInt8 = 0x50
    static let terminator: UInt8 = 0x00
    static let oneByteLimit: UInt32 = 0x7E
    static let twoByteLimit: UInt32 = 0x3FFF + 0x7F

    static func append(_ key: IDBKey, to bytes: inout [UInt8]) {
        switch key {
        case .number(let value):
            bytes.append(numberTag)
            appendOrdered(value, to: &bytes)
        case .date(let date):
            bytes.append(dateTag)
            appendOrdered(date.timeIntervalSinceReferenceDate, to: &bytes)
        case .string(let text):
            bytes.append(stringTag)
            for unit in text.utf16 { appendUnit(UInt32(unit), to: &bytes) }
            bytes.append(terminator)
        case .binary(let data):
            bytes.append(binaryTag)
            for byte in data { appendUnit(UInt32(byte), to: &bytes) }
            bytes.append(terminator)
        case .array(let elements):
            bytes.append(arrayTag)
            for element in elements { append(element, to: &bytes) }
            bytes.append(terminator)
        }
    }

    @inline(__always)
    static func appendUnit(_ unit: UInt32, to bytes: inout [UInt8]) {
        if unit <= oneByteLimit {
            bytes.append(UInt8(unit + 1))
        } else if unit <= twoByteLimit {
            let value = unit - 0x7F + 0x8000
            bytes.append(UInt8(value >> 8))
            bytes.append(UInt8(value & 0xFF))
        } else {
            let value = (unit << 6) | 0xC0_0000
            bytes.append(UInt8(value >> 16))
            bytes.append(UInt8((value >> 8) & 0xFF))
            bytes.append(UInt8(value & 0xFF))
        }
    }

    static func appendOrdered(_ value: Double, to bytes: inout [UInt8]) {
        let normalized = value == 0 ? 0 : value
        var bits = normalized.bitPattern
        bits = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
    }

    /// Reads one encoded key, iteratively (no recursion, however deep the input claims to nest).
    static func decode(_ bytes: [UInt8]) throws(IDBDecodingError) -> IDBKey {
        var offset = 0
        var open: [[IDBKey]] = []
        while true {
            guard offset < bytes.count else { throw IDBDecodingError(.truncated, at: offset) }
            let start = offset
            let tag = bytes[offset]
            offset += 1
            let key: IDBKey
            switch tag {
            case numberTag, dateTag:
                guard bytes.count - offset >= 8 else { throw IDBDecodingError(.truncated, at: offset) }
                var bits: UInt64 = 0
                for i in 0..<8 { bits = bits << 8 | UInt64(bytes[offset + i]) }
                offset += 8
                bits = bits & (1 << 63) != 0 ? bits & ~(1 << 63) : ~bits
                let value = Double(bitPattern: bits)
                if value.isNaN { throw IDBDecodingError(.notANumber, at: start) }
                if value == 0 && value.sign == .minus { throw IDBDecodingError(.nonCanonical, at: start) }
                key = tag == numberTag ? .number(value) : .date(Date(timeIntervalSinceReferenceDate: value))
            case stringTag:
                let units = try readUnits(bytes, &offset, max: 0xFFFF).map { UInt16($0) }
                var text = ""
                var decoder = UTF16()
                var iterator = units.makeIterator()
                loop: while true {
                    switch decoder.decode(&iterator) {
                    case .scalarValue(let scalar): text.unicodeScalars.append(scalar)
                    case .emptyInput: break loop
                    case .error: throw IDBDecodingError(.invalidText, at: start)
                    }
                }
                key = .string(text)
            case binaryTag:
                key = .binary(Data(try readUnits(bytes, &offset, max: 0xFF).map { UInt8($0) }))
            case arrayTag:
                guard open.count < IDBKey.maxDepth else { throw IDBDecodingError(.tooDeep, at: start) }
                open.append([])
                continue
            case terminator where !open.isEmpty:
                key = .array(open.removeLast())
            default:
                throw IDBDecodingError(.unknownTag, at: start)
            }
            if open.isEmpty {
                guard offset == bytes.count else { throw IDBDecodingError(.trailingBytes, at: offset) }
                return key
            }
            open[open.count - 1].append(key)
        }
    }

    /// Reads code units (or bytes, `max` 0xFF) up to the terminator, accepting only canonical forms.
    static func readUnits(_ bytes: [UInt8], _ offset: inout Int, max: UInt32) throws(IDBDecodingError) -> [UInt32] {
        var units: [UInt32] = []
        while true {
            let start = offset
            guard offset < bytes.count else { throw IDBDecodingError(.unterminated, at: offset) }
            let first = UInt32(bytes[offset])
            let unit: UInt32
            if first == 0 {
                offset += 1
                return units
            } else if first < 0x80 {
                unit = first - 1
                offset += 1
            } else if first < 0xC0 {
                guard bytes.count - offset >= 2 else { throw IDBDecodingError(.unterminated, at: offset) }
                unit = (first << 8 | UInt32(bytes[offset + 1])) - 0x8000 + 0x7F
                offset += 2
            } else {
                guard bytes.count - offset >= 3 else { throw IDBDecodingError(.unterminated, at: offset) }
                let value = first << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
                guard value & 0x3F == 0 else { throw IDBDecodingError(.nonCanonical, at: start) }
                unit = (value & 0x3F_FFFF) >> 6
                guard unit > twoByteLimit else { throw IDBDecodingError(.nonCanonical, at: start) }
                offset += 3
            }
            guard unit <= max else { throw IDBDecodingError(.nonCanonical, at: start) }
            units.append(unit)
        }
    }
}

extension IDBKey {
    /// The key's order-preserving byte form (see the table in the documentation of `Docs/indexeddb.md`):
    /// two keys compare as their encodings compare byte by byte.
    ///
    /// - Returns: the bytes; `IDBKey(encoded:)` reads them back.
    /// - Throws: `IDBError` `DataError` for an invalid key (NaN, or nested too deeply).
    public func encoded() throws(IDBError) -> [UInt8] {
        try validate()
        return encodedUnchecked
    }

    /// The encoding of a key already validated.
    var encodedUnchecked: [UInt8] {
        var bytes: [UInt8] = []
        KeyCoding.append(self, to: &bytes)
        return bytes
    }

    /// Reads a key from its order-preserving byte form.
    ///
    /// Any byte string is safe to give: malformed input ends in an error, never a trap. Only
    /// the one canonical encoding of a key is accepted, so a decoded key encodes to the same bytes.
    ///
    /// - Parameter bytes: bytes `encoded()` wrote.
    /// - Throws: `IDBDecodingError` saying what is wrong and where.
    public init(encoded bytes: [UInt8]) throws(IDBDecodingError) {
        self = try KeyCoding.decode(bytes)
    }
}
