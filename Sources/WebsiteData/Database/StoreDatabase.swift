import CSQLite
import Foundation

/// A store's SQLite database: the writer connection behind a lock, a reader connection for
/// coherence checks, group commit, and the change log that keeps processes in step.
///
/// Locks are taken in one order: an owner's own lock (a data type's in-memory state), then
/// `reader`, then `writer`, then the commit queue's; the commit leader holds only `writer`.
final class StoreDatabase: Sendable {
    /// The directory of a persistent store, or `nil` in memory.
    let directory: URL?
    /// The main database file, or `nil` in memory.
    let file: URL?
    let writer: LockedConnection
    /// A second connection for reads, so a lookup never waits for a commit. In memory, `nil`: reads use the writer.
    let reader: LockedConnection?
    private let queue = CommitQueue()
    /// Change-log sequence numbers this object wrote, so its own commits don't look like another process's.
    private let ownSequences = Locked<OwnSequences>(OwnSequences())
    /// The store's shared change counter (persistent stores whose directory allows it).
    private let changeCounter: ChangeCounter?
    /// Whether the store was opened read-only: every write is refused before it starts.
    let isReadOnly: Bool
    /// The `file:` URI parameters of a read-only store's connections (see `readOnlyParameters`).
    private let readOnlyURIParameters: String?

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
    init(directory: URL?) throws {
        self.directory = directory
        guard let directory else {
            let connection = try DatabaseConnection(location: .memory)
            try Migrator().migrate(connection, path: ":memory:")
            self.file = nil
            self.permissionProblems = []
            self.writer = LockedConnection(connection)
            self.reader = nil
            self.changeCounter = nil
            self.isReadOnly = false
            self.readOnlyURIParameters = nil
            return
        }
        self.isReadOnly = false
        self.readOnlyURIParameters = nil
        let file = directory.appendingPathComponent(Self.fileName)
        self.file = file
        let existed = FileManager.default.fileExists(atPath: file.path)
        let writer: DatabaseConnection
        do {
            writer = try DatabaseConnection(location: .file(file))
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
            // database, come every 4000 pages of log (16 MB) instead of SQLite's 1000, and the
            // writer keeps 8 MB of pages (SQLite's default is 2 MB).
            try writer.execute("PRAGMA wal_autocheckpoint = \(StoreTuning.walAutocheckpointPages)")
            try writer.execute("PRAGMA cache_size = \(StoreTuning.writerCacheSize)")
            try Migrator().migrate(writer, path: file.path)
        } catch let error as DatabaseError {
            if [.notADatabase, .corrupt].contains(error.code.primary) {
                throw StoreError.corrupt(path: file.path, detail: error.message)
            }
            if [.cantOpen, .readOnly, .ioError].contains(error.code.primary) {
                throw StoreError.cannotOpen(path: file.path, detail: error.message)
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
        self.reader = LockedConnection(try DatabaseConnection(location: .file(file)))
        // Made only once the store has opened: a refused store gains no file.
        self.changeCounter = ChangeCounter(directory: directory)
    }

    /// Opens the database of an existing store directory for reading only: it creates, migrates,
    /// purges and writes nothing, and maps the change counter only when it exists.
    ///
    /// - Throws: `StoreError.cannotOpen` naming the path when the directory is missing, is a
    ///   file, cannot be read or holds no store; `.olderSchema` for a store this binary would
    ///   upgrade; `.newerSchema`, `.corrupt` as a writable open does.
    init(readingDirectory directory: URL) throws {
        self.directory = directory
        let file = try Self.checkReadable(directory: directory)
        self.file = file
        self.isReadOnly = true
        let parameters = try Self.readOnlyParameters(file: file)
        self.readOnlyURIParameters = parameters
        let writer: DatabaseConnection
        do {
            writer = try Self.readOnlyConnection(file: file, parameters: parameters)
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
                throw StoreError.cannotOpen(path: file.path, detail: error.message)
            }
            throw StoreError.database(error)
        } catch let error as StoreError {
            if case .notAStore(let detail) = error { throw StoreError.corrupt(path: file.path, detail: detail) }
            throw error
        }
        self.permissionProblems = Self.permissionProblems(directory: directory)
        self.writer = LockedConnection(writer)
        do {
            self.reader = LockedConnection(try Self.readOnlyConnection(file: file, parameters: parameters))
        } catch {
            throw StoreError.cannotOpen(path: file.path, detail: error.message)
        }
        self.changeCounter = ChangeCounter(readingDirectory: directory)
    }

    /// The main database file of a store directory that a read-only open may read.
    ///
    /// - Throws: `StoreError.cannotOpen` naming what is wrong: nothing is ever created here.
    private static func checkReadable(directory: URL) throws -> URL {
        var info = stat()
        guard stat(directory.path, &info) == 0 else {
            let reason = errno == ENOENT ? "no such directory" : String(cString: strerror(errno))
            throw StoreError.cannotOpen(
                path: directory.path, detail: "\(reason) (a read-only open creates nothing)")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StoreError.cannotOpen(path: directory.path, detail: "it is a file, not a store directory")
        }
        guard access(directory.path, R_OK | X_OK) == 0 else {
            throw StoreError.cannotOpen(
                path: directory.path, detail: "the directory cannot be read (\(String(cString: strerror(errno))))")
        }
        let file = directory.appendingPathComponent(fileName)
        guard stat(file.path, &info) == 0 else {
            let reason =
                errno == ENOENT ? "the directory holds no store (no \(fileName))" : String(cString: strerror(errno))
            throw StoreError.cannotOpen(path: directory.path, detail: reason)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StoreError.cannotOpen(path: file.path, detail: "it is not a file")
        }
        guard access(file.path, R_OK) == 0 else {
            throw StoreError.cannotOpen(
                path: file.path, detail: "the store file cannot be read (\(String(cString: strerror(errno))))")
        }
        return file
    }

    /// How a read-only connection reads a WAL database without creating or writing a file.
    ///
    /// SQLite's read-only connections still create the write-ahead log and its index (`-wal`,
    /// `-shm`) when they are missing and the directory allows it, and write read marks into an
    /// index they may write. So: without a log, or with an empty log and no index, nothing
    /// holds changes beyond the main file, which is read as immutable (no locks, no side
    /// files). With a log and its index, the index is opened read-only (`readonly_shm`: SQLite
    /// then copies it to private memory and checks it, as for read-only media). A log that
    /// holds changes without an index cannot be read without making one: refused.
    static func readOnlyParameters(file: URL) throws -> String {
        var wal = stat()
        var shm = stat()
        let hasLog = lstat(file.path + "-wal", &wal) == 0
        let hasIndex = lstat(file.path + "-shm", &shm) == 0
        if !hasLog { return "immutable=1" }
        if hasIndex { return "mode=ro&readonly_shm=1" }
        if wal.st_size == 0 { return "immutable=1" }
        throw StoreError.cannotOpen(
            path: file.path,
            detail:
                "its write-ahead log (\(fileName)-wal) holds changes, and the index SQLite needs to read it (\(fileName)-shm) is missing; a read-only open creates no file: open the store writable once to fold the log in"
        )
    }

    /// A read-only connection to `file` with `parameters` from `readOnlyParameters`.
    static func readOnlyConnection(file: URL, parameters: String) throws(DatabaseError) -> DatabaseConnection {
        let connection = try DatabaseConnection(location: .file(file), readOnly: true, uriParameters: parameters)
        try connection.execute("PRAGMA query_only = 1")
        return connection
    }

    /// A new connection for reads, of the kind `reader` is (read-only for a read-only store).
    func newReaderConnection(file: URL) throws -> DatabaseConnection {
        if let readOnlyURIParameters {
            return try Self.readOnlyConnection(file: file, parameters: readOnlyURIParameters)
        }
        let connection = try DatabaseConnection(location: .file(file))
        try connection.execute("PRAGMA query_only = 1")
        return connection
    }

    /// The error every write of a read-only store throws.
    var readOnlyError: StoreError { StoreError.readOnly(path: directory?.path ?? ":memory:") }

    /// Throws `StoreError.readOnly` when the store was opened read-only.
    func checkWritable() throws {
        if isReadOnly { throw readOnlyError }
    }

    /// Makes the store's files readable by their owner only (0600).
    static func restrictPermissions(directory: URL) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasPrefix(fileName) {
            chmod(directory.appendingPathComponent(name).path, 0o600)
        }
    }

    /// Describes the store's files and directory that group or others may access.
    static func permissionProblems(directory: URL) -> [String] {
        let fm = FileManager.default
        var problems: [String] = []
        func check(_ url: URL, allowed: Int) {
            guard let mode = (try? fm.attributesOfItem(atPath: url.path))?[.posixPermissions] as? Int else { return }
            if mode & 0o077 != 0 {
                problems.append(
                    "\(url.path) is mode \(String(mode, radix: 8)), readable or writable by others than its owner (expected \(String(allowed, radix: 8)))"
                )
            }
        }
        check(directory, allowed: 0o700)
        for name in (try? fm.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasPrefix(fileName) {
            check(directory.appendingPathComponent(name), allowed: 0o600)
        }
        // The folders of cache bodies and WebSQL databases hold website data too. A cache body
        // file is guarded by its 0700 folder (there may be many: they are not each checked);
        // WebSQL databases, few, are.
        for folder in [HTTPDiskCache.folderName, WebSQLStorage.folderName] {
            check(directory.appendingPathComponent(folder), allowed: 0o700)
        }
        let websql = directory.appendingPathComponent(WebSQLStorage.folderName)
        for name in (try? fm.contentsOfDirectory(atPath: websql.path)) ?? [] {
            check(websql.appendingPathComponent(name), allowed: 0o600)
        }
        return problems
    }

    // MARK: Reads

    /// Runs `body` on the reader connection (the writer in memory).
    func read<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        if let reader { return try reader.withLock { try body($0) } }
        return try writer.withLock { try body($0) }
    }

    /// What a reader saw of the shared change counter when it last read the change log.
    struct ChangeWatch: Sendable {
        var shared: UInt64 = 0
        var ownBumps: UInt64 = 0
        var checkedAt: UInt64 = 0
        var valid = false
    }

    /// The change log is read at least this often (nanoseconds) whatever the counter says.
    static let changeLogRecheckInterval: UInt64 = 1_000_000_000

    /// The monotonic clock, to a few milliseconds (`CLOCK_MONOTONIC_COARSE`: read from memory
    /// the kernel keeps, without the precise clock's arithmetic), for `changeLogRecheckInterval`.
    private static func uptimeNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The change-log entries written by other connections since `lastSeq`, or `nil` when
    /// nothing changed; `everything` when the log no longer reaches back that far. With
    /// `cookies`, when there are any, every entry since `lastSeq`, this object's own included.
    ///
    /// First the shared change counter: when it has not moved, or moved only by this object's
    /// own commits, nothing is read. Then the change log's newest sequence number, one lookup of
    /// the last row: most often what changed is this object's own commit (the writer is
    /// another connection than this reader), which the sequence numbers it wrote say.
    ///
    /// - Parameter cookies: read the cookies of logged cookie changes (the cookie store);
    ///   without, those entries are left out.
    func foreignChanges(since lastSeq: Int64, watch: inout ChangeWatch, cookies: Bool = false) throws -> ForeignChanges?
    {
        let now = Self.uptimeNanoseconds()
        // Whether the log was read within the recheck interval.
        let recent = watch.valid && now &- watch.checkedAt < Self.changeLogRecheckInterval
        // The common case, without the lock: the counter has not moved since the last check. The
        // reader and the counter are not bound for it: each binding would be a retain and a
        // release (atomic writes), more than the rest of this check.
        if reader != nil && recent && changeCounter?.value == watch.shared { return nil }
        guard let reader else { return nil }
        var next: ChangeWatch?
        if let changeCounter {
            // Read together under the lock that orders this object's own bumps, so a difference
            // in the shared counter that equals the difference in own bumps is only ours.
            let (shared, own, newestOwn) = ownSequences.withLock { (changeCounter.value, $0.bumps, $0.newestCommitted) }
            // (It has moved: the counter only grows.)
            if recent && shared &- watch.shared == own &- watch.ownBumps {
                watch.shared = shared
                watch.ownBumps = own
                return ForeignChanges(entries: [], newestSeq: max(lastSeq, newestOwn), everything: false)
            }
            next = ChangeWatch(shared: shared, ownBumps: own, checkedAt: now, valid: true)
        }
        let changes = try reader.withLock { db -> ForeignChanges? in
            let newest = try db.scalar("SELECT max(seq) FROM change_log")?.int64 ?? 0
            if newest == lastSeq { return nil }
            if newest < lastSeq || ownSequences.withLock({ $0.covers(after: lastSeq, through: newest) }) {
                return ForeignChanges(entries: [], newestSeq: newest, everything: false)
            }
            return try db.transaction(write: false) {
                let trimmed = try SettingsTable.number(Self.trimmedThroughKey, db)
                let entries: [ChangeLogEntry]
                if cookies {
                    entries = try db.rows(
                        "SELECT seq, data_type, site, since, op, \(CookiePersistence.columns) FROM change_log WHERE seq > ? ORDER BY seq",
                        [.integer(lastSeq)]
                    ) { row in
                        ChangeLogEntry(
                            seq: row.int(0), dataType: row.string(1), site: row.string(2), since: row.optionalDouble(3),
                            cookie: CookiePersistence.loggedCookie(row, opAt: 4))
                    }
                } else {
                    entries = try db.rows(
                        "SELECT seq, data_type, site, since FROM change_log WHERE seq > ? AND op IS NULL ORDER BY seq",
                        [.integer(lastSeq)]
                    ) {
                        ChangeLogEntry(
                            seq: $0.int(0), dataType: $0.string(1), site: $0.string(2), since: $0.optionalDouble(3))
                    }
                }
                // Entries left out (cookie changes) still count: the newest seen is at least
                // the newest committed before this transaction began.
                let newest = max(entries.last?.seq ?? lastSeq, newest)
                if lastSeq < trimmed {
                    return ForeignChanges(entries: [], newestSeq: max(newest, trimmed), everything: true)
                }
                let foreign = ownSequences.withLock { own in entries.filter { !own.contains($0.seq) } }
                // Cookie changes are applied in log order, this object's own included once
                // another's are among them: an own change committed after another process's
                // change to the same cookie must stay on top of it.
                if cookies && !foreign.isEmpty {
                    return ForeignChanges(entries: entries, newestSeq: newest, everything: false)
                }
                return ForeignChanges(entries: foreign, newestSeq: newest, everything: false)
            }
        }
        // Recorded only once the log was read: a failed read leaves the next call to read it again.
        if let next { watch = next }
        return changes
    }

    /// The newest change-log sequence number.
    func newestSequence() throws -> Int64 {
        try read { try $0.scalar("SELECT coalesce(max(seq), 0) FROM change_log")?.int64 ?? 0 }
    }

    // MARK: Writes

    /// Writes `body` in a transaction of its own, group-committed with concurrent writers, and
    /// records `changes` in the change log. Returns once the change is committed.
    ///
    /// - Parameters:
    ///   - changes: the (data type, site) pairs the write touches; site `*` for all.
    ///   - body: the write; it runs inside a savepoint, so its failure undoes only itself.
    func write(changes: [ChangeLogEntry], _ body: @escaping @Sendable (DatabaseConnection) throws -> Void) throws {
        try waitForCommit(enqueueWrite(changes: changes, body))
    }

    /// Queues a write without waiting: callers that must keep writes in the order of their own
    /// in-memory changes enqueue under their lock and wait after releasing it.
    ///
    /// - Parameter announced: queued inside `announcingWrite`, whose writers a commit leader gathers.
    func enqueueWrite(
        changes: [ChangeLogEntry], announced: Bool = false,
        _ body: @escaping @Sendable (DatabaseConnection) throws -> Void
    ) -> UInt64 {
        queue.enqueue(PendingWrite(changes: changes, body: body), announced: announced)
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
        let result = try writer.withLock { db in
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
        announceCommit(range)
        return result
    }

    /// Bumps the shared change counter after a commit, recording the bump (and the newest
    /// sequence number committed) as this object's own.
    private func announceCommit(_ range: ClosedRange<Int64>?) {
        guard let changeCounter else { return }
        ownSequences.withLock { own in
            changeCounter.increment()
            own.bumps += 1
            if let range { own.newestCommitted = max(own.newestCommitted, range.upperBound) }
        }
    }

    /// Appends change-log rows (with their cookies, for cookie changes); returns the sequence
    /// numbers they took. Used inside a write transaction of the writer connection.
    static func appendToLog(_ changes: [ChangeLogEntry], _ db: DatabaseConnection) throws -> ClosedRange<Int64>? {
        guard !changes.isEmpty else { return nil }
        let statement = try db.statement(
            """
            INSERT INTO change_log (data_type, site, since, op, \(CookiePersistence.columns))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var range: ClosedRange<Int64>?
        for entry in changes {
            try statement.reset()
            try statement.bind(.text(entry.dataType), at: 1)
            try statement.bind(.text(entry.site), at: 2)
            if let since = entry.since { try statement.bind(.real(since), at: 3) }
            if let logged = entry.cookie {
                try statement.bind(.integer(logged.op.rawValue), at: 4)
                try CookiePersistence.bind(logged.cookie, to: statement, from: 5)
            }
            try statement.run()
            let seq = sqlite3LastInsertRowID(db)
            range = (range?.lowerBound ?? seq)...seq
        }
        return range
    }

    /// Commits a batch in one transaction; returns each write's error, if any.
    private func commit(_ batch: [PendingWrite]) -> [Error?] {
        if isReadOnly { return batch.map { _ in readOnlyError } }
        var errors = [Error?](repeating: nil, count: batch.count)
        var range: ClosedRange<Int64>?
        let failure: Error? = writer.withLock { db -> Error? in
            do {
                try db.transaction {
                    // A write alone in its batch needs no savepoint: its failure rolls the
                    // transaction back, which undoes only itself.
                    let isolates = batch.count > 1
                    for (i, item) in batch.enumerated() {
                        do {
                            if isolates { try db.execute("SAVEPOINT item", []) }
                            try item.body(db)
                            let logged = try Self.appendToLog(item.changes, db)
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
        if let failure { return batch.map { _ in failure } }
        announceCommit(range)
        return errors
    }

    /// Keeps the change log short. Cookie changes are folded into the cookies table once more
    /// entries than `CookiePersistence.foldThreshold` follow the last fold (or always, with
    /// `foldAll`). Entries older than the newest 4096 (all but the newest, with `foldAll`) are
    /// dropped, cookie changes only once folded; the point they were dropped to is recorded,
    /// so a process that lags further reloads everything.
    func maintainLog(_ db: DatabaseConnection, foldAll: Bool = false) throws {
        guard let newest = try db.scalar("SELECT max(seq) FROM change_log")?.int64 else { return }
        var folded = try CookiePersistence.foldedThrough(db)
        let threshold = try CookiePersistence.foldThreshold(db)
        if foldAll || newest - folded > threshold {
            try CookiePersistence.fold(db, after: folded, through: newest)
            folded = newest
        }
        let through = foldAll ? newest - 1 : newest - 4096
        let trimmed = try SettingsTable.number(Self.trimmedThroughKey, db)
        guard through > trimmed else { return }
        // Folded entries go whatever they are; past the fold, only those that are not cookie
        // changes (the range since the last trim: the cookie changes before it stay until folded).
        try db.execute("DELETE FROM change_log WHERE seq <= ?", [.integer(min(through, folded))])
        if through > folded {
            try db.execute(
                "DELETE FROM change_log WHERE seq > ? AND seq <= ? AND op IS NULL",
                [.integer(max(trimmed, folded)), .integer(through)])
        }
        try SettingsTable.setNumber(Self.trimmedThroughKey, to: through, db)
    }

    /// The settings key that says through which sequence number the change log was trimmed.
    static let trimmedThroughKey = "change_log.trimmed_through"

    /// Maintains the log (`maintainLog`) when a write's entries crossed a multiple of 512.
    private func maintainLogIfDue(after range: ClosedRange<Int64>, _ db: DatabaseConnection) throws {
        if range.upperBound % 512 < Int64(range.count) { try maintainLog(db) }
    }

    /// Folds every logged cookie change into the cookies table and drops the change log but
    /// its newest entry (before a `VACUUM`), after the writes queued so far.
    func foldChangeLog() throws {
        try checkWritable()
        drainQueue()
        try writer.withLock { db in try db.transaction { try self.maintainLog(db, foldAll: true) } }
    }
}

/// One row of the change log.
struct ChangeLogEntry: Sendable, Hashable {
    var seq: Int64 = 0
    var dataType: String
    var site: String
    var since: Double?
    /// For a cookie change, the change and the cookie; `nil` for an entry that names a site
    /// whose data changed.
    var cookie: LoggedCookie?

    init(seq: Int64 = 0, dataType: String, site: String, since: Double? = nil, cookie: LoggedCookie? = nil) {
        self.seq = seq
        self.dataType = dataType
        self.site = site
        self.since = since
        self.cookie = cookie
    }

    init(_ type: WebsiteDataType, site: String, since: Date? = nil) {
        self.init(dataType: type.cliName, site: site, since: since?.timeIntervalSince1970)
    }

    /// The entry of one cookie change.
    init(_ logged: LoggedCookie) {
        self.init(dataType: WebsiteDataType.cookies.cliName, site: logged.cookie.site, cookie: logged)
    }
}

/// A cookie change as the change log holds it.
struct LoggedCookie: Sendable, Hashable {
    /// What happened to the cookie (the log's `op` column).
    enum Op: Int64, Sendable, Hashable {
        /// Inserted or overwritten: the cookie is the new one.
        case set = 1
        /// Deleted.
        case delete = 2
        /// Its last-access time moved on (and nothing else changed).
        case access = 3
    }

    var op: Op
    var cookie: Cookie

    init(op: Op, cookie: Cookie) {
        self.op = op
        self.cookie = cookie
    }

    /// A change the jar made: an upsert is a set.
    init(_ change: CookieJarChange) {
        switch change {
        case .upsert(let c): self.init(op: .set, cookie: c)
        case .delete(let c): self.init(op: .delete, cookie: c)
        }
    }
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

struct PendingWrite: Sendable {
    let changes: [ChangeLogEntry]
    let body: @Sendable (DatabaseConnection) throws -> Void
}

private func sqlite3LastInsertRowID(_ db: DatabaseConnection) -> Int64 { sqlite3_last_insert_rowid(db.handle) }

/// Settings of the store's writer connection, which wkstore-bench's SQLite floors use too.
package enum StoreTuning {
    /// The writer's page cache, as `PRAGMA cache_size` takes it (negative: KiB).
    package static let writerCacheSize = -8192
    /// Log pages between automatic checkpoints.
    package static let walAutocheckpointPages = 4000
    /// Change-log entries after the last fold that make the next commit fold the logged cookie
    /// changes into the cookies table, at least: the table's rows, when more.
    static let cookieLogFoldEntries: Int64 = 32_768
}
