import Foundation

/// The offline web application caches (HTML application cache) of a website data store: per
/// origin, cache groups keyed by manifest URL, each holding its manifest and its entries.
///
/// An update replaces a group whole, manifest and entries, in one transaction: a reader sees
/// the old version or the new one, never a mix. Groups live in the store's database (in memory
/// for a non-persistent store) and are listed and removed as `.offlineWebApplicationCache`.
/// Every call reads from or commits to the database before it returns, so other processes on
/// the store see changes at once. All methods are thread-safe.
public final class ApplicationCacheStorage: Sendable {
    let database: StoreDatabase
    let clock: @Sendable () -> Date

    init(database: StoreDatabase, clock: @escaping @Sendable () -> Date) {
        self.database = database
        self.clock = clock
    }

    // MARK: - Writing

    /// Stores a new version of a group, replacing the manifest and every entry of the old one
    /// (if any) in one transaction.
    ///
    /// - Parameters:
    ///   - manifestURL: the manifest's URL, the group's key; its origin is the group's origin.
    ///   - manifest: the manifest's bytes.
    ///   - entries: the group's resources; a later entry for the same URL replaces an earlier one.
    /// - Returns: the group as stored.
    /// - Throws: `StoreError.invalidArgument` when the manifest URL has no origin (`data:`…);
    ///   `StoreError.database` when the change cannot be committed (the old version is kept then).
    @discardableResult
    public func replaceGroup(manifestURL: URL, manifest: Data, entries: [ApplicationCacheEntry]) throws
        -> ApplicationCacheGroup
    {
        let manifestURL = Self.withoutFragment(manifestURL)
        guard let origin = SecurityOrigin(url: manifestURL) else {
            throw StoreError.invalidArgument("the manifest URL \(manifestURL.absoluteString) has no origin")
        }
        let now = clock().timeIntervalSince1970
        let site = origin.site
        let key = manifestURL.absoluteString
        var rows: [[DatabaseValue]] = []
        rows.reserveCapacity(entries.count)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        for entry in entries {
            let headers = try encoder.encode(entry.headers.map { [$0.name, $0.value] })
            rows.append([
                .text(entry.url.absoluteString), .text(entry.kind.rawValue), .integer(Int64(entry.statusCode)),
                .text(String(decoding: headers, as: UTF8.self)), .blob([UInt8](entry.body)), .integer(entry.size),
                .text(site), .real(now),
            ])
        }
        let manifestBytes = [UInt8](manifest)
        let frozenRows = rows
        do {
            try database.write(changes: [ChangeLogEntry(.offlineWebApplicationCache, site: site, cause: .write)]) {
                db in
                let existing = try db.scalar("SELECT id FROM appcache_groups WHERE manifest_url = ?", [.text(key)])?
                    .int64
                let id: Int64
                if let existing {
                    id = existing
                    try db.execute("DELETE FROM appcache_entries WHERE group_id = ?", [.integer(id)])
                    try db.execute(
                        "UPDATE appcache_groups SET manifest = ?, modified = ? WHERE id = ?",
                        [.blob(manifestBytes), .real(now), .integer(id)])
                } else {
                    try db.execute(
                        """
                        INSERT INTO appcache_groups (manifest_url, origin, manifest, site, created, modified)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                        [
                            .text(key), .text(origin.description), .blob(manifestBytes), .text(site), .real(now),
                            .real(now),
                        ])
                    id =
                        try db.scalar("SELECT id FROM appcache_groups WHERE manifest_url = ?", [.text(key)])?.int64 ?? 0
                }
                for row in frozenRows {
                    try db.execute(
                        """
                        INSERT INTO appcache_entries (group_id, url, kind, status, headers, body, size, site, modified)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (group_id, url) DO UPDATE SET kind = excluded.kind, status = excluded.status,
                            headers = excluded.headers, body = excluded.body, size = excluded.size,
                            site = excluded.site, modified = excluded.modified
                        """, [.integer(id)] + row)
                }
            }
        } catch {
            throw StorageRemoval.storeError(error)
        }
        guard let group = try group(manifestURL: manifestURL) else {
            throw StoreError.invalidArgument("the group of \(key) was removed while it was stored")
        }
        return group
    }

    /// Deletes a group and its entries.
    ///
    /// - Parameter manifestURL: the group's manifest URL.
    /// - Returns: whether there was such a group.
    /// - Throws: `StoreError.database` when the change cannot be committed.
    @discardableResult
    public func deleteGroup(manifestURL: URL) throws -> Bool {
        let key = Self.withoutFragment(manifestURL).absoluteString
        let site = SecurityOrigin(url: manifestURL)?.site ?? "*"
        let ids = try removeGroups(
            changes: [ChangeLogEntry(.offlineWebApplicationCache, site: site, cause: .removal)],
            conditions: [("manifest_url = ?", [.text(key)])])
        return !ids.isEmpty
    }

    // MARK: - Reading

    /// The group with this manifest URL, without its entries.
    ///
    /// - Parameter manifestURL: the manifest's URL (a fragment is ignored).
    /// - Returns: the group, or `nil` when there is none.
    /// - Throws: `StoreError.database` when the store cannot be read.
    public func group(manifestURL: URL) throws -> ApplicationCacheGroup? {
        try groups(where: "manifest_url = ?", [.text(Self.withoutFragment(manifestURL).absoluteString)]).first
    }

    /// The groups of an origin, or of every origin, sorted by manifest URL.
    ///
    /// - Parameter origin: the origin, or `nil` for all.
    /// - Returns: the groups, without their entries.
    /// - Throws: `StoreError.database` when the store cannot be read.
    public func groups(origin: SecurityOrigin? = nil) throws -> [ApplicationCacheGroup] {
        if let origin { return try groups(where: "origin = ?", [.text(origin.description)]) }
        return try groups(where: "1 = 1", [])
    }

    /// Every entry of a group, sorted by URL.
    ///
    /// - Parameter manifestURL: the group's manifest URL.
    /// - Returns: the entries; empty when there is no such group.
    /// - Throws: `StoreError.database` when the store cannot be read.
    public func entries(manifestURL: URL) throws -> [ApplicationCacheEntry] {
        try read { db in
            try db.rows(
                """
                SELECT e.url, e.kind, e.status, e.headers, e.body FROM appcache_entries e
                JOIN appcache_groups g ON g.id = e.group_id WHERE g.manifest_url = ? ORDER BY e.url
                """, [.text(Self.withoutFragment(manifestURL).absoluteString)], Self.entry)
        }.compactMap { $0 }
    }

    /// The entry stored for a URL in one group.
    ///
    /// - Parameters:
    ///   - url: the resource's URL (a fragment is ignored).
    ///   - manifestURL: the group's manifest URL.
    /// - Returns: the entry, or `nil` when the group holds none for `url`.
    /// - Throws: `StoreError.database` when the store cannot be read.
    public func entry(for url: URL, manifestURL: URL) throws -> ApplicationCacheEntry? {
        try read { db in
            try db.rows(
                """
                SELECT e.url, e.kind, e.status, e.headers, e.body FROM appcache_entries e
                JOIN appcache_groups g ON g.id = e.group_id WHERE g.manifest_url = ? AND e.url = ?
                """,
                [
                    .text(Self.withoutFragment(manifestURL).absoluteString),
                    .text(Self.withoutFragment(url).absoluteString),
                ],
                Self.entry)
        }.compactMap { $0 }.first
    }

    /// The entry stored for a URL in any group, from the most recently updated group that has one,
    /// as a browser chooses a cache for a navigation.
    ///
    /// - Parameter url: the resource's URL (a fragment is ignored).
    /// - Returns: the entry and its group's manifest URL, or `nil` when no group holds `url`.
    /// - Throws: `StoreError.database` when the store cannot be read.
    public func entry(for url: URL) throws -> (entry: ApplicationCacheEntry, manifestURL: URL)? {
        try read { db in
            try db.rows(
                """
                SELECT e.url, e.kind, e.status, e.headers, e.body, g.manifest_url FROM appcache_entries e
                JOIN appcache_groups g ON g.id = e.group_id WHERE e.url = ? ORDER BY g.modified DESC, g.id DESC LIMIT 1
                """, [.text(Self.withoutFragment(url).absoluteString)]
            ) { row -> (ApplicationCacheEntry, URL)? in
                guard let entry = Self.entry(row), let manifest = URL(string: row.string(5)) else { return nil }
                return (entry, manifest)
            }
        }.compactMap { $0 }.first.map { (entry: $0.0, manifestURL: $0.1) }
    }

    // MARK: - Internals

    /// A URL without its fragment, as application caches key resources.
    static func withoutFragment(_ url: URL) -> URL {
        guard url.fragment != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url
        }
        components.fragment = nil
        return components.url ?? url
    }

    /// The bytes of a group: its manifest and every entry's size (`ApplicationCacheEntry.size`).
    static let sizeExpression = """
        length(g.manifest) + coalesce((SELECT sum(e.size) FROM appcache_entries e WHERE e.group_id = g.id), 0)
        """

    private func groups(where condition: String, _ arguments: [DatabaseValue]) throws -> [ApplicationCacheGroup] {
        try read { db in
            try db.rows(
                """
                SELECT g.manifest_url, g.origin, g.manifest, g.created, g.modified,
                       (SELECT count(*) FROM appcache_entries e WHERE e.group_id = g.id), \(Self.sizeExpression)
                FROM appcache_groups g WHERE \(condition) ORDER BY g.manifest_url
                """, arguments
            ) { row -> ApplicationCacheGroup? in
                guard let url = URL(string: row.string(0)), let origin = SecurityOrigin(string: row.string(1)) else {
                    return nil
                }
                return ApplicationCacheGroup(
                    manifestURL: url, origin: origin, manifest: Data(row.blob(2)),
                    entryCount: Int(row.int(5)), size: row.int(6),
                    created: Date(timeIntervalSince1970: row.double(3)),
                    modified: Date(timeIntervalSince1970: row.double(4)))
            }
        }.compactMap { $0 }
    }

    private static func entry(_ row: Row) -> ApplicationCacheEntry? {
        guard let url = URL(string: row.string(0)) else { return nil }
        let pairs = (try? JSONDecoder().decode([[String]].self, from: Data(row.string(3).utf8))) ?? []
        return ApplicationCacheEntry(
            url: url, kind: ApplicationCacheEntry.Kind(rawValue: row.string(1)) ?? .explicit,
            statusCode: Int(row.int(2)),
            headers: pairs.filter { $0.count == 2 }.map { HTTPHeaderField($0[0], $0[1]) },
            body: Data(row.blob(4)))
    }

    private func read<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        do { return try database.read(body) } catch { throw StorageRemoval.storeError(error) }
    }

    /// Removes the groups matching any condition, with their entries; returns their sites.
    private func removeGroups(changes: [ChangeLogEntry], conditions: [(sql: String, arguments: [DatabaseValue])]) throws
        -> [String: Int]
    {
        do {
            return try database.writeNow(changes: changes) { db in
                var counts: [String: Int] = [:]
                for condition in conditions {
                    let groups = try db.rows(
                        "SELECT id, site FROM appcache_groups WHERE \(condition.sql)", condition.arguments
                    ) {
                        ($0.int(0), $0.string(1))
                    }
                    for (id, site) in groups {
                        try db.execute("DELETE FROM appcache_entries WHERE group_id = ?", [.integer(id)])
                        try db.execute("DELETE FROM appcache_groups WHERE id = ?", [.integer(id)])
                        counts[site, default: 0] += 1
                    }
                }
                return counts
            }
        } catch {
            throw StorageRemoval.storeError(error)
        }
    }
}

extension ApplicationCacheStorage: WebsiteDataComponent {
    static func open(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws -> Self {
        Self(database: database, clock: clock)
    }

    var dataType: WebsiteDataType { .offlineWebApplicationCache }

    func siteSizes() throws -> [String: Int64] {
        try read { db in
            Dictionary(
                try db.rows("SELECT g.site, sum(\(Self.sizeExpression)) FROM appcache_groups g GROUP BY g.site") {
                    ($0.string(0), $0.int(1))
                }, uniquingKeysWith: +)
        }
    }

    func removeData(matching filter: RemovalFilter, dryRun: Bool) throws -> [String: Int] {
        let conditions = StorageRemoval.conditions(filter)
        guard !conditions.isEmpty else { return [:] }
        if dryRun { return try read { try StorageRemoval.matchingCounts(in: "appcache_groups", filter, $0) } }
        return try removeGroups(
            changes: StorageRemoval.changes(.offlineWebApplicationCache, filter), conditions: conditions)
    }
}
