import Foundation

/// Group commit: writers enqueue their work and wait; one of them at a time becomes the leader,
/// takes everything queued so far and commits it in one transaction, then wakes the others.
///
/// Under load many writes share one commit; alone, a write commits at once.
final class CommitQueue: @unchecked Sendable {
    // All stored properties are read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var pending: [PendingWrite] = []
    private var firstPendingTicket: UInt64 = 1
    private var nextTicket: UInt64 = 1
    private var committedThrough: UInt64 = 0
    private var leaderActive = false
    private var errors: [UInt64: Error] = [:]

    /// A batch committer: commits the writes in one transaction, returns each one's error or nil.
    typealias Committer = ([PendingWrite]) -> [Error?]

    /// Queues a write; returns its ticket.
    func enqueue(_ write: PendingWrite) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        let ticket = nextTicket
        nextTicket += 1
        pending.append(write)
        return ticket
    }

    /// Waits until the write with `ticket` is committed, leading commits when no one else is.
    ///
    /// - Throws: that write's error.
    func wait(for ticket: UInt64, commit: Committer) throws {
        condition.lock()
        waitUntilCommitted(through: ticket, commit: commit)
        let error = errors.removeValue(forKey: ticket)
        condition.unlock()
        if let error { throw error }
    }

    /// Waits until every write queued so far is committed. Errors stay with their writes.
    func drain(commit: Committer) {
        condition.lock()
        waitUntilCommitted(through: nextTicket - 1, commit: commit)
        condition.unlock()
    }

    /// Called with the lock held; returns with it held.
    private func waitUntilCommitted(through ticket: UInt64, commit: Committer) {
        while committedThrough < ticket {
            if leaderActive {
                condition.wait()
                continue
            }
            leaderActive = true
            let batch = pending
            let first = firstPendingTicket
            pending.removeAll(keepingCapacity: true)
            firstPendingTicket = nextTicket
            condition.unlock()
            let results = commit(batch)
            condition.lock()
            for (offset, error) in results.enumerated() where error != nil {
                errors[first + UInt64(offset)] = error
            }
            committedThrough = first + UInt64(batch.count) - 1
            leaderActive = false
            condition.broadcast()
        }
    }
}
