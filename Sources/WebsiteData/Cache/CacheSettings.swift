import Foundation

extension StoreSetting {
    /// The most bytes the disk cache keeps (headers and bodies); least recently used entries go first.
    public static let cacheMaxSize = StoreSetting(
        key: "cache.max-size",
        summary:
            "bytes the HTTP disk cache keeps before the least recently used entries are evicted (a number, or with KB, MB, GB)",
        defaultValue: "256MB",
        validate: { CacheSettings.byteCount($0) == nil ? "expected a size such as 268435456, 512MB or 2GB" : nil })

    /// The most bytes each process's memory cache keeps; 0 turns it off.
    public static let memoryCacheMaxSize = StoreSetting(
        key: "memorycache.max-size",
        summary: "bytes each process keeps in its HTTP memory cache, least recently used out first; 0 turns it off",
        defaultValue: "32MB",
        validate: { CacheSettings.byteCount($0) == nil ? "expected a size such as 33554432, 64MB or 0" : nil })

    /// Whether stored responses keep `Set-Cookie`, `Set-Cookie2` and `Clear-Site-Data`.
    public static let cacheStoresCookieHeaders = StoreSetting(
        key: "cache.store-cookie-headers",
        summary:
            "true to keep Set-Cookie, Set-Cookie2 and Clear-Site-Data in cached responses (RFC 9111 to the letter); false drops them as Chromium does",
        defaultValue: "false", validate: { $0 == "true" || $0 == "false" ? nil : "expected true or false" })
}

/// The cache's settings as read from the store.
struct CacheSettings: Sendable, Hashable {
    var maxSize: Int64
    var memoryMaxSize: Int64
    var storesCookieHeaders: Bool

    /// The options of the policies the cache serves under these settings.
    var policyOptions: CachePolicy.Options { CachePolicy.Options(storesCookieHeaders: storesCookieHeaders) }

    static let keys = [
        StoreSetting.cacheMaxSize.key, StoreSetting.memoryCacheMaxSize.key, StoreSetting.cacheStoresCookieHeaders.key,
    ]

    /// Reads the settings (defaults for those not set).
    static func read(_ database: StoreDatabase) throws -> CacheSettings {
        let values = try database.read { db in
            try db.rows("SELECT key, value FROM settings WHERE key IN (?, ?, ?)", keys.map { .text($0) }) {
                ($0.string(0), $0.string(1))
            }
        }
        var settings = CacheSettings(
            maxSize: byteCount(StoreSetting.cacheMaxSize.defaultValue)!,
            memoryMaxSize: byteCount(StoreSetting.memoryCacheMaxSize.defaultValue)!,
            storesCookieHeaders: false)
        for (key, value) in values {
            switch key {
            case StoreSetting.cacheMaxSize.key: settings.maxSize = byteCount(value) ?? settings.maxSize
            case StoreSetting.memoryCacheMaxSize.key:
                settings.memoryMaxSize = byteCount(value) ?? settings.memoryMaxSize
            default: settings.storesCookieHeaders = value == "true"
            }
        }
        return settings
    }

    /// The disk cache limit as read inside a write transaction.
    static func maxSize(_ db: DatabaseConnection) throws -> Int64 {
        let value = try db.scalar("SELECT value FROM settings WHERE key = ?", [.text(StoreSetting.cacheMaxSize.key)])?
            .text
        return value.flatMap(byteCount) ?? byteCount(StoreSetting.cacheMaxSize.defaultValue)!
    }

    /// A size: a whole number of bytes, optionally followed by `B`, `KB`, `MB`, `GB` (or `K`,
    /// `M`, `G`, `KiB`, `MiB`, `GiB`), in powers of 1024; case-insensitive.
    ///
    /// Read as bytes: every disk-cache write reads the setting in its transaction, and
    /// Foundation's trimming took a tenth of a write.
    static func byteCount(_ text: String) -> Int64? {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        var bytes = Substring(text).utf8
        while let first = bytes.first, blank(first) { bytes.removeFirst() }
        while let last = bytes.last, blank(last) { bytes.removeLast() }
        let digits = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty, let number = Int64(Substring(digits)) else { return nil }
        let unit = Substring(bytes.dropFirst(digits.count).drop(while: blank)).lowercased()
        let multiplier: Int64
        switch unit {
        case "", "b": multiplier = 1
        case "k", "kb", "kib": multiplier = 1 << 10
        case "m", "mb", "mib": multiplier = 1 << 20
        case "g", "gb", "gib": multiplier = 1 << 30
        default: return nil
        }
        let (result, overflow) = number.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : result
    }
}

/// Where a stored response lives: its partition (the top-level site), method, URL and `Vary` variant.
package struct CacheEntryKey: Sendable, Hashable {
    /// The schemeful top-level site (`https://example.com`) the request was made under.
    package var partition: String
    /// The request method (`GET`).
    package var method: String
    /// The URL without its fragment.
    package var url: String
    /// The request's values of the fields its response's `Vary` names (`CachePolicy.variantKey`).
    package var variant: String

    /// Creates a key.
    package init(partition: String, method: String, url: String, variant: String) {
        self.partition = partition
        self.method = method
        self.url = url
        self.variant = variant
    }

    /// The key without the variant: every variant of one URL in one partition.
    var resource: CacheResourceKey { CacheResourceKey(partition: partition, method: method, url: url) }

    /// The field names a variant key was made with (those of its response's `Vary`).
    static func varyNames(ofVariant variant: String) -> [Substring] {
        variant.split(separator: "\u{1F}").map { $0.prefix { $0 != ":" } }
    }

    /// Whether an entry stored under `variant` is superseded by a new response stored under this
    /// key: a response whose `Vary` names other fields replaces every variant of the URL
    /// (RFC 9111 §4.1 picks the most recent response; an older one that varies differently
    /// would otherwise keep matching).
    package func supersedes(variant: String) -> Bool {
        variant == self.variant || Self.varyNames(ofVariant: variant) != Self.varyNames(ofVariant: self.variant)
    }
}

/// Every variant of one URL in one partition.
struct CacheResourceKey: Sendable, Hashable {
    var partition: String
    var method: String
    var url: String
}

/// One stored response with its body, as the memory and disk caches hand it to `HTTPCache`.
struct CacheEntry: Sendable {
    var key: CacheEntryKey
    var policy: CachePolicy
    /// The display name of the URL's site.
    var site: String
    var body: StoredBody
    var modified: Date
    /// The row of the disk cache holding it, when it is there.
    var diskID: Int64? = nil
    /// Whether the row's last-access time needs no update for this use: a use was recorded
    /// within `HTTPMemoryCache.diskAccessInterval` (by a memory-cache copy, or in the row read).
    var diskAccessIsRecorded = false
    /// The row's last-access time, for an entry read from the disk cache.
    var diskLastAccess: Date? = nil

    /// The bytes counted against a cache's limit: URL, header fields and body.
    var size: Int64 { Int64(key.url.utf8.count + policy.headers.byteCount) + body.byteCount }
}

/// A stored body: inline bytes, a file in a SQLite store's cache folder, or the chunks of a
/// PostgreSQL store's entry (`HTTPDiskCache.chunkSize` bytes each, read one at a time).
enum StoredBody: Sendable, Hashable {
    case inline(Data)
    case file(name: String, size: Int64)
    case chunks(entry: Int64, size: Int64)

    var byteCount: Int64 {
        switch self {
        case .inline(let data): return Int64(data.count)
        case .file(_, let size), .chunks(_, let size): return size
        }
    }
}

extension CacheEntryKey {
    /// The partition of a request made under a top-level site already known (`nil`: none).
    package static func partition(_ topLevelSite: SchemefulSite?) -> String { topLevelSite?.description ?? "" }

    /// The partition of a request: the schemeful site of the top-level page, or of the URL
    /// itself for a top-level request.
    package static func partition(topLevelSite: URL?, url: URL) -> String {
        SchemefulSite(topLevelSite ?? url)?.description ?? ""
    }
}
