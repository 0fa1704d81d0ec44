import CSQLite
import Foundation
import Synchronization

/// A store's database, on SQLite or PostgreSQL: the writer connection behind a lock, a reader
/// connection for coherence checks, group commit, and the change log that keeps processes in step.
///
/// Locks are taken in one order: an owner's own lock (a data type's in-memory state), then
/// `reader`, then `writer`, then the commit queue's; the commit leader holds only `writer`.
final class StoreDatabase: Sendable {
    /// The directory of a persistent store, or `nil` in memory.
    let directory: URL?
    /// The main database file, or `nil` in memory.
    let file: URL?
    let writer: LockedConnection<any DatabaseConnection>
    /// A second connection for reads, so a lookup never waits for a commit. In memory, `nil`: reads use the writer.
    let reader: LockedConnection<any DatabaseConnection>?
    /// The group commit of this object's writes; on PostgreSQL it gathers every announced writer.
    private let queue: CommitQueue
    /// Change-log sequence numbers this object wrote, so its own commits don't look like another process's.
    let ownSequences = Locked<OwnSequences>(OwnSequences())
    /// This object's number in the change-log rows of its pipelined commits (`commitPipelined`),
    /// which learn their positions only once the rows are visible; random, so no other store
    /// object's rows carry it.
    let writerNumber = Int64.random(in: 1...Int64.max)
    /// The store's shared change counter (persistent stores whose directory allows it).
    let changeCounter: ChangeCounter?
    /// The data types that keep rows of their own in the change log (see `maintainLog`).
    let folds: [any ChangeLogFold]
    /// Whether the store was opened read-only: every write is refused before it starts.
    let isReadOnly: Bool
    /// Where a PostgreSQL store is; `nil` on SQLite.
    let postgreSQL: PostgreSQLStoreLocation?
    /// What hears other connections' commits to a PostgreSQL store.
    let listener: PostgreSQLChangeListener?
    /// The backend process of a PostgreSQL store's writer connection.
    let writerBackend: Locked<Int32>?
    /// What keeps a PostgreSQL store's change log within its retention, beside the writes;
    /// `nil` on SQLite, where writes maintain it in their own transactions, and read-only.
    let maintainer: PostgreSQLLogMaintainer?
    /// Whether a commit in progress made maintenance due, to be requested once it committed.
    let maintenanceDue = Atomic<Bool>(false)
    /// The shared lock a store directory's objects hold while they live, which a removal tests
    /// (`StoreUseLock`); `nil` in memory, on PostgreSQL, or where the lock file cannot be opened.
    let useLock: StoreUseLock?
    /// Whether every read first asks a PostgreSQL server for the change log's position
    /// (`WebsiteDataStore.Configuration.strictCoherence`); `false` on SQLite, whose change
    /// counter already says at every call whether anything changed.
    let strictCoherence: Bool

    /// The engine that holds the store.
    var engine: DatabaseEngine { postgreSQL == nil ? .sqlite : .postgreSQL }
    /// Whether the store outlives the process (a directory or a PostgreSQL database).
    var isPersistent: Bool { directory != nil || postgreSQL != nil }

    struct OwnSequences {
        var ranges: [ClosedRange<Int64>] = []
        /// How many times this object bumped the shared change counter.
        var bumps: UInt64 = 0
        /// The newest sequence number this object has committed.
        var newestCommitted: Int64 = 0
        mutating func add(_ range: ClosedRange<Int64>) {
            ranges.append(range)
            if ranges.count > 4096 { ranges.removeFirst(2048) }
        }
        mutating func remove(_ range: ClosedRange<Int64>) { ranges.removeAll { $0 == range } }
        /// Newest first: the entries a reader asks about are almost always the latest.
        func contains(_ seq: Int64) -> Bool { ranges.lastIndex { $0.contains(seq) } != nil }
        /// Whether every sequence number after `lastSeq` up to `newest` is this object's own.
        /// Ranges are added in commit order, which is sequence order (one writer connection).
        func covers(after lastSeq: Int64, through newest: Int64) -> Bool {
            var expected = newest
            for range in ranges.reversed() {
                if expected <= lastSeq { return true }
                if range.lowerBound > expected { continue }
                if range.upperBound < expected { return false }
                expected = range.lowerBound - 1
            }
            return expected <= lastSeq
        }
    }

    /// Files or the directory of an existing store that others than its owner may read or write.
    let permissionProblems: [String]

    /// The file name of the main database inside a store directory.
    static let fileName = "store.sqlite"

    /// Opens (creating when needed) the database of a store directory, or an in-memory one.
    ///
    /// - Parameter folds: the data types that keep rows of their own in the change log.
    init(directory: URL?, folds: [any ChangeLogFold]) throws {
        self.directory = directory
        self.folds = folds
        self.strictCoherence = false
        self.queue = CommitQueue()
        self.maintainer = nil
        guard let directory else {
            let connection = try SQLiteConnection(location: .memory)
            try Migrator().migrate(connection, path: ":memory:")
            self.file = nil
            self.permissionProblems = []
            self.writer = LockedConnection(connection)
            self.reader = nil
            self.changeCounter = nil
            self.isReadOnly = false
            self.postgreSQL = nil
            self.listener = nil
            self.writerBackend = nil
            self.useLock = nil
            return
        }
        self.isReadOnly = false
        self.postgreSQL = nil
        self.listener = nil
        self.writerBackend = nil
        let file = directory.appendingPathComponent(Self.fileName)
        self.file = file
        let existed = FileManager.default.fileExists(atPath: file.path)
        let writer: DatabaseConnection
        do {
            writer = try SQLiteConnection(location: .file(file))
            // Check before anything is written: a newer or foreign file is refused untouched.
            try Migrator().check(writer, path: file.path)
            if !existed {
                try writer.execute("PRAGMA journal_mode = WAL")
            } else if try writer.scalar("PRAGMA journal_mode")?.text != "wal" {
                try writer.execute("PRAGMA journal_mode = WAL")
            }
            try writer.execute("PRAGMA synchronous = NORMAL")
            // Sorts and temporary tables beyond the cache size spill to a temporary file, so a
            // fold or a bulk change of large rows keeps memory bounded (a savepoint's journal
            // still stays in memory up to SQLite's 64 KiB).
            try writer.execute("PRAGMA temp_store = FILE")
            // Every acknowledged write is a commit; checkpoints, which sync the log and the
            // database, come every 4000 pages of log (16 MB) instead of SQLite's 1000. The
            // writer's page cache is SQLite's 2 MB (see `StoreTuning`).
            try writer.execute("PRAGMA wal_autocheckpoint = \(StoreTuning.walAutocheckpointPages)")
            try writer.execute("PRAGMA cache_size = \(StoreTuning.writerCacheSize)")
            try Migrator().migrate(writer, path: file.path)
        } catch let error as DatabaseError {
            if [.notADatabase, .corrupt].contains(error.code.primary) {
                throw StoreError.corrupt(path: file.path, detail: error.message)
            }
            if [.cantOpen, .readOnly, .ioError].contains(error.code.primary) {
                throw StoreError.cannotOpen(path: file.path, detail: error.messageWithCode)
            }
            throw StoreError.database(error)
        } catch let error as StoreError {
            if case .notAStore(let detail) = error { throw StoreError.corrupt(path: file.path, detail: detail) }
            throw error
        }
        // A new store is made owner-only; an existing one is left as it is and its looser
        // permissions are reported, since the owner may have widened them on purpose.
        if existed {
            self.permissionProblems = Self.permissionProblems(directory: directory)
        } else {
            Self.restrictPermissions(directory: directory)
            self.permissionProblems = []
        }
        self.writer = LockedConnection(writer)
        self.reader = LockedConnection(try SQLiteConnection(location: .file(file)))
        // Made only once the store has opened: a refused store gains no file.
        self.changeCounter = ChangeCounter(directory: directory)
        self.useLock = StoreUseLock.shared(directory, create: true)
    }

    /// Opens the database of an existing store directory for reading only: it creates, migrates,
    /// purges and writes nothing, and maps the change counter only when it exists.
    ///
    /// - Throws: `StoreError.cannotOpen` naming the path when the directory is missing, is a
    ///   file, cannot be read or holds no store; `.olderSchema` for a store this binary would
    ///   upgrade; `.newerSchema`, `.corrupt` as a writable open does.
    init(readingDirectory directory: URL) throws {
        self.directory = directory
        self.folds = []
        self.strictCoherence = false
        self.queue = CommitQueue()
        self.maintainer = nil
        self.postgreSQL = nil
        self.listener = nil
        self.writerBackend = nil
        let file = try Self.checkReadable(directory: directory)
        self.file = file
        self.isReadOnly = true
        let writer: DatabaseConnection
        do {
            writer = try Self.readOnlyConnection(file: file)
            let migrator = Migrator()
            try migrator.check(writer, path: file.path)
            let applied = try migrator.appliedVersions(writer)
            guard let newest = applied.last else {
                throw StoreError.cannotOpen(path: file.path, detail: "it is an empty database, not a store")
            }
            if newest < migrator.latestVersion {
                throw StoreError.olderSchema(path: file.path, found: newest, supported: migrator.latestVersion)
            }
            try writer.execute("PRAGMA temp_store = FILE")
            try writer.execute("PRAGMA cache_size = \(StoreTuning.writerCacheSize)")
        } catch let error as DatabaseError {
            if [.notADatabase, .corrupt].contains(error.code.primary) {
                throw StoreError.corrupt(path: file.path, detail: error.message)
            }
            if [.cantOpen, .readOnly, .ioError].contains(error.code.primary) {
                throw StoreError.cannotOpen(path: file.path, detail: error.messageWithCode)
            }
            throw StoreError.database(error)
        } catch let error as StoreError {
            if case .notAStore(let detail) = error { throw StoreError.corrupt(path: file.path, detail: detail) }
            throw error
        }
        self.permissionProblems = Self.permissionProblems(directory: directory)
        self.writer = LockedConnection(writer)
        do {
            self.reader = LockedConnection(try Self.readOnlyConnection(file: file))
        } catch let error as DatabaseError {
            throw StoreError.cannotOpen(path: file.path, detail: error.messageWithCode)
        }
        self.changeCounter = ChangeCounter(readingDirectory: directory)
        self.useLock = StoreUseLock.shared(directory, create: false)
    }

    /// Opens (creating and migrating when needed) a store in a PostgreSQL database: its schema,
    /// a writer and a reader connection, and the listener that hears other connections' commits.
    ///
    /// - Throws: `PostgreSQLError` (never holding a password) when the server cannot be reached
    ///   or refuses, or the schema is newer than this binary's or belongs to another program.
    ///
    /// - Parameters:
    ///   - readOnly: check the schema without creating or migrating it, and refuse every write.
    ///   - strictCoherence: read the change log's position before every read.
    init(
        postgreSQL location: PostgreSQLStoreLocation, folds: [any ChangeLogFold], readOnly: Bool = false,
        strictCoherence: Bool = false
    ) throws {
        self.strictCoherence = strictCoherence
        self.queue = CommitQueue(gathersAll: true)
        self.maintainer = readOnly ? nil : PostgreSQLLogMaintainer(location: location, folds: folds)
        self.directory = nil
        self.file = nil
        self.folds = readOnly ? [] : folds
        self.isReadOnly = readOnly
        self.permissionProblems = []
        self.postgreSQL = location
        self.useLock = nil
        let writer = try Self.openPostgreSQL(location, readOnly: readOnly)
        // The store's in-use lock, held by the writer's session, taken again on a new session.
        writer.sessionStatements = [location.sharedUseLockStatement]
        writer.storeSummary = location.summary
        try writer.execute(location.sharedUseLockStatement)
        self.writer = LockedConnection(writer)
        let reader = PostgreSQLStoreConnection(try location.connect())
        reader.storeSummary = location.summary
        self.reader = LockedConnection(reader)
        let listener = try PostgreSQLChangeListener.shared(for: location)
        self.changeCounter = listener.counter
        let backend = Locked<Int32>(writer.connection.backendProcessID)
        listener.replaceOwnBackend(0, with: backend.withLock { $0 })
        writer.onConnect = { [weak listener] pid in
            let old = backend.withLock { old in
                defer { old = pid }
                return old
            }
            listener?.replaceOwnBackend(old, with: pid)
        }
        self.listener = listener
        self.writerBackend = backend
    }

    deinit {
        if let writerBackend { listener?.replaceOwnBackend(writerBackend.withLock { $0 }, with: 0) }
        maintainer?.stop()
    }

    // MARK: Reads

    /// Runs `body` on the reader connection (the writer in memory).
    func read<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        if let reader { return try reader.withLock { try body($0) } }
        return try writer.withLock { try body($0) }
    }

    // MARK: Writes

    /// Writes `body` in a transaction of its own, group-committed with concurrent writers, and
    /// records `changes` in the change log. Returns once the change is committed.
    ///
    /// - Parameters:
    ///   - changes: the (data type, site) pairs the write touches; site `*` for all.
    ///   - body: the write; it runs inside a savepoint, so its failure undoes only itself.
    ///     Without one, the change-log entries are the whole write.
    func write(changes: [ChangeLogEntry], _ body: (@Sendable (DatabaseConnection) throws -> Void)? = nil) throws {
        try waitForCommit(enqueueWrite(changes: changes, body))
    }

    /// `write(changes:_:)` whose `body` returns further change-log entries, for changes it
    /// finds only as it runs (entries it evicts); they are logged after `changes`, in the same
    /// transaction, as this object's own.
    func loggingWrite(
        changes: [ChangeLogEntry], _ body: @escaping @Sendable (DatabaseConnection) throws -> [ChangeLogEntry]
    ) throws {
        try waitForCommit(enqueueLoggingWrite(changes: changes, body))
    }

    /// Queues a write without waiting: callers that must keep writes in the order of their own
    /// in-memory changes enqueue under their lock and wait after releasing it.
    ///
    /// - Parameters:
    ///   - announced: queued inside `announcingWrite`, whose writers a commit leader gathers.
    ///   - body: the write's statements besides its change-log entries, if any.
    func enqueueWrite(
        changes: [ChangeLogEntry], announced: Bool = false,
        _ body: (@Sendable (DatabaseConnection) throws -> Void)? = nil
    ) -> UInt64 {
        let logging = body.map { body -> @Sendable (DatabaseConnection) throws -> [ChangeLogEntry] in
            { db in
                try body(db)
                return []
            }
        }
        return queue.enqueue(PendingWrite(changes: changes, body: logging), announced: announced)
    }

    /// `enqueueWrite(changes:announced:_:)` whose `body` returns further change-log entries,
    /// logged after `changes` (see `loggingWrite(changes:_:)`).
    func enqueueLoggingWrite(
        changes: [ChangeLogEntry], _ body: @escaping @Sendable (DatabaseConnection) throws -> [ChangeLogEntry]
    ) -> UInt64 {
        queue.enqueue(PendingWrite(changes: changes, body: body))
    }

    /// Runs a call that prepares and then queues at most one write (with `announced: true`), so
    /// that a commit leader waits for it to be queued and commits it with the others (group
    /// commit among concurrent callers, such as threads ingesting responses). The call must not
    /// hold a lock while it waits for its commit that another announced call needs to queue.
    func announcingWrite<T>(_ body: () throws -> T) rethrows -> T {
        queue.begin()
        defer { queue.end() }
        return try body()
    }

    /// Waits until a queued write is committed (leading the commit when no other writer is).
    ///
    /// - Throws: the write's own error, or the transaction's.
    func waitForCommit(_ ticket: UInt64) throws {
        try queue.wait(for: ticket) { batch in self.commit(batch) }
    }

    /// The newest ticket whose write has been committed (or has failed): every write queued
    /// with this ticket or an older one is done.
    var committedThrough: UInt64 { queue.committedThroughTicket }

    /// Commits every write queued so far (by any caller of this object).
    func drainQueue() {
        queue.drain { batch in self.commit(batch) }
    }

    /// Runs a long write in a transaction of its own, right away, after the writes queued
    /// before it; records `changes` in the change log.
    func writeNow<T>(changes: [ChangeLogEntry], _ body: (DatabaseConnection) throws -> T) throws -> T {
        try writeNow(changes: changes, logging: { db, _ in try body(db) })
    }

    /// `writeNow(changes:_:)` whose `body` also appends change-log entries as it goes (an
    /// import), with the `ChangeLogWriter` it is given; they are this object's own, as `changes` are.
    func writeNow<T>(changes: [ChangeLogEntry], logging body: (DatabaseConnection, ChangeLogWriter) throws -> T) throws
        -> T
    {
        try checkWritable()
        drainQueue()
        var range: ClosedRange<Int64>?
        let result: T
        do {
            result = try writer.withLock { db in
                try db.transaction {
                    let log = ChangeLogWriter(db)
                    let value = try body(db, log)
                    try log.append(changes)
                    range = log.range
                    if let range {
                        try self.maintainLogIfDue(after: range, db)
                        self.ownSequences.withLock { $0.add(range) }
                    }
                    return value
                }
            }
        } catch {
            // Positions of a transaction that did not commit are given out again, to others.
            if let range { ownSequences.withLock { $0.remove(range) } }
            throw error
        }
        announceCommit(range)
        return result
    }

    /// Bumps the shared change counter after a commit that logged changes, recording the bump
    /// (and the newest sequence number committed) as this object's own. A commit that logged
    /// nothing leaves the counter alone: every other process on the store would read the log
    /// for it and find nothing there.
    private func announceCommit(_ range: ClosedRange<Int64>?) {
        if let maintainer, maintenanceDue.exchange(false, ordering: .relaxed) { maintainer.request() }
        guard let changeCounter, let range else { return }
        ownSequences.withLock { own in
            changeCounter.increment()
            own.bumps += 1
            own.newestCommitted = max(own.newestCommitted, range.upperBound)
        }
    }

    /// Commits a batch in one transaction; returns each write's error, if any.
    private func commit(_ batch: [PendingWrite]) -> [Error?] {
        if isReadOnly { return batch.map { _ in readOnlyError } }
        if maintainer != nil && batch.allSatisfy({ $0.body == nil }) { return commitPipelined(batch) }
        var errors = [Error?](repeating: nil, count: batch.count)
        var range: ClosedRange<Int64>?
        let failure: Error? = writer.withLock { db -> Error? in
            do {
                try db.transaction {
                    // A write alone in its batch needs no savepoint: its failure rolls the
                    // transaction back, which undoes only itself.
                    let isolates = batch.count > 1
                    // Writes that are only change-log entries (most cookie writes) need no
                    // savepoint either: an append fails only when the transaction does. Their
                    // entries are appended together, in batch order, before the next write
                    // with statements of its own and at the end.
                    var entries: [ChangeLogEntry] = []
                    func appendEntries() throws {
                        if let logged = try Self.appendToLog(entries, db) {
                            range = (range?.lowerBound ?? logged.lowerBound)...logged.upperBound
                        }
                        entries.removeAll()
                    }
                    for (i, item) in batch.enumerated() {
                        guard let body = item.body else {
                            entries += item.changes
                            continue
                        }
                        try appendEntries()
                        do {
                            if isolates { try db.execute("SAVEPOINT item", []) }
                            let found = try body(db)
                            let logged = try Self.appendToLog(item.changes + found, db)
                            if isolates { try db.execute("RELEASE item", []) }
                            if let logged { range = (range?.lowerBound ?? logged.lowerBound)...logged.upperBound }
                        } catch {
                            guard isolates else { throw error }
                            // Some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM) make SQLite roll
                            // the whole transaction back: the batch is lost, and this error says why.
                            guard db.isInTransaction else { throw error }
                            try? db.execute("ROLLBACK TO item")
                            try? db.execute("RELEASE item")
                            errors[i] = error
                        }
                    }
                    try appendEntries()
                    if let range { try self.maintainLogIfDue(after: range, db) }
                    // Known as ours before COMMIT makes the rows visible: a reader that sees them
                    // between COMMIT and now would take them for another process's and reload.
                    if let range { self.ownSequences.withLock { $0.add(range) } }
                }
                return nil
            } catch {
                if let range { ownSequences.withLock { $0.remove(range) } }
                return error
            }
        }
        return settle(batch, failure: failure, range: range, errors: errors)
    }

    /// The end of every batch commit: the transaction's failure is every write's; a commit is
    /// announced, and each write gets its own result.
    private func settle(
        _ batch: [PendingWrite], failure: Error?, range: ClosedRange<Int64>?, errors: [Error?]? = nil
    ) -> [Error?] {
        if let failure { return batch.map { _ in failure } }
        announceCommit(range)
        return errors ?? batch.map { _ in nil }
    }

    /// Commits a batch of change-log entries alone (most cookie writes) on PostgreSQL: the
    /// transaction (the log's lock, the appends, the commit) sent whole, in one round trip
    /// instead of three. Its positions come back after the commit has made its rows visible,
    /// so the rows carry `writerNumber`, by which this object's reads know them as its own
    /// (`foreignChanges`) until the positions are recorded. The log's maintenance, when due, is
    /// the maintainer's, never this transaction's.
    private func commitPipelined(_ batch: [PendingWrite]) -> [Error?] {
        let entries = batch.flatMap(\.changes)
        guard !entries.isEmpty else { return batch.map { _ in nil } }
        var range: ClosedRange<Int64>?
        let failure: Error? = writer.withLock { db -> Error? in
            do {
                guard let connection = db as? PostgreSQLStoreConnection else {
                    throw StoreError.notAStore(detail: "a pipelined commit needs a PostgreSQL connection")
                }
                let statements = Self.appendStatements(entries, writer: writerNumber)
                let positions = try connection.commitAppends(statements)
                for (statement, seqs) in zip(statements, positions) {
                    range = try Self.extend(range, by: seqs, expected: statement.rows)
                }
                if let range {
                    try maintainLogIfDue(after: range, db)
                    ownSequences.withLock { $0.add(range) }
                }
                return nil
            } catch {
                return error
            }
        }
        return settle(batch, failure: failure, range: range)
    }
}

/// A write waiting in the commit queue: its body (none when its change-log entries are the
/// whole write) and the change-log entries it records: `changes`, then those its body returns.
struct PendingWrite: Sendable {
    let changes: [ChangeLogEntry]
    let body: (@Sendable (DatabaseConnection) throws -> [ChangeLogEntry])?
}

/// Settings of the store's writer connection, which wkstore-bench's SQLite floors use too.
package enum StoreTuning {
    /// The writer's page cache, as `PRAGMA cache_size` takes it (negative: KiB): SQLite's
    /// default, 2 MB. The cache fills to its limit in any process that writes for long: an 8 MB
    /// one holds 6 MB more for good, for about a tenth more ingest throughput at 8 threads
    /// (wkstore-bench's ingest section), and a crawler's cookies come far slower than that.
    package static let writerCacheSize = -2048
    /// Log pages between automatic checkpoints.
    package static let walAutocheckpointPages = 4000
    /// Change-log entries after the last fold that make the next commit fold the logged cookie
    /// changes into the cookies table, at least: the table's rows, when more.
    static let cookieLogFoldEntries: Int64 = 32_768
    /// The newest change-log entries that keep their cookie after a fold, so that a process a
    /// little behind applies them rather than reloading every cookie.
    static let cookieLogKeptCookies: Int64 = 4096
}
