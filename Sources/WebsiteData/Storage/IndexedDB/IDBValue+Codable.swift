import Foundation

/// JSON dumps of values: plain JSON where JSON holds the value exactly, tagged objects elsewhere.
///
/// | value | JSON |
/// | --- | --- |
/// | `null`, booleans, finite numbers, strings, arrays, objects | themselves |
/// | `undefined` | `{"$undefined": true}` |
/// | NaN, ±Infinity, `-0` | `{"$number": "NaN"}`, `"Infinity"`, `"-Infinity"`, `"-0"` |
/// | BigInt | `{"$bigint": "123"}` |
/// | date | `{"$date": "2025-01-01T00:00:00.000Z"}` (`null` for an invalid date) |
/// | binary | `{"$binary": {"kind": "Uint8Array", "base64": "AAE="}}` |
/// | RegExp | `{"$regexp": {"pattern": "^a", "flags": "g"}}` |
/// | Error | `{"$error": {"name": "TypeError", "message": "…", "stack": "…"}}` |
/// | an object whose one property starts with `$` | `{"$object": {…}}` |
///
/// Dates are written to the millisecond, as JavaScript holds them. `JSONEncoder` and
/// `JSONDecoder` decide the order of object members.
extension IDBValue: Codable {
    private static let tags: Set<String> = [
        "$undefined", "$number", "$bigint", "$date", "$binary", "$regexp", "$error", "$object",
    ]

    /// Encodes the value as JSON (see the table above).
    ///
    /// - Parameter encoder: the encoder to write to.
    /// - Throws: the encoder's error.
    public func encode(to encoder: any Encoder) throws {
        func tagged(_ tag: String, _ write: (inout KeyedEncodingContainer<AnyCodingKey>, AnyCodingKey) throws -> Void)
            throws
        {
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            try write(&container, AnyCodingKey(tag))
        }
        switch self {
        case .undefined: try tagged("$undefined") { try $0.encode(true, forKey: $1) }
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let number):
            if number.isFinite && !(number == 0 && number.sign == .minus) {
                var container = encoder.singleValueContainer()
                try container.encode(number)
            } else {
                let name = number.isNaN ? "NaN" : number.isInfinite ? (number < 0 ? "-Infinity" : "Infinity") : "-0"
                try tagged("$number") { try $0.encode(name, forKey: $1) }
            }
        case .bigInt(let digits): try tagged("$bigint") { try $0.encode(digits, forKey: $1) }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .date(let date): try tagged("$date") { try $0.encode(JavaScriptDate.isoString(date), forKey: $1) }
        case .binary(let data, let kind):
            try tagged("$binary") {
                try $0.encode(["kind": kind.rawValue, "base64": data.base64EncodedString()], forKey: $1)
            }
        case .regExp(let pattern, let flags):
            try tagged("$regexp") { try $0.encode(["pattern": pattern, "flags": flags], forKey: $1) }
        case .error(let name, let message, let stack):
            try tagged("$error") { try $0.encode(["name": name, "message": message, "stack": stack], forKey: $1) }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let object):
            if object.count == 1, let only = object.properties.first, only.name.hasPrefix("$") {
                try tagged("$object") { try $0.encode(PlainObject(object: object), forKey: $1) }
            } else {
                try PlainObject(object: object).encode(to: encoder)
            }
        }
    }

    /// Decodes a value from JSON (see the table above); an object with one unknown `$` property is a plain object.
    ///
    /// - Parameter decoder: the decoder to read from.
    /// - Throws: `DecodingError` for a tagged object whose content is not what the tag needs.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() {
                self = .null
                return
            }
            if let flag = try? single.decode(Bool.self) {
                self = .bool(flag)
                return
            }
            if let number = try? single.decode(Double.self) {
                self = .number(number)
                return
            }
            if let text = try? single.decode(String.self) {
                self = .string(text)
                return
            }
            if let elements = try? single.decode([IDBValue].self) {
                self = .array(elements)
                return
            }
        }
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        let keys = container.allKeys
        guard keys.count == 1, let key = keys.first, Self.tags.contains(key.stringValue) else {
            self = .object(try PlainObject(from: decoder).object)
            return
        }
        func corrupt(_ detail: String) -> DecodingError {
            DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: detail)
        }
        switch key.stringValue {
        case "$undefined": self = .undefined
        case "$number":
            switch try container.decode(String.self, forKey: key) {
            case "NaN": self = .number(.nan)
            case "Infinity": self = .number(.infinity)
            case "-Infinity": self = .number(-.infinity)
            case "-0": self = .number(-0.0)
            case let other: throw corrupt("'\(other)' is not NaN, Infinity, -Infinity or -0")
            }
        case "$bigint": self = .bigInt(try container.decode(String.self, forKey: key))
        case "$date":
            guard let text = try container.decodeIfPresent(String.self, forKey: key) else {
                self = .date(Date(timeIntervalSinceReferenceDate: .nan))
                return
            }
            guard let date = JavaScriptDate.parse(text) else { throw corrupt("'\(text)' is not an ISO date") }
            self = .date(date)
        case "$binary":
            let fields = try container.decode([String: String].self, forKey: key)
            guard let kind = fields["kind"].flatMap(IDBBinaryKind.init(rawValue:)),
                let data = fields["base64"].flatMap({ Data(base64Encoded: $0) })
            else {
                throw corrupt("$binary needs a kind (Uint8Array, ArrayBuffer, …) and base64 bytes")
            }
            self = .binary(data, kind: kind)
        case "$regexp":
            let fields = try container.decode([String: String].self, forKey: key)
            guard let pattern = fields["pattern"], let flags = fields["flags"] else {
                throw corrupt("$regexp needs a pattern and flags")
            }
            self = .regExp(pattern: pattern, flags: flags)
        case "$error":
            let fields = try container.decode([String: String].self, forKey: key)
            guard let name = fields["name"], let message = fields["message"] else {
                throw corrupt("$error needs a name and a message")
            }
            self = .error(name: name, message: message, stack: fields["stack"] ?? "")
        default:
            self = .object(try container.decode(PlainObject.self, forKey: key).object)
        }
    }

    /// An object's properties as a JSON object, with no tag read into them.
    private struct PlainObject: Codable {
        var object: IDBObject

        init(object: IDBObject) { self.object = object }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyCodingKey.self)
            object = IDBObject(
                try container.allKeys.map { ($0.stringValue, try container.decode(IDBValue.self, forKey: $0)) })
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            for property in object.properties {
                try container.encode(property.value, forKey: AnyCodingKey(property.name))
            }
        }
    }
}
