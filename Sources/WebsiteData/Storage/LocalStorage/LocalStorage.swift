import Foundation

/// The localStorage of a website data store: per origin, string keys and string values that
/// last until removed, in the store's database (in memory for a non-persistent store).
///
/// Each origin may hold up to the store's quota (the setting `localstorage.quota`, 5 MiB by
/// default), counted as browsers count it: the UTF-16 code units of every key and value, two
/// bytes each. A write that would exceed it throws `StorageQuotaError` and changes nothing.
///
/// Every call reads from or commits to the database before it returns, so what one process
/// writes the next call of another process on the same store sees. All methods are thread-safe.
public final class LocalStorage: Sendable {
    let database: StoreDatabase
    let clock: @Sendable () -> Date

    init(database: StoreDatabase, clock: @escaping @Sendable () -> Date) {
        self.database = database
        self.clock = clock
    }

    // MARK: - Reading

    /// The value stored under a key, as `localStorage.getItem(key)`.
    ///
    /// - Parameters:
    ///   - key: the key.
    ///   - origin: the origin whose storage to read.
    /// - Returns: the value, or `nil` when the key is not set.
    /// - Throws: `StoreError.database` when the store cannot be read.
    public func getItem(_ key: String, origin: SecurityOrigin) throws -> String? {
        try read { db in
            try db.rows(
                "SELECT value FROM local_storage WHERE origin = ? AND key = ?",
                [.text(origin.description), db.engine.anyText(key)]
            ) { $0.string(0) }.first
        }
    }

    /// The keys of an origin, in the order they were first set.
    ///
    /// - Parameter origin: the origin whose storage to read.
    /// - Returns: the keys; empty when the origin has none.
    /// - Throws: `StoreError.database` when the store cannot be read.
    public func keys(origin: SecurityOrigin) throws -> [String] {
        try read { db in
            try db.rows("SELECT key FROM local_storage WHERE origin = ? ORDER BY id", [.text(origin.description)]) {
                $0.string(0)
            }
        }
    }

    /// The key at a position, as `localStorage.key(index)`: keys are in the order first set.
    ///
    /// - Parameters:
    ///   - index: the position, from 0.
    ///   - origin: the origin whose storage to read.
    /// - Returns: the key, or `nil` when `index` is out of range.
    /// - Throws: `StoreError.database` when the store cannot be read.
    public func key(at index: Int, origin: SecurityOrigin) throws -> String? {
        guard index >= 0 else { return nil }
        return try read { db in
            try db.rows(
                "SELECT key FROM local_storage WHERE origin = ? ORDER BY id LIMIT 1 OFFSET ?",
                [.text(origin.description), .integer(Int64(index))]
            ) { $0.string(0) }.first
        }
    }

    /// The number of items of an origin, as `localStorage.length`.
    ///
    /// - Parameter origin: the origin whose storage to read.
    /// - Returns: how many keys are set.
    /// - Throws: `StoreError.database` when the store cannot be read.
    public func length(origin: SecurityOrigin) throws -> Int {
        try read { db in
            Int(
                try db.scalar("SELECT count(*) FROM local_storage WHERE origin = ?", [.text(origin.description)])?.int64
                    ?? 0)
        }
    }

    /// Every item of an origin, with its modification time, in the order first set.
    ///
    /// - Parameter origin: the origin whose storage to read.
    /// - Returns: the items.
    /// - Throws: `StoreError.database` when the store cannot be read.
    public func items(origin: SecurityOrigin) throws -> [StorageItem] {
        try read { db in
            try db.rows(
                "SELECT key, value, modified FROM local_storage WHERE origin = ? ORDER BY id",
                [.text(origin.description)]
            ) {
                StorageItem(key: $0.string(0), value: $0.string(1), modified: Date(timeIntervalSince1970: $0.double(2)))
            }
        }
    }

    /// The bytes an origin's items count against its quota.
    ///
    /// - Parameter origin: the origin.
    /// - Returns: the sum over its items of the UTF-16 code units of key and value, times two.
    /// - Throws: `StoreError.database` when the store cannot be read.
    public func usage(origin: SecurityOrigin) throws -> Int64 {
        try read { db in
            try db.scalar(
                "SELECT coalesce(sum(size), 0) FROM local_storage WHERE origin = ?", [.text(origin.description)])?.int64
                ?? 0
        }
    }

    /// The origins that have localStorage items, sorted by serialization.
    ///
    /// - Returns: the origins.
    /// - Throws: `StoreError.database` when the store cannot be read.
    public func origins() throws -> [SecurityOrigin] {
        try read { db in
            try db.rows("SELECT DISTINCT origin FROM local_storage ORDER BY origin") { $0.string(0) }
        }.compactMap(SecurityOrigin.init(string:))
    }

    // MARK: - Writing

    /// Stores a value under a key, as `localStorage.setItem(key, value)`; committed when it returns.
    ///
    /// Setting the value a key already holds changes nothing (its modification time included),
    /// as in browsers.
    ///
    /// - Parameters:
    ///   - key: the key.
    ///   - value: the value.
    ///   - origin: the origin whose storage to write.
    /// - Throws: `StorageQuotaError` when the origin would hold more than its quota (nothing is
    ///   changed then); `StoreError.database` when the write cannot be committed.
    public func setItem(_ key: String, _ value: String, origin: SecurityOrigin) throws {
        if try getItem(key, origin: origin) == value { return }
        let now = clock().timeIntervalSince1970
        let size = StorageItem.size(key: key, value: value)
        let originText = origin.description
        try write(origin) { db in
            let quota = try StorageQuota.bytes(db)
            let used =
                try db.scalar("SELECT coalesce(sum(size), 0) FROM local_storage WHERE origin = ?", [.text(originText)])?
                .int64 ?? 0
            let replaced =
                try db.scalar(
                    "SELECT size FROM local_storage WHERE origin = ? AND key = ?",
                    [.text(originText), db.engine.anyText(key)])?.int64 ?? 0
            _ = try StorageQuota.usage(storing: size, replacing: replaced, in: used, quota: quota, origin: origin)
            try db.execute(
                """
                INSERT INTO local_storage (origin, key, value, size, site, modified) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (origin, key) DO UPDATE SET value = excluded.value, size = excluded.size, modified = excluded.modified
                """,
                [
                    .text(originText), db.engine.anyText(key), db.engine.anyText(value), .integer(size),
                    .text(origin.site), .real(now),
                ])
        }
    }

    /// Removes a key, as `localStorage.removeItem(key)`; committed when it returns.
    ///
    /// - Parameters:
    ///   - key: the key; removing a key that is not set does nothing.
    ///   - origin: the origin whose storage to write.
    /// - Throws: `StoreError.database` when the change cannot be committed.
    public func removeItem(_ key: String, origin: SecurityOrigin) throws {
        guard try getItem(key, origin: origin) != nil else { return }
        let originText = origin.description
        try write(origin, cause: .removal) { db in
            try db.execute(
                "DELETE FROM local_storage WHERE origin = ? AND key = ?", [.text(originText), db.engine.anyText(key)])
        }
    }

    /// Removes every item of an origin, as `localStorage.clear()`; committed when it returns.
    ///
    /// - Parameter origin: the origin whose storage to empty.
    /// - Throws: `StoreError.database` when the change cannot be committed.
    public func clear(origin: SecurityOrigin) throws {
        guard try length(origin: origin) > 0 else { return }
        let originText = origin.description
        try write(origin, cause: .removal) { db in
            try db.execute("DELETE FROM local_storage WHERE origin = ?", [.text(originText)])
        }
    }

    // MARK: - Internals

    private func read<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        do { return try database.read(body) } catch { throw StorageRemoval.storeError(error) }
    }

    private func write(
        _ origin: SecurityOrigin, cause: ChangeCause = .write,
        _ body: @escaping @Sendable (DatabaseConnection) throws -> Void
    ) throws {
        do {
            try database.write(changes: [ChangeLogEntry(.localStorage, site: origin.site, cause: cause)], body)
        } catch {
            throw StorageRemoval.storeError(error)
        }
    }
}

extension LocalStorage: WebsiteDataComponent {
    static func open(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws -> Self {
        Self(database: database, clock: clock)
    }

    var dataType: WebsiteDataType { .localStorage }

    func siteSizes() throws -> [String: Int64] {
        try read { db in
            Dictionary(
                try db.rows("SELECT site, sum(size) FROM local_storage GROUP BY site") { ($0.string(0), $0.int(1)) },
                uniquingKeysWith: +)
        }
    }

    func removeData(matching filter: RemovalFilter, dryRun: Bool) throws -> [String: Int] {
        let conditions = StorageRemoval.conditions(filter)
        guard !conditions.isEmpty else { return [:] }
        if dryRun { return try read { try StorageRemoval.matchingCounts(in: "local_storage", filter, $0) } }
        do {
            return try database.writeNow(changes: StorageRemoval.changes(.localStorage, filter)) { db in
                let counts = try StorageRemoval.matchingCounts(in: "local_storage", filter, db)
                for condition in conditions {
                    try db.execute("DELETE FROM local_storage WHERE \(condition.sql)", condition.arguments)
                }
                return counts
            }
        } catch {
            throw StorageRemoval.storeError(error)
        }
    }
}
