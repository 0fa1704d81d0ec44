import CSQLite

/// An error reported by SQLite, with its extended result code, its message and the SQL that failed.
///
/// Result codes are compared through the static constants, so callers can catch a specific one:
/// `catch let error as DatabaseError where error.code == .busy`.
public struct DatabaseError: WebsiteDataError, Equatable {
    /// A SQLite result code; the primary code is the low byte of the extended one.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The extended result code as SQLite reports it.
        public let rawValue: Int32
        /// Creates a code from SQLite's number.
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// The primary result code (`SQLITE_BUSY` for `SQLITE_BUSY_SNAPSHOT`, and so on).
        public var primary: Code { Code(rawValue: rawValue & 0xFF) }

        /// `SQLITE_ERROR`: a generic error, such as an SQL syntax error.
        public static let error = Code(rawValue: SQLITE_ERROR)
        /// `SQLITE_BUSY`: another connection holds a lock for longer than the busy timeout.
        public static let busy = Code(rawValue: SQLITE_BUSY)
        /// `SQLITE_LOCKED`: a conflict inside one connection or shared cache.
        public static let locked = Code(rawValue: SQLITE_LOCKED)
        /// `SQLITE_READONLY`: the database cannot be written.
        public static let readOnly = Code(rawValue: SQLITE_READONLY)
        /// `SQLITE_IOERR`: the operating system reported an I/O error.
        public static let ioError = Code(rawValue: SQLITE_IOERR)
        /// `SQLITE_CORRUPT`: the file is damaged.
        public static let corrupt = Code(rawValue: SQLITE_CORRUPT)
        /// `SQLITE_FULL`: the disk, or the page limit, is full.
        public static let full = Code(rawValue: SQLITE_FULL)
        /// `SQLITE_CANTOPEN`: the file cannot be opened.
        public static let cantOpen = Code(rawValue: SQLITE_CANTOPEN)
        /// `SQLITE_CONSTRAINT`: a constraint failed.
        public static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
        /// `SQLITE_NOTADB`: the file is not a SQLite database.
        public static let notADatabase = Code(rawValue: SQLITE_NOTADB)
        /// `SQLITE_MISUSE`: the library was used incorrectly.
        public static let misuse = Code(rawValue: SQLITE_MISUSE)
    }

    /// The extended result code.
    public let code: Code
    /// SQLite's message.
    public let message: String
    /// The SQL being run, when there was one.
    public let sql: String?

    /// Creates an error.
    public init(code: Code, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The message and the extended result code, for an error that names its path itself:
    /// "unable to open database file (SQLite result code 14)". The code tells apart what one
    /// message covers (`SQLITE_READONLY_DIRECTORY` from `SQLITE_READONLY_RECOVERY`).
    public var messageWithCode: String { "\(message) (SQLite result code \(code.rawValue))" }

    /// The result code: `reason` is `code`.
    public var reason: Code { code }

    /// A one-line description: the message, the code, and the SQL.
    public var description: String {
        var text = "SQLite error \(code.rawValue): \(message)"
        if let sql { text += " (in: \(sql.prefix(120)))" }
        return text
    }

    init(connection: OpaquePointer?, code: Int32, sql: String? = nil) {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        let message =
            connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        self.init(code: Code(rawValue: extended == 0 ? code : extended), message: message, sql: sql)
    }
}
