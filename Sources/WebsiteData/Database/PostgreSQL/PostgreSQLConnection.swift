import CPostgreSQL
import Foundation

/// One connection to a PostgreSQL server, through libpq.
///
/// The connection string is libpq's, as its documentation describes it: a `postgresql://` URI or
/// a `key=value` string, completed by the `PG*` environment variables, the password file
/// (`~/.pgpass` or `PGPASSFILE`), the service file, and TLS settings (`sslmode`, `sslcert`,
/// `sslkey`, `sslrootcert`). Only the client encoding is fixed, to UTF-8, because text is read as
/// UTF-8.
///
/// A connection may be shared between threads: every call holds the connection's lock, so calls
/// from several threads run one after another. The lock is recursive and `transaction` holds it
/// for its whole body, so statements of other threads never land inside another thread's
/// transaction, and `notifications(timeout:)` holds it while it waits: give a listener a
/// connection of its own.
///
/// Errors are `PostgreSQLError`s, and no error holds a password. A connection that broke reports
/// `.connectionLost`; `reconnect()` makes it again with the same settings.
public final class PostgreSQLConnection: @unchecked Sendable {
    // @unchecked: `handle`, `savepointDepth` and `channels` are touched only while `lock` is held.
    private let lock = NSRecursiveLock()
    private let handle: OpaquePointer
    private let target: PostgreSQLConnectionString
    /// How many `transaction` calls are open inside the outermost one (each is a savepoint).
    private var savepointDepth = 0
    /// The channels this connection listens on, listened to again after `reconnect()`.
    private var channels: Set<String> = []
    /// The statements prepared in this session (`withPreparedResult`), by SQL and parameter
    /// types, with their names; a session made again by `reconnect()` has none.
    private var preparedNames: [String: String] = [:]
    /// Whether the server ended the session with a FATAL error (a shutdown, a terminated
    /// backend): libpq still says the connection is open until it next reads from it.
    private var sessionEnded = false

    /// Connects to a server.
    ///
    /// - Parameter connectionString: a libpq connection URI (`postgresql://user@host:5432/db?sslmode=verify-full`)
    ///   or keyword string (`host=db.internal dbname=crawl user=crawler`); empty for libpq's defaults.
    /// - Throws: `PostgreSQLError` with reason `.serverUnavailable`, `.authenticationFailed`,
    ///   `.databaseMissing` or `.connectionFailed`.
    public convenience init(_ connectionString: String) throws(PostgreSQLError) {
        try self.init(connectionString, settings: [:])
    }

    /// Connects to a server with libpq connection keywords that override the string's own
    /// (`options` for server settings of the session, such as its `search_path`); a reconnect
    /// keeps them.
    init(_ connectionString: String, settings: KeyValuePairs<String, String>) throws(PostgreSQLError) {
        let target = PostgreSQLConnectionString(connectionString)
        // The string is expanded as the first `dbname`, so its own settings apply and the
        // encoding given after it overrides any it names; PQreset reuses these settings.
        let keywords = ["dbname", "client_encoding"] + settings.map(\.key)
        let values = [connectionString, "UTF8"] + settings.map(\.value)
        let connection = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in PQconnectdbParams(keywordPointers, valuePointers, 1) }
        }
        guard let connection else {
            throw PostgreSQLError(.connectionFailed, "cannot connect to \(target.summary): out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let error = Self.connectError(connection, target: target)
            PQfinish(connection)
            throw error
        }
        self.handle = connection
        self.target = target
        // Server notices (NOTICE, WARNING) are not errors; libpq would print them on stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// Whether the connection is open, as far as libpq knows; a connection whose server went
    /// away is known to be lost only once a call has tried to use it.
    public var isConnected: Bool { withLock { !isBroken } }

    /// Whether the connection is known to be gone: libpq marked it bad, dropped its socket (it
    /// does so on reading the end of the stream, before it marks the connection), or the server
    /// ended the session.
    private var isBroken: Bool { PQstatus(handle) != CONNECTION_OK || PQsocket(handle) < 0 || sessionEnded }

    /// The process ID of the server process serving this connection (what a notification this
    /// connection sends names as its sender).
    public var backendProcessID: Int32 { withLock { PQbackendPID(handle) } }

    /// The server's version as a number (150004 for 15.4).
    public var serverVersion: Int { withLock { Int(PQserverVersion(handle)) } }

    /// Whether a transaction is open on the connection. A broken connection has none: the
    /// server rolled it back when the session ended.
    public var isInTransaction: Bool {
        withLock {
            let status = PQtransactionStatus(handle)
            return status != PQTRANS_IDLE && status != PQTRANS_UNKNOWN
        }
    }

    /// Closes the connection and makes it again with the same settings, then listens again on
    /// the channels it listened on.
    ///
    /// Call it after a `.connectionLost` error. An open transaction is gone (the server rolled it
    /// back, unless its `COMMIT` had reached the server), and so are session settings and
    /// notifications not yet received.
    ///
    /// - Throws: `PostgreSQLError` as `init` does, when the server still cannot be reached.
    public func reconnect() throws(PostgreSQLError) {
        lock.lock()
        defer { lock.unlock() }
        savepointDepth = 0
        sessionEnded = false
        preparedNames.removeAll()
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else { throw Self.connectError(handle, target: target) }
        for channel in channels.sorted() { try execute("LISTEN \(try quotedIdentifier(channel))") }
    }

    // MARK: Statements

    /// Runs one statement with parameters `$1`, `$2`, … bound to `parameters`, and returns its rows.
    ///
    /// Parameters are sent apart from the SQL, never spliced into it. Integers, numbers and
    /// booleans are sent typed (`bigint`, `double precision`, `boolean`), bytes as `bytea`, text
    /// and `NULL` untyped, so the server reads them as the type the statement needs.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement.
    ///   - parameters: the values of `$1`, `$2`, ….
    /// - Returns: the rows and the number of rows affected.
    /// - Throws: `PostgreSQLError` with reason `.query` (and the SQLSTATE) when the server refuses
    ///   it, `.connectionLost` when the connection broke.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgreSQLValue] = []) throws(PostgreSQLError)
        -> PostgreSQLResult
    {
        lock.lock()
        defer { lock.unlock() }
        return try take(try sendStatement(sql, parameters), sql: sql)
    }

    /// Runs one statement as `execute` does and hands its result (a `PGresult`) to `body`, which
    /// reads it in place; the result is freed when `body` returns.
    func withResult<T>(_ sql: String, _ parameters: [PostgreSQLValue], _ body: (OpaquePointer) throws -> T) throws
        -> T
    {
        lock.lock()
        defer { lock.unlock() }
        guard let result = try sendStatement(sql, parameters) else { throw lastError(sql: sql) }
        defer { PQclear(result) }
        try check(result, sql: sql)
        return try body(result)
    }

    /// Runs one statement as `withResult` does, as a statement prepared in the session: the
    /// server parses and plans it once, at its first run with parameters of these types, and
    /// each later run only binds and executes it. For statements a connection runs many times;
    /// every distinct text stays prepared until the session ends.
    func withPreparedResult<T>(
        _ sql: String, _ parameters: [PostgreSQLValue], _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard let result = try sendStatement(sql, parameters, prepared: true) else { throw lastError(sql: sql) }
        defer { PQclear(result) }
        try check(result, sql: sql)
        return try body(result)
    }

    /// Sends one statement with its parameters and returns libpq's result, not yet checked;
    /// `prepared`: as a statement prepared in the session, prepared first if it is not yet.
    private func sendStatement(_ sql: String, _ parameters: [PostgreSQLValue], prepared: Bool = false)
        throws(PostgreSQLError) -> OpaquePointer?
    {
        try withParameters(parameters, sql: sql) { (p) throws(PostgreSQLError) -> OpaquePointer? in
            guard prepared else {
                return PQexecParams(handle, sql, p.count, p.types, p.values, p.lengths, p.formats, 0)
            }
            let name: String
            if let known = preparedNames[p.key(sql)] {
                name = known
            } else {
                name = newPreparedName()
                let made = PQprepare(handle, name, sql, p.count, p.types)
                defer { if let made { PQclear(made) } }
                try check(made, sql: sql)
                preparedNames[p.key(sql)] = name
            }
            return PQexecPrepared(handle, name, p.count, p.values, p.lengths, p.formats, 0)
        }
    }

    /// The name for the next statement prepared in the session, after those recorded and
    /// `pending` more being prepared.
    private func newPreparedName(pending: Int = 0) -> String { "wkstore_\(preparedNames.count + pending + 1)" }

    /// A statement's parameters as libpq takes them: types, values, lengths and formats.
    private struct Parameters {
        var types: [UInt32] = []
        var values: [UnsafePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var count: Int32 { Int32(types.count) }
        /// The key under which `sql` with parameters of these types is prepared in the session.
        func key(_ sql: String) -> String { types.map(String.init).joined(separator: ",") + " " + sql }
    }

    /// Runs `body` with `parameters` laid out for libpq; the values' memory lasts until it returns.
    private func withParameters<T>(
        _ parameters: [PostgreSQLValue], sql: String, _ body: (Parameters) throws(PostgreSQLError) -> T
    ) throws(PostgreSQLError) -> T {
        var laid = Parameters()
        var owned: [UnsafeMutableRawPointer] = []
        defer { for pointer in owned { free(pointer) } }
        for parameter in parameters {
            switch parameter {
            case .null:
                laid.types.append(0)
                laid.values.append(nil)
                laid.lengths.append(0)
                laid.formats.append(0)
            case .bytes(let bytes):
                let copy = malloc(max(bytes.count, 1))!
                bytes.withUnsafeBytes {
                    if let base = $0.baseAddress { copy.copyMemory(from: base, byteCount: $0.count) }
                }
                owned.append(copy)
                laid.types.append(PostgreSQLField.byteaOID)
                laid.values.append(UnsafePointer(copy.assumingMemoryBound(to: CChar.self)))
                laid.lengths.append(Int32(clamping: bytes.count))
                laid.formats.append(1)
            default:
                let text = parameter.textForm ?? ""
                guard !text.utf8.contains(0) else {
                    throw PostgreSQLError(
                        .misuse, "a text parameter holds a NUL character, which PostgreSQL text cannot hold", sql: sql)
                }
                let copy = strdup(text)!
                owned.append(UnsafeMutableRawPointer(copy))
                switch parameter {
                case .int64: laid.types.append(20)
                case .double: laid.types.append(701)
                case .bool: laid.types.append(16)
                default: laid.types.append(0)
                }
                laid.values.append(UnsafePointer(copy))
                laid.lengths.append(0)
                laid.formats.append(0)
            }
        }
        return try body(laid)
    }

    /// Runs `statements` as one transaction in one round trip (libpq's pipeline mode): all of
    /// them are sent, then one synchronisation point, at which the server commits them together.
    /// When one fails the server runs none of the rest and rolls the transaction back; the
    /// call throws that statement's error. Each statement is prepared in the session, as
    /// `withPreparedResult` does, so a statement sent often is parsed and planned once.
    ///
    /// A lost connection makes the outcome unknown (the commit may have happened): the call
    /// throws a `.connectionLost` error, as a lost `COMMIT` does.
    ///
    /// - Parameter statements: each statement's SQL (one statement each) and parameters.
    /// - Returns: each statement's rows, in order.
    /// - Throws: `PostgreSQLError`: `.misuse` inside a transaction, the failing statement's
    ///   error, or `.connectionLost`.
    func pipelinedTransaction(_ statements: [(sql: String, parameters: [PostgreSQLValue])]) throws(PostgreSQLError)
        -> [PostgreSQLResult]
    {
        lock.lock()
        defer { lock.unlock() }
        guard PQtransactionStatus(handle) == PQTRANS_IDLE else {
            throw PostgreSQLError(.misuse, "a pipelined transaction needs a connection outside any transaction")
        }
        guard PQenterPipelineMode(handle) == 1 else { throw lastError(sql: nil) }
        // What was sent, in order: a statement's preparation (its name), or its execution.
        var sent: [(sql: String, preparing: (key: String, name: String)?)] = []
        var sendError: PostgreSQLError?
        var newNames: [String: String] = [:]
        for (sql, parameters) in statements {
            do {
                try withParameters(parameters, sql: sql) { (p) throws(PostgreSQLError) in
                    let key = p.key(sql)
                    var name = preparedNames[key] ?? newNames[key]
                    if name == nil {
                        let made = newPreparedName(pending: newNames.count)
                        guard PQsendPrepare(handle, made, sql, p.count, p.types) == 1 else { throw lastError(sql: sql) }
                        sent.append((sql, (key, made)))
                        newNames[key] = made
                        name = made
                    }
                    guard PQsendQueryPrepared(handle, name, p.count, p.values, p.lengths, p.formats, 0) == 1 else {
                        throw lastError(sql: sql)
                    }
                    sent.append((sql, nil))
                }
            } catch {
                sendError = error
                break
            }
        }
        // The synchronisation point ends the transaction: a commit, or the rollback of a failed one.
        if sendError == nil && PQpipelineSync(handle) != 1 { sendError = lastError(sql: nil) }
        var results: [PostgreSQLResult] = []
        var failure: PostgreSQLError? = sendError
        if sendError == nil {
            for item in sent {
                // Each statement's results end with a null result.
                var first = true
                while let result = PQgetResult(handle) {
                    defer { PQclear(result) }
                    guard first else { continue }
                    first = false
                    guard failure == nil else { continue }
                    if PQresultStatus(result) == PGRES_PIPELINE_ABORTED { continue }
                    do {
                        try check(result, sql: item.sql)
                        if let preparing = item.preparing {
                            preparedNames[preparing.key] = preparing.name
                        } else {
                            results.append(Self.copyRows(result))
                        }
                    } catch {
                        failure = error
                    }
                }
                if first && failure == nil { failure = lastError(sql: item.sql) }
                if isBroken { break }
            }
            // Then the synchronisation point's own result; an error before it is the commit's.
            while !isBroken, let result = PQgetResult(handle) {
                defer { PQclear(result) }
                if PQresultStatus(result) == PGRES_PIPELINE_SYNC { break }
                if failure == nil {
                    do { try check(result, sql: "COMMIT") } catch { failure = error }
                }
            }
        }
        if isBroken {
            PQexitPipelineMode(handle)
            throw lastError(sql: nil)
        }
        guard PQexitPipelineMode(handle) == 1 else { throw failure ?? lastError(sql: nil) }
        if let failure { throw failure }
        return results
    }

    /// Runs several SQL statements separated by semicolons, without parameters, and returns the
    /// last one's rows.
    ///
    /// Outside a transaction the statements run in one implicit transaction: all or none.
    ///
    /// - Parameter sql: the statements.
    /// - Throws: `PostgreSQLError` as `execute` does; the statements after the failing one do not run.
    @discardableResult
    public func executeScript(_ sql: String) throws(PostgreSQLError) -> PostgreSQLResult {
        lock.lock()
        defer { lock.unlock() }
        return try take(PQexec(handle, sql), sql: sql)
    }

    // MARK: Transactions

    /// Runs `body` in a transaction: commits it when `body` returns, rolls it back when it throws.
    ///
    /// Inside another `transaction` call (or a transaction the caller began), `body` runs in a
    /// savepoint, released when it returns and rolled back to when it throws, so an inner failure
    /// undoes only the inner work. A transaction whose statement failed while `body` went on (the
    /// error caught inside) cannot commit: it is rolled back and the call throws.
    ///
    /// If the connection breaks during `COMMIT`, the error is `.connectionLost` and whether the
    /// transaction committed is unknown: write changes so that applying one twice is harmless, or
    /// check after `reconnect()`.
    ///
    /// - Parameters:
    ///   - begin: the statements that begin the outermost transaction, sent in one round trip
    ///     without parameters: `BEGIN` with its options, then what the transaction does first
    ///     (`BEGIN; SELECT pg_advisory_xact_lock(…)`). Not used for a savepoint.
    ///   - body: the work; it uses this connection.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws (after the rollback), or a `PostgreSQLError` of `begin` or `COMMIT`.
    @discardableResult
    public func transaction<T>(begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        let outer = PQtransactionStatus(handle) == PQTRANS_IDLE
        let savepoint = "wkstore_savepoint_\(savepointDepth)"
        if outer {
            do { try executeScript(begin) } catch {
                // A later statement of `begin` that failed leaves the transaction open, aborted.
                if !isBroken && PQtransactionStatus(handle) != PQTRANS_IDLE { _ = try? execute("ROLLBACK") }
                throw error
            }
        } else {
            try execute("SAVEPOINT \(savepoint)")
        }
        if !outer { savepointDepth += 1 }
        defer { if !outer { savepointDepth -= 1 } }
        let result: T
        do {
            result = try body()
        } catch {
            if !isBroken {
                if outer {
                    _ = try? execute("ROLLBACK")
                } else {
                    _ = try? execute("ROLLBACK TO SAVEPOINT \(savepoint)")
                    _ = try? execute("RELEASE SAVEPOINT \(savepoint)")
                }
            }
            throw error
        }
        if PQtransactionStatus(handle) == PQTRANS_INERROR {
            // COMMIT would quietly roll back; the caller must hear that nothing was written.
            if outer {
                _ = try? execute("ROLLBACK")
            } else {
                _ = try? execute("ROLLBACK TO SAVEPOINT \(savepoint)")
                _ = try? execute("RELEASE SAVEPOINT \(savepoint)")
            }
            throw PostgreSQLError(
                .query, "a statement of the transaction failed, so it was rolled back", sqlState: "25P02")
        }
        try execute(outer ? "COMMIT" : "RELEASE SAVEPOINT \(savepoint)")
        return result
    }

    /// Takes PostgreSQL's transaction-level advisory lock on `key`, waiting for it, until the
    /// open transaction ends.
    ///
    /// Every transaction that takes the same key runs its part after the lock one after another,
    /// in the order they obtained it; the lock is released when the transaction commits or rolls
    /// back (after its commit is visible to others), so work done under it is seen in that order.
    ///
    /// - Parameter key: the lock's key; wkstore's own keys use the two-number form, whose first
    ///   number is `PostgreSQLConnection.lockNamespace`.
    /// - Throws: `PostgreSQLError` with reason `.misuse` outside a transaction (the lock would
    ///   end with the statement), or as `execute` does.
    public func advisoryTransactionLock(_ key: Int64) throws(PostgreSQLError) {
        lock.lock()
        defer { lock.unlock() }
        try requireTransaction("pg_advisory_xact_lock")
        try execute("SELECT pg_advisory_xact_lock($1)", [.int64(key)])
    }

    /// Takes the transaction-level advisory lock on the pair (`namespace`, `key`), as
    /// `advisoryTransactionLock(_:)` does for a single key.
    ///
    /// - Parameters:
    ///   - namespace: the first number (`lockNamespace` for wkstore's locks).
    ///   - key: the second.
    /// - Throws: as `advisoryTransactionLock(_:)`.
    public func advisoryTransactionLock(namespace: Int32, key: Int32) throws(PostgreSQLError) {
        lock.lock()
        defer { lock.unlock() }
        try requireTransaction("pg_advisory_xact_lock")
        try execute(
            "SELECT pg_advisory_xact_lock($1::integer, $2::integer)", [.int64(Int64(namespace)), .int64(Int64(key))])
    }

    /// The first number of every advisory lock wkstore takes ('wkst' in ASCII), so that its
    /// locks cannot meet another program's single-number ones by chance.
    public static let lockNamespace: Int32 = 2_004_578_163

    // MARK: COPY

    /// Sends rows to a `COPY … FROM STDIN` statement, in PostgreSQL's text format, and returns how
    /// many rows the server stored.
    ///
    /// Rows are sent as they are produced, in chunks, so a large import never sits whole in
    /// memory. `bytes` fields go to `bytea` columns; the statement must not give a format other
    /// than text. Inside a transaction, the rows are part of it; outside, the COPY is all or none.
    ///
    /// - Parameters:
    ///   - sql: a `COPY table (columns) FROM STDIN` statement.
    ///   - rows: the rows, each with one value per column, in order.
    /// - Returns: the number of rows copied.
    /// - Throws: `PostgreSQLError` with reason `.query` when the server refuses the statement or a
    ///   row, `.misuse` for a text value holding NUL, `.connectionLost` when the connection broke.
    @discardableResult
    public func copy<Rows: Sequence>(_ sql: String, rows: Rows) throws(PostgreSQLError) -> Int
    where Rows.Element == [PostgreSQLValue] {
        lock.lock()
        defer { lock.unlock() }
        let start = PQexec(handle, sql)
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            _ = try take(start, sql: sql)
            throw PostgreSQLError(.misuse, "copy needs a COPY … FROM STDIN statement", sql: sql)
        }
        PQclear(start)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(Self.copyChunk + 4096)
        var refusal: String?
        var serverEnded = false
        for row in rows {
            guard Self.appendCopyRow(row, to: &buffer) else {
                refusal = "a text value holds a NUL character, which PostgreSQL text cannot hold"
                break
            }
            if buffer.count >= Self.copyChunk {
                serverEnded = try !send(buffer, sql: sql)
                buffer.removeAll(keepingCapacity: true)
                if serverEnded { break }
            }
        }
        if refusal == nil, !serverEnded, !buffer.isEmpty { _ = try send(buffer, sql: sql) }
        // Ending with an error message makes the server abort the COPY and store nothing.
        let ended = refusal.map { PQputCopyEnd(handle, $0) } ?? PQputCopyEnd(handle, nil)
        guard ended == 1 else { throw lastError(sql: sql) }
        // Every result is read, so the connection is ready for the next statement; the first
        // failure is the one reported.
        var failure: PostgreSQLError?
        var copied: Int?
        while let result = PQgetResult(handle) {
            do throws(PostgreSQLError) {
                copied = try take(result, sql: sql).affectedRows
            } catch {
                if failure == nil { failure = error }
            }
        }
        if let refusal { throw PostgreSQLError(.misuse, refusal, sql: sql) }
        if let failure { throw failure }
        guard let copied else { throw lastError(sql: sql) }
        return copied
    }

    /// The bytes a COPY sends at once.
    private static let copyChunk = 256 * 1024

    /// Sends one chunk of COPY data; `false` when the server has already ended the COPY (its
    /// error then comes from `PQgetResult`).
    private func send(_ buffer: [UInt8], sql: String) throws(PostgreSQLError) -> Bool {
        let sent = buffer.withUnsafeBufferPointer { pointer in
            pointer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: pointer.count) {
                PQputCopyData(handle, $0, Int32(pointer.count))
            }
        }
        if sent == 1 { return true }
        if isBroken { throw lastError(sql: sql) }
        return false
    }

    /// Appends one row in COPY's text format: fields separated by tabs, `\N` for NULL, a
    /// backslash before the characters the format gives a meaning; `false` for text holding NUL.
    static func appendCopyRow(_ row: [PostgreSQLValue], to buffer: inout [UInt8]) -> Bool {
        let hex = Array("0123456789abcdef".utf8)
        for (index, value) in row.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: "\t")) }
            switch value {
            case .null:
                buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
            case .bytes(let bytes):
                // bytea's hex input form, `\x…`, with its backslash doubled for COPY.
                buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\"), UInt8(ascii: "x")])
                for byte in bytes {
                    buffer.append(hex[Int(byte >> 4)])
                    buffer.append(hex[Int(byte & 0x0F)])
                }
            default:
                for byte in (value.textForm ?? "").utf8 {
                    switch byte {
                    case 0: return false
                    case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                    case UInt8(ascii: "\t"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                    case UInt8(ascii: "\n"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                    case UInt8(ascii: "\r"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                    default: buffer.append(byte)
                    }
                }
            }
        }
        buffer.append(UInt8(ascii: "\n"))
        return true
    }

    // MARK: LISTEN and NOTIFY

    /// Listens on `channel`: notifications sent on it from now on are kept for `notifications(timeout:)`.
    ///
    /// - Parameter channel: the channel's name (any text; it is quoted as an identifier).
    /// - Throws: `PostgreSQLError` as `execute` does.
    public func listen(_ channel: String) throws(PostgreSQLError) {
        lock.lock()
        defer { lock.unlock() }
        try execute("LISTEN \(try quotedIdentifier(channel))")
        channels.insert(channel)
    }

    /// Stops listening on `channel`.
    ///
    /// - Parameter channel: the channel's name.
    /// - Throws: `PostgreSQLError` as `execute` does.
    public func unlisten(_ channel: String) throws(PostgreSQLError) {
        lock.lock()
        defer { lock.unlock() }
        channels.remove(channel)
        try execute("UNLISTEN \(try quotedIdentifier(channel))")
    }

    /// Sends a notification on `channel`; inside a transaction it is delivered when the
    /// transaction commits, and not at all if it rolls back.
    ///
    /// - Parameters:
    ///   - channel: the channel's name.
    ///   - payload: text for the listeners (under 8000 bytes).
    /// - Throws: `PostgreSQLError` as `execute` does.
    public func notify(_ channel: String, payload: String = "") throws(PostgreSQLError) {
        try execute("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    /// Returns the notifications received on the channels this connection listens on, waiting up
    /// to `timeout` for the first one when none has arrived yet.
    ///
    /// The wait is on the connection's socket (`poll`), so it costs nothing while nothing
    /// arrives, and it returns as soon as a notification does. It holds the connection's lock.
    ///
    /// - Parameter timeout: the longest wait; zero only collects what has arrived.
    /// - Returns: the notifications, oldest first; empty if none came in time.
    /// - Throws: `PostgreSQLError` with reason `.connectionLost` when the connection broke.
    public func notifications(timeout: Duration) throws(PostgreSQLError) -> [PostgreSQLNotification] {
        lock.lock()
        defer { lock.unlock() }
        let deadline = ContinuousClock.now + timeout
        while true {
            guard PQconsumeInput(handle) == 1 else { throw lastError(sql: nil) }
            var received: [PostgreSQLNotification] = []
            while let notification = PQnotifies(handle) {
                received.append(
                    PostgreSQLNotification(
                        channel: String(cString: notification.pointee.relname),
                        payload: notification.pointee.extra.map { String(cString: $0) } ?? "",
                        senderProcessID: notification.pointee.be_pid))
                PQfreemem(notification)
            }
            if !received.isEmpty { return received }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return [] }
            let socket = PQsocket(handle)
            guard socket >= 0 else { throw lastError(sql: nil) }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            if poll(&descriptor, 1, milliseconds) < 0, errno != EINTR {
                throw PostgreSQLError(
                    .connectionLost, "waiting for notifications failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    // MARK: Errors and results

    private func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private func requireTransaction(_ what: String) throws(PostgreSQLError) {
        guard PQtransactionStatus(handle) == PQTRANS_INTRANS else {
            throw PostgreSQLError(
                .misuse, "\(what) needs an open transaction: outside one it would end with the statement")
        }
    }

    private func quotedIdentifier(_ name: String) throws(PostgreSQLError) -> String {
        guard let quoted = PQescapeIdentifier(handle, name, name.utf8.count) else { throw lastError(sql: nil) }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    /// The rows of `result`, copied out, and the result freed; or its error.
    private func take(_ result: OpaquePointer?, sql: String?) throws(PostgreSQLError) -> PostgreSQLResult {
        guard let result else { throw lastError(sql: sql) }
        defer { PQclear(result) }
        try check(result, sql: sql)
        return Self.copyRows(result)
    }

    /// Throws the error `result` holds, if any (a result of a statement that failed).
    private func check(_ result: OpaquePointer?, sql: String?) throws(PostgreSQLError) {
        guard let result else { throw lastError(sql: sql) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            break
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            // Leave the connection usable: end the COPY the statement began.
            if PQresultStatus(result) == PGRES_COPY_IN { _ = PQputCopyEnd(handle, "not started by copy(_:rows:)") }
            while let more = PQgetResult(handle) { PQclear(more) }
            throw PostgreSQLError(.misuse, "a COPY statement runs through copy(_:rows:)", sql: sql)
        default:
            // An error libpq made itself has no SQLSTATE; after a failed write to a server that
            // went away, libpq knows the connection is gone only once it reads again.
            if PQresultErrorField(result, Int32(UInt8(ascii: "C"))) == nil { _ = PQconsumeInput(handle) }
            if isBroken { throw lastError(sql: sql) }
            let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message =
                PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
                ?? PQresultErrorMessage(result).map { String(cString: $0) } ?? "the statement failed"
            let text = oneLine(target.redact(message))
            // FATAL and PANIC end the session: the server closes the connection after sending them.
            let severity = PQresultErrorField(result, Int32(UInt8(ascii: "V"))).map { String(cString: $0) }
            if severity == "FATAL" || severity == "PANIC" {
                sessionEnded = true
                throw PostgreSQLError(
                    .connectionLost, "the server ended the connection to \(target.summary): \(text)",
                    sqlState: sqlState,
                    sql: sql)
            }
            throw PostgreSQLError(.query, text, sqlState: sqlState, sql: sql)
        }
    }

    /// The rows and affected-row count of a successful result.
    private static func copyRows(_ result: OpaquePointer) -> PostgreSQLResult {
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        var columns: [String] = []
        var types: [UInt32] = []
        for column in 0..<columnCount {
            columns.append(String(cString: PQfname(result, Int32(column))))
            types.append(PQftype(result, Int32(column)))
        }
        var rows: [PostgreSQLRow] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var fields: [PostgreSQLField] = []
            fields.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                let r = Int32(row)
                let c = Int32(column)
                if PQgetisnull(result, r, c) == 1 {
                    fields.append(PostgreSQLField(raw: nil, typeOID: types[column]))
                } else {
                    let length = Int(PQgetlength(result, r, c))
                    let bytes = PQgetvalue(result, r, c).withMemoryRebound(to: UInt8.self, capacity: length) {
                        Array(UnsafeBufferPointer(start: $0, count: length))
                    }
                    fields.append(PostgreSQLField(raw: bytes, typeOID: types[column]))
                }
            }
            rows.append(PostgreSQLRow(fields: fields, columns: columns))
        }
        let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
        return PostgreSQLResult(columns: columns, rows: rows, affectedRows: affected)
    }

    /// The connection's last error (libpq's message), as a lost connection when it broke.
    private func lastError(sql: String?) -> PostgreSQLError {
        let message = PQerrorMessage(handle).map { String(cString: $0) } ?? ""
        let text = oneLine(target.redact(message))
        if isBroken {
            return PostgreSQLError(
                .connectionLost,
                "the connection to \(target.summary) was lost: \(text.isEmpty ? "no reason given" : text)",
                sql: sql)
        }
        return PostgreSQLError(.query, text.isEmpty ? "the statement failed" : text, sql: sql)
    }

    /// The error of a connection that failed to open (or to reset), classified from libpq's
    /// message: libpq gives no SQLSTATE for a failed connection.
    private static func connectError(_ connection: OpaquePointer, target: PostgreSQLConnectionString) -> PostgreSQLError
    {
        var secrets = target.secrets
        // A password from the password file is known only to the connection.
        if let password = PQpass(connection).map({ String(cString: $0) }), !password.isEmpty {
            secrets.append(password)
        }
        let raw = PQerrorMessage(connection).map { String(cString: $0) } ?? ""
        let text = oneLine(PostgreSQLConnectionString.redact(raw, secrets: secrets.sorted { $0.count > $1.count }))
        let message = "cannot connect to \(target.summary): \(text.isEmpty ? "no reason given" : text)"
        return PostgreSQLError(connectFailureReason(raw), message)
    }

    /// What libpq's message for a failed connection attempt says went wrong.
    static func connectFailureReason(_ message: String) -> PostgreSQLError.Reason {
        let lower = message.lowercased()
        if lower.contains("database \"") && lower.contains("does not exist") { return .databaseMissing }
        if [
            "password authentication failed", "authentication failed", "no pg_hba.conf entry",
            "no password supplied", "role \"", "certificate authentication", "pg_hba.conf rejects",
        ].contains(where: lower.contains) {
            return .authenticationFailed
        }
        // A server stopping or starting may also reset a connection it had not yet accepted.
        if [
            "connection refused", "could not translate host name", "timeout expired",
            "no route to host", "network is unreachable", "no such file or directory",
            "the database system is starting up", "the database system is shutting down",
            "the database system is in recovery mode", "the database system is not yet accepting connections",
            "too many clients", "server closed the connection", "connection reset by peer",
            "could not connect", "connection timed out", "host is down",
        ].contains(where: lower.contains) {
            return .serverUnavailable
        }
        return .connectionFailed
    }
}

/// `text` on one line: libpq's messages end with a newline and may hold several lines.
private func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        .joined(separator: " ")
}

/// Runs `body` with `strings` as a NULL-terminated array of C strings.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { UnsafePointer($0) } + [nil])
}
