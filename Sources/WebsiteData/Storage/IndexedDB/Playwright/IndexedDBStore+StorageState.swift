import Foundation

extension IndexedDBStore {
    /// An origin's databases in the layout Playwright writes in storage state (`origins[].indexedDB`).
    ///
    /// Databases are sorted by name, stores and indexes by name, records by key. Keys are
    /// written only for stores with out-of-line keys (in-line keys are in the values), as
    /// Playwright does. All of it is read in one transaction, so it is one consistent state.
    /// The format has no place for a key generator's current number: after an import, the
    /// generator continues after the highest numeric key, as the import's `add`s move it.
    ///
    /// - Parameter origin: the origin.
    /// - Returns: the databases, empty when the origin has none.
    /// - Throws: `StoreError` when the store cannot be read, `IDBError` `UnknownError` for a damaged record.
    public func exportStorageState(origin: SecurityOrigin) throws -> [PlaywrightIndexedDBDatabase] {
        try readTransaction { db in
            try IDBCatalog.databases(db, origin: origin).map { row in
                let stores = try IDBCatalog.stores(db, databaseID: row.id).values.sorted {
                    IDBKey.string($0.name) < IDBKey.string($1.name)
                }
                return PlaywrightIndexedDBDatabase(
                    name: row.name, version: row.version,
                    stores: try stores.map { meta in
                        let records = try db.rows(
                            "SELECT key, value FROM idb_records WHERE store_id = ? ORDER BY key",
                            [.integer(meta.id)]
                        ) { ($0.blob(0), $0.blob(1)) }.map { key, value in
                            PlaywrightIndexedDBRecord(
                                key: meta.keyPath == nil ? try IDBTransaction.key(key) : nil,
                                value: try IDBTransaction.value(value))
                        }
                        let indexes = meta.indexes.values.sorted { IDBKey.string($0.name) < IDBKey.string($1.name) }.map
                        { index in
                            PlaywrightIndexedDBIndex(
                                name: index.name, keyPath: index.keyPath.string, keyPathArray: index.keyPath.strings,
                                multiEntry: index.multiEntry, unique: index.unique)
                        }
                        return PlaywrightIndexedDBStore(
                            name: meta.name, autoIncrement: meta.autoIncrement, keyPath: meta.keyPath?.string,
                            keyPathArray: meta.keyPath?.strings, records: records, indexes: indexes)
                    })
            }
        }
    }

    /// Restores an origin's databases from Playwright's storage-state layout, as Playwright's
    /// restore does: each database is created at its version with its stores and indexes, then
    /// its records are added in order.
    ///
    /// A database of the same name the origin already has is replaced. Everything is imported
    /// in one transaction: when anything fails, nothing is changed.
    ///
    /// - Parameters:
    ///   - databases: the databases (`origins[].indexedDB` of a storage state file).
    ///   - origin: the origin they belong to.
    /// - Throws: `IDBError` naming the database, store and record at fault: `TypeError` for a
    ///   version below 1, `DataError` for an index without a key path or a record whose key is
    ///   missing, invalid or not wanted, `ConstraintError` for two records with one key or a unique
    ///   index clash, `DataCloneError` for a value a store cannot hold; `StoreError` when the store cannot be written.
    public func importStorageState(_ databases: [PlaywrightIndexedDBDatabase], origin: SecurityOrigin) throws {
        var place = PlaywrightImportPlace()
        do {
            try importStorageState(databases, origin: origin, place: &place)
        } catch let error as IDBError {
            throw IDBError(error.name, "\(place.description(in: databases)): \(error.message)")
        }
    }

    /// `importStorageState(_:origin:)`, telling where it stopped by position (a storage-state
    /// import names the JSON path of the entry at fault): `place` holds the database, store,
    /// index and record being imported when an error is thrown.
    func importStorageState(
        _ databases: [PlaywrightIndexedDBDatabase], origin: SecurityOrigin, place: inout PlaywrightImportPlace
    ) throws {
        try writeTransaction(site: origin.site) { db in
            for (databaseNumber, database) in databases.enumerated() {
                place = PlaywrightImportPlace(database: databaseNumber)
                guard database.version >= 1 else { throw IDBError(.type, "the version \(database.version) is below 1") }
                if let existing = try IDBCatalog.database(db, origin: origin, name: database.name) {
                    try db.execute("DELETE FROM idb_databases WHERE id = ?", [.integer(existing.id)])
                }
                let row = try IDBCatalog.createDatabase(db, origin: origin, name: database.name, modified: clock())
                try db.execute(
                    "UPDATE idb_databases SET version = ? WHERE id = ?",
                    [.integer(Int64(database.version)), .integer(row.id)])
                let transaction = try IDBTransaction(
                    store: self, connection: db, databaseID: row.id, origin: origin,
                    databaseName: database.name, version: database.version, scope: nil,
                    mode: .versionChange, oldVersion: 0)
                try transaction.run { transaction in
                    for (storeNumber, store) in database.stores.enumerated() {
                        place = PlaywrightImportPlace(database: databaseNumber, store: storeNumber)
                        let created = try transaction.createObjectStore(
                            store.name, keyPath: store.idbKeyPath, autoIncrement: store.autoIncrement)
                        for (indexNumber, index) in store.indexes.enumerated() {
                            place = PlaywrightImportPlace(
                                database: databaseNumber, store: storeNumber, index: indexNumber)
                            guard let path = index.idbKeyPath else {
                                throw IDBError(.data, "the index has no key path")
                            }
                            try created.createIndex(
                                index.name, keyPath: path, unique: index.unique, multiEntry: index.multiEntry)
                        }
                    }
                    for (storeNumber, store) in database.stores.enumerated() {
                        let target = try transaction.objectStore(store.name)
                        for (number, record) in store.records.enumerated() {
                            place = PlaywrightImportPlace(database: databaseNumber, store: storeNumber, record: number)
                            try target.add(try record.decodedValue(), key: try record.decodedKey())
                        }
                    }
                }
            }
        }
    }
}

/// Where an import of Playwright IndexedDB databases stood, by position (from 0).
struct PlaywrightImportPlace: Sendable, Hashable {
    /// The database, or `nil` before the first.
    var database: Int?
    /// The object store.
    var store: Int?
    /// The index of that store.
    var index: Int?
    /// The record of that store.
    var record: Int?

    /// `database app, object store notes, record 3` (records counted from 1).
    func description(in databases: [PlaywrightIndexedDBDatabase]) -> String {
        guard let database, databases.indices.contains(database) else { return "the databases" }
        let db = databases[database]
        var text = "database \(db.name)"
        guard let store, db.stores.indices.contains(store) else { return text }
        text += ", object store \(db.stores[store].name)"
        if let index, db.stores[store].indexes.indices.contains(index) {
            text += ", index \(db.stores[store].indexes[index].name)"
        }
        if let record { text += ", record \(record + 1)" }
        return text
    }
}

extension IDBKeyPath {
    /// The path when it is one string.
    var string: String? { if case .string(let path) = self { path } else { nil } }
    /// The paths when it is an array.
    var strings: [String]? { if case .array(let paths) = self { paths } else { nil } }
}
