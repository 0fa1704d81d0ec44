import Foundation

/// An object store within a transaction: its records, in key order, and its indexes.
///
/// As `IDBObjectStore`. Valid only while its transaction is; every operation runs at once
/// and returns its result (the browser API's requests, made synchronous).
public struct IDBObjectStore {
    let transaction: IDBTransaction
    let handle: StoreMeta

    init(transaction: IDBTransaction, meta: StoreMeta) {
        self.transaction = transaction
        self.handle = meta
    }

    /// The store's name.
    public var name: String { handle.name }
    /// Where records' keys are in their values, or `nil` for out-of-line keys.
    public var keyPath: IDBKeyPath? { handle.keyPath }
    /// Whether the store has a key generator.
    public var autoIncrement: Bool { handle.autoIncrement }
    /// The names of the store's indexes, sorted.
    public var indexNames: [String] {
        (transaction.stores[handle.name]?.indexes.keys).map { $0.sorted { IDBKey.string($0) < IDBKey.string($1) } }
            ?? []
    }

    // MARK: - Writing

    /// Stores a value, replacing any record with the same key.
    ///
    /// - Parameters:
    ///   - value: the value.
    ///   - key: the key, for a store with out-of-line keys; `nil` to let its key generator make one
    ///     (and always `nil` for in-line keys, which come from the value).
    /// - Returns: the record's key.
    /// - Throws: `IDBError`: `ReadOnlyError`; `DataError` for a key given to an in-line store, none
    ///   where one is needed, an invalid key, or a value without a valid key at the key path;
    ///   `DataCloneError` for a value nested too deeply; `ConstraintError` (aborting the
    ///   transaction) when a unique index holds one of the value's index keys for another record,
    ///   or the key generator is past 2^53.
    @discardableResult
    public func put(_ value: IDBValue, key: IDBKey? = nil) throws -> IDBKey {
        try transaction.storeRecord(try transaction.meta(of: handle), value: value, key: key, noOverwrite: false)
    }

    /// Stores a value under a key not in use.
    ///
    /// - Parameters:
    ///   - value: the value.
    ///   - key: as for `put(_:key:)`.
    /// - Returns: the record's key.
    /// - Throws: as `put(_:key:)`, and `ConstraintError` (aborting the transaction) when a record has the key.
    @discardableResult
    public func add(_ value: IDBValue, key: IDBKey? = nil) throws -> IDBKey {
        try transaction.storeRecord(try transaction.meta(of: handle), value: value, key: key, noOverwrite: true)
    }

    /// Deletes the record with a key, if there is one.
    ///
    /// - Parameter key: the key.
    /// - Throws: `IDBError` `ReadOnlyError`, or `DataError` for an invalid key.
    public func delete(_ key: IDBKey) throws {
        try delete(.only(key))
    }

    /// Deletes the records whose keys are in a range.
    ///
    /// - Parameter range: the range.
    /// - Throws: `IDBError` `ReadOnlyError`, or `DataError` for an invalid range.
    public func delete(_ range: IDBKeyRange) throws {
        try transaction.deleteRecords(try transaction.meta(of: handle), range: try EncodedRange(range))
    }

    /// Deletes every record (the key generator keeps its current number).
    ///
    /// - Throws: `IDBError` `ReadOnlyError`.
    public func clear() throws {
        try transaction.deleteRecords(try transaction.meta(of: handle), range: .all)
    }

    // MARK: - Reading

    /// The value of the record with a key.
    ///
    /// - Parameter key: the key.
    /// - Returns: the value, or `nil` when no record has the key.
    /// - Throws: `IDBError` `DataError` for an invalid key.
    public func get(_ key: IDBKey) throws -> IDBValue? {
        try get(.only(key))
    }

    /// The value of the first record in a range.
    ///
    /// - Parameter range: the range.
    /// - Returns: the value, or `nil` when the range holds no record.
    /// - Throws: `IDBError` `DataError` for an invalid range.
    public func get(_ range: IDBKeyRange) throws -> IDBValue? {
        try getAll(range, count: 1).first
    }

    /// The key of the first record in a range.
    ///
    /// - Parameter range: the range.
    /// - Returns: the key, or `nil` when the range holds no record.
    /// - Throws: `IDBError` `DataError` for an invalid range.
    public func getKey(_ range: IDBKeyRange) throws -> IDBKey? {
        try getAllKeys(range, count: 1).first
    }

    /// The values of the records in a range, in key order.
    ///
    /// - Parameters:
    ///   - range: the range, or `nil` for every record.
    ///   - count: the most values to return, or `nil` (or 0) for all.
    /// - Returns: the values.
    /// - Throws: `IDBError` `DataError` for an invalid range, `TypeError` for a negative count.
    public func getAll(_ range: IDBKeyRange? = nil, count: Int? = nil) throws -> [IDBValue] {
        try transaction.records(try transaction.meta(of: handle), range: try EncodedRange(range), count: count).map {
            try IDBTransaction.value($0.value)
        }
    }

    /// The keys of the records in a range, in order.
    ///
    /// - Parameters:
    ///   - range: the range, or `nil` for every record.
    ///   - count: the most keys to return, or `nil` (or 0) for all.
    /// - Returns: the keys.
    /// - Throws: `IDBError` `DataError` for an invalid range, `TypeError` for a negative count.
    public func getAllKeys(_ range: IDBKeyRange? = nil, count: Int? = nil) throws -> [IDBKey] {
        try transaction.records(
            try transaction.meta(of: handle), range: try EncodedRange(range), count: count, values: false
        ).map {
            try IDBTransaction.key($0.key)
        }
    }

    /// How many records a range holds.
    ///
    /// - Parameter range: the range, or `nil` for every record.
    /// - Returns: the count.
    /// - Throws: `IDBError` `DataError` for an invalid range.
    public func count(_ range: IDBKeyRange? = nil) throws -> Int {
        let meta = try transaction.meta(of: handle)
        let (condition, values) = try EncodedRange(range).sql(column: "key")
        return Int(
            try transaction.connection.scalar(
                "SELECT count(*) FROM idb_records WHERE store_id = ?\(condition)",
                [.integer(meta.id)] + values)?.int64 ?? 0)
    }

    /// Opens a cursor over the records in a range.
    ///
    /// - Parameters:
    ///   - range: the range, or `nil` for every record.
    ///   - direction: `.next` (ascending keys, the default) or `.prev`; the unique directions
    ///     are the same here, as a store's keys are unique.
    /// - Returns: the cursor on the first record, or `nil` when the range holds none.
    /// - Throws: `IDBError` `DataError` for an invalid range.
    public func openCursor(_ range: IDBKeyRange? = nil, direction: IDBCursorDirection = .next) throws -> IDBCursor? {
        let meta = try transaction.meta(of: handle)
        let cursor = IDBCursor(
            transaction: transaction, store: meta, index: nil, range: try EncodedRange(range), direction: direction)
        return try cursor.start() ? cursor : nil
    }

    // MARK: - Indexes

    /// An index of the store.
    ///
    /// - Parameter name: the index's name.
    /// - Returns: the index.
    /// - Throws: `IDBError` `NotFoundError` for no such index.
    public func index(_ name: String) throws -> IDBIndex {
        let meta = try transaction.meta(of: handle)
        guard let index = meta.indexes[name] else {
            throw IDBError(.notFound, "the object store \(meta.name) has no index named \(name)")
        }
        return IDBIndex(transaction: transaction, store: meta, handle: index)
    }

    /// Creates an index over the store's records, existing and future.
    ///
    /// - Parameters:
    ///   - name: the index's name, unique in the store.
    ///   - keyPath: where the index key is in each value; records without a valid key there are left out.
    ///   - unique: whether two records may not share an index key.
    ///   - multiEntry: whether an array at the key path gives one index entry per distinct element.
    /// - Returns: the new index.
    /// - Throws: `IDBError` `InvalidStateError` outside a version-change transaction, `ConstraintError`
    ///   for a name in use (or, aborting the transaction, when `unique` and existing records share
    ///   a key), `SyntaxError` for an invalid key path, `InvalidAccessError` for `multiEntry` with an array key path.
    @discardableResult
    public func createIndex(_ name: String, keyPath: IDBKeyPath, unique: Bool = false, multiEntry: Bool = false) throws
        -> IDBIndex
    {
        try transaction.checkVersionChange()
        let index = try transaction.createIndex(
            in: try transaction.meta(of: handle), name: name, keyPath: keyPath,
            unique: unique, multiEntry: multiEntry)
        return IDBIndex(transaction: transaction, store: try transaction.meta(of: handle), handle: index)
    }

    /// Deletes an index.
    ///
    /// - Parameter name: the index's name.
    /// - Throws: `IDBError` `InvalidStateError` outside a version-change transaction, `NotFoundError` for no such index.
    public func deleteIndex(_ name: String) throws {
        try transaction.checkVersionChange()
        try transaction.deleteIndex(in: try transaction.meta(of: handle), name: name)
    }
}
