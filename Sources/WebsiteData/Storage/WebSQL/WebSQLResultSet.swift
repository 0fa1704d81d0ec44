/// One row a WebSQL statement returned: its columns, by position and by name.
public struct WebSQLRow: Sendable, Hashable {
    /// The column names, in the order of the statement's result columns.
    public let columns: [String]
    /// The values, in the same order.
    public let values: [WebSQLValue]

    /// Creates a row.
    ///
    /// - Parameters:
    ///   - columns: the column names.
    ///   - values: the values, one per column.
    public init(columns: [String], values: [WebSQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of the first column with this name, or `nil` when there is none.
    ///
    /// - Parameter column: the column name, as the statement names it (`AS` aliases included).
    public subscript(column: String) -> WebSQLValue? {
        columns.firstIndex(of: column).map { values[$0] }
    }

    /// The value at a position.
    ///
    /// - Parameter index: the column's position, from 0.
    public subscript(index: Int) -> WebSQLValue {
        values[index]
    }
}

/// What a WebSQL statement returned, as `SQLResultSet` holds it.
public struct WebSQLResultSet: Sendable, Hashable {
    /// The rows, in the order the statement returned them.
    public let rows: [WebSQLRow]
    /// Rows inserted, updated or deleted by the statement (0 for a query or a schema change).
    public let rowsAffected: Int
    /// The row id of the row the statement inserted, or `nil` when it inserted none.
    public let insertId: Int64?

    /// Creates a result set.
    ///
    /// - Parameters:
    ///   - rows: the rows.
    ///   - rowsAffected: rows changed.
    ///   - insertId: the row id inserted, if any.
    public init(rows: [WebSQLRow], rowsAffected: Int, insertId: Int64?) {
        self.rows = rows
        self.rowsAffected = rowsAffected
        self.insertId = insertId
    }
}
