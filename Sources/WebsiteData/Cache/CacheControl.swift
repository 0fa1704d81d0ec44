/// The directives of `Cache-Control` header fields (RFC 9111 §5.2), parsed robustly.
///
/// Every `Cache-Control` field of a message is one comma-separated list (RFC 9110 §5.3).
/// A member is `name` or `name=value`, the value a token or a quoted string; commas and
/// `=` inside quotes do not split (`extension="max-age=1, x"` is one member). Names are
/// compared ignoring case. A member that is not well formed (`max-age =5`, `max-age= 5`,
/// a name that is not a token) is ignored as a whole, as RFC 9111 §5.2 lets a cache ignore
/// what it does not understand. When a directive appears more than once the first
/// occurrence is used (RFC 9111 §4.2.1).
public struct CacheControl: Sendable, Hashable {
    /// The directives by lower-case name: `nil` for a directive without an argument,
    /// otherwise its argument with quoting removed.
    public private(set) var directives: [String: String?] = [:]

    /// Parses the values of every `Cache-Control` field of a message, in order.
    ///
    /// - Parameter values: the field values.
    public init(_ values: [String]) {
        for value in values { parse(value) }
    }

    /// Parses the `Cache-Control` fields of a header list.
    ///
    /// - Parameter headers: the message's header fields.
    public init(headers: HTTPHeaders) {
        self.init(headers.values(named: "Cache-Control"))
    }

    /// Whether a directive is present (with or without an argument).
    ///
    /// - Parameter name: the directive name, compared ignoring case.
    /// - Returns: `true` when present.
    public func contains(_ name: String) -> Bool { !directives.isEmpty && directives[Self.key(name)] != nil }

    /// The argument of a directive, with quoting removed; `nil` when absent or without an argument.
    ///
    /// - Parameter name: the directive name, compared ignoring case.
    /// - Returns: the argument.
    public func argument(_ name: String) -> String? { directives.isEmpty ? nil : directives[Self.key(name)] ?? nil }

    /// A delta-seconds argument (RFC 9111 §1.2.2): `nil` when the directive is absent, `.invalid`
    /// when its argument is not a number, and a value clamped to 2^31 (the RFC's "infinity").
    ///
    /// Leading digits are read (`3600.0` and `3600a` are 3600, as several browsers read them);
    /// an argument that does not start with a digit (`-1`, `'5'`, none) is invalid.
    ///
    /// - Parameter name: the directive name.
    /// - Returns: the number of seconds, or whether it is absent or invalid.
    public func seconds(_ name: String) -> DeltaSeconds? {
        guard !directives.isEmpty, let entry = directives[Self.key(name)] else { return nil }
        guard let text = entry else { return .invalid }
        var value: Int64 = 0
        var digits = 0
        for c in text.utf8 {
            guard c >= 48 && c <= 57 else { break }
            digits += 1
            value = min(value * 10 + Int64(c - 48), DeltaSeconds.maximum)
        }
        return digits == 0 ? .invalid : .seconds(value)
    }

    /// The field names listed in a qualified `no-cache` or `private` directive
    /// (`no-cache="Set-Cookie, X-Foo"`), in lower case.
    ///
    /// - Parameter name: `no-cache` or `private`.
    /// - Returns: the names; empty for the unqualified form.
    public func fieldNames(_ name: String) -> [String] {
        guard let argument = argument(name) else { return [] }
        return argument.split(separator: ",").map { $0.trimmingHTTPWhitespace().lowercased() }.filter { !$0.isEmpty }
    }

    /// A directive name as the dictionary keys it: names are asked for in lower case, and
    /// `lowercased()` on each question was a twentieth of a memory-cache hit.
    private static func key(_ name: String) -> String {
        name.utf8.contains { $0 >= 65 && $0 <= 90 } ? name.lowercased() : name
    }

    // MARK: Parsing

    private mutating func parse(_ value: String) {
        let bytes = Array(value.utf8)
        var i = 0
        while i < bytes.count {
            // One member: everything up to a comma outside quotes.
            let start = i
            var inQuotes = false
            while i < bytes.count {
                let c = bytes[i]
                if inQuotes {
                    if c == 92 {
                        i += 2
                        continue
                    } // backslash escape
                    if c == 34 { inQuotes = false }
                } else if c == 34 {
                    inQuotes = true
                } else if c == 44 {
                    break
                }
                i += 1
            }
            let member = bytes[start..<min(i, bytes.count)]
            i += 1 // the comma
            if let (name, argument) = Self.member(member), directives[name] == nil {
                directives[name] = .some(argument)
            }
        }
    }

    /// `token [ "=" ( token / quoted-string ) ]`, with optional whitespace around the member only.
    private static func member(_ raw: ArraySlice<UInt8>) -> (String, String?)? {
        var s = raw
        while let c = s.first, c == 32 || c == 9 { s = s.dropFirst() }
        while let c = s.last, c == 32 || c == 9 { s = s.dropLast() }
        guard !s.isEmpty else { return nil }
        var nameEnd = s.startIndex
        while nameEnd < s.endIndex, isTokenChar(s[nameEnd]) { nameEnd += 1 }
        guard nameEnd > s.startIndex else { return nil }
        let name = String(decoding: s[s.startIndex..<nameEnd], as: UTF8.self).lowercased()
        if nameEnd == s.endIndex { return (name, nil) }
        guard s[nameEnd] == 61 else { return nil } // "=" must follow the name directly
        let valueStart = nameEnd + 1
        guard valueStart < s.endIndex else { return nil }
        if s[valueStart] == 34 {
            var result: [UInt8] = []
            var j = valueStart + 1
            while j < s.endIndex {
                let c = s[j]
                if c == 92, j + 1 < s.endIndex {
                    result.append(s[j + 1])
                    j += 2
                    continue
                }
                if c == 34 { break }
                result.append(c)
                j += 1
            }
            guard j < s.endIndex, j == s.endIndex - 1 else { return nil } // unterminated, or text after the quote
            return (name, String(decoding: result, as: UTF8.self))
        }
        let value = s[valueStart..<s.endIndex]
        guard value.allSatisfy(isTokenChar) else { return nil }
        return (name, String(decoding: value, as: UTF8.self))
    }

    /// RFC 9110 §5.6.2 tchar.
    package static func isTokenChar(_ c: UInt8) -> Bool {
        switch c {
        case 48...57, 65...90, 97...122: return true
        case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: return true
        default: return false
        }
    }
}

/// A delta-seconds directive argument: a number of seconds, or invalid.
public enum DeltaSeconds: Sendable, Hashable {
    /// A valid number of seconds, at most 2^31.
    case seconds(Int64)
    /// Present but not a number.
    case invalid

    /// 2^31, which RFC 9111 §1.2.2 says a cache uses for any larger value.
    public static let maximum: Int64 = 2_147_483_648

    /// The number of seconds, or `nil` when invalid.
    public var value: Int64? {
        if case .seconds(let n) = self { return n }
        return nil
    }
}

extension StringProtocol {
    /// The text without the spaces and tabs around it (RFC 9110 OWS).
    package func trimmingHTTPWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}
