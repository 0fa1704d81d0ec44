import Foundation

extension StoreDatabase {
    /// The writer connection of a PostgreSQL store, with the store's schema made and migrated.
    ///
    /// The schema is made under the migration lock, so processes opening a new store at once
    /// make it once; an existing schema is only looked up (a role that may not create schemas
    /// can use one made for it).
    ///
    /// - Parameter readOnly: only check that the schema exists and is this binary's.
    /// - Throws: for `readOnly`, `StoreError.olderSchema` when an older wkstore migrated the
    ///   schema (a writable open upgrades it), `PostgreSQLError` with reason `.schemaMissing`
    ///   when it was never migrated, `.schemaNewer` when a newer one did.
    static func openPostgreSQL(_ location: PostgreSQLStoreLocation, readOnly: Bool) throws -> PostgreSQLStoreConnection
    {
        let connection = try location.connect()
        if readOnly {
            try checkReadable(connection, location)
            return PostgreSQLStoreConnection(connection)
        }
        let exists = "SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = $1"
        if try connection.execute(exists, [.text(location.schema)]).scalar?.int64 == 0 {
            try connection.transaction {
                try connection.advisoryTransactionLock(
                    namespace: PostgreSQLConnection.lockNamespace, key: PostgreSQLMigrator.lockKey)
                // A schema name made by PostgreSQLStoreLocation is letters, digits and '_'.
                try connection.execute("CREATE SCHEMA IF NOT EXISTS \(location.schema)")
            }
        }
        try PostgreSQLMigrator().migrate(connection)
        return PostgreSQLStoreConnection(connection)
    }

    /// Checks that a read-only open can use the schema as it is: an older one is reported as a
    /// SQLite store of an older schema is.
    private static func checkReadable(_ connection: PostgreSQLConnection, _ location: PostgreSQLStoreLocation) throws {
        let migrator = PostgreSQLMigrator()
        let failure: PostgreSQLError
        do {
            try migrator.check(connection)
            return
        } catch {
            failure = error
        }
        guard failure.reason == .schemaMissing, let found = try migrator.appliedVersions(connection).last else {
            throw failure
        }
        throw StoreError.olderSchema(path: location.summary, found: found, supported: migrator.latestVersion)
    }
}
