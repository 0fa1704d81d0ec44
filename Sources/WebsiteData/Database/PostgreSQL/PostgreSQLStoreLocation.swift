import Foundation

/// Where a store lives in a PostgreSQL database: the connection string, and the schema that
/// holds the store's tables.
///
/// The default store is schema `wkstore`; the store of an identifier is `wkstore_` and the
/// identifier's 32 hex digits in lower case, so the stores of many identifiers share a database
/// and none sees another's rows.
package struct PostgreSQLStoreLocation: Sendable, Hashable {
    /// The libpq connection string (a URI or `key=value` pairs), never shown.
    let connectionString: String
    /// The identifier of the store, `nil` for the default store.
    let identifier: UUID?

    /// The schema of the store.
    var schema: String { Self.schema(for: identifier) }

    /// The schema of the default store.
    static let defaultSchema = "wkstore"

    /// The schema of the store of `identifier` (the default store's for `nil`).
    package static func schema(for identifier: UUID?) -> String {
        guard let identifier else { return defaultSchema }
        return defaultSchema + "_" + identifier.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// The identifier whose store schema `name` is, for names `schema(for:)` makes.
    static func identifier(ofSchema name: String) -> UUID? {
        let prefix = defaultSchema + "_"
        guard name.hasPrefix(prefix) else { return nil }
        let hex = Array(name.dropFirst(prefix.count))
        guard hex.count == 32, hex.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }
        return UUID(uuidString: groups.joined(separator: "-"))
    }

    /// The store for messages: server, database and user as libpq reads them, the schema, and
    /// never a password.
    var summary: String {
        "PostgreSQL \(PostgreSQLConnectionString(connectionString).summary) schema=\(schema)"
    }

    /// The first number of the advisory locks that say a store is open (the second is the hash
    /// of its schema's name): every store object's writer session holds the lock shared, and a
    /// removal needs it exclusive. `PostgreSQLConnection.lockNamespace` plus one, so it meets
    /// none of wkstore's other locks.
    static let useLockNamespace: Int32 = PostgreSQLConnection.lockNamespace + 1

    /// The statement that takes the store's in-use lock, shared, for the session.
    var sharedUseLockStatement: String {
        "SELECT pg_advisory_lock_shared(\(Self.useLockNamespace), hashtext('\(schema)'))"
    }

    /// The statement that tries the store's in-use lock exclusively for the session: `true`
    /// when no store object holds it.
    var exclusiveUseLockStatement: String {
        "SELECT pg_try_advisory_lock(\(Self.useLockNamespace), hashtext('\(schema)'))"
    }

    /// Whether `text` names a PostgreSQL store: a `postgresql://` or `postgres://` URI.
    static func isPostgreSQLURI(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://")
    }

    /// Opens a connection whose search path is the store's schema, and keeps it through reconnects.
    /// Server options the connection string gives (`options=-c statement_timeout=5s`) are kept,
    /// the search path added after them.
    func connect() throws -> PostgreSQLConnection {
        let given = PostgreSQLConnectionString(connectionString).options.map { $0 + " " } ?? ""
        let options = given + "-c search_path=\(schema)"
        return try PostgreSQLConnection(connectionString, settings: ["options": options])
    }
}
