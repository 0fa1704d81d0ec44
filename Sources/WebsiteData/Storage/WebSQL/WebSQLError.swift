import CSQLite

/// An error of a WebSQL-style database, with the code `SQLError` would carry in a browser.
///
/// Codes are compared through the static constants: `catch let e as WebSQLError where e.code == .version`.
public struct WebSQLError: WebsiteDataError, Hashable {
    /// What kind of failure, numbered as the Web SQL Database specification's `SQLError` codes.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The number (`SQLError.code`).
        public let rawValue: Int
        /// Creates a code from its number.
        ///
        /// - Parameter rawValue: the number.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `UNKNOWN_ERR`: a failure not covered by another code.
        public static let unknown = Code(rawValue: 0)
        /// `DATABASE_ERR`: the statement failed for a database reason, such as a write in a read
        /// transaction or a database that was removed.
        public static let database = Code(rawValue: 1)
        /// `VERSION_ERR`: the version given does not match the database's version.
        public static let version = Code(rawValue: 2)
        /// `TOO_LARGE_ERR`: a value or a result was too large.
        public static let tooLarge = Code(rawValue: 3)
        /// `QUOTA_ERR`: there was not enough space (the disk is full).
        public static let quota = Code(rawValue: 4)
        /// `SYNTAX_ERR`: the statement is not valid SQL, names what does not exist, has the wrong
        /// number of arguments, or does what a WebSQL database may not (`ATTACH`, most `PRAGMA`s,
        /// `BEGIN`/`COMMIT`).
        public static let syntax = Code(rawValue: 5)
        /// `CONSTRAINT_ERR`: a constraint (unique, not null, check, foreign key) failed.
        public static let constraint = Code(rawValue: 6)
        /// `TIMEOUT_ERR`: a lock held by another connection was not released in time.
        public static let timeout = Code(rawValue: 7)
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong, in SQLite's words where SQLite reported it.
    public let message: String
    /// The SQL being run, when there was one.
    public let sql: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - message: what went wrong.
    ///   - sql: the SQL being run, if any.
    public init(_ code: Code, _ message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The error code: `reason` is `code`.
    public var reason: Code { code }

    /// One line: the message, the code and the SQL.
    public var description: String {
        var text = "WebSQL error \(code.rawValue): \(message)"
        if let sql { text += " (in: \(sql.prefix(120)))" }
        return text
    }

    /// Maps an SQLite error to the code a browser would report.
    ///
    /// - Parameters:
    ///   - error: SQLite's error.
    ///   - preparing: whether it happened while compiling the statement (then a generic error is a syntax error).
    init(_ error: DatabaseError, preparing: Bool = false) {
        let code: Code
        switch error.code.primary.rawValue {
        case SQLITE_CONSTRAINT: code = .constraint
        case SQLITE_FULL: code = .quota
        case SQLITE_TOOBIG: code = .tooLarge
        case SQLITE_BUSY, SQLITE_LOCKED: code = .timeout
        case SQLITE_AUTH: code = .syntax
        case SQLITE_ERROR, SQLITE_RANGE: code = preparing ? .syntax : .database
        default: code = .database
        }
        self.init(code, error.message, sql: error.sql)
    }
}
