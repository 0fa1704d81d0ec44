import Foundation

extension StoreDatabase {

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
        // Whether the log was read within the recheck interval. Under strict coherence it never
        // counts as recent: the log's position is read at every call, whatever the counter says.
        let recent = !strictCoherence && watch.valid && now &- watch.checkedAt < Self.changeLogRecheckInterval
        // The common case, without the lock: the counter has not moved since the last check. The
        // reader and the counter are not bound for it: each binding would be a retain and a
        // release (atomic writes), more than the rest of this check.
        if reader != nil && recent && changeCounter?.value == watch.shared { return nil }
        guard let reader else { return nil }
        var next: ChangeWatch?
        if let changeCounter {
            // Read together under the lock that orders this object's own bumps, so a difference
            // in the shared counter that equals the difference in own bumps is only ours.
            let (shared, own, newestOwn, ownThrough) = ownSequences.withLock {
                (
                    changeCounter.value, $0.bumps, $0.newestCommitted,
                    $0.covers(after: lastSeq, through: $0.newestCommitted)
                )
            }
            // (It has moved: the counter only grows.) Moved by this object's own commits alone,
            // and every position up to its newest is its own: nothing else to read. A position
            // between that is not its own is another writer's commit whose bump has not come yet
            // (a notification in flight): the log is read, or it would be skipped for good.
            if recent && shared &- watch.shared == own &- watch.ownBumps && (newestOwn <= lastSeq || ownThrough) {
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
                // Rows of this object's pipelined commits, marked with its number (PostgreSQL).
                let writerColumn = db.engine == .postgreSQL ? "writer" : "NULL"
                var marked: Set<Int64> = []
                func entry(_ row: Row, cookieAt: Int32?, writerAt: Int32) -> ChangeLogEntry? {
                    let entry = ChangeLogEntry(row, cookieAt: cookieAt)
                    if let entry, !row.isNull(writerAt), row.int(writerAt) == writerNumber { marked.insert(entry.seq) }
                    return entry
                }
                let entries: [ChangeLogEntry]
                if cookies {
                    entries = try db.rows(
                        "SELECT seq, type, site, cause, since, op, \(CookiePersistence.columns), \(writerColumn) FROM change_log WHERE seq > ? ORDER BY seq",
                        [.integer(lastSeq)]
                    ) { row in entry(row, cookieAt: 5, writerAt: 19) }.compactMap { $0 }
                } else {
                    entries = try db.rows(
                        "SELECT seq, type, site, cause, since, \(writerColumn) FROM change_log WHERE seq > ? AND type <> \(ChangeSubject.data(.cookies).code) ORDER BY seq",
                        [.integer(lastSeq)]
                    ) { row in entry(row, cookieAt: nil, writerAt: 5) }.compactMap { $0 }
                }
                // Entries left out (cookie changes) still count: the newest seen is at least
                // the newest committed before this transaction began.
                let newest = max(entries.last?.seq ?? lastSeq, newest)
                if lastSeq < trimmed {
                    return ForeignChanges(entries: [], newestSeq: max(newest, trimmed), everything: true)
                }
                let foreign = ownSequences.withLock { own in
                    entries.filter { !own.contains($0.seq) && !marked.contains($0.seq) }
                }
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
}
