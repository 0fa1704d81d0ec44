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
