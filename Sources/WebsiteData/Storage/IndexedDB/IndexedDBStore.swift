import Foundation

/// A database's name, version and where it stands, as `IndexedDBStore.databases(origin:)` lists it.
public struct IDBDatabaseInfo: Sendable, Hashable, Codable {
    /// The origin the database belongs to.
    public let origin: SecurityOrigin
    /// The database name.
    public let name: String
    /// The database version.
    public let version: Int
    /// The site (display name) it is listed and removed under.
    public let site: String
    /// When it was last written.
    public let modified: Date
    /// Bytes of its records' keys and values.
    public let size: Int64

    init(_ row: DatabaseRow) {
        origin = row.origin
        name = row.name
        version = row.version
        site = row.site
        modified = row.modified
        size = row.size
    }
}

/// The IndexedDB databases of a website data store, as `indexedDB` offers them to a page:
/// open (creating or upgrading), delete and list databases per origin.
///
/// Everything lives in the store's SQLite database, so other processes sharing the store see
/// every committed transaction. Read-write and version-change transactions take the store's
/// write lock for as long as their closure runs, one at a time; read-only transactions of a
/// persistent store run on reader connections of their own, each on a snapshot, concurrently
/// with each other and with a writer (SQLite WAL). In a non-persistent (in-memory) store all
/// transactions run one at a time on its one connection.
///
/// Inside a transaction's closure, use only that transaction: starting another transaction,
/// opening or deleting a database, or calling other parts of the store (cookies…) from
/// inside it is refused (`InvalidStateError`) or would wait for the lock the transaction holds.
public final class IndexedDBStore: Sendable {
    let database: StoreDatabase
    let clock: @Sendable () -> Date
    /// Idle reader connections of a persistent store, reused by read-only transactions.
    private let idleReaders = Locked<[LockedConnection<any DatabaseConnection>]>([])

    /// Whether a transaction is running on this thread (or task): nested ones are refused.
    @TaskLocal static var transactionActive = false

    /// The most idle reader connections kept open for later read-only transactions.
    static let maxIdleReaders = 4

    required init(database: StoreDatabase, clock: @escaping @Sendable () -> Date) {
        self.database = database
        self.clock = clock
    }

    // MARK: - Databases

    /// Opens a database of an origin, creating it, or upgrading it to a higher version.
    ///
    /// A new database starts at version 0. When `version` is above the stored version, the
    /// version changes and `upgrade` runs in a version-change transaction, the only place
    /// object stores and indexes can be created or deleted; if it throws (or the transaction
    /// aborts) nothing of the open is kept, and a database this call created is not created.
    ///
    /// - Parameters:
    ///   - origin: the origin the database belongs to.
    ///   - name: the database name (any string).
    ///   - version: the version to open at (1 or more), or `nil` for the current version (1 for a new database).
    ///   - upgrade: runs when the version rises, with the version-change transaction and the old version.
    /// - Returns: a handle on the database, at its version.
    /// - Throws: `IDBError` `VersionError` when the database is at a higher version, `TypeError`
    ///   for a version below 1, `InvalidStateError` inside another transaction, what `upgrade`
    ///   throws, or `StoreError` when the store cannot be written.
    public func open(
        origin: SecurityOrigin, name: String, version: Int? = nil,
        upgrade: ((IDBTransaction, Int) throws -> Void)? = nil
    ) throws -> IDBDatabase {
        if let version, version < 1 || version > 9_007_199_254_740_991 {
            throw IDBError(.type, "a database version is a whole number from 1 to 2^53 - 1; \(version) is not")
        }
        if let existing = try readTransaction({ try IDBCatalog.database($0, origin: origin, name: name) }) {
            if version == nil || version == existing.version { return IDBDatabase(store: self, row: existing) }
            if let version, version < existing.version { throw Self.versionError(name, existing.version, version) }
        }
        return try writeTransaction(site: origin.site) { db in
            let now = clock()
            let row =
                try IDBCatalog.database(db, origin: origin, name: name)
                ?? IDBCatalog.createDatabase(db, origin: origin, name: name, modified: now)
            let requested = version ?? max(row.version, 1)
            if requested < row.version { throw Self.versionError(name, row.version, requested) }
            guard requested > row.version else { return IDBDatabase(store: self, row: row) }
            try db.execute(
                "UPDATE idb_databases SET version = ?, modified = ? WHERE id = ?",
                [.integer(Int64(requested)), .real(now.timeIntervalSince1970), .integer(row.id)])
            let transaction = try IDBTransaction(
                store: self, connection: db, databaseID: row.id, origin: origin,
                databaseName: name, version: requested, scope: nil,
                mode: .versionChange, oldVersion: row.version)
            try transaction.run { transaction in try upgrade?(transaction, row.version) }
            guard let upgraded = try IDBCatalog.database(db, id: row.id) else {
                throw IDBError(.invalidState, "the database \(name) vanished during its upgrade")
            }
            return IDBDatabase(store: self, row: upgraded)
        }
    }

    private static func versionError(_ name: String, _ stored: Int, _ requested: Int) -> IDBError {
        IDBError(.version, "the database \(name) is at version \(stored), higher than the requested \(requested)")
    }

    /// Deletes a database of an origin and everything in it.
    ///
    /// - Parameters:
    ///   - origin: the origin.
    ///   - name: the database name.
    /// - Returns: the version the database had, or `nil` when there was none.
    /// - Throws: `IDBError` `InvalidStateError` inside a transaction, or `StoreError` when the store cannot be written.
    @discardableResult
    public func deleteDatabase(origin: SecurityOrigin, name: String) throws -> Int? {
        try writeTransaction(site: origin.site) { db in
            guard let row = try IDBCatalog.database(db, origin: origin, name: name) else { return nil }
            try db.execute("DELETE FROM idb_databases WHERE id = ?", [.integer(row.id)])
            return row.version
        }
    }

    /// The databases of an origin (or of every origin), sorted by origin and name.
    ///
    /// - Parameter origin: the origin, or `nil` for all.
    /// - Returns: each database's name, version, site, modification time and size.
    /// - Throws: `StoreError` when the store cannot be read.
    public func databases(origin: SecurityOrigin? = nil) throws -> [IDBDatabaseInfo] {
        try readTransaction { try IDBCatalog.databases($0, origin: origin).map(IDBDatabaseInfo.init) }
    }

    /// The origins that have at least one database, sorted.
    ///
    /// - Returns: the origins.
    /// - Throws: `StoreError` when the store cannot be read.
    public func origins() throws -> [SecurityOrigin] {
        try readTransaction { db in
            try db.rows("SELECT DISTINCT origin FROM idb_databases ORDER BY origin") {
                try IDBCatalog.origin($0.string(0))
            }
        }
    }

    // MARK: - Connections

    /// Runs `body` in a read transaction: on a reader connection of its own for a persistent store.
    func readTransaction<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        try Self.refuseNesting()
        return try Self.$transactionActive.withValue(true) {
            guard database.isPersistent else {
                return try database.writer.withLock { db in try db.transaction(write: false) { try body(db) } }
            }
            let reader = try takeReader(database.file)
            defer { idleReaders.withLock { if $0.count < Self.maxIdleReaders { $0.append(reader) } } }
            return try reader.withLock { db in try db.transaction(write: false) { try body(db) } }
        }
    }

    /// Runs `body` in a write transaction of its own, recording a change of `site`'s IndexedDB data.
    func writeTransaction<T>(site: String, cause: ChangeCause = .write, _ body: (DatabaseConnection) throws -> T)
        throws -> T
    {
        try Self.refuseNesting()
        return try Self.$transactionActive.withValue(true) {
            try database.writeNow(changes: [ChangeLogEntry(.indexedDBDatabases, site: site, cause: cause)]) { db in
                try body(db)
            }
        }
    }

    /// Runs `body` in a write transaction recording changes of several sites.
    func writeTransaction<T>(sites: Set<String>, cause: ChangeCause, _ body: (DatabaseConnection) throws -> T)
        throws -> T
    {
        try Self.refuseNesting()
        return try Self.$transactionActive.withValue(true) {
            try database.writeNow(
                changes: sites.sorted().map { ChangeLogEntry(.indexedDBDatabases, site: $0, cause: cause) }
            ) { db in
                try body(db)
            }
        }
    }

    private static func refuseNesting() throws(IDBError) {
        if transactionActive {
            throw IDBError(
                .invalidState, "a transaction is already running here: use it, not a new one, inside its closure")
        }
    }

    private func takeReader(_ file: URL?) throws -> LockedConnection<any DatabaseConnection> {
        if let reader = idleReaders.withLock({ $0.popLast() }) { return reader }
        return LockedConnection<any DatabaseConnection>(try database.newReaderConnection(file: file))
    }
}

extension WebsiteDataStore {
    /// The store's IndexedDB databases.
    public var indexedDB: IndexedDBStore { component(IndexedDBStore.self) }
}
