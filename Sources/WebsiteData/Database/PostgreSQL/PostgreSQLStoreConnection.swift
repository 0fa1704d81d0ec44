import CPostgreSQL
import Foundation

/// A store's connection to PostgreSQL, as the data types use a connection (`DatabaseConnection`).
///
/// The data types write their SQL once, with SQLite's `?` and `?NNN` parameters; here each
/// statement's parameters become PostgreSQL's `$n` (worked out once per statement text and
/// cached). Integers and doubles are sent untyped, in text, so the server reads them as the
/// column needs them (a flag `1` into a `boolean`); text as text; blobs as `bytea`.
///
/// A connection that broke (a server restart, a failover) is made again at the next call outside
/// a transaction, so one outage costs the calls made during it, not the store object.
final class PostgreSQLStoreConnection: DatabaseConnection {
    var engine: DatabaseEngine { .postgreSQL }
    let connection: PostgreSQLConnection
    private var rewritten: [String: (sql: String, parameters: Int)] = [:]
    private var prepared: [String: PostgreSQLStoreStatement] = [:]
    private(set) var changes = 0
    /// Called with the new backend process ID after the connection was made again.
    var onConnect: ((Int32) -> Void)?
    /// Statements that set the session up, run again on every new session (the store's in-use
    /// lock); the caller runs them on the first.
    var sessionStatements: [String] = []

    /// Whether a write transaction takes the change log's lock as it begins (every store
    /// connection's writes do; the log maintainer's, which never appends, take the fold lock
    /// instead: `PostgreSQLLogMaintainer`).
    var writesTakeTheLogLock = true

    init(_ connection: PostgreSQLConnection) { self.connection = connection }

    var isInTransaction: Bool { connection.isInTransaction }
    /// How many `transaction` calls are running: while one is, a broken connection is never made
    /// again, so a transaction's later statements can never run outside it.
    private var transactionDepth = 0

    func execute(_ sql: String) throws {
        try reportingRemoval {
            try reconnectIfLost()
            try connection.executeScript(sql)
        }
    }

    func execute(_ sql: String, _ values: [DatabaseValue]) throws {
        try reportingRemoval {
            try reconnectIfLost()
            changes = try connection.execute(postgreSQL(sql), values.map(Self.parameter)).affectedRows
        }
    }

    /// The store for messages (`PostgreSQLStoreLocation.summary`).
    var storeSummary = "the PostgreSQL store"

    /// Runs `body`; an error that says the store's tables or schema are gone (outside a
    /// transaction, and when the schema of the search path no longer exists) becomes
    /// `StoreError.storeRemoved`: the store was removed while this object had it open.
    private func reportingRemoval<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgreSQLError {
            // 42P01 undefined_table, 3F000 invalid_schema_name.
            guard error.sqlState == "42P01" || error.sqlState == "3F000", transactionDepth == 0,
                !connection.isInTransaction,
                (try? connection.execute("SELECT current_schema() IS NULL").scalar?.bool) == true
            else { throw error }
            throw StoreError.storeRemoved(path: storeSummary)
        }
    }

    func rows<T>(_ sql: String, _ values: [DatabaseValue], _ read: (Row) throws -> T) throws -> [T] {
        try rows(sql, values, prepared: false, read)
    }

    func repeatedRows<T>(_ sql: String, _ values: [DatabaseValue], _ read: (Row) throws -> T) throws -> [T] {
        try rows(sql, values, prepared: true, read)
    }

    private func rows<T>(_ sql: String, _ values: [DatabaseValue], prepared: Bool, _ read: (Row) throws -> T) throws
        -> [T]
    {
        try reportingRemoval { try rowsOnce(sql, values, prepared: prepared, read) }
    }

    private func rowsOnce<T>(_ sql: String, _ values: [DatabaseValue], prepared: Bool, _ read: (Row) throws -> T)
        throws -> [T]
    {
        try reconnectIfLost()
        let parameters = values.map(Self.parameter)
        func readAll(_ result: OpaquePointer) throws -> [T] {
            let count = PQntuples(result)
            var rows: [T] = []
            rows.reserveCapacity(Int(count))
            for index in 0..<count { rows.append(try read(Row(postgreSQL: result, row: index))) }
            return rows
        }
        func run() throws -> [T] {
            prepared
                ? try connection.withPreparedResult(postgreSQL(sql), parameters, readAll)
                : try connection.withResult(postgreSQL(sql), parameters, readAll)
        }
        // A query outside a transaction that found the connection broken is asked again on a new
        // one: a SELECT changes nothing, so asking twice is harmless.
        guard transactionDepth == 0, sql.hasPrefix("SELECT") else { return try run() }
        do {
            return try run()
        } catch let error as PostgreSQLError where error.reason == .connectionLost {
            try reconnectIfLost()
            return try run()
        }
    }

    func scalar(_ sql: String, _ values: [DatabaseValue]) throws -> DatabaseValue? {
        try rows(sql, values) { $0[0] }.first
    }

    func statement(_ sql: String) throws -> any DatabaseStatement {
        if let cached = prepared[sql] { return cached }
        let statement = PostgreSQLStoreStatement(connection: self, sql: sql)
        prepared[sql] = statement
        return statement
    }

    /// Runs `body` in a transaction. A read transaction is `REPEATABLE READ READ ONLY`: it sees one
    /// snapshot, as a SQLite read transaction does. A transaction whose statement failed while
    /// `body` went on (the error caught inside, with no savepoint rolled back to) is rolled back
    /// and the call throws, so a failure is never committed as a success.
    func transaction<T>(write: Bool, _ body: () throws -> T) throws -> T {
        try reportingRemoval { try transactionOnce(write: write, body) }
    }

    private func transactionOnce<T>(write: Bool, _ body: () throws -> T) throws -> T {
        try reconnectIfLost()
        var began = false
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        func run() throws -> T {
            // Every write transaction takes the change log's lock first, in the round trip of its
            // BEGIN: the log's append numbers its rows from the head under it
            // (`StoreDatabase.appendToLog`), and taken before any row lock two writers can never
            // each hold what the other waits for.
            let begin = write ? (writesTakeTheLogLock ? Self.beginWrite : "BEGIN") : Self.beginRead
            return try connection.transaction(begin: begin) {
                began = true
                return try body()
            }
        }
        // A BEGIN that found the connection broken ran nothing: it is sent again on a new one.
        do {
            return try run()
        } catch let error as PostgreSQLError where error.reason == .connectionLost && !began && transactionDepth == 1 {
            transactionDepth = 0
            let reconnected = Result { try reconnectIfLost() }
            transactionDepth = 1
            try reconnected.get()
            return try run()
        }
    }

    /// Commits the change-log appends `statements` as one write transaction sent whole, in one
    /// round trip (`PostgreSQLConnection.pipelinedTransaction`): the change log's lock, the
    /// appends, the commit. Returns the positions each statement's rows took.
    ///
    /// - Throws: the failing statement's `PostgreSQLError` (nothing committed), or
    ///   `.connectionLost` (the commit may have happened).
    func commitAppends(_ statements: [StoreDatabase.AppendStatement]) throws -> [[Int64]] {
        try reportingRemoval {
            try reconnectIfLost()
            let sent =
                [(sql: Self.takeLogLock, parameters: [PostgreSQLValue]())]
                + statements.map { (sql: postgreSQL($0.sql), parameters: $0.values.map(Self.parameter)) }
            let results = try connection.pipelinedTransaction(sent)
            return results.dropFirst().map { result in result.rows.map { $0[0].int64 ?? 0 } }
        }
    }

    /// The change log's lock, until the transaction ends.
    private static let takeLogLock = "SELECT pg_advisory_xact_lock(\(PostgreSQLConnection.lockNamespace), 1)"

    /// How a write transaction begins: with the change log's lock.
    private static let beginWrite = "BEGIN; " + takeLogLock
    /// How a read transaction begins: one snapshot, read-only.
    private static let beginRead = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"

    /// Makes the connection again when it is known to be lost and no transaction is open.
    private func reconnectIfLost() throws {
        guard !connection.isConnected && transactionDepth == 0 else { return }
        try connection.reconnect()
        for statement in sessionStatements { try connection.executeScript(statement) }
        onConnect?(connection.backendProcessID)
    }

    /// The statement with `$n` parameters.
    func postgreSQL(_ sql: String) -> String { numbered(sql).sql }

    /// The statement with `$n` parameters, and how many it takes.
    func numbered(_ sql: String) -> (sql: String, parameters: Int) {
        if let done = rewritten[sql] { return done }
        let done = Self.numberingParameters(sql)
        rewritten[sql] = done
        return done
    }

    /// `sql` with SQLite's parameters (`?`, `?NNN`) as PostgreSQL's (`$n`), outside string
    /// literals, quoted identifiers and comments. A plain `?` takes the number after the largest
    /// one so far, as SQLite numbers it.
    static func numberingParameters(_ sql: String) -> (sql: String, parameters: Int) {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 8)
        var next = 1
        var quote: Character?
        var inComment = false
        var characters = sql.makeIterator()
        var pending = characters.next()
        while let character = pending {
            pending = characters.next()
            if inComment {
                output.append(character)
                if character == "\n" { inComment = false }
                continue
            }
            if let open = quote {
                output.append(character)
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                output.append(character)
            case "-" where pending == "-":
                inComment = true
                output.append(character)
            case "?":
                var digits = ""
                while let digit = pending, digit.isASCII, digit.isNumber {
                    digits.append(digit)
                    pending = characters.next()
                }
                let number = Int(digits) ?? next
                next = max(next, number + 1)
                output += "$\(number)"
            default:
                output.append(character)
            }
        }
        return (output, next - 1)
    }

    /// A value as a parameter: numbers untyped, in text, for the server to read as the column's type.
    /// The text form of a PostgreSQL array of `values` (`{1,NULL,"a \\"b\\""}`), for a parameter
    /// cast to an array type: every text element is quoted, with `"` and `\\` escaped, so no
    /// value can end its element or stand for NULL.
    static func arrayLiteral(_ values: [DatabaseValue]) -> String {
        var literal = "{"
        for (index, value) in values.enumerated() {
            if index > 0 { literal.append(",") }
            switch value {
            case .null: literal.append("NULL")
            case .integer(let v): literal.append(String(v))
            case .real(let v): literal.append(PostgreSQLValue.double(v).textForm ?? "0")
            case .text(let v):
                literal.append("\"")
                for character in v.unicodeScalars {
                    if character == "\"" || character == "\\" { literal.append("\\") }
                    literal.unicodeScalars.append(character)
                }
                literal.append("\"")
            case .blob(let v):
                literal.append("\"\\\\x")
                for byte in v { literal.append(String(format: "%02x", byte)) }
                literal.append("\"")
            }
        }
        literal.append("}")
        return literal
    }

    static func parameter(_ value: DatabaseValue) -> PostgreSQLValue {
        switch value {
        case .null: .null
        case .integer(let v): .text(String(v))
        case .real(let v): .text(PostgreSQLValue.double(v).textForm ?? "0")
        case .text(let v): .text(v)
        case .blob(let v): .bytes(v)
        }
    }
}

/// A statement of a `PostgreSQLStoreConnection` whose parameters are bound one by one: the values
/// are kept until the statement runs.
final class PostgreSQLStoreStatement: DatabaseStatement {
    unowned let connection: PostgreSQLStoreConnection
    let sql: String
    private var values: [DatabaseValue] = []

    init(connection: PostgreSQLStoreConnection, sql: String) {
        self.connection = connection
        self.sql = sql
        reset()
    }

    func reset() {
        values.removeAll(keepingCapacity: true)
        // Parameters left unbound are NULL, as SQLite's are.
        values.append(contentsOf: repeatElement(.null, count: connection.numbered(sql).parameters))
    }

    func bind(_ value: DatabaseValue, at index: Int32) {
        let position = Int(index) - 1
        while values.count <= position { values.append(.null) }
        values[position] = value
    }

    func run() throws { try connection.execute(sql, values) }

    func runInsert() throws -> Int64? { try connection.scalar(sql, values)?.int64 }
}
