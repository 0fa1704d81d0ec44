import Foundation

extension WebsiteDataStore {
    /// How a persistent store is opened, as GRDB's `Configuration` says how a database is.
    ///
    /// A read-only open reads a store that this user cannot or must not write (another user's
    /// crawler, a backup on read-only media): it creates no directory or file, applies no
    /// migration, purges no expired data, folds no change log and writes nothing, not even the
    /// change counter. Every call that would change the store throws `StoreError.readOnly`
    /// naming it; reads, `removeData(ofTypes:matching:dryRun:)` with `dryRun`, exports and
    /// `backup(to:)` work. Process-memory types (the memory cache, sessionStorage) still work in
    /// memory: they are never stored.
    public struct Configuration: Sendable, Hashable {
        /// Open the store for reading only (`false` by default).
        public var readOnly: Bool

        /// Creates a configuration.
        ///
        /// - Parameter readOnly: open the store for reading only.
        public init(readOnly: Bool = false) {
            self.readOnly = readOnly
        }
    }
}

extension WebsiteDataStore {
    /// Where the store is, for messages: its directory, a PostgreSQL server, database and schema
    /// (never a password), or memory.
    var locationDescription: String {
        if let location = database.postgreSQL { return location.summary }
        if let directory { return directory.path }
        return "a store in memory"
    }
}
