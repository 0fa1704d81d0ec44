import Foundation

/// An index of an object store within a transaction: the store's records ordered by a key
/// found in their values, then by primary key.
///
/// As `IDBIndex`. Index entries are kept up to date on every write to the store.
public struct IDBIndex {
    let transaction: IDBTransaction
    let storeHandle: StoreMeta
    let handle: IndexMeta

    init(transaction: IDBTransaction, store: StoreMeta, handle: IndexMeta) {
        self.transaction = transaction
        self.storeHandle = store
        self.handle = handle
    }

    /// The index's name.
    public var name: String { handle.name }
    /// The name of the object store it indexes.
    public var objectStoreName: String { storeHandle.name }
    /// Where the index key is in each value.
    public var keyPath: IDBKeyPath { handle.keyPath }
    /// Whether two records may not share an index key.
    public var unique: Bool { handle.unique }
    /// Whether an array at the key path gives one entry per distinct element.
    public var multiEntry: Bool { handle.multiEntry }

    /// The current definitions of the store and the index, refusing a deleted one.
    func metas() throws(IDBError) -> (StoreMeta, IndexMeta) {
        let store = try transaction.meta(of: storeHandle)
        guard let index = store.indexes[handle.name], index.id == handle.id else {
            throw IDBError(.invalidState, "the index \(handle.name) was deleted")
        }
        return (store, index)
    }

    /// The value of the first record whose index key is `key`.
    ///
    /// - Parameter key: the index key.
    /// - Returns: the value, or `nil` when no record has that index key.
    /// - Throws: `IDBError` `DataError` for an invalid key.
    public func get(_ key: IDBKey) throws -> IDBValue? { try get(.only(key)) }

    /// The value of the first record whose index key is in a range.
    ///
    /// - Parameter range: the range of index keys.
    /// - Returns: the value, or `nil`.
    /// - Throws: `IDBError` `DataError` for an invalid range.
    public func get(_ range: IDBKeyRange) throws -> IDBValue? { try getAll(range, count: 1).first }

    /// The primary key of the first record whose index key is in a range.
    ///
    /// - Parameter range: the range of index keys.
    /// - Returns: the primary key, or `nil`.
    /// - Throws: `IDBError` `DataError` for an invalid range.
    public func getKey(_ range: IDBKeyRange) throws -> IDBKey? { try getAllKeys(range, count: 1).first }

    /// The primary key of the first record whose index key is `key`.
    ///
    /// - Parameter key: the index key.
    /// - Returns: the primary key, or `nil`.
    /// - Throws: `IDBError` `DataError` for an invalid key.
    public func getKey(_ key: IDBKey) throws -> IDBKey? { try getKey(.only(key)) }

    /// The values of the records whose index keys are in a range, in (index key, primary key) order.
    ///
    /// A record appears once per index entry (a multi-entry index may list it under several keys).
    ///
    /// - Parameters:
    ///   - range: the range of index keys, or `nil` for all.
    ///   - count: the most values to return, or `nil` (or 0) for all.
    /// - Returns: the values.
    /// - Throws: `IDBError` `DataError` for an invalid range, `TypeError` for a negative count.
    public func getAll(_ range: IDBKeyRange? = nil, count: Int? = nil) throws -> [IDBValue] {
        let (store, index) = try metas()
        return try transaction.indexRecords(index, store: store, range: try EncodedRange(range), count: count).map {
            try IDBTransaction.value($0.value)
        }
    }

    /// The primary keys of the records whose index keys are in a range, in (index key, primary key) order.
    ///
    /// - Parameters:
    ///   - range: the range of index keys, or `nil` for all.
    ///   - count: the most keys to return, or `nil` (or 0) for all.
    /// - Returns: the primary keys.
    /// - Throws: `IDBError` `DataError` for an invalid range, `TypeError` for a negative count.
    public func getAllKeys(_ range: IDBKeyRange? = nil, count: Int? = nil) throws -> [IDBKey] {
        let (store, index) = try metas()
        return try transaction.indexRecords(
            index, store: store, range: try EncodedRange(range), count: count, values: false
        ).map {
            try IDBTransaction.key($0.primaryKey)
        }
    }

    /// How many index entries have keys in a range.
    ///
    /// - Parameter range: the range of index keys, or `nil` for all.
    /// - Returns: the count.
    /// - Throws: `IDBError` `DataError` for an invalid range.
    public func count(_ range: IDBKeyRange? = nil) throws -> Int {
        let (_, index) = try metas()
        let (condition, values) = try EncodedRange(range).sql(column: "key")
        return Int(
            try transaction.connection.scalar(
                "SELECT count(*) FROM idb_index_records WHERE index_id = ?\(condition)",
                [.integer(index.id)] + values)?.int64 ?? 0)
    }

    /// Opens a cursor over the index entries whose keys are in a range.
    ///
    /// - Parameters:
    ///   - range: the range of index keys, or `nil` for all.
    ///   - direction: `.next`, `.nextUnique` (the first record of each index key), `.prev`, or
    ///     `.prevUnique` (index keys descending, the first record of each).
    /// - Returns: the cursor on the first entry, or `nil` when the range holds none.
    /// - Throws: `IDBError` `DataError` for an invalid range.
    public func openCursor(_ range: IDBKeyRange? = nil, direction: IDBCursorDirection = .next) throws -> IDBCursor? {
        let (store, index) = try metas()
        let cursor = IDBCursor(
            transaction: transaction, store: store, index: index, range: try EncodedRange(range), direction: direction)
        return try cursor.start() ? cursor : nil
    }
}
