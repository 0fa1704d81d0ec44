import Foundation

/// A value an IndexedDB record holds: what JavaScript's structured clone keeps of a value.
///
/// Null, `undefined`, booleans, numbers (NaN, infinities and `-0` included), BigInts, strings,
/// dates, binary data (an `ArrayBuffer` or a typed array, with its kind), regular expressions,
/// errors, arrays, and objects whose properties keep their order. Dates and binary data stay
/// distinct from numbers and strings in every form a value is written in: the store's compact
/// binary encoding (`encoded()`), JSON dumps (`Codable`) and Playwright storage state.
///
/// Two values are equal when they are the same value as JavaScript's `Object.is` sees it, member
/// by member: NaN equals NaN, `-0` differs from `0`, strings compare by Unicode scalars, and
/// objects compare their properties in order.
public enum IDBValue: Sendable, Hashable, CustomStringConvertible {
    /// `undefined`.
    case undefined
    /// `null`.
    case null
    /// A boolean.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A BigInt, as decimal digits with an optional leading `-`.
    case bigInt(String)
    /// A string.
    case string(String)
    /// A `Date` (an invalid date is NaN seconds).
    case date(Date)
    /// Binary data and the kind of object that held it.
    case binary(Data, kind: IDBBinaryKind)
    /// A regular expression: its source and flags.
    case regExp(pattern: String, flags: String)
    /// An `Error` object: its name, message and stack.
    case error(name: String, message: String, stack: String)
    /// An array.
    case array([IDBValue])
    /// A plain object, its properties in order.
    case object(IDBObject)

    /// How deeply arrays and objects may nest in a value.
    public static let maxDepth = 256

    /// The property of an object value, or `nil` when this is not an object or has no such property.
    public subscript(name: String) -> IDBValue? {
        if case .object(let object) = self { return object[name] }
        return nil
    }

    /// The value as a key, as the specification converts a value to a key: numbers and dates
    /// (not NaN), strings, binary data, and arrays of those; `nil` for anything else.
    public var key: IDBKey? { key(depth: 0) }

    private func key(depth: Int) -> IDBKey? {
        switch self {
        case .number(let value): return value.isNaN ? nil : .number(value == 0 ? 0 : value)
        case .date(let date): return date.timeIntervalSinceReferenceDate.isNaN ? nil : .date(date)
        case .string(let text): return .string(text)
        case .binary(let bytes, _): return .binary(bytes)
        case .array(let elements):
            guard depth < IDBKey.maxDepth else { return nil }
            var keys: [IDBKey] = []
            keys.reserveCapacity(elements.count)
            for element in elements {
                guard let key = element.key(depth: depth + 1) else { return nil }
                keys.append(key)
            }
            return .array(keys)
        default: return nil
        }
    }

    /// The keys of a multi-entry index for this value: each distinct valid key of an array
    /// (invalid elements skipped), or the value's own key when it is not an array.
    var multiEntryKeys: [IDBKey] {
        guard case .array(let elements) = self else { return key.map { [$0] } ?? [] }
        var seen = Set<IDBKey>()
        var keys: [IDBKey] = []
        for element in elements {
            if let key = element.key(depth: 1), seen.insert(key).inserted { keys.append(key) }
        }
        return keys
    }

    /// Whether arrays and objects nest more than `limit` deep (looking no deeper than that).
    func isNested(deeperThan limit: Int) -> Bool {
        switch self {
        case .array(let elements): return limit == 0 || elements.contains { $0.isNested(deeperThan: limit - 1) }
        case .object(let object):
            return limit == 0 || object.properties.contains { $0.value.isNested(deeperThan: limit - 1) }
        default: return false
        }
    }

    /// Whether two values are the same value (`Object.is`, member by member).
    ///
    /// - Parameters:
    ///   - a: the first value.
    ///   - b: the second value.
    /// - Returns: `true` when they are the same value.
    public static func == (a: IDBValue, b: IDBValue) -> Bool {
        switch (a, b) {
        case (.undefined, .undefined), (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case (.bigInt(let x), .bigInt(let y)): return x == y
        case (.string(let x), .string(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case (.date(let x), .date(let y)):
            let (s, t) = (x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
            return s.bitPattern == t.bitPattern || (s.isNaN && t.isNaN)
        case (.binary(let x, let j), .binary(let y, let k)): return x == y && j == k
        case (.regExp(let p, let f), .regExp(let q, let g)):
            return p.unicodeScalars.elementsEqual(q.unicodeScalars) && f == g
        case (.error(let n, let m, let s), .error(let o, let p, let t)):
            return n.unicodeScalars.elementsEqual(o.unicodeScalars) && m.unicodeScalars.elementsEqual(p.unicodeScalars)
                && s.unicodeScalars.elementsEqual(t.unicodeScalars)
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)): return x == y
        default: return false
        }
    }

    /// Hashes the value consistently with `==`.
    ///
    /// - Parameter hasher: the hasher to feed.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .undefined: hasher.combine(0)
        case .null: hasher.combine(1)
        case .bool(let value):
            hasher.combine(2)
            hasher.combine(value)
        case .number(let value):
            hasher.combine(3)
            hasher.combine(value.isNaN ? Double.nan.bitPattern : value.bitPattern)
        case .bigInt(let digits):
            hasher.combine(4)
            hasher.combine(digits)
        case .string(let text):
            hasher.combine(5)
            for scalar in text.unicodeScalars { hasher.combine(scalar) }
        case .date(let date):
            let t = date.timeIntervalSinceReferenceDate
            hasher.combine(6)
            hasher.combine(t.isNaN ? Double.nan.bitPattern : t.bitPattern)
        case .binary(let bytes, let kind):
            hasher.combine(7)
            hasher.combine(bytes)
            hasher.combine(kind)
        case .regExp(let pattern, let flags):
            hasher.combine(8)
            for scalar in pattern.unicodeScalars { hasher.combine(scalar) }
            hasher.combine(flags)
        case .error(let name, let message, _):
            hasher.combine(9)
            hasher.combine(name)
            hasher.combine(message)
        case .array(let elements):
            hasher.combine(10)
            hasher.combine(elements)
        case .object(let object):
            hasher.combine(11)
            hasher.combine(object)
        }
    }

    /// The value roughly as JavaScript's console shows it.
    public var description: String {
        switch self {
        case .undefined: return "undefined"
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return IDBKey.number(value).description
        case .bigInt(let digits): return digits + "n"
        case .string(let text): return IDBKey.string(text).description
        case .date(let date): return IDBKey.date(date).description
        case .binary(let bytes, let kind): return kind.rawValue + IDBKey.binary(bytes).description
        case .regExp(let pattern, let flags): return "/\(pattern)/\(flags)"
        case .error(let name, let message, _): return "\(name): \(message)"
        case .array(let elements): return "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .object(let object):
            return "{" + object.properties.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }
}

/// The kind of JavaScript object that held binary data: an `ArrayBuffer` or a typed array.
///
/// Raw values are the JavaScript class names.
public enum IDBBinaryKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// `ArrayBuffer`.
    case arrayBuffer = "ArrayBuffer"
    /// `DataView`.
    case dataView = "DataView"
    /// `Int8Array`.
    case int8 = "Int8Array"
    /// `Uint8Array`.
    case uint8 = "Uint8Array"
    /// `Uint8ClampedArray`.
    case uint8Clamped = "Uint8ClampedArray"
    /// `Int16Array`.
    case int16 = "Int16Array"
    /// `Uint16Array`.
    case uint16 = "Uint16Array"
    /// `Int32Array`.
    case int32 = "Int32Array"
    /// `Uint32Array`.
    case uint32 = "Uint32Array"
    /// `Float32Array`.
    case float32 = "Float32Array"
    /// `Float64Array`.
    case float64 = "Float64Array"
    /// `BigInt64Array`.
    case bigInt64 = "BigInt64Array"
    /// `BigUint64Array`.
    case bigUint64 = "BigUint64Array"
}

/// The properties of a plain JavaScript object, in order.
///
/// Setting a property that exists replaces its value in place; a new one goes last, as in
/// JavaScript (which, unlike this type, also moves integer-like names first when it enumerates).
public struct IDBObject: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    /// One property: a name and a value.
    public struct Property: Sendable, Hashable {
        /// The property name.
        public var name: String
        /// The property value.
        public var value: IDBValue

        /// Creates a property.
        ///
        /// - Parameters:
        ///   - name: the property name.
        ///   - value: the property value.
        public init(name: String, value: IDBValue) {
            self.name = name
            self.value = value
        }
    }

    /// The properties, in order.
    public private(set) var properties: [Property] = []

    /// An object with no properties.
    public init() {}

    /// An object with these properties; a repeated name keeps its first place and its last value.
    ///
    /// - Parameter properties: names and values, in order.
    public init(_ properties: some Sequence<(String, IDBValue)>) {
        var places: [[UInt8]: Int] = [:]
        for (name, value) in properties {
            if let place = places[Array(name.utf8)] {
                self.properties[place].value = value
            } else {
                places[Array(name.utf8)] = self.properties.count
                self.properties.append(Property(name: name, value: value))
            }
        }
    }

    /// An object from properties whose names are known to be distinct.
    init(uniqueProperties: [Property]) { properties = uniqueProperties }

    /// An object from a dictionary literal, in the literal's order.
    public init(dictionaryLiteral elements: (String, IDBValue)...) {
        self.init(elements)
    }

    /// The value of a property; setting `nil` removes it.
    public subscript(name: String) -> IDBValue? {
        get { properties.first { $0.name.utf8.elementsEqual(name.utf8) }?.value }
        set {
            if let index = properties.firstIndex(where: { $0.name.utf8.elementsEqual(name.utf8) }) {
                if let newValue { properties[index].value = newValue } else { properties.remove(at: index) }
            } else if let newValue {
                properties.append(Property(name: name, value: newValue))
            }
        }
    }

    /// The number of properties.
    public var count: Int { properties.count }

    /// Iterates over the properties in order.
    ///
    /// - Returns: an iterator over the properties.
    public func makeIterator() -> IndexingIterator<[Property]> { properties.makeIterator() }

    /// Whether two objects have the same properties, with the same values, in the same order.
    ///
    /// - Parameters:
    ///   - a: the first object.
    ///   - b: the second object.
    /// - Returns: `true` when they match property by property.
    public static func == (a: IDBObject, b: IDBObject) -> Bool {
        a.properties.count == b.properties.count
            && zip(a.properties, b.properties).allSatisfy {
                $0.name.unicodeScalars.elementsEqual($1.name.unicodeScalars) && $0.value == $1.value
            }
    }

    /// Hashes the properties in order.
    ///
    /// - Parameter hasher: the hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(properties.count)
        for property in properties {
            for scalar in property.name.unicodeScalars { hasher.combine(scalar) }
            hasher.combine(property.value)
        }
    }
}

extension IDBValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `null` from `nil`.
    public init(nilLiteral: ()) { self = .null }
    /// A boolean from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A number from an integer literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A number from a floating-point literal.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A string from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array from a literal.
    public init(arrayLiteral elements: IDBValue...) { self = .array(elements) }
    /// An object from a dictionary literal, properties in the literal's order.
    public init(dictionaryLiteral elements: (String, IDBValue)...) { self = .object(IDBObject(elements)) }
}
