import Foundation

/// How many cookies a store keeps before it evicts, per site and in all.
///
/// Browsers keep 180 per site and 3000 in all (Chromium's numbers); a crawler that visits
/// many sites raises `maxTotal`. Stored in the store's settings as `cookies.max-per-site` and
/// `cookies.max-total`.
public struct CookieLimits: Sendable, Hashable, Codable {
    /// Cookies kept per site (display name) before the least recently used are evicted.
    public var maxPerSite: Int
    /// Cookies kept in the whole store before the least recently used are evicted.
    public var maxTotal: Int

    /// Creates limits.
    public init(maxPerSite: Int = 180, maxTotal: Int = 3000) {
        self.maxPerSite = maxPerSite
        self.maxTotal = maxTotal
    }

    /// The browser defaults: 180 per site, 3000 in all.
    public static let browserDefaults = CookieLimits()
}

/// Fixed limits of the cookie engine, each with the section of RFC 6265bis that sets it.
package enum CookieRules {
    /// 5.6: a cookie whose name and value together exceed this many bytes is ignored.
    package static let maxNameValueBytes = 4096
    /// 5.6: an attribute value longer than this is ignored.
    package static let maxAttributeValueBytes = 1024
    /// 5.6.1/5.6.2: expiry is capped at 400 days from when the cookie is set.
    static let maxAgeCap: TimeInterval = 400 * 24 * 3600
    /// What makes a `Set-Cookie` value one the parser ignores (RFC 6265bis 5.6 steps 1, 5 and
    /// 6), in words a user can act on: the first control character, an empty name and value, or
    /// a name and value over `maxNameValueBytes`. Only called once the parser refused the value.
    package static func whyIgnored(_ header: String) -> String {
        if let control = header.unicodeScalars.first(where: isControl) {
            return "it holds the control character U+\(hex(control))"
        }
        let pair = header.prefix { $0 != ";" }
        let name = pair.prefix { $0 != "=" }
        let value = pair.dropFirst(name.count + 1)
        return pairProblem(name: trimmed(name), value: trimmed(value)) ?? "not a valid Set-Cookie value"
    }

    /// What is wrong with a cookie's name and value, or `nil` when they are well formed: a
    /// control character, an empty name and value, or a name and value over `maxNameValueBytes`.
    static func pairProblem(name: some StringProtocol, value: some StringProtocol) -> String? {
        if let control = (name.unicodeScalars.first(where: isControl) ?? value.unicodeScalars.first(where: isControl)) {
            return "it holds the control character U+\(hex(control))"
        }
        if name.isEmpty && value.isEmpty { return "its name and value are empty" }
        let bytes = name.utf8.count + value.utf8.count
        if bytes > maxNameValueBytes {
            return "its name and value are \(bytes) bytes, over the \(maxNameValueBytes)-byte limit"
        }
        return nil
    }

    /// RFC 6265bis 5.6 step 1: control characters other than horizontal tab.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar.value != 0x09) || scalar.value == 0x7F
    }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return text[first...last]
    }

    /// Chromium refreshes a cookie's stored last-access time at most once a minute.
    static let lastAccessPersistInterval: TimeInterval = 60
}
