import Foundation

extension WebsiteDataStore {
    /// Copies a whole store into another, empty one, between any two persistent stores: a
    /// directory, a PostgreSQL store, the PostgreSQL store of an identifier.
    ///
    /// Every persistent type is copied with every column as it is: cookies (session and
    /// partitioned ones included), disk cache entries with their bodies, localStorage,
    /// IndexedDB-style databases, WebSQL-style databases, application caches, and the settings
    /// the source sets (which replace the destination's). The memory cache and sessionStorage
    /// live in process memory and are not copied; nor is the change log.
    ///
    /// The source is read in one read transaction, a consistent snapshot, and never changed. The
    /// destination is written in one transaction: a failure leaves it as it was. Its change log
    /// says that every site of every type changed (by an import), so every process that has the
    /// destination open, this one included, reloads what it holds. After the commit the
    /// destination is read again and compared with what was read from the source, table by
    /// table (row counts and a digest of every copied column, bodies and images included).
    ///
    /// Copy into a store no other process is writing: the check reports another process's
    /// writes made meanwhile as a mismatch.
    ///
    /// - Parameters:
    ///   - source: the store to copy; it may be open read-only.
    ///   - destination: the store to copy into, opened writable; it must hold no website data.
    /// - Returns: how many of each kind of data were copied.
    /// - Throws: `StoreCopyError` `.destinationNotEmpty` (naming the tables that hold data),
    ///   `.sameStore` or `.notPersistent`, with nothing changed; `.mismatch` when the committed
    ///   copy differs from the source; `StoreError.readOnly` for a read-only destination;
    ///   otherwise the database's or the file system's error, with the destination unchanged.
    @discardableResult
    public static func copyStore(from source: WebsiteDataStore, to destination: WebsiteDataStore) throws
        -> StoreCopySummary
    {
        try StoreCopier(from: source, to: destination).run()
    }
}
