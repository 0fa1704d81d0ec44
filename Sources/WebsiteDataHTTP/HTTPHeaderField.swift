/// One header field of a request or a response: a name and a value, as sent or received.
///
/// Header lists are ordered arrays of fields, duplicates kept (several `Set-Cookie` fields stay
/// several fields). Names compare case-insensitively through the helpers on `[HTTPHeaderField]`;
/// the field keeps the spelling it was given or received with.
public struct HTTPHeaderField: Sendable, Hashable, CustomStringConvertible {
    /// The field name, as written (`Set-Cookie`, `content-type`, …).
    public var name: String
    /// The field value, without the whitespace around it.
    public var value: String

    /// Creates a header field.
    ///
    /// - Parameters:
    ///   - name: the field name; compared case-insensitively.
    ///   - value: the field value.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// `Name: value`.
    public var description: String { "\(name): \(value)" }

    /// Whether the field's name is `name`, ignoring ASCII case.
    ///
    /// - Parameter name: the name to compare with.
    /// - Returns: `true` when the names are equal ignoring case.
    public func hasName(_ name: String) -> Bool {
        self.name.utf8.count == name.utf8.count && self.name.lowercased() == name.lowercased()
    }
}

extension Array where Element == HTTPHeaderField {
    /// The value of the first field named `name` (case-insensitive), or `nil`.
    ///
    /// - Parameter name: the field name.
    /// - Returns: the first value, or `nil` when no field has that name.
    public func first(named name: String) -> String? {
        first { $0.hasName(name) }?.value
    }

    /// The values of every field named `name` (case-insensitive), in order.
    ///
    /// - Parameter name: the field name.
    /// - Returns: the values, in the order of the list; empty when there is none.
    public func values(named name: String) -> [String] {
        filter { $0.hasName(name) }.map(\.value)
    }

    /// Removes every field named `name` (case-insensitive).
    ///
    /// - Parameter name: the field name.
    public mutating func removeAll(named name: String) {
        removeAll { $0.hasName(name) }
    }
}
