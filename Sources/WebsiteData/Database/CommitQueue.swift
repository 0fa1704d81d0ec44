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
    /// - Parameter commit: commits a batch; returns each write's error, or nil for success.
    func wait(for ticket: UInt64, commit: ([PendingWrite]) -> [Error?]) throws {
        condition.lock()
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
        let error = errors.removeValue(forKey: ticket)
        condition.unlock()
        if let error { throw error }
    }
}
