import Foundation

/// A value in the form Playwright's `serializeAsCallArgument` writes it, as storage state
/// holds record keys and values that plain JSON cannot (`keyEncoded`, `valueEncoded`).
///
/// The JSON forms are: a boolean, number or string as itself; `{"v": "null" | "undefined" |
/// "NaN" | "Infinity" | "-Infinity" | "-0"}`; `{"d": ISO date}`; `{"u": URL}`; `{"bi": digits}`;
/// `{"e": {"n", "m", "s"}}` (an Error's name, message and stack); `{"r": {"p", "f"}}` (a RegExp);
/// `{"a": [...], "id": n}`; `{"o": [{"k", "v"}...], "id": n}`; `{"ref": n}` (the array or object
/// with that id again); `{"h": n}` (a handle); `{"ta": {"b": base64, "k": kind}}` (a typed array).
public indirect enum PlaywrightSerializedValue: Sendable, Hashable, Codable {
    /// A boolean.
    case bool(Bool)
    /// A finite number other than `-0`.
    case number(Double)
    /// A string.
    case string(String)
    /// `{"v": …}`: `null`, `undefined`, `NaN`, `Infinity`, `-Infinity` or `-0`.
    case special(String)
    /// `{"d": …}`: a date as `toJSON` writes it (`nil` for an invalid date).
    case date(String?)
    /// `{"u": …}`: a URL object.
    case url(String)
    /// `{"bi": …}`: a BigInt's decimal digits.
    case bigInt(String)
    /// `{"e": …}`: an Error.
    case error(name: String, message: String, stack: String)
    /// `{"r": …}`: a RegExp.
    case regExp(pattern: String, flags: String)
    /// `{"a": …, "id": …}`: an array and the id later `ref`s use.
    case array([PlaywrightSerializedValue], id: Int)
    /// `{"o": …, "id": …}`: an object's properties in order, and its id.
    case object([Property], id: Int)
    /// `{"ref": …}`: the array or object with this id, again.
    case ref(Int)
    /// `{"h": …}`: a handle to a live object (not storable).
    case handle(Int)
    /// `{"ta": …}`: a typed array: its bytes in base64 and its kind (`ui8`, `f64`, …).
    case typedArray(base64: String, kind: String)

    /// One property of a serialized object: `{"k": name, "v": value}`.
    public struct Property: Sendable, Hashable {
        /// The property name.
        public var name: String
        /// The property value.
        public var value: PlaywrightSerializedValue

        /// Creates a property.
        ///
        /// - Parameters:
        ///   - name: the property name.
        ///   - value: the property value.
        public init(_ name: String, _ value: PlaywrightSerializedValue) {
            self.name = name
            self.value = value
        }
    }

    /// Playwright's typed-array kinds and the classes they stand for.
    static let typedArrayKinds: [(String, IDBBinaryKind)] = [
        ("i8", .int8), ("ui8", .uint8), ("ui8c", .uint8Clamped), ("i16", .int16), ("ui16", .uint16),
        ("i32", .int32), ("ui32", .uint32), ("f32", .float32), ("f64", .float64), ("bi64", .bigInt64),
        ("bui64", .bigUint64),
    ]

    // MARK: - JSON

    /// The value as JSON, members in the order Playwright writes them.
    public var json: IDBJSONValue {
        typealias M = IDBJSONValue.Member
        switch self {
        case .bool(let flag): return .bool(flag)
        case .number(let number): return .number(number)
        case .string(let text): return .string(text)
        case .special(let name): return .object([M("v", .string(name))])
        case .date(let text): return .object([M("d", text.map { .string($0) } ?? .null)])
        case .url(let text): return .object([M("u", .string(text))])
        case .bigInt(let digits): return .object([M("bi", .string(digits))])
        case .error(let name, let message, let stack):
            return .object([M("e", .object([M("n", .string(name)), M("m", .string(message)), M("s", .string(stack))]))])
        case .regExp(let pattern, let flags):
            return .object([M("r", .object([M("p", .string(pattern)), M("f", .string(flags))]))])
        case .array(let elements, let id):
            return .object([M("a", .array(elements.map(\.json))), M("id", .number(Double(id)))])
        case .object(let properties, let id):
            return .object([
                M("o", .array(properties.map { .object([M("k", .string($0.name)), M("v", $0.value.json)]) })),
                M("id", .number(Double(id))),
            ])
        case .ref(let id): return .object([M("ref", .number(Double(id)))])
        case .handle(let id): return .object([M("h", .number(Double(id)))])
        case .typedArray(let base64, let kind):
            return .object([M("ta", .object([M("b", .string(base64)), M("k", .string(kind))]))])
        }
    }

    /// Reads a serialized value from its JSON.
    ///
    /// - Parameter json: the JSON of one serialized value.
    /// - Throws: `IDBError` `DataError` when the JSON is not a form Playwright writes.
    public init(json: IDBJSONValue) throws(IDBError) {
        func bad(_ detail: String) -> IDBError { IDBError(.data, "not a Playwright serialized value: \(detail)") }
        func string(_ value: IDBJSONValue?, _ what: String) throws(IDBError) -> String {
            guard case .string(let text)? = value else { throw bad("\(what) is not a string") }
            return text
        }
        func int(_ value: IDBJSONValue?, _ what: String) throws(IDBError) -> Int {
            guard case .number(let number)? = value, let whole = Int(exactly: number) else {
                throw bad("\(what) is not a whole number")
            }
            return whole
        }
        switch json {
        case .bool(let flag): self = .bool(flag)
        case .number(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .null: throw bad("null (Playwright writes {\"v\": \"null\"})")
        case .array: throw bad("a bare array (Playwright writes {\"a\": [...], \"id\": n})")
        case .object(let members):
            let names = Set(members.map(\.name))
            if names.contains("v") {
                self = .special(try string(json["v"], "v"))
            } else if names.contains("d") {
                if case .null? = json["d"] { self = .date(nil) } else { self = .date(try string(json["d"], "d")) }
            } else if names.contains("u") {
                self = .url(try string(json["u"], "u"))
            } else if names.contains("bi") {
                self = .bigInt(try string(json["bi"], "bi"))
            } else if names.contains("e") {
                let e = json["e"]
                self = .error(
                    name: try string(e?["n"], "e.n"), message: try string(e?["m"], "e.m"),
                    stack: try string(e?["s"], "e.s"))
            } else if names.contains("r") {
                let r = json["r"]
                self = .regExp(pattern: try string(r?["p"], "r.p"), flags: try string(r?["f"], "r.f"))
            } else if names.contains("a") {
                guard case .array(let elements)? = json["a"] else { throw bad("a is not an array") }
                var values: [PlaywrightSerializedValue] = []
                for element in elements { values.append(try PlaywrightSerializedValue(json: element)) }
                self = .array(values, id: json["id"] == nil ? 0 : try int(json["id"], "id"))
            } else if names.contains("o") {
                guard case .array(let items)? = json["o"] else { throw bad("o is not an array") }
                var properties: [Property] = []
                for item in items {
                    guard let value = item["v"] else { throw bad("a property of o has no v") }
                    properties.append(Property(try string(item["k"], "k"), try PlaywrightSerializedValue(json: value)))
                }
                self = .object(properties, id: json["id"] == nil ? 0 : try int(json["id"], "id"))
            } else if names.contains("ref") {
                self = .ref(try int(json["ref"], "ref"))
            } else if names.contains("h") {
                self = .handle(try int(json["h"], "h"))
            } else if names.contains("ta") {
                let ta = json["ta"]
                self = .typedArray(base64: try string(ta?["b"], "ta.b"), kind: try string(ta?["k"], "ta.k"))
            } else {
                throw bad("an object with none of the members v, d, u, bi, e, r, a, o, ref, h, ta")
            }
        }
    }

    /// Decodes a serialized value.

    ///

    /// - Parameter decoder: the decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` when it is not a form Playwright writes.
    public init(from decoder: any Decoder) throws {
        let json = try IDBJSONValue(from: decoder)
        do { self = try PlaywrightSerializedValue(json: json) } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes the serialized value as its JSON.

    ///

    /// - Parameter encoder: the encoder to write to.
    /// - Throws: the encoder's error.
    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }

    // MARK: - Values

    /// Serializes a value as Playwright does; arrays and objects get ids 1, 2, … in the order
    /// they are met. An `ArrayBuffer` or `DataView` is written as a `Uint8Array` (`ui8`), the one
    /// form the format has for bare bytes.
    ///
    /// - Parameter value: the value.
    public init(_ value: IDBValue) {
        var lastID = 0
        self = Self.serialize(value, &lastID)
    }

    private static func serialize(_ value: IDBValue, _ lastID: inout Int) -> PlaywrightSerializedValue {
        switch value {
        case .undefined: return .special("undefined")
        case .null: return .special("null")
        case .bool(let flag): return .bool(flag)
        case .number(let number):
            if number.isNaN { return .special("NaN") }
            if number.isInfinite { return .special(number < 0 ? "-Infinity" : "Infinity") }
            if number == 0 && number.sign == .minus { return .special("-0") }
            return .number(number)
        case .bigInt(let digits): return .bigInt(digits)
        case .string(let text): return .string(text)
        case .date(let date): return .date(JavaScriptDate.isoString(date))
        case .binary(let data, let kind):
            let code = typedArrayKinds.first { $0.1 == kind }?.0 ?? "ui8"
            return .typedArray(base64: data.base64EncodedString(), kind: code)
        case .regExp(let pattern, let flags): return .regExp(pattern: pattern, flags: flags)
        case .error(let name, let message, let stack): return .error(name: name, message: message, stack: stack)
        case .array(let elements):
            lastID += 1
            let id = lastID
            return .array(elements.map { serialize($0, &lastID) }, id: id)
        case .object(let object):
            lastID += 1
            let id = lastID
            return .object(object.properties.map { Property($0.name, serialize($0.value, &lastID)) }, id: id)
        }
    }

    /// The value this serialization stands for (Playwright's `parseEvaluationResultValue`).
    ///
    /// A `ref` to an array or object met earlier gives a copy of it. A `__proto__` property is
    /// skipped, as Playwright skips it.
    ///
    /// - Returns: the value.
    /// - Throws: `IDBError` `DataCloneError` for what a store cannot hold (a URL object, a handle,
    ///   a reference to an enclosing array or object), `DataError` for a malformed date, BigInt,
    ///   base64 text, typed-array kind, special name or reference.
    public func value() throws(IDBError) -> IDBValue {
        var done: [Int: IDBValue] = [:]
        var open: Set<Int> = []
        return try resolve(&done, &open, depth: 0)
    }

    private func resolve(_ done: inout [Int: IDBValue], _ open: inout Set<Int>, depth: Int) throws(IDBError) -> IDBValue
    {
        switch self {
        case .bool(let flag): return .bool(flag)
        case .number(let number): return .number(number)
        case .string(let text): return .string(text)
        case .special(let name):
            switch name {
            case "null": return .null
            case "undefined": return .undefined
            case "NaN": return .number(.nan)
            case "Infinity": return .number(.infinity)
            case "-Infinity": return .number(-.infinity)
            case "-0": return .number(-0.0)
            default: throw IDBError(.data, "unknown special value {\"v\": \"\(name)\"}")
            }
        case .date(let text):
            guard let text else { return .date(Date(timeIntervalSinceReferenceDate: .nan)) }
            guard let date = JavaScriptDate.parse(text) else { throw IDBError(.data, "'\(text)' is not an ISO date") }
            return .date(date)
        case .url(let text): throw IDBError(.dataClone, "a URL object (\(text)) cannot be stored in IndexedDB")
        case .bigInt(let digits):
            let body = digits.hasPrefix("-") ? digits.dropFirst() : Substring(digits)
            guard !body.isEmpty, body.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw IDBError(.data, "'\(digits)' is not a BigInt")
            }
            return .bigInt(digits)
        case .error(let name, let message, let stack): return .error(name: name, message: message, stack: stack)
        case .regExp(let pattern, let flags): return .regExp(pattern: pattern, flags: flags)
        case .typedArray(let base64, let code):
            guard let kind = Self.typedArrayKinds.first(where: { $0.0 == code })?.1 else {
                throw IDBError(.data, "'\(code)' is not a typed-array kind")
            }
            guard let data = Data(base64Encoded: base64) else {
                throw IDBError(.data, "a typed array's bytes are not base64")
            }
            return .binary(data, kind: kind)
        case .handle: throw IDBError(.dataClone, "a handle to a live object cannot be stored in IndexedDB")
        case .ref(let id):
            if let value = done[id] { return value }
            if open.contains(id) {
                throw IDBError(.dataClone, "a value that contains itself (ref \(id)) cannot be stored here")
            }
            throw IDBError(.data, "ref \(id) names no array or object met before it")
        case .array(let elements, let id):
            guard depth < IDBValue.maxDepth else {
                throw IDBError(.dataClone, "the value nests more than \(IDBValue.maxDepth) deep")
            }
            open.insert(id)
            var values: [IDBValue] = []
            for element in elements { values.append(try element.resolve(&done, &open, depth: depth + 1)) }
            open.remove(id)
            done[id] = .array(values)
            return .array(values)
        case .object(let properties, let id):
            guard depth < IDBValue.maxDepth else {
                throw IDBError(.dataClone, "the value nests more than \(IDBValue.maxDepth) deep")
            }
            open.insert(id)
            var members: [(String, IDBValue)] = []
            for property in properties where property.name != "__proto__" {
                members.append((property.name, try property.value.resolve(&done, &open, depth: depth + 1)))
            }
            open.remove(id)
            let value = IDBValue.object(IDBObject(members))
            done[id] = value
            return value
        }
    }
}
