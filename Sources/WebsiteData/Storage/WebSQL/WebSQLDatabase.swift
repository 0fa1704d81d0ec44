import Foundation
import Synchronization

/// An open WebSQL-style database, as `openDatabase` returns it: a SQLite database of its own
/// that its user runs SQL on in transactions.
///
/// Obtain one with `WebSQLStorage.open(origin:name:version:displayName:estimatedSize:)`. All
/// handles of one database in a process share one connection; transactions run one at a time,
/// and a transaction's closure must not start another transaction of the same database (that
/// would wait for itself). The methods are thread-safe.
///
/// On a PostgreSQL store a write transaction's closure runs inside the store's PostgreSQL write
/// transaction, which holds the change log's lock (see `WebSQLStorage+Image`): it must not write
/// the store's other data (that would wait for itself too), and while it runs the store's other
/// writers, in every process, wait.
///
/// When the database is removed (by `WebsiteDataStore.removeData`, `WebSQLStorage.deleteDatabase`
/// or `wkstore clear` in another process), the next transaction throws `WebSQLError` `.database`;
/// open it again to start a new, empty one.
public final class WebSQLDatabase: Sendable {
    /// The origin the database belongs to.
    public let origin: SecurityOrigin
    /// The database's name.
    public let name: String
    /// The display name given when it was created.
    public let displayName: String
    /// The size in bytes estimated when it was created.
    public let estimatedSize: Int64

    let entry: WebSQLStorage.CatalogEntry
    let storage: WebSQLStorage
    let connection: WebSQLConnection

    init(storage: WebSQLStorage, entry: WebSQLStorage.CatalogEntry, connection: WebSQLConnection) {
        self.origin = entry.origin
        self.name = entry.name
        self.displayName = entry.displayName
        self.estimatedSize = entry.estimatedSize
        self.entry = entry
        self.storage = storage
        self.connection = connection
    }

    /// The database's file, or `nil` for a database of a non-persistent store (held in memory).
    var fileURL: URL? { connection.file }

    /// Runs a read-write transaction, as `db.transaction(callback)`: it commits when `body`
    /// returns and rolls back when `body` throws. The database's modification time is set when
    /// it commits.
    ///
    /// - Parameter body: runs statements with the transaction's `executeSql`.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws (after rolling back); `WebSQLError` `.database` when the
    ///   database was removed, `.timeout` when another process holds its write lock too long;
    ///   `StoreError.database` when the store's catalog cannot be updated (the transaction was
    ///   committed); on a PostgreSQL store, `PostgreSQLError` when the image cannot be written
    ///   (nothing was committed, unless the connection broke during `COMMIT`).
    @discardableResult
    public func transaction<T>(_ body: (WebSQLTransaction) throws -> T) throws -> T {
        if keptAsImage { return try storage.runOnImage(entry, connection, readOnly: false, body) }
        let result = try run(readOnly: false) { transaction, _ in try body(transaction) }
        try storage.touch(entry)
        return result
    }

    /// Runs a read-only transaction, as `db.readTransaction(callback)`: statements that write throw.
    ///
    /// - Parameter body: runs queries with the transaction's `executeSql`.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws; `WebSQLError` `.database` when the database was removed.
    @discardableResult
    public func readTransaction<T>(_ body: (WebSQLTransaction) throws -> T) throws -> T {
        if keptAsImage { return try storage.runOnImage(entry, connection, readOnly: true, body) }
        return try run(readOnly: true) { transaction, _ in try body(transaction) }
    }

    /// Changes the database's version, as `db.changeVersion(old, new, callback)`: in one write
    /// transaction, checks that the version is `old`, runs `body` (to migrate the schema), and
    /// sets the version to `new`. Nothing changes when the check fails or `body` throws.
    ///
    /// - Parameters:
    ///   - old: the version the database must have.
    ///   - new: the version it will have.
    ///   - body: statements to run in the same transaction, if any.
    /// - Throws: `WebSQLError` `.version` when the version is not `old`; what `body` throws;
    ///   `WebSQLError` `.database` when the database was removed; `StoreError.database` when the
    ///   catalog cannot be written.
    public func changeVersion(from old: String, to new: String, _ body: ((WebSQLTransaction) throws -> Void)? = nil)
        throws
    {
        if keptAsImage {
            return try storage.runOnImage(entry, connection, readOnly: false, versionChange: (old, new)) {
                transaction in
                try body?(transaction)
            }
        }
        try run(readOnly: false) { transaction, _ in
            // Inside the transaction: its write lock keeps another process's changeVersion out.
            let current = try storage.catalogEntry(entry)?.version
            guard let current else { throw WebSQLError(.database, "the database \(name) of \(origin) was removed") }
            guard current == old else {
                throw WebSQLError(.version, "the database's version is '\(current)', not '\(old)'")
            }
            try body?(transaction)
            try storage.setVersion(new, of: entry)
        }
    }

    /// The database's version string, as `db.version`, read from the store (another process may change it).
    ///
    /// - Throws: `WebSQLError` `.database` when the database was removed; `StoreError.database`
    ///   when the store cannot be read.
    public var version: String {
        get throws {
            guard let current = try storage.catalogEntry(entry)?.version else {
                throw WebSQLError(.database, "the database \(name) of \(origin) was removed")
            }
            return current
        }
    }

    /// The bytes the database takes: its file and write-ahead log on disk, its pages in memory,
    /// or on a PostgreSQL store its image as last committed.
    ///
    /// - Returns: the size in bytes.
    /// - Throws: `StoreError.database` when the size of an in-memory database cannot be read;
    ///   `PostgreSQLError` when a PostgreSQL store cannot be read.
    public func size() throws -> Int64 {
        if keptAsImage { return try storage.storedImageSize(entry) }
        return try connection.size()
    }

    // MARK: - Internals

    /// Whether the database is an image in a PostgreSQL store's catalog row, not a file.
    private var keptAsImage: Bool { storage.database.engine == .postgreSQL }

    private func run<T>(readOnly: Bool, _ body: (WebSQLTransaction, SQLiteConnection) throws -> T) throws -> T {
        try storage.checkPresent(entry, connection)
        return try connection.locked.withLock { db in
            try WebSQLStorage.runSQLite(db, readOnly: readOnly) { transaction in try body(transaction, db) }
        }
    }
}

/// The one connection a process has to a WebSQL database, shared by its handles.
final class WebSQLConnection: Sendable {
    let locked: LockedConnection<SQLiteConnection>
    /// The file, or `nil` in memory.
    let file: URL?
    /// Set when the database is removed, so handles stop using it.
    let removed = Atomic<Bool>(false)
    /// On a PostgreSQL store, the version stamp of the catalog row whose image the connection
    /// holds (`WebSQLStorage+Image`); `nil` when it holds none or one that may not be committed.
    /// Read and set while holding `locked`.
    let imageStamp = Locked<String?>(nil)

    init(locked: LockedConnection<SQLiteConnection>, file: URL?) {
        self.locked = locked
        self.file = file
    }

    /// Bytes on disk (the file and its write-ahead log), or the pages in memory.
    func size() throws -> Int64 {
        if let file { return Self.sizeOnDisk(file) }
        do {
            return try locked.withLock { db in
                let pages = try db.scalar("PRAGMA page_count")?.int64 ?? 0
                let pageSize = try db.scalar("PRAGMA page_size")?.int64 ?? 0
                return pages * pageSize
            }
        } catch {
            throw StorageRemoval.storeError(error)
        }
    }

    /// Bytes a database file and its write-ahead log take on disk (0 for files that do not exist).
    static func sizeOnDisk(_ file: URL) -> Int64 {
        var total: Int64 = 0
        for suffix in ["", "-wal"] {
            if let size = (try? FileManager.default.attributesOfItem(atPath: file.path + suffix))?[.size] as? NSNumber {
                total += size.int64Value
            }
        }
        return total
    }
}
