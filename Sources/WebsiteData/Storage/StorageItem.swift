import Foundation

/// One key and its value in a web storage area (localStorage or sessionStorage), with the time
/// it was last set.
public struct StorageItem: Sendable, Hashable {
    /// The key.
    public let key: String
    /// The value.
    public let value: String
    /// When the item was last set; removal by date compares against it.
    public let modified: Date

    /// Creates an item.
    ///
    /// - Parameters:
    ///   - key: the key.
    ///   - value: the value.
    ///   - modified: when it was last set.
    public init(key: String, value: String, modified: Date) {
        self.key = key
        self.value = value
        self.modified = modified
    }

    /// The bytes the item counts against its origin's quota, as browsers count them: the UTF-16
    /// code units of key and value, two bytes each.
    public var size: Int64 { StorageItem.size(key: key, value: value) }

    /// The bytes a key and value count against a quota: their UTF-16 code units, two bytes each.
    ///
    /// A character outside the Basic Multilingual Plane (an emoji, say) is two UTF-16 code
    /// units, so it counts four bytes.
    ///
    /// - Parameters:
    ///   - key: the key.
    ///   - value: the value.
    /// - Returns: `(key.utf16.count + value.utf16.count) * 2`.
    public static func size(key: String, value: String) -> Int64 {
        Int64(key.utf16.count + value.utf16.count) * 2
    }
}

/// A write to web storage that would take an origin past its quota; nothing was changed.
///
/// Browsers raise a `QuotaExceededError` DOMException in this case. The quota is the store
/// setting `localstorage.quota` (5 MiB by default), for each origin's localStorage and for
/// each origin in each sessionStorage namespace.
public struct StorageQuotaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The origin whose quota the write would exceed.
    public let origin: SecurityOrigin
    /// The quota, in bytes.
    public let quota: Int64
    /// The bytes the origin would have held after the write.
    public let required: Int64

    /// Creates the error.
    ///
    /// - Parameters:
    ///   - origin: the origin written to.
    ///   - quota: its quota in bytes.
    ///   - required: the bytes the write would have needed.
    public init(origin: SecurityOrigin, quota: Int64, required: Int64) {
        self.origin = origin
        self.quota = quota
        self.required = required
    }

    /// One line: the origin, the bytes needed and the quota.
    public var description: String {
        "storage quota exceeded for \(origin): \(required) bytes needed, quota is \(quota) bytes (nothing was changed)"
    }
}

/// Reading the web storage quota from the store's settings.
enum StorageQuota {
    /// 5 MiB, as every major browser allows an origin's localStorage.
    static let defaultBytes: Int64 = 5 * 1024 * 1024

    /// The quota set in the store (the `localstorage.quota` setting), or the default.
    static func bytes(_ db: DatabaseConnection) throws -> Int64 {
        let text = try db.scalar(
            "SELECT value FROM settings WHERE key = ?", [.text(StoreSetting.localStorageQuota.key)])?.text
        return text.flatMap { Int64($0) } ?? defaultBytes
    }
}
