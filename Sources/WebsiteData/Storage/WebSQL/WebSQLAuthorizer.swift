import CSQLite

/// What SQL a WebSQL database lets its user run, as browsers' database authorizers decide.
///
/// A WebSQL database's SQL comes from its user, so it must not reach outside its own file:
/// `ATTACH` could open any file, most `PRAGMA`s change how the file is kept, and
/// `BEGIN`/`COMMIT`/`SAVEPOINT` would break the transactions this layer runs. The authorizer is
/// installed while a user's statement is compiled and run, never for the layer's own statements.
/// `VACUUM INTO` (which writes a file) is kept out twice over: `VACUUM` cannot run inside a
/// transaction, where every user statement runs, and the connection allows no attached
/// database at all, which `VACUUM` needs.
enum WebSQLAuthorizer {
    /// `PRAGMA`s that only read, allowed without an argument (FTS5 reads `data_version` itself).
    static let readOnlyPragmas: Set<String> = [
        "page_count", "page_size", "freelist_count", "user_version", "data_version",
        "schema_version", "encoding", "foreign_keys", "table_list",
    ]
    /// `PRAGMA`s that read about one table or index, allowed with its name as argument.
    static let schemaPragmas: Set<String> = [
        "table_info", "table_xinfo", "index_list", "index_info",
        "index_xinfo", "foreign_key_list",
    ]
    /// Virtual-table modules a user may create (full-text search and R*Trees).
    static let virtualTableModules: Set<String> = ["fts3", "fts4", "fts5", "rtree"]
    /// SQL functions a user may not call.
    static let deniedFunctions: Set<String> = ["load_extension", "fts3_tokenizer", "readfile", "writefile", "edit"]

    /// Decides one action SQLite asks about.
    ///
    /// - Parameters:
    ///   - action: SQLite's action code (`SQLITE_PRAGMA`, …).
    ///   - first: the action's first argument (a pragma name, a table name…), if any.
    ///   - second: its second argument (a pragma's argument, a module or function name…), if any.
    /// - Returns: `SQLITE_OK` or `SQLITE_DENY`.
    static func decide(action: Int32, first: String?, second: String?) -> Int32 {
        switch action {
        case SQLITE_ATTACH, SQLITE_DETACH, SQLITE_TRANSACTION, SQLITE_SAVEPOINT:
            return SQLITE_DENY
        case SQLITE_PRAGMA:
            let name = (first ?? "").lowercased()
            if second == nil && readOnlyPragmas.contains(name) { return SQLITE_OK }
            if second != nil && schemaPragmas.contains(name) { return SQLITE_OK }
            return SQLITE_DENY
        case SQLITE_CREATE_VTABLE, SQLITE_DROP_VTABLE:
            return virtualTableModules.contains((second ?? "").lowercased()) ? SQLITE_OK : SQLITE_DENY
        case SQLITE_FUNCTION:
            return deniedFunctions.contains((second ?? "").lowercased()) ? SQLITE_DENY : SQLITE_OK
        default:
            return SQLITE_OK
        }
    }

    /// Installs the authorizer on a connection (before a user's statement is compiled).
    static func install(on connection: SQLiteConnection) {
        sqlite3_set_authorizer(
            connection.handle,
            { _, action, first, second, _, _ in
                WebSQLAuthorizer.decide(
                    action: action, first: first.map { String(cString: $0) },
                    second: second.map { String(cString: $0) })
            }, nil)
    }

    /// Removes the authorizer (after a user's statement has run).
    static func remove(from connection: SQLiteConnection) {
        sqlite3_set_authorizer(connection.handle, nil, nil)
    }

    /// Forbids attaching databases on a connection, whatever the SQL (`ATTACH`, `VACUUM INTO`).
    static func forbidAttaching(on connection: SQLiteConnection) {
        sqlite3_limit(connection.handle, SQLITE_LIMIT_ATTACHED, 0)
    }
}
