import Foundation

extension StoreDatabase {
    /// The writer connection of a PostgreSQL store, with the store's schema made and migrated.
    ///
    /// The schema is made under the migration lock, so processes opening a new store at once
    /// make it once; an existing schema is only looked up (a role that may not create schemas
    /// can use one made for it).
    ///
    /// - Parameter readOnly: only check that the schema exists and is this binary's.
    static func openPostgreSQL(_ location: PostgreSQLStoreLocation, readOnly: Bool) throws -> PostgreSQLStoreConnection
    {
        let connection = try location.connect()
        if readOnly {
            try PostgreSQLMigrator().check(connection)
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
}
