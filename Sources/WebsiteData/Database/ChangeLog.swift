import CSQLite
import Foundation

extension StoreDatabase {
    /// Appends change-log rows (with their cookies, for cookie changes); returns the sequence
    /// numbers they took. Used inside a write transaction of the writer connection. An entry's
    /// position is its row's key (SQLite's rowid; on PostgreSQL, numbered from the log's head
    /// under the log's lock).
    static func appendToLog(_ changes: [ChangeLogEntry], _ db: DatabaseConnection) throws -> ClosedRange<Int64>? {
        guard !changes.isEmpty else { return nil }
        if db.engine == .postgreSQL {
            var range: ClosedRange<Int64>?
            for piece in appendStatements(changes, writer: nil) {
                let seqs = try db.repeatedRows(piece.sql, piece.values) { $0.int(0) }
                range = try extend(range, by: seqs, expected: piece.rows)
            }
            return range
        }
        let statement = try db.statement(
            "INSERT INTO change_log (\(logColumns)) VALUES \(logRow)" + db.engine.returning("seq"))
        let time = Date().timeIntervalSince1970
        var range: ClosedRange<Int64>?
        for entry in changes {
            try statement.reset()
            for (offset, value) in logValues(entry, time: time).enumerated() {
                try statement.bind(value, at: Int32(offset + 1))
            }
            guard let seq = try statement.runInsert() else {
                throw StoreError.notAStore(detail: "the change log gave no position to an appended entry")
            }
            range = (range?.lowerBound ?? seq)...seq
        }
        return range
    }

    /// The columns an appended change-log row fills, in the order of `logValues`.
    private static let logColumns = "type, site, cause, time, since, op, \(CookiePersistence.columns)"
    /// The parameters of one appended row.
    private static let logRow = "(" + Array(repeating: "?", count: 19).joined(separator: ", ") + ")"

    /// The values of `entry`'s row for `logColumns`: NULL for the cookie's columns of an entry
    /// without a cookie.
    private static func logValues(_ entry: ChangeLogEntry, time: Double) -> [DatabaseValue] {
        var values: [DatabaseValue] = [
            .integer(entry.subject.code), .text(entry.site), .integer(entry.cause.rawValue), .real(time),
            entry.since.map { .real($0) } ?? .null,
        ]
        if let logged = entry.cookie {
            values.append(.integer(logged.op.rawValue))
            values += CookiePersistence.values(logged.cookie)
        } else {
            values += Array(repeating: .null, count: 14)
        }
        return values
    }

    /// The PostgreSQL type of each of `logColumns`, in order.
    private static let logColumnTypes = [
        "smallint", "text", "smallint", "float8", "float8", "smallint", "text", "text", "text", "text", "boolean",
        "boolean", "boolean", "text", "text", "float8", "float8", "float8", "float8",
    ]

    /// The PostgreSQL append: one array parameter per column of `logColumns`, unnested side by
    /// side, each row numbered from the log's head, and the writing store object's number
    /// (`writer`, or NULL) in every row.
    private static let appendInArrays: String = {
        let columns = logColumns.components(separatedBy: ", ")
        let arrays = zip(columns.indices, logColumnTypes).map { "unnest(?\($0.0 + 1)::\($0.1)[])" }
        return """
            INSERT INTO change_log (seq, \(logColumns), writer) SELECT head.position + entry.n, \(columns.map { "entry.\($0)" }.joined(separator: ", ")), ?\(columns.count + 1)::bigint \
            FROM change_log_head AS head, ROWS FROM (\(arrays.joined(separator: ", "))) WITH ORDINALITY AS entry(\(logColumns), n) \
            WHERE head.id = 1 RETURNING seq
            """
    }()

    /// The entries one statement appends on PostgreSQL, at most (a long import appends in pieces).
    static let appendedRowsPerStatement = 1000

    /// One statement of a PostgreSQL append: its SQL (in `?` form), its parameters and the rows
    /// it appends.
    struct AppendStatement {
        let sql: String
        let values: [DatabaseValue]
        let rows: Int
    }

    /// `changes` appended on PostgreSQL, as statements of at most `appendedRowsPerStatement`
    /// rows (so each is prepared once per session, whatever its number of entries), each
    /// column's values sent as one array and the rows numbered on the server from the log's
    /// head. Every write transaction holds the log's lock from its start, so the head stays the
    /// head until the rows follow it; the schema's statement trigger refuses positions that do
    /// not continue it, moves it and notifies listeners. One round trip a piece and no trigger
    /// call per row: each row costs the server little more than in a `COPY`.
    ///
    /// - Parameter writer: the writing store object's number, for a commit that learns its
    ///   positions only once they are visible (`StoreDatabase.commitPipelined`); nil otherwise.
    static func appendStatements(_ changes: [ChangeLogEntry], writer: Int64?) -> [AppendStatement] {
        let time = Date().timeIntervalSince1970
        var statements: [AppendStatement] = []
        var start = changes.startIndex
        while start < changes.endIndex {
            let piece = changes[start..<min(start + appendedRowsPerStatement, changes.endIndex)]
            start = piece.endIndex
            var values = [[DatabaseValue]](repeating: [], count: logColumnTypes.count)
            for entry in piece {
                for (column, value) in logValues(entry, time: time).enumerated() { values[column].append(value) }
            }
            let arrays = values.map { DatabaseValue.text(PostgreSQLStoreConnection.arrayLiteral($0)) }
            statements.append(
                AppendStatement(
                    sql: appendInArrays, values: arrays + [writer.map { .integer($0) } ?? .null], rows: piece.count))
        }
        return statements
    }

    /// `range` extended by the positions an append statement returned, which must be one for
    /// each of its `expected` rows.
    static func extend(_ range: ClosedRange<Int64>?, by seqs: [Int64], expected: Int) throws -> ClosedRange<Int64> {
        guard seqs.count == expected, let low = seqs.min(), let high = seqs.max() else {
            throw StoreError.notAStore(detail: "the change log gave no position to an appended entry")
        }
        return (range?.lowerBound ?? low)...high
    }

    /// Keeps the change log within its retention.
    ///
    /// First each data type that keeps rows of its own in the log (`folds`: cookies) folds them
    /// into its tables when due, or always with `foldAll`. Then entries go that are older than
    /// `changes.keep-seconds` or beyond the newest `changes.keep-entries`, but never one that a
    /// fold still needs, and never the newest (it holds the log's position). The point the log
    /// was trimmed to is recorded, so a process, or a feed resumed from a position, that lags
    /// further reloads everything.
    func maintainLog(_ db: DatabaseConnection, foldAll: Bool = false) throws {
        try Self.maintainLog(db, folds: folds, foldAll: foldAll)
    }

    /// `maintainLog(_:foldAll:)` with the data types that keep rows in the log, `folds`, for the
    /// PostgreSQL maintainer's connection. It takes the fold lock first (`lockFolds`).
    static func maintainLog(_ db: DatabaseConnection, folds: [any ChangeLogFold], foldAll: Bool = false) throws {
        try lockFolds(db)
        guard let newest = try db.scalar("SELECT max(seq) FROM change_log")?.int64 else { return }
        var folded = newest
        for fold in folds { folded = min(folded, try fold.fold(db, through: newest, force: foldAll)) }
        let trimmed = try SettingsTable.number(Self.trimmedThroughKey, db)
        let values = try SettingsTable.values(db)
        let keepEntries = Int64(StoreSetting.changesKeepEntries.value(in: values)) ?? 0
        let keepSeconds = Double(StoreSetting.changesKeepSeconds.value(in: values)) ?? 0
        // Entries are appended in time order (give or take clock steps between processes), so
        // the first one young enough is found by reading from the oldest until it comes.
        let firstYoung = try db.scalar(
            "SELECT seq FROM change_log WHERE seq > ? AND time >= ? ORDER BY seq LIMIT 1",
            [.integer(trimmed), .real(Date().timeIntervalSince1970 - keepSeconds)])?.int64
        let through = min(max(newest - keepEntries, (firstYoung ?? newest + 1) - 1), newest - 1)
        guard through > trimmed else { return }
        // Entries a fold has taken go whatever they are; past the fold, only those of types
        // that keep no rows in the log.
        try db.execute("DELETE FROM change_log WHERE seq <= ?", [.integer(min(through, folded))])
        if through > folded {
            let kept = folds.map { String($0.subject.code) }.joined(separator: ", ")
            try db.execute(
                "DELETE FROM change_log WHERE seq > ? AND seq <= ? AND type NOT IN (\(kept))",
                [.integer(max(trimmed, folded)), .integer(through)])
        }
        try SettingsTable.setNumber(Self.trimmedThroughKey, to: through, db)
    }

    /// The settings key that says through which sequence number the change log was trimmed.
    static let trimmedThroughKey = "change_log.trimmed_through"

    /// Maintains the log (`maintainLog`) when a write's entries crossed a multiple of 512: on
    /// SQLite in the write's transaction; on PostgreSQL the maintainer's thread does, once the
    /// write has committed (`announceCommit` requests it), without the change log's lock.
    func maintainLogIfDue(after range: ClosedRange<Int64>, _ db: DatabaseConnection) throws {
        guard range.upperBound % 512 < Int64(range.count) else { return }
        if maintainer != nil {
            maintenanceDue.store(true, ordering: .relaxed)
        } else {
            try maintainLog(db)
        }
    }

    /// On PostgreSQL, takes the fold lock until the transaction ends: the lock of the
    /// transactions that write the cookies table or the fold's settings (the log maintenance,
    /// and the purge and refiling of a store object's open), so that a fold running beside the
    /// appends of other transactions never interleaves with another such writer. On SQLite,
    /// nothing: one writer at a time holds the whole file.
    static func lockFolds(_ db: DatabaseConnection) throws {
        guard db.engine == .postgreSQL else { return }
        try db.execute("SELECT pg_advisory_xact_lock(\(PostgreSQLConnection.lockNamespace), 2)", [])
    }

    /// Waits until the maintenance requested so far has run (PostgreSQL; at once on SQLite,
    /// which maintains the log in the writes' own transactions).
    func waitForMaintenance() {
        maintainer?.waitUntilIdle()
    }

    /// Folds every data type's rows kept in the change log into its tables and trims the log to
    /// its retention (before a `VACUUM`), after the writes queued so far.
    func foldChangeLog() throws {
        try checkWritable()
        drainQueue()
        try writer.withLock { db in try db.transaction { try self.maintainLog(db, foldAll: true) } }
    }
}

/// What a change-log entry is about: the data of one type, or the store's settings.
///
/// Its `code` is what the log's `type` column holds. Codes are part of the store's format,
/// shared by both engines and every release: a code is never renumbered or reused, and a new
/// type takes the next free one.
enum ChangeSubject: Sendable, Hashable {
    /// The data of one type.
    case data(WebsiteDataType)
    /// The store's settings (`wkstore config`).
    case settings

    /// The stable code of the subject in the change log.
    var code: Int64 {
        switch self {
        case .data(.cookies): 1
        case .data(.diskCache): 2
        case .data(.memoryCache): 3
        case .data(.offlineWebApplicationCache): 4
        case .data(.sessionStorage): 5
        case .data(.localStorage): 6
        case .data(.webSQLDatabases): 7
        case .data(.indexedDBDatabases): 8
        case .settings: 9
        }
    }

    /// The subject of a code, `nil` for a code this binary does not know.
    init?(code: Int64) {
        if code == Self.settings.code {
            self = .settings
        } else if let type = WebsiteDataType.allCases.first(where: { Self.data($0).code == code }) {
            self = .data(type)
        } else {
            return nil
        }
    }
}

/// Why an entry's data changed, as the log's `cause` column holds it (codes stable as
/// `ChangeSubject`'s are).
enum ChangeCause: Int64, Sendable, Hashable, CaseIterable {
    /// Data written: a response, a page script or an API call stored or replaced it.
    case write = 1
    /// Data removed on request: a delete, a clear by type, site or date, `Clear-Site-Data`.
    case removal = 2
    /// Data brought in by an import (cookies.txt, storageState, a browser profile, a copy).
    case importing = 3
    /// The browsing session ended: session cookies went. sessionStorage is never logged as
    /// ending: it lives in each process's memory, and `endSession()` ends only the namespaces
    /// of the object it is called on, which nothing else on the store can see.
    case endSession = 4
    /// Data that expired was purged.
    case expiry = 5
    /// Data was evicted to keep the store within its limits.
    case eviction = 6
    /// A cookie's last-access time moved on (nothing else changed).
    case access = 7
}

/// One row of the change log.
struct ChangeLogEntry: Sendable, Hashable {
    var seq: Int64 = 0
    var subject: ChangeSubject
    var site: String
    var cause: ChangeCause
    /// For a removal of process-memory data (memory cache, sessionStorage), the date it
    /// removed from; `nil` for all dates.
    var since: Double?
    /// For a cookie change, the change and the cookie; `nil` for an entry that names a site
    /// whose data changed.
    var cookie: LoggedCookie?

    init(
        seq: Int64 = 0, subject: ChangeSubject, site: String, cause: ChangeCause, since: Double? = nil,
        cookie: LoggedCookie? = nil
    ) {
        self.seq = seq
        self.subject = subject
        self.site = site
        self.cause = cause
        self.since = since
        self.cookie = cookie
    }

    /// The entry of a change to `type`'s data of `site` (`*` for every site).
    init(_ type: WebsiteDataType, site: String, cause: ChangeCause, since: Date? = nil) {
        self.init(subject: .data(type), site: site, cause: cause, since: since?.timeIntervalSince1970)
    }

    /// The entry of one cookie change.
    init(_ logged: LoggedCookie, cause: ChangeCause) {
        self.init(subject: .data(.cookies), site: logged.cookie.site, cause: cause, cookie: logged)
    }

    /// The entry of a row whose first columns are `seq, type, site, cause, since`, followed at
    /// `cookieAt` by `op` and the cookie's columns. `nil` for a subject or cause this binary
    /// does not know, which a store it opened cannot hold (a newer schema is refused).
    init?(_ row: Row, cookieAt: Int32?) {
        guard let subject = ChangeSubject(code: row.int(1)), let cause = ChangeCause(rawValue: row.int(3)) else {
            return nil
        }
        self.init(
            seq: row.int(0), subject: subject, site: row.string(2), cause: cause, since: row.optionalDouble(4),
            cookie: cookieAt.flatMap { CookiePersistence.loggedCookie(row, opAt: $0) })
    }

    /// Whether the entry is about `type`'s data.
    func isAbout(_ type: WebsiteDataType) -> Bool { subject == .data(type) }
}

/// A data type that keeps its newest rows in the change log itself and folds them into its
/// own tables now and then (cookies: see `CookiePersistence`). The log keeps every entry of
/// the type after the fold, whatever its retention.
protocol ChangeLogFold: Sendable {
    /// The subject of the entries the type keeps in the log.
    var subject: ChangeSubject { get }
    /// Folds the type's entries through `newest` into its tables when enough have gathered
    /// (always, with `force`), inside the caller's write transaction; returns the entry through
    /// which its tables are up to date.
    func fold(_ db: DatabaseConnection, through newest: Int64, force: Bool) throws -> Int64
}

/// Appends change-log entries inside a `writeNow` transaction and remembers the sequence
/// numbers they took.
final class ChangeLogWriter {
    private let db: DatabaseConnection
    /// The sequence numbers taken so far.
    private(set) var range: ClosedRange<Int64>?

    init(_ db: DatabaseConnection) { self.db = db }

    /// Appends `entries` (see `StoreDatabase.appendToLog`).
    func append(_ entries: [ChangeLogEntry]) throws {
        guard let logged = try StoreDatabase.appendToLog(entries, db) else { return }
        range = (range?.lowerBound ?? logged.lowerBound)...logged.upperBound
    }
}

/// What other connections changed.
struct ForeignChanges: Sendable {
    var entries: [ChangeLogEntry]
    var newestSeq: Int64
    /// The log was trimmed past this reader's position: reload everything.
    var everything: Bool
}
