import Foundation

/// One IndexedDB database as Playwright (1.51 and later) writes it in storage state:
/// `origins[].indexedDB[]` of `context.storageState({ indexedDB: true })`.
///
/// ```json
/// { "name": "app", "version": 3, "stores": [
///   { "name": "notes", "records": [ { "key": 1, "value": { "text": "hi" } } ],
///     "indexes": [ { "name": "byText", "keyPath": "text", "multiEntry": false, "unique": false } ],
///     "autoIncrement": true } ] }
/// ```
///
/// `Codable` for use in other `Codable` types; `init(json:)` and `json(indent:level:)` read and
/// write the text keeping the order of JavaScript object properties, which `JSONDecoder` and
/// `JSONEncoder` do not keep.
public struct PlaywrightIndexedDBDatabase: Sendable, Hashable, Codable {
    /// The database name.
    public var name: String
    /// The database version.
    public var version: Int
    /// The object stores.
    public var stores: [PlaywrightIndexedDBStore]

    /// Creates a database description.
    ///
    /// - Parameters:
    ///   - name: the database name.
    ///   - version: the database version.
    ///   - stores: the object stores.
    public init(name: String, version: Int, stores: [PlaywrightIndexedDBStore]) {
        self.name = name
        self.version = version
        self.stores = stores
    }

    /// Reads a database description from its JSON text.
    ///
    /// - Parameter json: UTF-8 JSON text of one database object.
    /// - Throws: `IDBJSONError` for text that is not JSON, `IDBError` `DataError` for JSON that is not a database.
    public init(json: some Collection<UInt8>) throws {
        try self.init(jsonValue: try IDBJSONValue(json: json))
    }

    /// The database as JSON text, formatted as Playwright's `JSON.stringify(state, null, 2)` formats it.
    ///
    /// - Parameters:
    ///   - indent: spaces per level (Playwright uses 2), or `nil` for compact text.
    ///   - level: the nesting level the object sits at (4 inside a storage state file's `origins[].indexedDB[]`).
    /// - Returns: the JSON text.
    public func json(indent: Int? = 2, level: Int = 0) -> String {
        jsonValue.json(indent: indent, level: level)
    }

    /// The database as a JSON value, members in Playwright's order.
    public var jsonValue: IDBJSONValue {
        .object([
            .init("name", .string(name)), .init("version", .number(Double(version))),
            .init("stores", .array(stores.map(\.jsonValue))),
        ])
    }

    /// Reads a database description from a JSON value.
    ///
    /// - Parameter jsonValue: the JSON of one database object.
    /// - Throws: `IDBError` `DataError` naming the member that is missing or of the wrong type.
    public init(jsonValue json: IDBJSONValue) throws {
        name = try PlaywrightField.string(json, "name", in: "a database")
        version = try PlaywrightField.int(json, "version", in: "database \(name)")
        stores = try PlaywrightField.array(json, "stores", in: "database \(name)").map {
            try PlaywrightIndexedDBStore(jsonValue: $0)
        }
    }

    /// Decodes a database description.

    ///

    /// - Parameter decoder: the decoder to read from.
    /// - Throws: `DecodingError` when it is not one.
    public init(from decoder: any Decoder) throws {
        try self.init(jsonValue: try IDBJSONValue(from: decoder))
    }

    /// Encodes the database description.

    ///

    /// - Parameter encoder: the encoder to write to.
    /// - Throws: the encoder's error.
    public func encode(to encoder: any Encoder) throws { try jsonValue.encode(to: encoder) }
}

/// One object store of a Playwright IndexedDB database: its definition, records and indexes.
public struct PlaywrightIndexedDBStore: Sendable, Hashable, Codable {
    /// The store's name.
    public var name: String
    /// Whether it has a key generator.
    public var autoIncrement: Bool
    /// A string key path, or `nil`.
    public var keyPath: String?
    /// An array key path, or `nil`.
    public var keyPathArray: [String]?
    /// The records, in key order.
    public var records: [PlaywrightIndexedDBRecord]
    /// The indexes.
    public var indexes: [PlaywrightIndexedDBIndex]

    /// Creates a store description.
    ///
    /// - Parameters:
    ///   - name: the store's name.
    ///   - autoIncrement: whether it has a key generator.
    ///   - keyPath: a string key path, or `nil`.
    ///   - keyPathArray: an array key path, or `nil`.
    ///   - records: the records, in key order.
    ///   - indexes: the indexes.
    public init(
        name: String, autoIncrement: Bool, keyPath: String? = nil, keyPathArray: [String]? = nil,
        records: [PlaywrightIndexedDBRecord], indexes: [PlaywrightIndexedDBIndex]
    ) {
        self.name = name
        self.autoIncrement = autoIncrement
        self.keyPath = keyPath
        self.keyPathArray = keyPathArray
        self.records = records
        self.indexes = indexes
    }

    /// The key path as a value (`keyPathArray` first, as Playwright's restore reads it).
    public var idbKeyPath: IDBKeyPath? {
        if let keyPathArray { return .array(keyPathArray) }
        return keyPath.map { .string($0) }
    }

    /// The store as JSON, members in Playwright's order.
    public var jsonValue: IDBJSONValue {
        var members: [IDBJSONValue.Member] = [
            .init("name", .string(name)), .init("records", .array(records.map(\.jsonValue))),
            .init("indexes", .array(indexes.map(\.jsonValue))), .init("autoIncrement", .bool(autoIncrement)),
        ]
        if let keyPath { members.append(.init("keyPath", .string(keyPath))) }
        if let keyPathArray { members.append(.init("keyPathArray", .array(keyPathArray.map { .string($0) }))) }
        return .object(members)
    }

    /// Reads a store description from a JSON value.
    ///
    /// - Parameter json: the JSON of one store object.
    /// - Throws: `IDBError` `DataError` naming the member that is missing or of the wrong type.
    public init(jsonValue json: IDBJSONValue) throws {
        name = try PlaywrightField.string(json, "name", in: "an object store")
        let context = "object store \(name)"
        autoIncrement = try PlaywrightField.bool(json, "autoIncrement", in: context)
        keyPath = try PlaywrightField.optionalString(json, "keyPath", in: context)
        keyPathArray = try PlaywrightField.optionalStrings(json, "keyPathArray", in: context)
        records = try PlaywrightField.array(json, "records", in: context).map {
            try PlaywrightIndexedDBRecord(jsonValue: $0)
        }
        indexes = try PlaywrightField.array(json, "indexes", in: context).map {
            try PlaywrightIndexedDBIndex(jsonValue: $0)
        }
    }

    /// Decodes a store description.

    ///

    /// - Parameter decoder: the decoder to read from.
    /// - Throws: `DecodingError` when it is not one.
    public init(from decoder: any Decoder) throws { try self.init(jsonValue: try IDBJSONValue(from: decoder)) }

    /// Encodes the store description.

    ///

    /// - Parameter encoder: the encoder to write to.
    /// - Throws: the encoder's error.
    public func encode(to encoder: any Encoder) throws { try jsonValue.encode(to: encoder) }
}

/// One index of a Playwright object store.
public struct PlaywrightIndexedDBIndex: Sendable, Hashable, Codable {
    /// The index's name.
    public var name: String
    /// A string key path, or `nil`.
    public var keyPath: String?
    /// An array key path, or `nil`.
    public var keyPathArray: [String]?
    /// Whether it is multi-entry.
    public var multiEntry: Bool
    /// Whether it is unique.
    public var unique: Bool

    /// Creates an index description.
    ///
    /// - Parameters:
    ///   - name: the index's name.
    ///   - keyPath: a string key path, or `nil`.
    ///   - keyPathArray: an array key path, or `nil`.
    ///   - multiEntry: whether it is multi-entry.
    ///   - unique: whether it is unique.
    public init(name: String, keyPath: String? = nil, keyPathArray: [String]? = nil, multiEntry: Bool, unique: Bool) {
        self.name = name
        self.keyPath = keyPath
        self.keyPathArray = keyPathArray
        self.multiEntry = multiEntry
        self.unique = unique
    }

    /// The key path as a value, or `nil` when the description has none.
    public var idbKeyPath: IDBKeyPath? {
        if let keyPathArray { return .array(keyPathArray) }
        return keyPath.map { .string($0) }
    }

    /// The index as JSON, members in Playwright's order.
    public var jsonValue: IDBJSONValue {
        var members: [IDBJSONValue.Member] = [.init("name", .string(name))]
        if let keyPath { members.append(.init("keyPath", .string(keyPath))) }
        if let keyPathArray { members.append(.init("keyPathArray", .array(keyPathArray.map { .string($0) }))) }
        members.append(.init("multiEntry", .bool(multiEntry)))
        members.append(.init("unique", .bool(unique)))
        return .object(members)
    }

    /// Reads an index description from a JSON value.
    ///
    /// - Parameter json: the JSON of one index object.
    /// - Throws: `IDBError` `DataError` naming the member that is missing or of the wrong type.
    public init(jsonValue json: IDBJSONValue) throws {
        name = try PlaywrightField.string(json, "name", in: "an index")
        let context = "index \(name)"
        keyPath = try PlaywrightField.optionalString(json, "keyPath", in: context)
        keyPathArray = try PlaywrightField.optionalStrings(json, "keyPathArray", in: context)
        multiEntry = try PlaywrightField.bool(json, "multiEntry", in: context)
        unique = try PlaywrightField.bool(json, "unique", in: context)
    }

    /// Decodes an index description.

    ///

    /// - Parameter decoder: the decoder to read from.
    /// - Throws: `DecodingError` when it is not one.
    public init(from decoder: any Decoder) throws { try self.init(jsonValue: try IDBJSONValue(from: decoder)) }

    /// Encodes the index description.

    ///

    /// - Parameter encoder: the encoder to write to.
    /// - Throws: the encoder's error.
    public func encode(to encoder: any Encoder) throws { try jsonValue.encode(to: encoder) }
}

/// One record of a Playwright object store.
///
/// The key is present only for stores with out-of-line keys (in-line keys are in the value):
/// as plain JSON (`key`) when JSON can hold it, else serialized (`keyEncoded`). The value
/// likewise (`value` or `valueEncoded`). Plain JSON is used for values made only of objects,
/// arrays, strings, booleans, finite numbers and nested nulls; a value that is `null` itself
/// is serialized, as Playwright's restore would read a plain `null` as `undefined`.
public struct PlaywrightIndexedDBRecord: Sendable, Hashable, Codable {
    /// The key as plain JSON.
    public var key: IDBJSONValue?
    /// The key, serialized.
    public var keyEncoded: PlaywrightSerializedValue?
    /// The value as plain JSON.
    public var value: IDBJSONValue?
    /// The value, serialized.
    public var valueEncoded: PlaywrightSerializedValue?

    /// Creates a record from its JSON members.
    ///
    /// - Parameters:
    ///   - key: the key as plain JSON.
    ///   - keyEncoded: the key, serialized.
    ///   - value: the value as plain JSON.
    ///   - valueEncoded: the value, serialized.
    public init(
        key: IDBJSONValue? = nil, keyEncoded: PlaywrightSerializedValue? = nil,
        value: IDBJSONValue? = nil, valueEncoded: PlaywrightSerializedValue? = nil
    ) {
        self.key = key
        self.keyEncoded = keyEncoded
        self.value = value
        self.valueEncoded = valueEncoded
    }

    /// Describes a record as Playwright would.
    ///
    /// - Parameters:
    ///   - key: the key, for a store with out-of-line keys; `nil` for in-line keys.
    ///   - value: the value.
    public init(key: IDBKey?, value: IDBValue) {
        if let key {
            if let plain = PlaywrightPlainJSON.json(key.value, topLevel: true) {
                self.key = plain
            } else {
                keyEncoded = PlaywrightSerializedValue(key.value)
            }
        }
        if let plain = PlaywrightPlainJSON.json(value, topLevel: true) {
            self.value = plain
        } else {
            valueEncoded = PlaywrightSerializedValue(value)
        }
    }

    /// The record's key, or `nil` when it has none (in-line keys).
    ///
    /// - Returns: the key.
    /// - Throws: `IDBError` `DataError` when what is there is not a valid key.
    public func decodedKey() throws -> IDBKey? {
        let value: IDBValue
        if let key {
            value = PlaywrightPlainJSON.value(key)
        } else if let keyEncoded {
            value = try keyEncoded.value()
        } else {
            return nil
        }
        guard let key = value.key else { throw IDBError(.data, "the record key \(value) is not a valid key") }
        return key
    }

    /// The record's value (`undefined` when it has neither `value` nor `valueEncoded`).
    ///
    /// - Returns: the value.
    /// - Throws: `IDBError` as `PlaywrightSerializedValue.value()`.
    public func decodedValue() throws -> IDBValue {
        if let value { return PlaywrightPlainJSON.value(value) }
        if let valueEncoded { return try valueEncoded.value() }
        return .undefined
    }

    /// The record as JSON, members in Playwright's order.
    public var jsonValue: IDBJSONValue {
        var members: [IDBJSONValue.Member] = []
        if let key { members.append(.init("key", key)) }
        if let keyEncoded { members.append(.init("keyEncoded", keyEncoded.json)) }
        if let value { members.append(.init("value", value)) }
        if let valueEncoded { members.append(.init("valueEncoded", valueEncoded.json)) }
        return .object(members)
    }

    /// Reads a record from a JSON value.
    ///
    /// - Parameter json: the JSON of one record object.
    /// - Throws: `IDBError` `DataError` for a member of the wrong form.
    public init(jsonValue json: IDBJSONValue) throws {
        guard case .object = json else { throw IDBError(.data, "a record is not a JSON object") }
        key = json["key"]
        keyEncoded = try json["keyEncoded"].map { try PlaywrightSerializedValue(json: $0) }
        value = json["value"]
        valueEncoded = try json["valueEncoded"].map { try PlaywrightSerializedValue(json: $0) }
    }

    /// Decodes a record.

    ///

    /// - Parameter decoder: the decoder to read from.
    /// - Throws: `DecodingError` when it is not one.
    public init(from decoder: any Decoder) throws { try self.init(jsonValue: try IDBJSONValue(from: decoder)) }

    /// Encodes the record.

    ///

    /// - Parameter encoder: the encoder to write to.
    /// - Throws: the encoder's error.
    public func encode(to encoder: any Encoder) throws { try jsonValue.encode(to: encoder) }
}

/// Values as plain JSON (`key`, `value`), when JSON can hold them exactly.
enum PlaywrightPlainJSON {
    /// The value as plain JSON, or `nil` when JSON would change it (dates, binary, NaN, `-0`,
    /// `undefined`, BigInts…, or `null` at the top, which Playwright's restore reads as `undefined`).
    static func json(_ value: IDBValue, topLevel: Bool = false, depth: Int = 0) -> IDBJSONValue? {
        switch value {
        case .null: return topLevel ? nil : .null
        case .bool(let flag): return .bool(flag)
        case .number(let number):
            guard number.isFinite, !(number == 0 && number.sign == .minus) else { return nil }
            return .number(number)
        case .string(let text): return .string(text)
        case .array(let elements):
            guard depth < IDBValue.maxDepth else { return nil }
            var items: [IDBJSONValue] = []
            for element in elements {
                guard let item = json(element, depth: depth + 1) else { return nil }
                items.append(item)
            }
            return .array(items)
        case .object(let object):
            guard depth < IDBValue.maxDepth, !object.properties.contains(where: { $0.name == "__proto__" }) else {
                return nil
            }
            var members: [IDBJSONValue.Member] = []
            for property in object.properties {
                guard let item = json(property.value, depth: depth + 1) else { return nil }
                members.append(.init(property.name, item))
            }
            return .object(members)
        default: return nil
        }
    }

    /// The value plain JSON stands for; a repeated member name keeps its first place and last value.
    static func value(_ json: IDBJSONValue) -> IDBValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let number): return .number(number)
        case .string(let text): return .string(text)
        case .array(let items): return .array(items.map(value))
        case .object(let members): return .object(IDBObject(members.map { ($0.name, value($0.value)) }))
        }
    }
}

/// Reading typed members of Playwright's JSON objects, with errors that say where.
enum PlaywrightField {
    static func member(_ json: IDBJSONValue, _ name: String, in context: String) throws(IDBError) -> IDBJSONValue {
        guard case .object = json else { throw IDBError(.data, "\(context) is not a JSON object") }
        guard let value = json[name] else { throw IDBError(.data, "\(context) has no \"\(name)\"") }
        return value
    }

    static func string(_ json: IDBJSONValue, _ name: String, in context: String) throws(IDBError) -> String {
        guard case .string(let text) = try member(json, name, in: context) else {
            throw IDBError(.data, "\"\(name)\" of \(context) is not a string")
        }
        return text
    }

    static func int(_ json: IDBJSONValue, _ name: String, in context: String) throws(IDBError) -> Int {
        guard case .number(let number) = try member(json, name, in: context), let whole = Int(exactly: number) else {
            throw IDBError(.data, "\"\(name)\" of \(context) is not a whole number")
        }
        return whole
    }

    static func bool(_ json: IDBJSONValue, _ name: String, in context: String) throws(IDBError) -> Bool {
        guard case .bool(let flag) = try member(json, name, in: context) else {
            throw IDBError(.data, "\"\(name)\" of \(context) is not true or false")
        }
        return flag
    }

    static func array(_ json: IDBJSONValue, _ name: String, in context: String) throws(IDBError) -> [IDBJSONValue] {
        guard case .array(let items) = try member(json, name, in: context) else {
            throw IDBError(.data, "\"\(name)\" of \(context) is not an array")
        }
        return items
    }

    static func optionalString(_ json: IDBJSONValue, _ name: String, in context: String) throws(IDBError) -> String? {
        switch json[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw IDBError(.data, "\"\(name)\" of \(context) is not a string")
        }
    }

    static func optionalStrings(_ json: IDBJSONValue, _ name: String, in context: String) throws(IDBError) -> [String]?
    {
        switch json[name] {
        case nil, .null?: return nil
        case .array(let items)?:
            var strings: [String] = []
            for item in items {
                guard case .string(let text) = item else {
                    throw IDBError(.data, "\"\(name)\" of \(context) holds something not a string")
                }
                strings.append(text)
            }
            return strings
        default: throw IDBError(.data, "\"\(name)\" of \(context) is not an array of strings")
        }
    }
}
