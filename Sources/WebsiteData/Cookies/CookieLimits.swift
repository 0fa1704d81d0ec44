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
    /// Chromium refreshes a cookie's stored last-access time at most once a minute.
    static let lastAccessPersistInterval: TimeInterval = 60
}
