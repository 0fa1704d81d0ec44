import Foundation

/// SQL for removing storage rows by a `RemovalFilter`: one indexed query per site (or one for
/// every site), each limited by modification time when the filter has a date.
enum StorageRemoval {
    /// `WHERE` conditions and their arguments, one per site of the filter (one in all without sites).
    ///
    /// - Parameters:
    ///   - filter: what to match.
    ///   - siteColumn: the column holding the display name.
    ///   - modifiedColumn: the column holding the modification time (Unix seconds).
    /// - Returns: the conditions; none when the filter names an empty set of sites.
    static func conditions(
        _ filter: RemovalFilter, siteColumn: String = "site",
        modifiedColumn: String = "modified"
    ) -> [(sql: String, arguments: [DatabaseValue])] {
        var base: [String] = []
        var arguments: [DatabaseValue] = []
        if let since = filter.modifiedSince {
            base.append("\(modifiedColumn) >= ?")
            arguments.append(.real(since.timeIntervalSince1970))
        }
        guard let sites = filter.sites else {
            return [(base.isEmpty ? "1 = 1" : base.joined(separator: " AND "), arguments)]
        }
        return sites.sorted().map { site in
            ((["\(siteColumn) = ?"] + base).joined(separator: " AND "), [.text(site)] + arguments)
        }
    }

    /// The change-log entries a removal by `filter` writes: one per site, or `*` for every site,
    /// each with the filter's date, so processes holding data in memory remove the same.
    static func changes(_ type: WebsiteDataType, _ filter: RemovalFilter) -> [ChangeLogEntry] {
        guard let sites = filter.sites else {
            return [ChangeLogEntry(type, site: "*", cause: .removal, since: filter.modifiedSince)]
        }
        return sites.sorted().map { ChangeLogEntry(type, site: $0, cause: .removal, since: filter.modifiedSince) }
    }

    /// The rows of `table` that the filter matches, counted per display name.
    static func matchingCounts(in table: String, _ filter: RemovalFilter, _ db: DatabaseConnection) throws
        -> [String: Int]
    {
        var counts: [String: Int] = [:]
        for condition in conditions(filter) {
            let sql = "SELECT site, count(*) FROM \(table) WHERE \(condition.sql) GROUP BY site"
            for (site, count) in try db.rows(sql, condition.arguments, { ($0.string(0), $0.int(1)) }) {
                counts[site, default: 0] += Int(count)
            }
        }
        return counts
    }

    /// Maps a database error to the store's error type; other errors pass through.
    static func storeError(_ error: Error) -> Error {
        if let db = error as? DatabaseError { return StoreError.database(db) }
        return error
    }
}
