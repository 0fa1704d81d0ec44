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

        /// On a PostgreSQL store, every call that reads first asks the server for the change
        /// log's newest position (one round trip), so it sees every change another machine had
        /// committed when the call began (`false` by default).
        ///
        /// Without it, another machine's change reaches this process when the server's
        /// notification arrives, within milliseconds (Docs/fleet.md has the measured delay), and
        /// lookups are answered from memory without a round trip. A store directory always
        /// behaves as strictly (its change counter is shared memory), so there the setting
        /// changes nothing.
        public var strictCoherence: Bool

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - readOnly: open the store for reading only.
        ///   - strictCoherence: on PostgreSQL, check the change log's position before each read.
        public init(readOnly: Bool = false, strictCoherence: Bool = false) {
            self.readOnly = readOnly
            self.strictCoherence = strictCoherence
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
