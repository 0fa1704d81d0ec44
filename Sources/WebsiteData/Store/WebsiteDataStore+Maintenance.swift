import CSQLite
import Foundation

/// What `vacuum()` gave back.
public struct VacuumResult: Sendable, Hashable {
    /// Bytes the store's database files took before.
    public var bytesBefore: Int64
    /// Bytes they take after.
    public var bytesAfter: Int64
}

extension WebsiteDataStore {
    /// Copies the store consistently into `destination` (a new or empty directory), while other
    /// processes may go on writing: SQLite's online backup copies one snapshot of the database.
    ///
    /// A read-only store can be backed up: the copy is read from it without writing it.
    ///
    /// - Parameter destination: the directory of the copy; it becomes a store of its own.
    /// - Throws: `StoreError` when this store is not persistent or is a PostgreSQL store, the
    ///   destination holds a store already, or the copy fails (a partial copy is removed).
    public func backup(to destination: URL) throws {
        guard isPersistent else {
            throw StoreError.invalidArgument("a non-persistent store has nothing on disk to back up")
        }
        // Only a SQLite store has a database file to copy; a PostgreSQL store would otherwise
        // be "backed up" as an empty copy.
        guard directory != nil else {
            throw StoreError.invalidArgument(
                "a PostgreSQL store has no files to back up: copy it into a directory with copyStore(from:to:) (wkstore copy), or use pg_dump"
            )
        }
        let target = destination.appendingPathComponent(StoreDatabase.fileName)
        if FileManager.default.fileExists(atPath: target.path) {
            throw StoreError.invalidArgument("\(destination.path) already holds a store; back up into a new directory")
        }
        try Self.makeDirectory(destination)
        do {
            let copy = try SQLiteConnection(location: .file(target))
            try database.read { db in
                // A store with a directory is a SQLite store.
                guard let source = db as? SQLiteConnection else { return }
                guard let backup = sqlite3_backup_init(copy.handle, "main", source.handle, "main") else {
                    throw DatabaseError(connection: copy.handle, code: sqlite3_errcode(copy.handle))
                }
                // One step copies the whole database under one read snapshot.
                let code = sqlite3_backup_step(backup, -1)
                let finish = sqlite3_backup_finish(backup)
                guard code == SQLITE_DONE else { throw DatabaseError(connection: copy.handle, code: code) }
                guard finish == SQLITE_OK else { throw DatabaseError(connection: copy.handle, code: finish) }
            }
            try copy.execute("PRAGMA journal_mode = WAL")
            StoreDatabase.restrictPermissions(directory: destination)
        } catch {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: destination.path)) ?? []
            where name.hasPrefix(StoreDatabase.fileName) {
                try? FileManager.default.removeItem(at: destination.appendingPathComponent(name))
            }
            throw HTTPCookieStore.storeError(error)
        }
    }

    /// Rebuilds the database file to give back the space of large removals, and truncates the
    /// write-ahead log. On PostgreSQL, rewrites the store's tables (`VACUUM (FULL, ANALYZE)` of
    /// its schema's tables: other processes' calls on the store wait while it runs; the role
    /// must own the tables, as the role that made the store does).
    ///
    /// - Returns: the size of the database files before and after (on PostgreSQL, of the
    ///   store's tables with their indexes and TOAST data); zero for a non-persistent store.
    /// - Throws: `StoreError.readOnly` for a store opened read-only, or the database's error.
    @discardableResult
    public func vacuum() throws -> VacuumResult {
        try database.checkWritable()
        guard isPersistent else { return VacuumResult(bytesBefore: 0, bytesAfter: 0) }
        do {
            try database.foldChangeLog()
            return try database.writer.withLock { db in
                guard let directory else {
                    let before = try Self.postgreSQLBytes(db)
                    let tables = try db.rows(
                        "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema() ORDER BY tablename",
                        []
                    ) { $0.string(0) }
                    // Table names are the migrations' own: letters, digits and '_'.
                    if !tables.isEmpty { try db.execute("VACUUM (FULL, ANALYZE) " + tables.joined(separator: ", ")) }
                    return VacuumResult(bytesBefore: before, bytesAfter: try Self.postgreSQLBytes(db))
                }
                let before = Self.databaseBytes(directory)
                try db.execute("VACUUM")
                try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                return VacuumResult(bytesBefore: before, bytesAfter: Self.databaseBytes(directory))
            }
        } catch {
            throw HTTPCookieStore.storeError(error)
        }
    }

    /// The bytes the tables of a PostgreSQL store's schema take, with their indexes and TOAST data.
    private static func postgreSQLBytes(_ db: DatabaseConnection) throws -> Int64 {
        try db.scalar(
            """
            SELECT COALESCE(sum(pg_catalog.pg_total_relation_size(c.oid)), 0)::bigint FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind = 'r'
            """, []
        )?.int64 ?? 0
    }

    static func databaseBytes(_ directory: URL) -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(StoreDatabase.fileName) }.reduce(0) { total, name in
            let size =
                (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.size])
                as? Int64
            return total + (size ?? 0)
        }
    }
}
