import Foundation

/// Where a record's key (or an index's key) is found in its value.
///
/// A string path is empty (the value itself), one identifier (`id`) or identifiers joined by
/// dots (`author.name`), evaluated property by property; `length` of a string or an array is
/// its length. An array of string paths makes an array key of what each finds.
/// (IndexedDB 3.0, "key path" and "evaluate a key path on a value".)
public enum IDBKeyPath: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral
{
    /// One path: `""`, `"id"` or `"a.b.c"`.
    case string(String)
    /// Several paths, whose results make an array key.
    case array([String])

    /// A string key path from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array key path from a literal.
    public init(arrayLiteral elements: String...) { self = .array(elements) }

    /// The path as JavaScript would show it: `"a.b"` or `["a", "b"]`.
    public var description: String {
        switch self {
        case .string(let path): "\"\(path)\""
        case .array(let paths): "[" + paths.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
        }
    }

    /// Whether the path is valid: each string empty or identifiers joined by dots; an array not empty.
    public var isValid: Bool {
        switch self {
        case .string(let path): return Self.isValidPath(path)
        case .array(let paths): return !paths.isEmpty && paths.allSatisfy(Self.isValidPath)
        }
    }

    /// Checks the path is valid.
    ///
    /// - Throws: `IDBError` `SyntaxError`.
    func validate() throws(IDBError) {
        guard isValid else { throw IDBError(.syntax, "\(self) is not a valid key path") }
    }

    static func isValidPath(_ path: String) -> Bool {
        if path.isEmpty { return true }
        return path.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { isIdentifier($0) }
    }

    /// An ECMAScript IdentifierName: ID_Start, `$` or `_`, then ID_Continue, `$`, ZWNJ or ZWJ.
    static func isIdentifier(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first else { return false }
        guard first.properties.isIDStart || first == "$" || first == "_" else { return false }
        return text.unicodeScalars.dropFirst().allSatisfy {
            $0.properties.isIDContinue || $0 == "$" || $0 == "\u{200C}" || $0 == "\u{200D}"
        }
    }

    /// Evaluates the path on a value, or `nil` when a property along it does not exist.
    func evaluate(on value: IDBValue) -> IDBValue? {
        switch self {
        case .array(let paths):
            var results: [IDBValue] = []
            for path in paths {
                guard let result = Self.evaluate(path, on: value) else { return nil }
                results.append(result)
            }
            return .array(results)
        case .string(let path):
            return Self.evaluate(path, on: value)
        }
    }

    private static func evaluate(_ path: String, on value: IDBValue) -> IDBValue? {
        if path.isEmpty { return value }
        var current = value
        for identifier in path.split(separator: ".", omittingEmptySubsequences: false) {
            switch current {
            case .string(let text) where identifier == "length": current = .number(Double(text.utf16.count))
            case .array(let elements) where identifier == "length": current = .number(Double(elements.count))
            case .object(let object):
                guard let next = object[String(identifier)] else { return nil }
                current = next
            default: return nil
            }
        }
        return current
    }

    /// What a key path finds in a value: a key, something that is not a valid key, or nothing.
    enum Extraction {
        case key(IDBKey)
        case invalid
        case none
    }

    /// Extracts a key from a value ("extract a key from a value using a key path").
    func extractKey(from value: IDBValue) -> Extraction {
        guard let result = evaluate(on: value) else { return .none }
        guard let key = result.key else { return .invalid }
        return .key(key)
    }

    /// The keys an index with this path holds for a value: none when the path finds no valid key.
    func indexKeys(for value: IDBValue, multiEntry: Bool) -> [IDBKey] {
        guard let result = evaluate(on: value) else { return [] }
        if multiEntry { return result.multiEntryKeys }
        return result.key.map { [$0] } ?? []
    }

    /// Whether a generated key could be put at this (string) path in the value:
    /// every existing step along it is an object ("check that a key could be injected into a value").
    func canInject(into value: IDBValue) -> Bool {
        guard case .string(let path) = self else { return false }
        var identifiers = path.split(separator: ".", omittingEmptySubsequences: false)
        guard !identifiers.isEmpty, !path.isEmpty else { return false }
        identifiers.removeLast()
        var current = value
        for identifier in identifiers {
            guard case .object(let object) = current else { return false }
            guard let next = object[String(identifier)] else { return true }
            current = next
        }
        if case .object = current { return true }
        return false
    }

    /// The value with a key put at this (string) path, creating objects along it as needed
    /// ("inject a key into a value using a key path"). Call only when `canInject(into:)` is true.
    func inject(_ key: IDBKey, into value: IDBValue) -> IDBValue {
        guard case .string(let path) = self else { return value }
        let identifiers = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return Self.inject(key.value, at: identifiers[...], into: value)
    }

    private static func inject(_ keyValue: IDBValue, at identifiers: ArraySlice<String>, into value: IDBValue)
        -> IDBValue
    {
        guard let first = identifiers.first, case .object(var object) = value else { return value }
        if identifiers.count == 1 {
            object[first] = keyValue
        } else {
            let child = object[first] ?? .object(IDBObject())
            object[first] = inject(keyValue, at: identifiers.dropFirst(), into: child)
        }
        return .object(object)
    }

    /// The path as stored in the catalog: JSON text (`"a.b"` or `["a","b"]`).
    var storedText: String {
        switch self {
        case .string(let path): return OrderedJSON.write(.string(path))
        case .array(let paths): return OrderedJSON.write(.array(paths.map { .string($0) }))
        }
    }

    /// Reads a path the catalog stored.
    init?(storedText: String) {
        switch try? OrderedJSON.parse(Array(storedText.utf8)) {
        case .string(let path)?: self = .string(path)
        case .array(let items)?:
            var paths: [String] = []
            for item in items {
                guard case .string(let path) = item else { return nil }
                paths.append(path)
            }
            self = .array(paths)
        default: return nil
        }
    }
}
