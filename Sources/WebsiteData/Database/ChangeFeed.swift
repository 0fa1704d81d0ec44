import Foundation

/// The change feed of one subscriber: a thread that follows the store's change log and
/// delivers its entries, in log (commit) order, to an `AsyncThrowingStream`.
///
/// The thread reads the shared change counter every `pollInterval` (a read of mapped memory;
/// the counter's mapping is shared, which inotify does not report) and this object's own
/// commit count (a store in memory has no counter), and reads the log when either moved, or
/// `StoreDatabase.changeLogRecheckInterval` after it last did (a writer killed between its
/// commit and its bump). A stream whose buffer is full drops nothing silently: the feed stops
/// delivering changes until it can deliver `.reload`, then goes on after the position it names.
final class ChangeFeed: Sendable {
    /// How often the thread looks at the counters (seconds).
    static let pollInterval = 0.002
    /// Events the stream holds for a subscriber that has not read them.
    static let bufferLimit = 10_000
    /// Log entries read at a time.
    static let batchSize = 512

    private let database: StoreDatabase
    private let types: Set<WebsiteDataType>
    private let stopped = Locked(false)

    init(database: StoreDatabase, types: Set<WebsiteDataType>) {
        self.database = database
        self.types = types
    }

    /// A feed of the changes to `types` after `start`.
    static func stream(database: StoreDatabase, types: Set<WebsiteDataType>, after start: Int64)
        -> AsyncThrowingStream<WebsiteDataChangeEvent, any Error>
    {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: WebsiteDataChangeEvent.self, bufferingPolicy: .bufferingOldest(bufferLimit))
        let feed = ChangeFeed(database: database, types: types)
        continuation.onTermination = { _ in feed.stopped.withLock { $0 = true } }
        let thread = Thread { feed.run(after: start, continuation) }
        thread.name = "wkstore change feed"
        thread.start()
        return stream
    }

    /// Where a feed is: the last position delivered past, and whether it owes a `.reload`.
    struct Progress {
        var position: Int64
        /// Set when the stream's buffer was full: no change is delivered until `.reload` is.
        var owesReload = false
    }

    /// The stream's continuation.
    typealias Continuation = AsyncThrowingStream<WebsiteDataChangeEvent, any Error>.Continuation

    private func run(after start: Int64, _ continuation: Continuation) {
        var progress = Progress(position: start)
        var counter: UInt64?
        var own: UInt64 = 0
        var readAt = Date.distantPast
        while !stopped.withLock({ $0 }) {
            let nowCounter = database.changeCounter?.value
            let nowOwn = database.committedThrough
            let due =
                nowCounter != counter || nowOwn != own || progress.owesReload
                || Date().timeIntervalSince(readAt) * 1e9 >= Double(StoreDatabase.changeLogRecheckInterval)
            if due {
                // The counters are noted before the log is read: a commit in between moves them again.
                counter = nowCounter
                own = nowOwn
                readAt = Date()
                do {
                    if !(try step(&progress, continuation)) { return }
                } catch {
                    continuation.finish(throwing: error)
                    return
                }
            }
            Thread.sleep(forTimeInterval: Self.pollInterval)
        }
    }

    /// Delivers what the log holds after `progress` (first the `.reload` it owes); `false` once
    /// the stream is no longer read.
    func step(_ progress: inout Progress, _ continuation: Continuation) throws -> Bool {
        if progress.owesReload {
            let newest = try database.newestSequence()
            switch continuation.yield(.reload(ChangePosition(newest))) {
            case .enqueued:
                progress.owesReload = false
                progress.position = newest
            case .dropped: return true
            case .terminated: return false
            @unknown default: return false
            }
        }
        switch try deliver(after: &progress.position, continuation) {
        case .delivered: return true
        case .full:
            progress.owesReload = true
            return true
        case .terminated: return false
        }
    }

    private enum Outcome { case delivered, full, terminated }

    /// Delivers every entry after `position` and moves `position` past it.
    private func deliver(
        after position: inout Int64, _ continuation: Continuation
    ) throws -> Outcome {
        while true {
            let batch = try database.changeFeedBatch(after: position, limit: Self.batchSize)
            if batch.trimmedThrough > position {
                // The log no longer holds every change after `position`.
                switch continuation.yield(.reload(ChangePosition(batch.newest))) {
                case .enqueued: position = batch.newest
                case .dropped: return .full
                case .terminated: return .terminated
                @unknown default: return .terminated
                }
                continue
            }
            for (seq, change) in batch.changes {
                if let change, types.contains(change.type) {
                    switch continuation.yield(.change(change)) {
                    case .enqueued: break
                    case .dropped: return .full
                    case .terminated: return .terminated
                    @unknown default: return .terminated
                    }
                }
                position = seq
            }
            if batch.changes.count < Self.batchSize { return .delivered }
        }
    }
}

extension StoreDatabase {
    /// Up to `limit` change-log entries after `position`, each with the change it reports (`nil`
    /// for an entry that is not a change of data: settings, a cookie's access time, a code this
    /// binary does not know), with the point the log was trimmed through and its newest entry.
    func changeFeedBatch(after position: Int64, limit: Int) throws -> (
        changes: [(Int64, WebsiteDataChange?)], trimmedThrough: Int64, newest: Int64
    ) {
        try read { db in
            try db.transaction(write: false) {
                let trimmed = try SettingsTable.number(Self.trimmedThroughKey, db)
                let newest = try db.scalar("SELECT coalesce(max(seq), 0) FROM change_log")?.int64 ?? 0
                let changes = try db.rows(
                    "SELECT seq, type, site, cause, since, time, op, \(CookiePersistence.columns) FROM change_log WHERE seq > ? ORDER BY seq LIMIT ?",
                    [.integer(position), .integer(Int64(limit))]
                ) { row -> (Int64, WebsiteDataChange?) in
                    let seq = row.int(0)
                    guard let entry = ChangeLogEntry(row, cookieAt: 6) else { return (seq, nil) }
                    return (seq, entry.change(date: Date(timeIntervalSince1970: row.double(5))))
                }
                return (changes, trimmed, newest)
            }
        }
    }
}

extension ChangeLogEntry {
    /// The change the entry reports, or `nil` for one that is not a change of data (settings,
    /// a cookie's access time).
    func change(date: Date) -> WebsiteDataChange? {
        guard case .data(let type) = subject else { return nil }
        let cause: WebsiteDataChangeCause
        switch self.cause {
        case .write: cause = .write
        case .removal: cause = .removal
        case .importing: cause = .import
        case .endSession: cause = .endSession
        case .expiry: cause = .expiry
        case .eviction: cause = .eviction
        case .access: return nil
        }
        if cookie?.op == .access { return nil }
        return WebsiteDataChange(
            position: ChangePosition(seq), type: type, site: site, cause: cause, date: date, cookie: cookie?.cookie,
            cookieRemoved: cookie?.op == .delete)
    }
}
