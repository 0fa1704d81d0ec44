import Foundation

/// Keeps a PostgreSQL store's change log within its retention (`StoreDatabase.maintainLog`:
/// the cookie fold, then the trim) on a thread and a connection of its own, so that writers do
/// not wait for it.
///
/// A fold of the cookie log takes time in proportion to the cookies it folds (about 0.4 s for
/// 32,768 changes on a 2-core machine). Run inside a write's transaction it would hold the change
/// log's lock that every write transaction of every process takes first, stopping the whole
/// fleet's writes while it lasts. Here it holds only the fold lock (`StoreDatabase.lockFolds`),
/// which the other transactions that write the cookies table or the fold's settings take too;
/// appends go on meanwhile. The fold reads only committed entries: positions follow commit
/// order, so every entry up to the newest it sees is committed, and appends add entries past it.
///
/// A store object requests maintenance after a commit that makes it due (`request()`); requests
/// made while one runs are served by one more run. A run that fails (the server restarting) is
/// left for the next request, which comes after the next 512 entries.
final class PostgreSQLLogMaintainer: @unchecked Sendable {
    // `requested`, `running`, `stopped` and `thread` are read and written under `condition`.
    private let location: PostgreSQLStoreLocation
    private let folds: [any ChangeLogFold]
    private let condition = NSCondition()
    private var requested = false
    private var running = false
    private var stopped = false
    private var thread: Thread?
    /// Signalled when the thread has ended.
    private let ended = DispatchSemaphore(value: 0)

    /// A maintainer of `location`'s log; its thread and connection start at the first request.
    init(location: PostgreSQLStoreLocation, folds: [any ChangeLogFold]) {
        self.location = location
        self.folds = folds
    }

    /// Asks for a run of maintenance after the commits made so far.
    func request() {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return }
        requested = true
        if thread == nil {
            let thread = Thread { [self] in run() }
            thread.name = "wkstore log maintenance"
            self.thread = thread
            thread.start()
        }
        condition.broadcast()
    }

    /// Waits until no run is requested or running.
    func waitUntilIdle() {
        condition.lock()
        while (requested || running) && !stopped { condition.wait() }
        condition.unlock()
    }

    /// Stops the thread after the run in progress, if any, and waits for it to end.
    func stop() {
        condition.lock()
        stopped = true
        let started = thread != nil
        condition.broadcast()
        condition.unlock()
        if started { ended.wait() }
    }

    private func run() {
        var connection: PostgreSQLStoreConnection?
        while true {
            condition.lock()
            while !requested && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                break
            }
            requested = false
            running = true
            condition.unlock()
            do {
                let db: PostgreSQLStoreConnection
                if let connection {
                    db = connection
                } else {
                    db = PostgreSQLStoreConnection(try location.connect())
                    db.storeSummary = location.summary
                    db.writesTakeTheLogLock = false
                    connection = db
                }
                try db.transaction(write: true) { try StoreDatabase.maintainLog(db, folds: folds) }
            } catch {
                // Left for the next request: the log only grows meanwhile, and nothing is lost.
            }
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
        }
        connection = nil
        // The thread holds this object through its closure: forgetting it ends the cycle.
        condition.lock()
        thread = nil
        condition.unlock()
        ended.signal()
    }
}
