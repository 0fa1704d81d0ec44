/// One header field of a request or a response: a name and a value, as sent or received.
///
/// Header lists are ordered, duplicates kept (several `Set-Cookie` fields stay several
/// fields): `[HTTPHeaderField]` in `WebsiteDataHTTP`'s requests and responses, `HTTPHeaders`
/// in the cache. The field keeps the spelling it was given or received with; names compare
/// ignoring ASCII case (RFC 9110 §5.1), through `hasName(_:)` and the helpers built on it.
public struct HTTPHeaderField: Sendable, Hashable, CustomStringConvertible {
    /// The field name, as written (`Set-Cookie`, `content-type`, …).
    public var name: String
    /// The field value, without the whitespace around it.
    public var value: String

    /// Creates a header field.
    ///
    /// - Parameters:
    ///   - name: the field name; compared ignoring ASCII case.
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
    /// - Returns: `true` when the names are equal ignoring ASCII case.
    public func hasName(_ name: String) -> Bool { Self.namesEqual(self.name, name) }

    /// Whether two field names are equal ignoring ASCII case: the one comparison of names.
    static func namesEqual(_ a: String, _ b: String) -> Bool {
        let x = a.utf8
        let y = b.utf8
        guard x.count == y.count else { return false }
        for (c, d) in zip(x, y) where c != d {
            let lc = c >= 65 && c <= 90 ? c + 32 : c
            let ld = d >= 65 && d <= 90 ? d + 32 : d
            if lc != ld { return false }
        }
        return true
    }
}

extension Array where Element == HTTPHeaderField {
    /// The value of the first field named `name` (ignoring ASCII case), or `nil`.
    ///
    /// - Parameter name: the field name.
    /// - Returns: the first value, or `nil` when no field has that name.
    public func first(named name: String) -> String? {
        first { $0.hasName(name) }?.value
    }

    /// The values of every field named `name` (ignoring ASCII case), in order.
    ///
    /// - Parameter name: the field name.
    /// - Returns: the values, in the order of the list; empty when there is none.
    public func values(named name: String) -> [String] {
        compactMap { $0.hasName(name) ? $0.value : nil }
    }

    /// Removes every field named `name` (ignoring ASCII case).
    ///
    /// - Parameter name: the field name.
    public mutating func removeAll(named name: String) {
        removeAll { $0.hasName(name) }
    }
}
