import Foundation

/// The engine that holds a store's database.
enum DatabaseEngine: Sendable, Equatable {
    /// A SQLite file in the store's directory, or SQLite in memory.
    case sqlite
    /// A PostgreSQL server shared by a fleet of machines.
    case postgreSQL

    /// Text that may hold any character, NUL included, as a parameter for a column that keeps
    /// such text: text on SQLite, whose text holds NUL; its UTF-8 bytes on PostgreSQL, whose
    /// text cannot, so such columns are `bytea` there. `Row.string` reads both back.
    func anyText(_ text: String) -> DatabaseValue {
        self == .sqlite ? .text(text) : .blob(Array(text.utf8))
    }
}

/// A connection to a store's database, on either engine: what every data type's rules are
/// written against.
///
/// SQL is written once for both engines, in the dialect they share: `?` parameters (`?NNN`
/// numbered), `INSERT … ON CONFLICT`, `RETURNING`, `coalesce`. Where they differ (blobs kept in
/// files beside a SQLite store, SQLite's own pragmas), the code asks `engine`.
///
/// Not thread-safe: a connection is used under the lock of the object that owns it
/// (`LockedConnection`).
protocol DatabaseConnection: AnyObject {
    /// The engine behind the connection.
    var engine: DatabaseEngine { get }
    /// Runs one or more SQL statements without parameters that return no rows.
    func execute(_ sql: String) throws
    /// Runs one statement with `values` bound.
    func execute(_ sql: String, _ values: [DatabaseValue]) throws
    /// Reads the rows of one statement.
    func rows<T>(_ sql: String, _ values: [DatabaseValue], _ read: (Row) throws -> T) throws -> [T]
    /// Reads the rows of one statement the connection runs many times, kept prepared by the
    /// engine: SQLite caches every statement; PostgreSQL parses and plans it once per session.
    func repeatedRows<T>(_ sql: String, _ values: [DatabaseValue], _ read: (Row) throws -> T) throws -> [T]
    /// Reads the first column of the first row.
    func scalar(_ sql: String, _ values: [DatabaseValue]) throws -> DatabaseValue?
    /// A prepared statement for `sql`, cached by the connection, for binding many rows in turn.
    func statement(_ sql: String) throws -> any DatabaseStatement
    /// Rows changed by the last statement.
    var changes: Int { get }
    /// Whether a transaction is open.
    var isInTransaction: Bool { get }
    /// Runs `body` in a transaction and commits it; rolls back if `body` throws. A write
    /// transaction takes the engine's write lock up front where it has one (SQLite).
    func transaction<T>(write: Bool, _ body: () throws -> T) throws -> T
}

extension DatabaseConnection {
    /// Reads the rows of one statement without parameters.
    func rows<T>(_ sql: String, _ read: (Row) throws -> T) throws -> [T] { try rows(sql, [], read) }
    /// Reads the first column of the first row of a statement without parameters.
    func scalar(_ sql: String) throws -> DatabaseValue? { try scalar(sql, []) }
    /// Runs `body` in a write transaction.
    func transaction<T>(_ body: () throws -> T) throws -> T { try transaction(write: true, body) }

    /// Runs an `INSERT` of one row and returns its key: the rowid on SQLite, `column` on
    /// PostgreSQL (where an identity or a trigger assigns it).
    func insert(_ sql: String, _ values: [DatabaseValue], returning column: String) throws -> Int64? {
        let statement = try statement(sql + engine.returning(column))
        try statement.reset()
        for (offset, value) in values.enumerated() { try statement.bind(value, at: Int32(offset + 1)) }
        return try statement.runInsert()
    }
}

/// A prepared statement whose parameters are bound one by one, then run.
protocol DatabaseStatement: AnyObject {
    /// Clears the bound values, ready for the next row.
    func reset() throws
    /// Binds parameter `index` (1-based); parameters left unbound are `NULL`.
    func bind(_ value: DatabaseValue, at index: Int32) throws
    /// Runs the statement with the values bound since `reset`.
    func run() throws
    /// Runs an `INSERT` of one row with the values bound since `reset` and returns the row's
    /// key: SQLite's rowid; on PostgreSQL, what the statement's `RETURNING` clause gives (its SQL
    /// ends with `DatabaseEngine.returning`).
    func runInsert() throws -> Int64?
}

/// A connection behind a lock: the only way a connection is shared between threads.
///
/// `@unchecked Sendable` because the connection is touched only inside `withLock`, and a
/// connection never escapes the closure (callers return values, not the connection).
final class LockedConnection<Connection>: @unchecked Sendable {
    private let lock = NSLock()
    private let connection: Connection

    init(_ connection: Connection) { self.connection = connection }

    /// Runs `body` with the connection, holding the lock.
    func withLock<T>(_ body: (Connection) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }
}

extension DatabaseEngine {
    /// An `INSERT` of `rows` (`VALUES …` or a `SELECT` with a `WHERE` clause) into `table` that
    /// replaces the row with the same `key`: SQLite's `INSERT OR REPLACE`, PostgreSQL's
    /// `ON CONFLICT (key) DO UPDATE`. On PostgreSQL `rows` must not hold one key twice.
    func insertReplacing(into table: String, columns: [String], key: [String], _ rows: String) -> String {
        let names = columns.joined(separator: ", ")
        switch self {
        case .sqlite:
            return "INSERT OR REPLACE INTO \(table) (\(names)) \(rows)"
        case .postgreSQL:
            let updates = columns.filter { !key.contains($0) }.map { "\($0) = excluded.\($0)" }
            let action = updates.isEmpty ? "NOTHING" : "UPDATE SET " + updates.joined(separator: ", ")
            return "INSERT INTO \(table) (\(names)) \(rows) ON CONFLICT (\(key.joined(separator: ", "))) DO \(action)"
        }
    }

    /// What an `INSERT` ends with so that `DatabaseStatement.runInsert` gives the row's key
    /// `column`: nothing on SQLite, which reads the rowid after the insert (a `RETURNING` clause
    /// costs a result row per insert); ` RETURNING column` on PostgreSQL.
    func returning(_ column: String) -> String { self == .sqlite ? "" : " RETURNING \(column)" }

    /// The function that gives the larger of two values: SQLite's two-argument `max`,
    /// PostgreSQL's `greatest`.
    var greatest: String { self == .sqlite ? "max" : "greatest" }
}
