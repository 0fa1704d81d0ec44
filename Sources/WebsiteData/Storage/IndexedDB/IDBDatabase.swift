import Foundation

/// An open IndexedDB database: a name and a version within an origin, and its object stores.
///
/// A handle, as `IDBDatabase` is a connection: it holds no lock and nothing is kept open
/// between transactions. When the database is deleted, or upgraded to another version by
/// another open (in this process or another), transactions on this handle are refused with
/// `InvalidStateError`: open the database again.
public final class IDBDatabase: Sendable {
    /// The origin the database belongs to.
    public let origin: SecurityOrigin
    /// The database name.
    public let name: String
    /// The version the database was opened at.
    public let version: Int
    let id: Int64
    let store: IndexedDBStore

    init(store: IndexedDBStore, row: DatabaseRow) {
        self.store = store
        self.origin = row.origin
        self.name = row.name
        self.version = row.version
        self.id = row.id
    }

    /// The names of the database's object stores, sorted.
    ///
    /// - Returns: the names, in code-unit order.
    /// - Throws: `IDBError` `InvalidStateError` when the database changed since it was opened.
    public func objectStoreNames() throws -> [String] {
        try store.readTransaction { db in
            try check(db)
            return try IDBCatalog.stores(db, databaseID: id).keys.sorted { IDBKey.string($0) < IDBKey.string($1) }
        }
    }

    /// Runs `body` in a transaction over some of the database's object stores.
    ///
    /// The transaction commits when `body` returns. When `body` throws, or an operation in it
    /// fails with an error that aborts the transaction (`ConstraintError`), or `abort()` is
    /// called, nothing it did is kept and the error is thrown from here, even when `body`
    /// caught it. The transaction cannot be used after `body` returns.
    ///
    /// - Parameters:
    ///   - storeNames: the object stores the transaction may use (its scope).
    ///   - mode: `.readonly` (the default) or `.readwrite`.
    ///   - body: the work, given the transaction.
    /// - Returns: what `body` returns.
    /// - Throws: `IDBError` `NotFoundError` for a store name the database lacks, `InvalidAccessError`
    ///   for no store names, `InvalidStateError` when the database changed since it was opened or
    ///   inside another transaction; the error that aborted the transaction, or what `body` threw.
    @discardableResult
    public func transaction<T>(
        _ storeNames: [String], mode: IDBTransactionMode = .readonly,
        _ body: (IDBTransaction) throws -> T
    ) throws -> T {
        guard !storeNames.isEmpty else {
            throw IDBError(.invalidAccess, "a transaction needs at least one object store")
        }
        guard mode != .versionChange else {
            throw IDBError(.type, "version-change transactions come only from open(origin:name:version:upgrade:)")
        }
        let work = { (db: DatabaseConnection) throws -> T in
            try self.check(db)
            let transaction = try IDBTransaction(
                store: self.store, connection: db, databaseID: self.id, origin: self.origin,
                databaseName: self.name, version: self.version, scope: Set(storeNames),
                mode: mode, oldVersion: nil)
            return try transaction.run(body)
        }
        if mode == .readonly { return try store.readTransaction(work) }
        return try store.writeTransaction(site: origin.site, work)
    }

    /// Runs `body` in a transaction over one object store (see `transaction(_:mode:_:)`).
    ///
    /// - Parameters:
    ///   - storeName: the object store.
    ///   - mode: `.readonly` (the default) or `.readwrite`.
    ///   - body: the work, given the transaction.
    /// - Returns: what `body` returns.
    /// - Throws: as `transaction(_:mode:_:)`.
    @discardableResult
    public func transaction<T>(
        _ storeName: String, mode: IDBTransactionMode = .readonly,
        _ body: (IDBTransaction) throws -> T
    ) throws -> T {
        try transaction([storeName], mode: mode, body)
    }

    /// Refuses a database deleted, or upgraded to another version, since this handle was opened.
    private func check(_ db: DatabaseConnection) throws {
        guard let current = try db.scalar("SELECT version FROM idb_databases WHERE id = ?", [.integer(id)])?.int64
        else {
            throw IDBError(.invalidState, "the database \(name) of \(origin) was deleted; open it again")
        }
        guard current == Int64(version) else {
            throw IDBError(
                .invalidState, "the database \(name) of \(origin) was upgraded to version \(current); open it again")
        }
    }
}
