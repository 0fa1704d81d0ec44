import Foundation

extension IndexedDBStore: WebsiteDataComponent {
    static func open(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws -> Self {
        Self(database: database, clock: clock)
    }

    var dataType: WebsiteDataType { .indexedDBDatabases }

    /// Bytes of record keys and values per site; a site whose databases hold no records is listed with 0.
    func siteSizes() throws -> [String: Int64] {
        Dictionary(
            uniqueKeysWithValues: try readTransaction { db in
                try db.rows("SELECT site, sum(size) FROM idb_databases GROUP BY site") { ($0.string(0), $0.int(1)) }
            })
    }

    /// Removes whole databases: those of the filter's sites, modified (last written) at or after its date.
    func removeData(matching filter: RemovalFilter, dryRun: Bool) throws -> [String: Int] {
        var condition = ""
        var values: [DatabaseValue] = []
        if let since = filter.modifiedSince {
            condition += " AND modified >= ?"
            values.append(.real(since.timeIntervalSince1970))
        }
        if let sites = filter.sites {
            if sites.isEmpty { return [:] }
            condition += " AND site IN (" + Array(repeating: "?", count: sites.count).joined(separator: ", ") + ")"
            values += sites.sorted().map { .text($0) }
        }
        let select = "SELECT site, count(*) FROM idb_databases WHERE 1 = 1\(condition) GROUP BY site"
        let count: (DatabaseConnection) throws -> [String: Int] = { db in
            Dictionary(uniqueKeysWithValues: try db.rows(select, values) { ($0.string(0), Int($0.int(1))) })
        }
        let counts = try readTransaction(count)
        if dryRun || counts.isEmpty { return counts }
        return try writeTransaction(sites: Set(counts.keys), cause: .removal) { db in
            let taken = try count(db)
            try db.execute("DELETE FROM idb_databases WHERE 1 = 1\(condition)", values)
            return taken
        }
    }
}
