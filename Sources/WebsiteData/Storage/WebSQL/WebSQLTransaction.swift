import CSQLite

/// A transaction on a WebSQL-style database, as `SQLTransaction`: run statements with
/// `executeSql`; it commits when the closure that received it returns and rolls back when
/// that closure throws.
///
/// Valid only inside that closure: a call after it returned throws. Not thread-safe: use it
/// from the closure's thread.
public final class WebSQLTransaction {
    private let connection: SQLiteConnection
    /// Whether the transaction may only read (`readTransaction`).
    public let isReadOnly: Bool
    private var finished = false

    init(connection: SQLiteConnection, readOnly: Bool) {
        self.connection = connection
        self.isReadOnly = readOnly
    }

    func finish() { finished = true }

    /// Runs one SQL statement with its `?` parameters bound, as `executeSql(sql, arguments)`.
    ///
    /// Only the first statement of `sql` runs. A statement that fails changes nothing itself;
    /// the transaction goes on unless the error is let out of the closure, which rolls it back.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement, with `?` (or `?NNN`, `:name`) parameters.
    ///   - arguments: the values of the parameters, in order; as many as the statement has.
    /// - Returns: the rows, the number of rows changed and the row id inserted.
    /// - Throws: `WebSQLError`: `.syntax` for invalid SQL, a wrong number of arguments, or a
    ///   statement a WebSQL database may not run (`ATTACH`, most `PRAGMA`s, `BEGIN`/`COMMIT`);
    ///   `.database` for a write in a read transaction or a call after the transaction ended;
    ///   `.constraint`, `.quota`, `.tooLarge`, `.timeout` as SQLite reports them.
    @discardableResult
    public func executeSql(_ sql: String, _ arguments: [WebSQLValue] = []) throws(WebSQLError) -> WebSQLResultSet {
        guard !finished else { throw WebSQLError(.database, "the transaction has ended", sql: sql) }
        WebSQLAuthorizer.install(on: connection)
        defer { WebSQLAuthorizer.remove(from: connection) }
        let statement: SQLiteStatement
        do { statement = try SQLiteStatement(connection: connection, sql: sql) } catch {
            if error.code.rawValue == SQLITE_OK { throw WebSQLError(.syntax, "the SQL holds no statement", sql: sql) }
            throw WebSQLError(error, preparing: true)
        }
        if isReadOnly && sqlite3_stmt_readonly(statement.handle) == 0 {
            throw WebSQLError(.database, "a read transaction cannot write", sql: sql)
        }
        let parameters = Int(sqlite3_bind_parameter_count(statement.handle))
        guard parameters == arguments.count else {
            throw WebSQLError(
                .syntax, "the statement has \(parameters) parameters but \(arguments.count) arguments were given",
                sql: sql)
        }
        let columns = (0..<sqlite3_column_count(statement.handle)).map { index in
            sqlite3_column_name(statement.handle, index).map { String(cString: $0) } ?? ""
        }
        let changesBefore = sqlite3_total_changes64(connection.handle)
        // Reset, so a row id afterwards is this statement's insert (an UPDATE leaves it at 0);
        // restored below when the statement inserted nothing, for `last_insert_rowid()`.
        let rowIDBefore = sqlite3_last_insert_rowid(connection.handle)
        sqlite3_set_last_insert_rowid(connection.handle, 0)
        defer {
            if sqlite3_last_insert_rowid(connection.handle) == 0 {
                sqlite3_set_last_insert_rowid(connection.handle, rowIDBefore)
            }
        }
        let rows: [WebSQLRow]
        do {
            rows = try statement.rows(arguments.map(\.databaseValue)) { row in
                WebSQLRow(columns: columns, values: (0..<Int32(columns.count)).map { WebSQLValue(row[$0]) })
            }
        } catch let error as DatabaseError {
            throw WebSQLError(error)
        } catch {
            throw WebSQLError(.unknown, "\(error)", sql: sql)
        }
        let changed = sqlite3_total_changes64(connection.handle) != changesBefore
        let rowsAffected = changed ? Int(sqlite3_changes64(connection.handle)) : 0
        let rowID = sqlite3_last_insert_rowid(connection.handle)
        return WebSQLResultSet(rows: rows, rowsAffected: rowsAffected, insertId: changed && rowID != 0 ? rowID : nil)
    }
}
