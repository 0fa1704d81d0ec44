import Foundation

/// What `WebsiteDataStore.copyStore(from:to:)` copied: how many of each kind of data.
public struct StoreCopySummary: Sendable, Hashable, Codable {
    /// Cookies, session and partitioned cookies included.
    public var cookies = 0
    /// Disk cache entries (responses with their bodies).
    public var diskCacheEntries = 0
    /// localStorage items.
    public var localStorageItems = 0
    /// IndexedDB-style databases.
    public var indexedDBDatabases = 0
    /// Records in the object stores of those databases.
    public var indexedDBRecords = 0
    /// WebSQL-style databases.
    public var webSQLDatabases = 0
    /// Application cache groups (each with its manifest and entries).
    public var applicationCacheGroups = 0
    /// Settings the source sets (`wkstore config`); the others keep their defaults.
    public var settings = 0

    /// A summary of nothing copied.
    public init() {}
}

/// Why `WebsiteDataStore.copyStore(from:to:)` refused or failed.
///
/// Compare `reason` with the static constants: `catch let e as StoreCopyError where e.reason == .destinationNotEmpty`.
public struct StoreCopyError: WebsiteDataError, Hashable {
    /// What kind of failure.
    public struct Reason: RawRepresentable, Sendable, Hashable {
        /// The reason's name.
        public let rawValue: String
        /// Creates a reason from its name.
        ///
        /// - Parameter rawValue: the name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The destination holds website data already; nothing was changed.
        public static let destinationNotEmpty = Reason(rawValue: "destinationNotEmpty")
        /// The source and the destination are the same store; nothing was changed.
        public static let sameStore = Reason(rawValue: "sameStore")
        /// A store in memory has nothing to copy or keeps nothing copied; nothing was changed.
        public static let notPersistent = Reason(rawValue: "notPersistent")
        /// After the commit, the destination did not hold what was read from the source.
        public static let mismatch = Reason(rawValue: "mismatch")
    }

    /// What went wrong, as a constant.
    public let reason: Reason
    /// What went wrong, in words, on one line (never holding a password).
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - reason: the kind of failure.
    ///   - message: what went wrong.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }
}
