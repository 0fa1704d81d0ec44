import Foundation

/// Brings a PostgreSQL database to the schema this binary knows, from the migrations embedded
/// from `Migrations/postgresql/NNNN_name.sql`.
///
/// Each migration runs in a transaction of its own that first takes the advisory lock
/// (`PostgreSQLConnection.lockNamespace`, 0), so machines that start at once apply each migration
/// once: the others wait, then find it recorded. Applied versions are recorded in
/// `wkstore_schema`. A database that records a version this binary does not know was migrated by
/// a newer wkstore, and is refused before anything is written; so is a database that holds
/// tables of another program.
public struct PostgreSQLMigrator: Sendable {
    let migrations: [EmbeddedMigration]

    /// A migrator with the migrations compiled into this binary.
    public init() { self.init(migrations: embeddedPostgreSQLMigrations) }

    init(migrations: [EmbeddedMigration]) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// The newest schema version this binary knows.
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The key of the lock under which migrations run: (`lockNamespace`, this).
    static let lockKey: Int32 = 0

    /// The versions recorded in the database, oldest first (empty for a new database). Reads only.
    ///
    /// - Parameter connection: a connection to the database.
    /// - Returns: the applied versions.
    /// - Throws: `PostgreSQLError` with reason `.notAStore` for a database whose schema holds
    ///   tables but no schema record, or as `execute` does.
    public func appliedVersions(_ connection: PostgreSQLConnection) throws(PostgreSQLError) -> [Int] {
        let recordQuery = "SELECT to_regclass('wkstore_schema') IS NOT NULL"
        let recorded = try connection.execute(recordQuery).scalar?.bool ?? false
        guard recorded else {
            let tables =
                try connection.execute(
                    "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()"
                ).scalar?.int64 ?? 0
            // A migration's tables and its record commit together: tables seen without the record
            // may be another connection's migration that committed between the two reads.
            if tables > 0, try connection.execute(recordQuery).scalar?.bool == true {
                return try appliedVersions(connection)
            }
            if tables > 0 {
                throw PostgreSQLError(
                    .notAStore,
                    "the database's schema holds \(tables) tables but no wkstore schema record: it belongs to another program (it was not changed)"
                )
            }
            return []
        }
        return try connection.execute("SELECT version FROM wkstore_schema ORDER BY version").rows.compactMap {
            $0[0].int64.map { Int($0) }
        }
    }

    /// Checks, without writing, that the database has a schema this binary can use as it is.
    ///
    /// - Parameter connection: a connection to the database.
    /// - Throws: `PostgreSQLError` with reason `.schemaMissing` when it was never migrated (or
    ///   lacks migrations this binary has: `migrate` brings it up to date), `.schemaNewer` when a
    ///   newer wkstore migrated it.
    public func check(_ connection: PostgreSQLConnection) throws(PostgreSQLError) {
        let applied = try appliedVersions(connection)
        try refuseNewer(applied)
        let missing = migrations.map(\.version).filter { !applied.contains($0) }
        if !missing.isEmpty {
            throw PostgreSQLError(
                .schemaMissing,
                applied.isEmpty
                    ? "the database holds no wkstore schema: migrate it first"
                    : "the database lacks schema versions \(missing.map(String.init).joined(separator: ", ")): migrate it first"
            )
        }
    }

    /// Applies every migration the database has not recorded, each in its own transaction under
    /// the migration lock.
    ///
    /// - Parameter connection: a connection to the database, outside a transaction.
    /// - Returns: the versions this call applied (empty when another connection had applied them all).
    /// - Throws: `PostgreSQLError` with reason `.schemaNewer` or `.notAStore` (the database was not
    ///   changed), or the error of a migration (which was rolled back).
    @discardableResult
    public func migrate(_ connection: PostgreSQLConnection) throws -> [Int] {
        // Refused before any lock or write when it can be seen already.
        try refuseNewer(appliedVersions(connection))
        var applied: [Int] = []
        for migration in migrations {
            let ran = try connection.transaction { () throws -> Bool in
                try connection.advisoryTransactionLock(
                    namespace: PostgreSQLConnection.lockNamespace, key: Self.lockKey)
                // Read again under the lock: another connection may have migrated meanwhile.
                let done = try appliedVersions(connection)
                try refuseNewer(done)
                guard !done.contains(migration.version) else { return false }
                if done.isEmpty {
                    try connection.execute(
                        """
                        CREATE TABLE IF NOT EXISTS wkstore_schema (
                            version    integer PRIMARY KEY,
                            name       text NOT NULL,
                            applied_at double precision NOT NULL
                        )
                        """)
                }
                try connection.executeScript(migration.sql)
                try connection.execute(
                    "INSERT INTO wkstore_schema (version, name, applied_at) VALUES ($1, $2, extract(epoch FROM now()))",
                    [.int64(Int64(migration.version)), .text(migration.name)])
                return true
            }
            if ran { applied.append(migration.version) }
        }
        return applied
    }

    private func refuseNewer(_ applied: [Int]) throws(PostgreSQLError) {
        if let newest = applied.last, newest > latestVersion {
            throw PostgreSQLError(
                .schemaNewer,
                "the database has schema version \(newest), newer than this wkstore supports (\(latestVersion)); upgrade wkstore to use it (the database was not changed)"
            )
        }
    }
}
