/// An error of the PostgreSQL engine: a connection that could not be made or was lost, a
/// statement the server refused, or a database whose schema this binary cannot use.
///
/// Compare `reason` with the static constants of `Reason`; a statement the server refused also
/// carries its SQLSTATE (`sqlState`, such as `23505` for a unique violation). No message ever holds
/// a password: the connection string is described without it, and a password libpq or the server
/// repeats is replaced before the message is kept (see `PostgreSQLConnectionString.redact`).
public struct PostgreSQLError: WebsiteDataError, Equatable {
    /// What went wrong, as a stable identifier.
    public struct Reason: RawRepresentable, Hashable, Sendable {
        /// The identifier.
        public let rawValue: String
        /// Creates a reason from its identifier.
        ///
        /// - Parameter rawValue: the identifier.
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    /// What went wrong.
    public let reason: Reason
    /// One line describing it, without any password.
    public let message: String
    /// The server's SQLSTATE for a refused statement (`Reason.query`), when it sent one.
    public let sqlState: String?
    /// The beginning of the statement that failed, when one did.
    public let sql: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - reason: what went wrong.
    ///   - message: one line describing it; it must not hold a password.
    ///   - sqlState: the server's SQLSTATE, if any.
    ///   - sql: the statement that failed, if any.
    public init(_ reason: Reason, _ message: String, sqlState: String? = nil, sql: String? = nil) {
        self.reason = reason
        self.message = message
        self.sqlState = sqlState
        self.sql = sql.map { String($0.prefix(120)) }
    }

    /// A one-line description: the message, the SQLSTATE and the statement.
    public var description: String {
        var text = "PostgreSQL: \(message)"
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        if let sql { text += " (in: \(sql))" }
        return text
    }
}

extension PostgreSQLError.Reason {
    /// The connection could not be made for a reason not named below: a malformed connection
    /// string, an unknown option, a TLS requirement the server cannot meet.
    public static let connectionFailed = Self(rawValue: "connection-failed")
    /// The server refused the credentials: a wrong password, no `pg_hba.conf` entry, an unknown
    /// role, a client certificate it does not accept.
    public static let authenticationFailed = Self(rawValue: "authentication-failed")
    /// The database named by the connection does not exist on the server.
    public static let databaseMissing = Self(rawValue: "database-missing")
    /// No server answered: the host is unknown or unreachable, nothing listens on the port, it
    /// timed out, or the server is starting up or shutting down. Trying again later may work.
    public static let serverUnavailable = Self(rawValue: "server-unavailable")
    /// An open connection broke (the server restarted or the network failed); `reconnect()`
    /// makes a new one. A statement in flight may or may not have been committed.
    public static let connectionLost = Self(rawValue: "connection-lost")
    /// The server refused a statement; `sqlState` says why.
    public static let query = Self(rawValue: "query")
    /// The database holds no wkstore schema (it was never migrated).
    public static let schemaMissing = Self(rawValue: "schema-missing")
    /// The database was migrated by a newer wkstore, to a schema this binary does not know; it
    /// was not changed.
    public static let schemaNewer = Self(rawValue: "schema-newer")
    /// The database holds tables but no wkstore schema record: it belongs to another program,
    /// and it was not changed.
    public static let notAStore = Self(rawValue: "not-a-store")
    /// The connection was used in a way it does not allow (for example an advisory transaction
    /// lock outside a transaction).
    public static let misuse = Self(rawValue: "misuse")
}
