import Foundation

/// A database as the catalog holds it.
struct DatabaseRow: Sendable, Hashable {
    let id: Int64
    let origin: SecurityOrigin
    let name: String
    let version: Int
    let site: String
    let modified: Date
    let size: Int64
}

/// An object store's definition, as a transaction sees it.
struct StoreMeta: Sendable, Hashable {
    let id: Int64
    let name: String
    let keyPath: IDBKeyPath?
    let autoIncrement: Bool
    var indexes: [String: IndexMeta]
}

/// An index's definition.
struct IndexMeta: Sendable, Hashable {
    let id: Int64
    let name: String
    let keyPath: IDBKeyPath
    let unique: Bool
    let multiEntry: Bool
}

/// The SQL of the catalog tables: databases, object stores and indexes.
enum IDBCatalog {
    static let databaseColumns = "id, origin, name, version, site, modified, size"

    static func origin(_ text: String) throws -> SecurityOrigin {
        guard let origin = SecurityOrigin(string: text) else { throw damaged("'\(text)' is not an origin") }
        return origin
    }

    static func databaseRow(_ row: Row) throws -> DatabaseRow {
        DatabaseRow(
            id: row.int(0), origin: try origin(row.string(1)), name: row.string(2), version: Int(row.int(3)),
            site: row.string(4), modified: Date(timeIntervalSince1970: row.double(5)), size: row.int(6))
    }

    static func database(_ db: DatabaseConnection, origin: SecurityOrigin, name: String) throws -> DatabaseRow? {
        try db.rows(
            "SELECT \(databaseColumns) FROM idb_databases WHERE origin = ? AND name = ?",
            [.text(origin.description), .text(name)], databaseRow
        ).first
    }

    static func database(_ db: DatabaseConnection, id: Int64) throws -> DatabaseRow? {
        try db.rows("SELECT \(databaseColumns) FROM idb_databases WHERE id = ?", [.integer(id)], databaseRow).first
    }

    static func databases(_ db: DatabaseConnection, origin: SecurityOrigin?) throws -> [DatabaseRow] {
        if let origin {
            return try db.rows(
                "SELECT \(databaseColumns) FROM idb_databases WHERE origin = ? ORDER BY name",
                [.text(origin.description)], databaseRow)
        }
        return try db.rows("SELECT \(databaseColumns) FROM idb_databases ORDER BY origin, name", [], databaseRow)
    }

    static func createDatabase(_ db: DatabaseConnection, origin: SecurityOrigin, name: String, modified: Date) throws
        -> DatabaseRow
    {
        try db.execute(
            "INSERT INTO idb_databases (origin, name, version, site, modified, size) VALUES (?, ?, 0, ?, ?, 0)",
            [.text(origin.description), .text(name), .text(origin.site), .real(modified.timeIntervalSince1970)])
        guard let row = try database(db, origin: origin, name: name) else {
            throw IDBError(.invalidState, "the database \(name) of \(origin) vanished as it was created")
        }
        return row
    }

    static func stores(_ db: DatabaseConnection, databaseID: Int64) throws -> [String: StoreMeta] {
        var stores: [String: StoreMeta] = [:]
        let rows = try db.rows(
            "SELECT id, name, key_path, auto_increment FROM idb_object_stores WHERE database_id = ?",
            [.integer(databaseID)]
        ) { row in
            (row.int(0), row.string(1), row.optionalString(2), row.bool(3))
        }
        for (id, name, keyPathText, autoIncrement) in rows {
            stores[name] = StoreMeta(
                id: id, name: name, keyPath: try keyPath(keyPathText),
                autoIncrement: autoIncrement, indexes: try indexes(db, storeID: id))
        }
        return stores
    }

    static func indexes(_ db: DatabaseConnection, storeID: Int64) throws -> [String: IndexMeta] {
        let rows = try db.rows(
            "SELECT id, name, key_path, is_unique, multi_entry FROM idb_indexes WHERE store_id = ?",
            [.integer(storeID)]
        ) { row in
            (row.int(0), row.string(1), row.string(2), row.bool(3), row.bool(4))
        }
        var indexes: [String: IndexMeta] = [:]
        for (id, name, keyPathText, unique, multiEntry) in rows {
            guard let path = try keyPath(keyPathText) else { throw damaged("index \(name) has no key path") }
            indexes[name] = IndexMeta(id: id, name: name, keyPath: path, unique: unique, multiEntry: multiEntry)
        }
        return indexes
    }

    private static func keyPath(_ text: String?) throws -> IDBKeyPath? {
        guard let text else { return nil }
        guard let path = IDBKeyPath(storedText: text) else { throw damaged("the key path \(text) cannot be read") }
        return path
    }

    /// An error for catalog rows this build cannot read.
    static func damaged(_ detail: String) -> IDBError {
        IDBError(.invalidState, "the IndexedDB catalog is damaged: \(detail)")
    }

    /// Bytes of the keys and values of a store's records in a range (`nil` for all).
    static func recordBytes(_ db: DatabaseConnection, storeID: Int64, range: EncodedRange?) throws -> Int64 {
        let (condition, values) = (range ?? EncodedRange.all).sql(column: "key")
        return try db.scalar(
            "SELECT coalesce(sum(length(key) + length(value)), 0) FROM idb_records WHERE store_id = ?\(condition)",
            [.integer(storeID)] + values)?.int64 ?? 0
    }
}

/// A key range with its bounds encoded, as SQL conditions on an encoded-key column.
struct EncodedRange: Sendable, Hashable {
    var lower: [UInt8]?
    var upper: [UInt8]?
    var lowerOpen: Bool
    var upperOpen: Bool

    static let all = EncodedRange(lower: nil, upper: nil, lowerOpen: true, upperOpen: true)

    init(lower: [UInt8]?, upper: [UInt8]?, lowerOpen: Bool, upperOpen: Bool) {
        self.lower = lower
        self.upper = upper
        self.lowerOpen = lowerOpen
        self.upperOpen = upperOpen
    }

    /// Validates and encodes a range; `nil` means every key.
    init(_ range: IDBKeyRange?) throws(IDBError) {
        guard let range else {
            self = .all
            return
        }
        try range.validate()
        self.init(
            lower: range.lower?.encodedUnchecked, upper: range.upper?.encodedUnchecked,
            lowerOpen: range.lowerOpen, upperOpen: range.upperOpen)
    }

    /// ` AND column >= ? AND column < ?` (as the bounds need) and the values to bind.
    func sql(column: String) -> (String, [DatabaseValue]) {
        var text = ""
        var values: [DatabaseValue] = []
        if let lower {
            text += " AND \(column) \(lowerOpen ? ">" : ">=") ?"
            values.append(.blob(lower))
        }
        if let upper {
            text += " AND \(column) \(upperOpen ? "<" : "<=") ?"
            values.append(.blob(upper))
        }
        return (text, values)
    }
}
