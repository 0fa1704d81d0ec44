import Foundation

/// The record-level work of a transaction: storing and deleting records with their index
/// entries, the key generator, and reading records and index entries in key order.
extension IDBTransaction {
    /// The largest number a key generator hands out: 2^53.
    static let maxGeneratedKey: Int64 = 9_007_199_254_740_992

    /// A record read from a store or an index: encoded keys and the encoded value.
    struct RawRecord {
        var key: [UInt8]
        var primaryKey: [UInt8]
        var value: [UInt8]
    }

    static func value(_ bytes: [UInt8]) throws(IDBError) -> IDBValue {
        do { return try IDBValue(encoded: bytes) } catch {
            throw IDBError(.unknown, "a stored value cannot be read: \(error)")
        }
    }

    static func key(_ bytes: [UInt8]) throws(IDBError) -> IDBKey {
        do { return try IDBKey(encoded: bytes) } catch {
            throw IDBError(.unknown, "a stored key cannot be read: \(error)")
        }
    }

    /// Stores a record ("store a record into an object store"), with its index entries.
    func storeRecord(_ meta: StoreMeta, value original: IDBValue, key explicitKey: IDBKey?, noOverwrite: Bool) throws
        -> IDBKey
    {
        try checkWritable()
        // Checks that throw at once, before the request, and so do not abort the transaction.
        if meta.keyPath != nil, explicitKey != nil {
            throw IDBError(.data, "the object store \(meta.name) has in-line keys: give no key, the value holds it")
        }
        if meta.keyPath == nil, !meta.autoIncrement, explicitKey == nil {
            throw IDBError(.data, "the object store \(meta.name) has out-of-line keys and no key generator: give a key")
        }
        try explicitKey?.validate()
        if original.isNested(deeperThan: IDBValue.maxDepth) {
            throw IDBError(.dataClone, "the value nests arrays or objects more than \(IDBValue.maxDepth) deep")
        }
        var value = original
        var key = explicitKey
        if let path = meta.keyPath {
            switch path.extractKey(from: value) {
            case .key(let found): key = found
            case .invalid: throw IDBError(.data, "the value's \(path) is not a valid key")
            case .none:
                guard meta.autoIncrement else { throw IDBError(.data, "the value has no key at \(path)") }
                guard path.canInject(into: value) else {
                    throw IDBError(.data, "a generated key cannot be put at \(path) in the value")
                }
            }
        }
        // The request: its failures abort the transaction.
        if meta.autoIncrement {
            let current =
                try connection.scalar("SELECT current_key FROM idb_object_stores WHERE id = ?", [.integer(meta.id)])?
                .int64 ?? 1
            if let given = key {
                if case .number(let number) = given {
                    let floor = min(number, Double(Self.maxGeneratedKey)).rounded(.down)
                    if floor >= Double(current) { try setCurrentKey(meta, Int64(floor) + 1) }
                }
            } else {
                guard current <= Self.maxGeneratedKey else {
                    throw abort(
                        with: IDBError(
                            .constraint, "the key generator of \(meta.name) is past 2^53 and can make no more keys"))
                }
                let generated = IDBKey.number(Double(current))
                try setCurrentKey(meta, current + 1)
                if let path = meta.keyPath { value = path.inject(generated, into: value) }
                key = generated
            }
        }
        guard let key else { throw IDBError(.data, "the record has no key") }
        let keyBytes = key.encodedUnchecked
        let valueBytes = try value.encoded()
        let oldLength = try connection.scalar(
            "SELECT length(value) FROM idb_records WHERE store_id = ? AND key = ?",
            [.integer(meta.id), .blob(keyBytes)])?.int64
        if let oldLength {
            if noOverwrite {
                throw abort(
                    with: IDBError(.constraint, "the object store \(meta.name) has a record with the key \(key)"))
            }
            for index in meta.indexes.values {
                try connection.execute(
                    "DELETE FROM idb_index_records WHERE index_id = ? AND primary_key = ?",
                    [.integer(index.id), .blob(keyBytes)])
            }
            sizeDelta -= Int64(keyBytes.count) + oldLength
        }
        try connection.execute(
            "INSERT INTO idb_records (store_id, key, value) VALUES (?, ?, ?) ON CONFLICT (store_id, key) DO UPDATE SET value = excluded.value",
            [.integer(meta.id), .blob(keyBytes), .blob(valueBytes)])
        sizeDelta += Int64(keyBytes.count + valueBytes.count)
        wrote = true
        for index in meta.indexes.values.sorted(by: { $0.id < $1.id }) {
            try addIndexEntries(index, value: value, primaryKey: keyBytes)
        }
        return key
    }

    /// Adds a record's entries to an index; aborts with `ConstraintError` on a unique clash.
    func addIndexEntries(_ index: IndexMeta, value: IDBValue, primaryKey: [UInt8]) throws {
        for indexKey in index.keyPath.indexKeys(for: value, multiEntry: index.multiEntry) {
            let bytes = indexKey.encodedUnchecked
            if index.unique,
                try connection.scalar(
                    "SELECT 1 FROM idb_index_records WHERE index_id = ? AND key = ? LIMIT 1",
                    [.integer(index.id), .blob(bytes)]) != nil
            {
                throw abort(
                    with: IDBError(.constraint, "the unique index \(index.name) already holds the key \(indexKey)"))
            }
            try connection.execute(
                "INSERT INTO idb_index_records (index_id, key, primary_key) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [.integer(index.id), .blob(bytes), .blob(primaryKey)])
        }
    }

    private func setCurrentKey(_ meta: StoreMeta, _ value: Int64) throws {
        try connection.execute(
            "UPDATE idb_object_stores SET current_key = ? WHERE id = ?", [.integer(value), .integer(meta.id)])
        wrote = true
    }

    /// Deletes the records in a range, with their index entries.
    func deleteRecords(_ meta: StoreMeta, range: EncodedRange) throws {
        try checkWritable()
        let (condition, values) = range.sql(column: "key")
        sizeDelta -= try IDBCatalog.recordBytes(connection, storeID: meta.id, range: range)
        for index in meta.indexes.values {
            if range == .all {
                try connection.execute("DELETE FROM idb_index_records WHERE index_id = ?", [.integer(index.id)])
            } else {
                try connection.execute(
                    """
                    DELETE FROM idb_index_records WHERE index_id = ?
                    AND primary_key IN (SELECT key FROM idb_records WHERE store_id = ?\(condition))
                    """, [.integer(index.id), .integer(meta.id)] + values)
            }
        }
        try connection.execute("DELETE FROM idb_records WHERE store_id = ?\(condition)", [.integer(meta.id)] + values)
        wrote = true
    }

    /// The SQL `LIMIT` for a count argument (`nil` or 0 for no limit).
    static func limit(_ count: Int?) throws(IDBError) -> Int64 {
        guard let count, count != 0 else { return Int64.max }
        guard count > 0 else { throw IDBError(.type, "a count is 0 (for all) or more; \(count) is not") }
        return Int64(count)
    }

    /// A store's records in a range, in key order.
    func records(_ meta: StoreMeta, range: EncodedRange, count: Int?, values: Bool = true) throws -> [RawRecord] {
        try checkActive()
        let (condition, arguments) = range.sql(column: "key")
        let limit = try Self.limit(count)
        return try connection.rows(
            "SELECT key, \(values ? "value" : "NULL") FROM idb_records WHERE store_id = ?\(condition) ORDER BY key LIMIT ?",
            [.integer(meta.id)] + arguments + [.integer(limit)]
        ) { row in
            let key = row.blob(0)
            return RawRecord(key: key, primaryKey: key, value: row.blob(1))
        }
    }

    /// An index's entries in a range of index keys, in (index key, primary key) order, with the records' values.
    func indexRecords(_ index: IndexMeta, store: StoreMeta, range: EncodedRange, count: Int?, values: Bool = true)
        throws -> [RawRecord]
    {
        try checkActive()
        let (condition, arguments) = range.sql(column: "i.key")
        let limit = try Self.limit(count)
        let sql =
            values
            ? """
            SELECT i.key, i.primary_key, r.value FROM idb_index_records i
            JOIN idb_records r ON r.store_id = ? AND r.key = i.primary_key
            WHERE i.index_id = ?\(condition) ORDER BY i.key, i.primary_key LIMIT ?
            """
            : "SELECT i.key, i.primary_key, NULL FROM idb_index_records i WHERE CAST(? AS INTEGER) IS NOT NULL AND i.index_id = ?\(condition) ORDER BY i.key, i.primary_key LIMIT ?"
        return try connection.rows(sql, [.integer(store.id), .integer(index.id)] + arguments + [.integer(limit)]) {
            row in
            RawRecord(key: row.blob(0), primaryKey: row.blob(1), value: row.blob(2))
        }
    }

    // MARK: - Indexes

    func createIndex(in meta: StoreMeta, name: String, keyPath: IDBKeyPath, unique: Bool, multiEntry: Bool) throws
        -> IndexMeta
    {
        try keyPath.validate()
        guard meta.indexes[name] == nil else {
            throw IDBError(.constraint, "the object store \(meta.name) already has an index named \(name)")
        }
        if multiEntry, case .array = keyPath {
            throw IDBError(.invalidAccess, "a multi-entry index cannot have an array key path")
        }
        try connection.execute(
            "INSERT INTO idb_indexes (store_id, name, key_path, is_unique, multi_entry) VALUES (?, ?, ?, ?, ?)",
            [
                .integer(meta.id), .text(name), .text(keyPath.storedText), .integer(unique ? 1 : 0),
                .integer(multiEntry ? 1 : 0),
            ])
        guard
            let id = try connection.scalar(
                "SELECT id FROM idb_indexes WHERE store_id = ? AND name = ?",
                [.integer(meta.id), .text(name)])?.int64
        else {
            throw IDBCatalog.damaged("the new index \(name) cannot be found")
        }
        let index = IndexMeta(id: id, name: name, keyPath: keyPath, unique: unique, multiEntry: multiEntry)
        stores[meta.name]?.indexes[name] = index
        wrote = true
        // Index the records already there, a page at a time.
        var after: [UInt8]?
        while true {
            let page = try records(
                meta, range: EncodedRange(lower: after, upper: nil, lowerOpen: true, upperOpen: true), count: 256)
            for record in page {
                try addIndexEntries(index, value: try Self.value(record.value), primaryKey: record.key)
            }
            guard page.count == 256, let last = page.last else { break }
            after = last.key
        }
        return index
    }

    func deleteIndex(in meta: StoreMeta, name: String) throws {
        guard let index = meta.indexes[name] else {
            throw IDBError(.notFound, "the object store \(meta.name) has no index named \(name)")
        }
        try connection.execute("DELETE FROM idb_indexes WHERE id = ?", [.integer(index.id)])
        stores[meta.name]?.indexes[name] = nil
        wrote = true
    }
}
