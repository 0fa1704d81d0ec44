import Foundation

/// The order a cursor walks in.
public enum IDBCursorDirection: String, Sendable, Hashable, Codable, CaseIterable {
    /// Ascending keys (index entries: ascending index key, then primary key).
    case next
    /// Ascending index keys, the first record (lowest primary key) of each.
    case nextUnique = "nextunique"
    /// Descending keys (index entries: descending index key, then primary key).
    case prev
    /// Descending index keys, the first record (lowest primary key) of each.
    case prevUnique = "prevunique"

    var descending: Bool { self == .prev || self == .prevUnique }
}

/// A position in an object store or index, moved record by record.
///
/// As `IDBCursor` with its value (`IDBCursorWithValue`). Each move reads the next record from
/// the database after the cursor's position, so records written meanwhile (by this
/// transaction, through the cursor or not) are seen as the specification says. When a move
/// finds no more records it returns `false` and the cursor is done; `key`, `primaryKey` and
/// `value` keep the last record's. Use:
///
/// ```swift
/// if let cursor = try store.openCursor(direction: .prev) {
///     repeat { print(cursor.key, cursor.value) } while try cursor.continue()
/// }
/// ```
public final class IDBCursor {
    /// The direction the cursor walks in.
    public let direction: IDBCursorDirection
    /// The current key: the record's key, or the index key for an index cursor.
    public private(set) var key: IDBKey = .number(0)
    /// The current record's primary key (its key in the object store).
    public private(set) var primaryKey: IDBKey = .number(0)
    /// The current record's value, as read when the cursor moved to it.
    public private(set) var value: IDBValue = .undefined

    let transaction: IDBTransaction
    let store: StoreMeta
    let index: IndexMeta?
    let range: EncodedRange
    private var position: (key: [UInt8], primaryKey: [UInt8])?

    init(
        transaction: IDBTransaction, store: StoreMeta, index: IndexMeta?, range: EncodedRange,
        direction: IDBCursorDirection
    ) {
        self.transaction = transaction
        self.store = store
        self.index = index
        self.range = range
        self.direction = direction
    }

    /// The name of the object store the cursor walks (directly or through an index).
    public var objectStoreName: String { store.name }
    /// The name of the index the cursor walks, or `nil` for a store cursor.
    public var indexName: String? { index?.name }

    private var keyColumn: String { index == nil ? "key" : "i.key" }
    /// Whether moves compare (key, primary key) pairs rather than keys alone.
    private var byPair: Bool { index != nil && (direction == .next || direction == .prev) }

    /// Moves to the first record in the direction; `false` when there is none.
    func start() throws -> Bool {
        try land(try seek("", [], descending: direction.descending))
    }

    /// Moves to the next record in the cursor's direction.
    ///
    /// - Returns: `true` when the cursor is on a record, `false` when it has passed the last.
    /// - Throws: `IDBError` `InvalidStateError` when the cursor is already done, `TransactionInactiveError`.
    @discardableResult
    public func `continue`() throws -> Bool {
        let current = try currentPosition()
        let (condition, values) = afterCondition(current)
        return try land(try seek(condition, values, descending: direction.descending))
    }

    /// Moves to the first record at or beyond a key, in the cursor's direction.
    ///
    /// - Parameter target: the key to go to: above the current key for `.next` and `.nextUnique`,
    ///   below it for `.prev` and `.prevUnique`.
    /// - Returns: `true` when the cursor is on a record, `false` when it has passed the last.
    /// - Throws: `IDBError` `DataError` for an invalid key or one on the wrong side of the current key,
    ///   `InvalidStateError` when the cursor is done.
    @discardableResult
    public func `continue`(to target: IDBKey) throws -> Bool {
        _ = try currentPosition()
        try target.validate()
        let order = IDBKey.compare(target, key)
        if direction.descending ? order >= 0 : order <= 0 {
            throw IDBError(
                .data,
                "continue(to:) must move \(direction.descending ? "below" : "above") the current key \(key); \(target) does not"
            )
        }
        let bytes = target.encodedUnchecked
        let condition = " AND \(keyColumn) \(direction.descending ? "<=" : ">=") ?"
        return try land(try seek(condition, [.blob(bytes)], descending: direction.descending))
    }

    /// Moves an index cursor to the first entry at or beyond an (index key, primary key) pair.
    ///
    /// - Parameters:
    ///   - target: the index key.
    ///   - targetPrimaryKey: the primary key within that index key.
    /// - Returns: `true` when the cursor is on a record, `false` when it has passed the last.
    /// - Throws: `IDBError` `InvalidAccessError` for a store cursor or a unique direction, `DataError`
    ///   for invalid keys or a pair not beyond the current one, `InvalidStateError` when the cursor is done.
    @discardableResult
    public func continuePrimaryKey(_ target: IDBKey, _ targetPrimaryKey: IDBKey) throws -> Bool {
        guard index != nil, direction == .next || direction == .prev else {
            throw IDBError(.invalidAccess, "continuePrimaryKey works on index cursors walking next or prev")
        }
        _ = try currentPosition()
        try target.validate()
        try targetPrimaryKey.validate()
        var order = IDBKey.compare(target, key)
        if order == 0 { order = IDBKey.compare(targetPrimaryKey, primaryKey) }
        if direction.descending ? order >= 0 : order <= 0 {
            throw IDBError(.data, "continuePrimaryKey must move beyond the current entry")
        }
        let condition = " AND (i.key, i.primary_key) \(direction.descending ? "<=" : ">=") (?, ?)"
        return try land(
            try seek(
                condition, [.blob(target.encodedUnchecked), .blob(targetPrimaryKey.encodedUnchecked)],
                descending: direction.descending))
    }

    /// Moves forward by `count` records in the cursor's direction.
    ///
    /// - Parameter count: how many records to move (1 or more).
    /// - Returns: `true` when the cursor is on a record, `false` when it has passed the last.
    /// - Throws: `IDBError` `TypeError` for a count below 1, `InvalidStateError` when the cursor is done.
    @discardableResult
    public func advance(_ count: Int) throws -> Bool {
        guard count >= 1 else { throw IDBError(.type, "advance(_:) takes a count of 1 or more") }
        if direction == .nextUnique || direction == .prevUnique, index != nil {
            for _ in 0..<count {
                guard try self.continue() else { return false }
            }
            return true
        }
        let current = try currentPosition()
        let (condition, values) = afterCondition(current)
        return try land(try seek(condition, values, descending: direction.descending, offset: count - 1))
    }

    /// Replaces the current record's value (the cursor's `value` stays what it read).
    ///
    /// - Parameter newValue: the new value; for a store with in-line keys, it must hold the same key.
    /// - Returns: the record's primary key.
    /// - Throws: `IDBError` `ReadOnlyError`, `InvalidStateError` when the cursor is done, `DataError`
    ///   when the new value's in-line key differs, and what `IDBObjectStore.put(_:key:)` throws.
    @discardableResult
    public func update(_ newValue: IDBValue) throws -> IDBKey {
        try transaction.checkWritable()
        _ = try currentPosition()
        let meta = try transaction.meta(of: store)
        if let path = meta.keyPath {
            guard case .key(let inline) = path.extractKey(from: newValue), inline == primaryKey else {
                throw IDBError(.data, "the new value's key at \(path) is not the record's key \(primaryKey)")
            }
            return try transaction.storeRecord(meta, value: newValue, key: nil, noOverwrite: false)
        }
        return try transaction.storeRecord(meta, value: newValue, key: primaryKey, noOverwrite: false)
    }

    /// Deletes the current record.
    ///
    /// - Throws: `IDBError` `ReadOnlyError`, or `InvalidStateError` when the cursor is done.
    public func delete() throws {
        try transaction.checkWritable()
        let current = try currentPosition()
        try transaction.deleteRecords(
            try transaction.meta(of: store),
            range: EncodedRange(
                lower: current.primaryKey, upper: current.primaryKey,
                lowerOpen: false, upperOpen: false))
    }

    // MARK: - Moving

    private func currentPosition() throws -> (key: [UInt8], primaryKey: [UInt8]) {
        try transaction.checkActive()
        guard let position else { throw IDBError(.invalidState, "the cursor has passed its last record") }
        return position
    }

    /// The condition for "strictly beyond the current position" in the cursor's direction.
    private func afterCondition(_ current: (key: [UInt8], primaryKey: [UInt8])) -> (String, [DatabaseValue]) {
        let op = direction.descending ? "<" : ">"
        if byPair {
            return (" AND (i.key, i.primary_key) \(op) (?, ?)", [.blob(current.key), .blob(current.primaryKey)])
        }
        return (" AND \(keyColumn) \(op) ?", [.blob(current.key)])
    }

    /// The first record within the range and `condition`, in the direction; for `.prevUnique`
    /// on an index, the lowest primary key of the index key found.
    private func seek(_ condition: String, _ values: [DatabaseValue], descending: Bool, offset: Int = 0) throws
        -> IDBTransaction.RawRecord?
    {
        try transaction.checkActive()
        let meta = try transaction.meta(of: store)
        let (rangeCondition, rangeValues) = range.sql(column: keyColumn)
        let order = descending ? "DESC" : "ASC"
        let found: IDBTransaction.RawRecord?
        if let index {
            let sql = """
                SELECT i.key, i.primary_key, r.value FROM idb_index_records i
                JOIN idb_records r ON r.store_id = ? AND r.key = i.primary_key
                WHERE i.index_id = ?\(rangeCondition)\(condition) ORDER BY i.key \(order), i.primary_key \(order) LIMIT 1 OFFSET ?
                """
            found = try transaction.connection.rows(
                sql, [.integer(meta.id), .integer(index.id)] + rangeValues + values + [.integer(Int64(offset))]
            ) {
                IDBTransaction.RawRecord(key: $0.blob(0), primaryKey: $0.blob(1), value: $0.blob(2))
            }.first
            if let hit = found, direction == .prevUnique {
                return try seekFirstEntry(ofKey: hit.key, storeID: meta.id, indexID: index.id)
            }
        } else {
            let sql =
                "SELECT key, value FROM idb_records WHERE store_id = ?\(rangeCondition)\(condition) ORDER BY key \(order) LIMIT 1 OFFSET ?"
            found = try transaction.connection.rows(
                sql, [.integer(meta.id)] + rangeValues + values + [.integer(Int64(offset))]
            ) {
                IDBTransaction.RawRecord(key: $0.blob(0), primaryKey: $0.blob(0), value: $0.blob(1))
            }.first
        }
        return found
    }

    private func seekFirstEntry(ofKey key: [UInt8], storeID: Int64, indexID: Int64) throws -> IDBTransaction.RawRecord?
    {
        try transaction.connection.rows(
            """
            SELECT i.key, i.primary_key, r.value FROM idb_index_records i
            JOIN idb_records r ON r.store_id = ? AND r.key = i.primary_key
            WHERE i.index_id = ? AND i.key = ? ORDER BY i.primary_key ASC LIMIT 1
            """, [.integer(storeID), .integer(indexID), .blob(key)]
        ) {
            IDBTransaction.RawRecord(key: $0.blob(0), primaryKey: $0.blob(1), value: $0.blob(2))
        }.first
    }

    /// Moves onto a found record, or ends the cursor.
    private func land(_ record: IDBTransaction.RawRecord?) throws -> Bool {
        guard let record else {
            position = nil
            return false
        }
        key = try IDBTransaction.key(record.key)
        primaryKey = index == nil ? key : try IDBTransaction.key(record.primaryKey)
        value = try IDBTransaction.value(record.value)
        position = (record.key, record.primaryKey)
        return true
    }
}
