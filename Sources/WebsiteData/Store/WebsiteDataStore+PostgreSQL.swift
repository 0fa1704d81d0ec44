import Foundation

extension WebsiteDataStore {
    /// Whether `text` names a store in a PostgreSQL database (a `postgresql://` or
    /// `postgres://` URI) rather than a directory.
    public static func isPostgreSQLURI(_ text: String) -> Bool { PostgreSQLStoreLocation.isPostgreSQLURI(text) }

    /// The identifiers of the stores made for identifiers in the PostgreSQL database a URI names,
    /// sorted (the default store is not among them).
    ///
    /// - Throws: `StoreError.invalidArgument` for a URL that is not a `postgresql://` URI;
    ///   `PostgreSQLError` when the server cannot be reached or refuses.
    public static func allDataStoreIdentifiers(in url: URL) throws -> [UUID] {
        let connection = try postgreSQLConnection(url)
        let rows = try connection.execute(
            "SELECT nspname FROM pg_catalog.pg_namespace WHERE starts_with(nspname, $1)",
            [.text(PostgreSQLStoreLocation.defaultSchema + "_")]
        ).rows
        return rows.compactMap { $0[0].text.flatMap(PostgreSQLStoreLocation.identifier(ofSchema:)) }
            .sorted { $0.uuidString < $1.uuidString }
    }

    /// Deletes the store of `identifier` in the PostgreSQL database a URI names, with all its data
    /// (its schema), unless a store object has it open on any machine (each holds a shared
    /// advisory lock of the store in its writer's session).
    ///
    /// - Parameters:
    ///   - identifier: the store's identifier.
    ///   - url: the database.
    ///   - force: delete it even while it is open: the objects that hold it fail at their next
    ///     call with `StoreError.storeRemoved`.
    /// - Throws: `StoreError.noSuchStore` when there is none; `.storeInUse` when it is open and
    ///   `force` is not given (nothing is removed); otherwise as `allDataStoreIdentifiers(in:)`.
    public static func removeDataStore(forIdentifier identifier: UUID, in url: URL, force: Bool = false) throws {
        let connection = try postgreSQLConnection(url)
        let location = PostgreSQLStoreLocation(connectionString: url.absoluteString, identifier: identifier)
        let schema = location.schema
        let exists = "SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = $1"
        guard try connection.execute(exists, [.text(schema)]).scalar?.int64 == 1 else {
            throw StoreError.noSuchStore(identifier: identifier)
        }
        // Held by this session until it ends: a store opened meanwhile waits for the drop.
        if try connection.execute(location.exclusiveUseLockStatement).scalar?.bool != true && !force {
            throw StoreError.storeInUse(identifier: identifier)
        }
        // A schema name made by PostgreSQLStoreLocation is letters, digits and '_'.
        try connection.execute("DROP SCHEMA \(schema) CASCADE")
    }

    /// Whether the store of `identifier` (the default store for `nil`) may have been made in
    /// the PostgreSQL database a URI names: its schema holds tables (wkstore's, of any schema
    /// version, or another program's, which opening it refuses). An empty schema made for a
    /// store by its administrator is not a store yet.
    ///
    /// - Throws: as `allDataStoreIdentifiers(in:)`.
    package static func postgreSQLStoreExists(in url: URL, identifier: UUID?) throws -> Bool {
        let tables = """
            SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND c.relkind = 'r'
            """
        let schema = PostgreSQLStoreLocation.schema(for: identifier)
        return try postgreSQLConnection(url).execute(tables, [.text(schema)]).scalar?.int64 ?? 0 > 0
    }

    private static func postgreSQLConnection(_ url: URL) throws -> PostgreSQLConnection {
        guard PostgreSQLStoreLocation.isPostgreSQLURI(url.absoluteString) else {
            throw StoreError.invalidArgument("\(url.scheme ?? "this URL") is not a postgresql:// or postgres:// URI")
        }
        return try PostgreSQLConnection(url.absoluteString)
    }
}

extension WebsiteDataStore {
    /// Waits until the change-log maintenance this store object's writes requested has run: on
    /// PostgreSQL the fold and trim run beside the writes, on a thread of their own; on SQLite
    /// writes do them in their own transactions, and this returns at once. For measurements
    /// that must include that work.
    package func waitForLogMaintenance() {
        database.waitForMaintenance()
    }
}
