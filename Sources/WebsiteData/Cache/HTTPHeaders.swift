/// An ordered list of HTTP header fields, duplicates kept, names compared ignoring ASCII case.
///
/// The cache works on header lists as they travel: the order of the fields and repeated
/// names are kept (two `Cache-Control` lines stay two fields), and each field keeps the
/// spelling it was received with. `subscript(name)` combines repeated fields with `", "`, as
/// Fetch's `Headers.get` does, which is how list-valued fields (RFC 9110 §5.3) are read.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    CustomStringConvertible
{
    /// The fields, in order.
    public private(set) var fields: [HTTPHeaderField]

    /// Creates an empty list.
    public init() { fields = [] }

    /// Creates a list from fields.
    ///
    /// - Parameter fields: the fields, in order.
    public init(_ fields: [HTTPHeaderField]) { self.fields = fields }

    /// Creates a list from `(name, value)` pairs.
    ///
    /// - Parameter pairs: the fields as pairs, in order.
    public init(_ pairs: [(String, String)]) { fields = pairs.map { HTTPHeaderField($0.0, $0.1) } }

    /// Creates a list from `(name, value)` pairs written as a literal.
    ///
    /// - Parameter elements: the fields as pairs, in order.
    public init(arrayLiteral elements: (String, String)...) { self.init(elements) }

    /// Creates a list from `name: value` pairs written as a dictionary literal, in the order
    /// written (a name may repeat).
    ///
    /// - Parameter elements: the fields as pairs, in order.
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether the list has no field.
    public var isEmpty: Bool { fields.isEmpty }

    /// An iterator over the fields, in order.
    ///
    /// - Returns: the iterator.
    public func makeIterator() -> IndexingIterator<[HTTPHeaderField]> { fields.makeIterator() }

    /// The value of the fields named `name`, combined with `", "`; `nil` when there is none.
    ///
    /// - Parameter name: the field name, compared ignoring ASCII case.
    public subscript(name: String) -> String? {
        var result: String?
        for field in fields where field.hasName(name) {
            if let existing = result { result = existing + ", " + field.value } else { result = field.value }
        }
        return result
    }

    /// The values of every field named `name`, in order.
    ///
    /// - Parameter name: the field name, compared ignoring ASCII case.
    /// - Returns: the values; empty when there is none.
    public func values(named name: String) -> [String] {
        fields.compactMap { $0.hasName(name) ? $0.value : nil }
    }

    /// The value of the first field named `name`, or `nil`.
    ///
    /// - Parameter name: the field name, compared ignoring ASCII case.
    /// - Returns: the first value.
    public func first(named name: String) -> String? {
        fields.first { $0.hasName(name) }?.value
    }

    /// Whether a field named `name` is present.
    ///
    /// - Parameter name: the field name, compared ignoring ASCII case.
    /// - Returns: `true` when at least one field has that name.
    public func contains(_ name: String) -> Bool {
        fields.contains { $0.hasName(name) }
    }

    /// Appends a field after the others (a repeated name makes a second field).
    ///
    /// - Parameters:
    ///   - name: the field name.
    ///   - value: the field value.
    public mutating func append(_ name: String, _ value: String) {
        fields.append(HTTPHeaderField(name, value))
    }

    /// Replaces every field named `name` with one field holding `value`, at the place of the
    /// first one (or at the end when there was none).
    ///
    /// - Parameters:
    ///   - name: the field name.
    ///   - value: the new value.
    public mutating func set(_ name: String, _ value: String) {
        if let index = fields.firstIndex(where: { $0.hasName(name) }) {
            fields[index] = HTTPHeaderField(fields[index].name, value)
            var i = fields.count - 1
            while i > index {
                if fields[i].hasName(name) { fields.remove(at: i) }
                i -= 1
            }
        } else {
            fields.append(HTTPHeaderField(name, value))
        }
    }

    /// Removes every field named `name`.
    ///
    /// - Parameter name: the field name, compared ignoring ASCII case.
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.hasName(name) }
    }

    /// Removes every field whose name is in `names` (lower case).
    ///
    /// - Parameter names: lower-case field names.
    mutating func remove(lowercasedNames names: Set<String>) {
        guard !names.isEmpty else { return }
        fields.removeAll { names.contains($0.name.lowercased()) }
    }

    /// One `Name: value` line per field.
    public var description: String { fields.map(\.description).joined(separator: "\n") }

    /// The bytes the fields take as `name: value\r\n` lines, the measure used for cache sizes.
    var byteCount: Int { fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 } }
}

extension HTTPHeaders {
    /// The fields as `name: value` lines, for storage. Line breaks inside a value (never valid
    /// in HTTP) become spaces so that each field stays one line.
    package var serialized: String {
        var text = ""
        text.reserveCapacity(byteCount)
        for field in fields {
            text += Self.oneLine(field.name)
            text += ": "
            text += Self.oneLine(field.value)
            text += "\n"
        }
        return text
    }

    /// Reads fields written by `serialized`.
    ///
    /// It reads the text's bytes: splitting it as a `String` was a sixth of a disk-cache hit.
    package init(serialized text: String) {
        var text = text
        text.makeContiguousUTF8()
        let fields = text.utf8.withContiguousStorageIfAvailable { bytes -> [HTTPHeaderField] in
            var fields: [HTTPHeaderField] = []
            var start = 0
            while start < bytes.count {
                var end = start
                var colon: Int?
                while end < bytes.count && bytes[end] != 10 {
                    if colon == nil && bytes[end] == 58 { colon = end }
                    end += 1
                }
                if let colon {
                    var valueStart = colon + 1
                    if valueStart < end && bytes[valueStart] == 32 { valueStart += 1 }
                    fields.append(
                        HTTPHeaderField(
                            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<colon]), as: UTF8.self),
                            String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<end]), as: UTF8.self)))
                }
                start = end + 1
            }
            return fields
        }
        self.init(fields ?? [])
    }

    private static func oneLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 10 || $0 == 13 }) else { return text }
        return String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
    }
}
