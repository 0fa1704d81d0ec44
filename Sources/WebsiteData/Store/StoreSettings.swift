import Foundation

/// A setting kept in the store, shared by every process that opens it.
public struct StoreSetting: Sendable, Hashable, CustomStringConvertible {
    /// The key, as `wkstore config` takes it (`cookies.max-total`).
    public let key: String
    /// What it controls.
    public let summary: String
    /// The value when none is set.
    public let defaultValue: String
    let validate: @Sendable (String) -> String?

    /// The key.
    public var description: String { key }

    /// Cookies kept per site before eviction.
    public static let cookiesMaxPerSite = StoreSetting(
        key: "cookies.max-per-site", summary: "cookies kept per site before the least recently used are evicted",
        defaultValue: "180", validate: positiveInteger)
    /// Cookies kept in all before eviction.
    public static let cookiesMaxTotal = StoreSetting(
        key: "cookies.max-total", summary: "cookies kept in the whole store before the least recently used are evicted",
        defaultValue: "3000", validate: positiveInteger)
    /// The cookie policy: allow-all, block-third-party or disallow.
    public static let cookiesPolicy = StoreSetting(
        key: "cookies.policy", summary: "allow-all, block-third-party or disallow",
        defaultValue: CookiePolicy.allowAll.rawValue,
        validate: {
            CookiePolicy(rawValue: $0) == nil ? "expected one of: allow-all, block-third-party, disallow" : nil
        })

    /// Bytes of web storage per origin: its localStorage, and its sessionStorage in each namespace.
    public static let localStorageQuota = StoreSetting(
        key: "localstorage.quota",
        summary:
            "bytes of localStorage (and of sessionStorage per namespace) per origin, keys and values counted in UTF-16 code units of 2 bytes",
        defaultValue: "5242880", validate: positiveInteger)

    /// How long the change log keeps an entry, in seconds: a change feed resumed from a
    /// position within it continues where it stopped; an older position reloads.
    public static let changesKeepSeconds = StoreSetting(
        key: "changes.keep-seconds",
        summary: "seconds the change log keeps each change, for observers that resume from a position",
        defaultValue: "86400", validate: positiveInteger)
    /// How many entries the change log keeps at most, whatever their age.
    public static let changesKeepEntries = StoreSetting(
        key: "changes.keep-entries", summary: "changes the change log keeps at most, whatever their age",
        defaultValue: "100000", validate: positiveInteger)

    /// Every setting this version knows.
    public static var all: [StoreSetting] {
        [
            cookiesMaxPerSite, cookiesMaxTotal, cookiesPolicy, cacheMaxSize, memoryCacheMaxSize,
            cacheStoresCookieHeaders, localStorageQuota, changesKeepSeconds, changesKeepEntries, httpProxy,
            httpUserAgent, httpAcceptLanguage,
        ]
    }

    /// The setting's value in a store's `values` (its default when unset).
    func value(in values: [String: String]) -> String { values[key] ?? defaultValue }

    /// The setting with this key.
    public static func named(_ key: String) -> StoreSetting? { all.first { $0.key == key } }

    public static func == (a: StoreSetting, b: StoreSetting) -> Bool { a.key == b.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    private static func positiveInteger(_ value: String) -> String? {
        guard let n = Int(value), n > 0 else { return "expected a whole number above 0" }
        _ = n
        return nil
    }
}

/// Reading and writing the `settings` table.
enum SettingsTable {
    static func values(_ db: DatabaseConnection) throws -> [String: String] {
        Dictionary(
            try db.rows("SELECT key, value FROM settings") { ($0.string(0), $0.string(1)) },
            uniquingKeysWith: { _, b in b })
    }

    /// A number the store keeps for itself in the settings table (not a user setting: how far
    /// the change log was trimmed or folded), 0 when not set.
    static func number(_ key: String, _ db: DatabaseConnection) throws -> Int64 {
        try db.scalar("SELECT value FROM settings WHERE key = ?", [.text(key)])?.text.flatMap { Int64($0) } ?? 0
    }

    /// Sets a number the store keeps for itself (see `number(_:_:)`).
    static func setNumber(_ key: String, to value: Int64, _ db: DatabaseConnection) throws {
        try db.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [.text(key), .text(String(value))])
    }

    static func cookieLimits(_ values: [String: String]) -> CookieLimits {
        CookieLimits(
            maxPerSite: values[StoreSetting.cookiesMaxPerSite.key].flatMap { Int($0) } ?? 180,
            maxTotal: values[StoreSetting.cookiesMaxTotal.key].flatMap { Int($0) } ?? 3000)
    }

    static func cookiePolicy(_ values: [String: String]) -> CookiePolicy {
        values[StoreSetting.cookiesPolicy.key].flatMap(CookiePolicy.init) ?? .allowAll
    }
}

/// Whether cookies are stored and sent.
public enum CookiePolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Every cookie the rules allow.
    case allowAll = "allow-all"
    /// No cookie is stored or sent in a cross-site (third-party) context.
    case blockThirdParty = "block-third-party"
    /// No cookie is stored or sent.
    case disallow
}

extension StoreDatabase {
    /// Writes a setting's value (`nil`: back to its default) for every process using the store,
    /// logged as a change of the settings. The value is not checked here.
    func writeSetting(_ setting: StoreSetting, _ value: String?) throws {
        let cause: ChangeCause = value == nil ? .removal : .write
        try write(changes: [ChangeLogEntry(subject: .settings, site: "*", cause: cause)]) { db in
            if let value {
                try db.execute(
                    "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [.text(setting.key), .text(value)])
            } else {
                try db.execute("DELETE FROM settings WHERE key = ?", [.text(setting.key)])
            }
        }
    }
}
