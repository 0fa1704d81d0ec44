import Foundation

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

/// The web storage quota: how much an origin may hold, and the one rule every write obeys.
///
/// HTML's `Storage` interface (§12.2.1, `setItem`) throws a `QuotaExceededError` when a value
/// cannot be stored, and the Storage Standard gives each local and session storage bottle a
/// quota, per origin (5 × 2²⁰ bytes recommended). The bytes are counted as WebKit's
/// `StorageMap::setItem` counts them: the area's usage, minus the replaced item, plus the new
/// key and value, each UTF-16 code unit two bytes (`StorageItem.size`).
enum StorageQuota {
    /// 5 MiB, as every major browser allows an origin's localStorage.
    static let defaultBytes: Int64 = 5 * 1024 * 1024

    /// The quota set in the store (the `localstorage.quota` setting), or the default.
    static func bytes(_ db: DatabaseConnection) throws -> Int64 {
        let text = try db.scalar(
            "SELECT value FROM settings WHERE key = ?", [.text(StoreSetting.localStorageQuota.key)])?.text
        return text.flatMap { Int64($0) } ?? defaultBytes
    }

    /// The rule: what an origin's area holds after a write, and whether the write is refused.
    ///
    /// Browsers refuse only growth past the quota: shrinking an over-quota origin (after the
    /// quota was lowered) is allowed.
    ///
    /// - Parameters:
    ///   - size: the bytes of the item written (`StorageItem.size(key:value:)`).
    ///   - replaced: the bytes of the item it replaces under the same key; 0 for a new key.
    ///   - used: the bytes the origin's area holds before the write.
    ///   - quota: the quota, in bytes.
    /// - Returns: the bytes the area holds after the write, and whether the write is refused.
    static func check(storing size: Int64, replacing replaced: Int64, in used: Int64, quota: Int64) -> (
        usage: Int64, isRefused: Bool
    ) {
        let usage = used - replaced + size
        return (usage, usage > quota && size > replaced)
    }

    /// The bytes an origin's area holds after a write the quota allows.
    ///
    /// - Parameters:
    ///   - size: the bytes of the item written.
    ///   - replaced: the bytes of the item it replaces under the same key; 0 for a new key.
    ///   - used: the bytes the origin's area holds before the write.
    ///   - quota: the quota, in bytes.
    ///   - origin: the origin written to, named in the error.
    /// - Returns: the bytes the area holds after the write.
    /// - Throws: `StorageQuotaError` when `check` refuses the write.
    static func usage(
        storing size: Int64, replacing replaced: Int64, in used: Int64, quota: Int64, origin: SecurityOrigin
    ) throws(StorageQuotaError) -> Int64 {
        let (usage, isRefused) = check(storing: size, replacing: replaced, in: used, quota: quota)
        if isRefused { throw StorageQuotaError(origin: origin, quota: quota, required: usage) }
        return usage
    }
}
