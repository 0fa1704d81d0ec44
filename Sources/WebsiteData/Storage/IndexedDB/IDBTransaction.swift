import Foundation

/// What a transaction may do.
public enum IDBTransactionMode: String, Sendable, Hashable, Codable {
    /// Read records; runs alongside other transactions.
    case readonly
    /// Read and write records.
    case readwrite
    /// Change the schema (create and delete object stores and indexes) and records; only in
    /// the `upgrade` closure of `IndexedDBStore.open(origin:name:version:upgrade:)`.
    case versionChange = "versionchange"
}

/// A transaction on a database: the way to its object stores, for the length of a closure.
///
/// As `IDBTransaction`. It is handed to the closure of `IDBDatabase.transaction(_:mode:_:)`
/// (or to an `upgrade` closure) and cannot be used after the closure returns. A write that
/// breaks a constraint (`ConstraintError`) aborts the whole transaction, as an unhandled
/// request error does in a browser: the operation throws, every later one throws
/// `TransactionInactiveError`, and nothing the transaction did is kept.
public final class IDBTransaction {
    /// What the transaction may do.
    public let mode: IDBTransactionMode
    /// The origin of the database.
    public let origin: SecurityOrigin
    /// The name of the database.
    public let databaseName: String
    /// The version of the database (the new version, in a version-change transaction).
    public let version: Int
    /// The version before the upgrade, in a version-change transaction; `nil` in others.
    public let oldVersion: Int?

    let store: IndexedDBStore
    let connection: DatabaseConnection
    let databaseID: Int64
    let scope: Set<String>?
    var stores: [String: StoreMeta]
    private(set) var state = State.active
    /// Bytes of keys and values added (or, negative, removed) so far.
    var sizeDelta: Int64 = 0
    /// Whether anything was written, so the database's modification time moves.
    var wrote = false

    enum State {
        case active
        case finished
        case aborted(IDBError)
    }

    init(
        store: IndexedDBStore, connection: DatabaseConnection, databaseID: Int64, origin: SecurityOrigin,
        databaseName: String,
        version: Int, scope: Set<String>?, mode: IDBTransactionMode, oldVersion: Int?
    ) throws {
        self.store = store
        self.connection = connection
        self.databaseID = databaseID
        self.origin = origin
        self.databaseName = databaseName
        self.version = version
        self.scope = scope
        self.mode = mode
        self.oldVersion = oldVersion
        self.stores = try IDBCatalog.stores(connection, databaseID: databaseID)
        for name in (scope ?? []).sorted() where stores[name] == nil {
            throw IDBError(.notFound, "the database \(databaseName) has no object store named \(name)")
        }
    }

    /// The names of the object stores the transaction may use, sorted.
    public var objectStoreNames: [String] {
        Array(scope ?? Set(stores.keys)).filter { stores[$0] != nil }.sorted { IDBKey.string($0) < IDBKey.string($1) }
    }

    /// An object store in the transaction's scope.
    ///
    /// - Parameter name: the store's name.
    /// - Returns: the store.
    /// - Throws: `IDBError` `NotFoundError` for a name outside the scope or not in the database,
    ///   `TransactionInactiveError` once the transaction is over.
    public func objectStore(_ name: String) throws -> IDBObjectStore {
        try checkActive()
        guard scope?.contains(name) ?? true, let meta = stores[name] else {
            throw IDBError(.notFound, "no object store named \(name) in this transaction's scope")
        }
        return IDBObjectStore(transaction: self, meta: meta)
    }

    /// Aborts the transaction: nothing it did is kept, and the transaction call throws `AbortError`.
    public func abort() {
        if case .active = state { state = .aborted(IDBError(.abort, "the transaction was aborted")) }
    }

    // MARK: - Schema (version-change transactions only)

    /// Creates an object store.
    ///
    /// - Parameters:
    ///   - name: the store's name, unique in the database.
    ///   - keyPath: where records' keys are in their values (in-line keys), or `nil` for keys given apart (out-of-line).
    ///   - autoIncrement: whether the store has a key generator (starting at 1).
    /// - Returns: the new store.
    /// - Throws: `IDBError` `InvalidStateError` outside a version-change transaction, `ConstraintError`
    ///   for a name in use, `SyntaxError` for an invalid key path, `InvalidAccessError` for
    ///   `autoIncrement` with an empty or array key path.
    @discardableResult
    public func createObjectStore(_ name: String, keyPath: IDBKeyPath? = nil, autoIncrement: Bool = false) throws
        -> IDBObjectStore
    {
        try checkVersionChange()
        try keyPath?.validate()
        guard stores[name] == nil else {
            throw IDBError(.constraint, "the database already has an object store named \(name)")
        }
        if autoIncrement, let keyPath {
            if case .array = keyPath {
                throw IDBError(.invalidAccess, "a store with a key generator cannot have an array key path")
            }
            if keyPath == .string("") {
                throw IDBError(.invalidAccess, "a store with a key generator cannot have an empty key path")
            }
        }
        try connection.execute(
            "INSERT INTO idb_object_stores (database_id, name, key_path, auto_increment) VALUES (?, ?, ?, ?)",
            [
                .integer(databaseID), .text(name), keyPath.map { .text($0.storedText) } ?? .null,
                .integer(autoIncrement ? 1 : 0),
            ])
        guard
            let id = try connection.scalar(
                "SELECT id FROM idb_object_stores WHERE database_id = ? AND name = ?",
                [.integer(databaseID), .text(name)])?.int64
        else {
            throw IDBCatalog.damaged("the new object store \(name) cannot be found")
        }
        let meta = StoreMeta(id: id, name: name, keyPath: keyPath, autoIncrement: autoIncrement, indexes: [:])
        stores[name] = meta
        wrote = true
        return IDBObjectStore(transaction: self, meta: meta)
    }

    /// Deletes an object store and its records and indexes.
    ///
    /// - Parameter name: the store's name.
    /// - Throws: `IDBError` `InvalidStateError` outside a version-change transaction, `NotFoundError` for no such store.
    public func deleteObjectStore(_ name: String) throws {
        try checkVersionChange()
        guard let meta = stores[name] else {
            throw IDBError(.notFound, "the database has no object store named \(name)")
        }
        sizeDelta -= try IDBCatalog.recordBytes(connection, storeID: meta.id, range: nil)
        try connection.execute("DELETE FROM idb_object_stores WHERE id = ?", [.integer(meta.id)])
        stores[name] = nil
        wrote = true
    }

    // MARK: - Running

    /// Runs `body` and finishes the transaction: records the database's new size and
    /// modification time when it wrote, or throws the error that aborted it.
    func run<T>(_ body: (IDBTransaction) throws -> T) throws -> T {
        defer { if case .active = state { state = .finished } }
        let result: T
        do {
            result = try body(self)
        } catch {
            if case .aborted(let cause) = state { throw cause }
            throw error
        }
        if case .aborted(let cause) = state { throw cause }
        if wrote {
            try connection.execute(
                "UPDATE idb_databases SET modified = ?, size = size + ? WHERE id = ?",
                [.real(store.clock().timeIntervalSince1970), .integer(sizeDelta), .integer(databaseID)])
        }
        state = .finished
        return result
    }

    /// Throws unless the transaction can still be used.
    func checkActive() throws(IDBError) {
        switch state {
        case .active: return
        case .finished: throw IDBError(.transactionInactive, "the transaction is over: its closure has returned")
        case .aborted(let cause): throw IDBError(.transactionInactive, "the transaction was aborted (\(cause))")
        }
    }

    /// Throws unless the transaction can be used to write.
    func checkWritable() throws(IDBError) {
        try checkActive()
        if mode == .readonly { throw IDBError(.readOnly, "the transaction is read-only") }
    }

    func checkVersionChange() throws(IDBError) {
        try checkActive()
        if mode != .versionChange {
            throw IDBError(
                .invalidState, "object stores and indexes change only in a version-change (upgrade) transaction")
        }
    }

    /// Aborts the transaction with a request's error and returns the error to throw.
    func abort(with error: IDBError) -> IDBError {
        if case .active = state { state = .aborted(error) }
        return error
    }

    /// The current definition of a store a handle was made for.
    func meta(of handle: StoreMeta) throws(IDBError) -> StoreMeta {
        try checkActive()
        guard let meta = stores[handle.name], meta.id == handle.id else {
            throw IDBError(.invalidState, "the object store \(handle.name) was deleted")
        }
        return meta
    }
}
