import Foundation
import Synchronization

/// Group commit: writers enqueue their work and wait; one of them at a time becomes the leader,
/// takes everything queued so far and commits it in one transaction, then wakes the writers
/// whose writes it committed and, when writes are still queued, one waiter to lead next.
///
/// Writers that announce themselves (`begin()` on entering a write call, `end()` on leaving it)
/// let the leader gather: before it takes the queue, it waits, for at most `gatherLimit`, until
/// at least half of the announced writers have queued their writes; the others prepare theirs
/// while this batch commits (waiting for all of them would leave a core idle during each
/// commit). Without gathering, the writer that queues first after a commit leads the next one
/// alone while the others are still waking, and commits hold one or two writes each (with eight
/// threads on two cores, about 1.5 writes per commit without gathering and 4.5 with it). A lone
/// writer never waits: nobody else is preparing.
///
/// On PostgreSQL a leader gathers every announced writer (`gathersAll`): a commit there is
/// mostly waiting for the server (round trips, its flush) rather than this process's CPU, so a
/// core left idle meanwhile costs little, and half of the writers per commit would settle into
/// two cohorts taking turns, each commit carrying half of what it could (with eight threads,
/// commits of four responses).
final class CommitQueue: @unchecked Sendable {
    // All stored properties are read and written only while `mutex` is locked (`committed`,
    // an atomic, is also read without it).
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Signalled when an announced writer queues its write or leaves (a gathering leader waits on it).
    private let arrived = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var pending: [PendingWrite] = []
    private var firstPendingTicket: UInt64 = 1
    private var nextTicket: UInt64 = 1
    /// The newest ticket whose write is committed (or failed); written under the mutex, read
    /// without it too (`committedThroughTicket`).
    private let committed = Atomic<UInt64>(0)
    private var leaderActive = false
    private var leaderGathering = false
    private var errors: [UInt64: Error] = [:]
    /// Writers inside an announced write call.
    private var announced = 0
    /// Writes of announced writers queued and not yet taken by a leader.
    private var announcedQueued = 0
    /// Whether fewer than half (or, with `gathersAll`, not all) of the announced writers have
    /// queued their writes.
    private var announcedStillPreparing: Bool {
        gathersAll ? announced > announcedQueued : announced > 2 * announcedQueued
    }

    /// The longest a leader waits for announced writers still preparing.
    let gatherLimit: Duration
    /// Whether a leader waits for every announced writer, not half of them.
    let gathersAll: Bool

    /// A batch committer: commits the writes in one transaction, returns each one's error or nil.
    typealias Committer = ([PendingWrite]) -> [Error?]

    /// - Parameters:
    ///   - gatherLimit: the longest a leader waits for announced writers.
    ///   - gathersAll: wait for every announced writer (PostgreSQL), not half of them.
    init(gatherLimit: Duration = .milliseconds(1), gathersAll: Bool = false) {
        self.gatherLimit = gatherLimit
        self.gathersAll = gathersAll
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(arrived, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(arrived)
        pthread_mutex_destroy(mutex)
        arrived.deallocate()
        mutex.deallocate()
    }

    /// A writer enters a write call that will queue at most one announced write.
    func begin() {
        pthread_mutex_lock(mutex)
        announced += 1
        pthread_mutex_unlock(mutex)
    }

    /// The writer leaves the call (after its write committed, or without writing).
    func end() {
        pthread_mutex_lock(mutex)
        announced -= 1
        if leaderGathering && !announcedStillPreparing { pthread_cond_signal(arrived) }
        pthread_mutex_unlock(mutex)
    }

    /// Queues a write; returns its ticket. `announced`: queued inside a `begin()`/`end()` call.
    func enqueue(_ write: PendingWrite, announced isAnnounced: Bool = false) -> UInt64 {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        let ticket = nextTicket
        nextTicket += 1
        pending.append(write)
        if isAnnounced {
            announcedQueued += 1
            if leaderGathering && !announcedStillPreparing { pthread_cond_signal(arrived) }
        }
        return ticket
    }

    /// Waits until the write with `ticket` is committed, leading commits when no one else is.
    ///
    /// - Throws: that write's error.
    func wait(for ticket: UInt64, commit: Committer) throws {
        if let error = waitUntilCommitted(through: ticket, gather: true, errorOf: ticket, commit: commit) {
            throw error
        }
    }

    /// Waits until every write queued so far is committed. Errors stay with their writes.
    ///
    /// Does not gather: a caller may drain while holding a lock that announced writers need.
    func drain(commit: Committer) {
        pthread_mutex_lock(mutex)
        let through = nextTicket - 1
        pthread_mutex_unlock(mutex)
        _ = waitUntilCommitted(through: through, gather: false, errorOf: nil, commit: commit)
    }

    /// Waits until the writes through `ticket` are committed, leading commits when no one else
    /// is; returns the error of the write `errorOf`, if any. Called and returns without the mutex.
    ///
    /// A waiter waits on a parker of its own and is woken once: when its write is committed
    /// (the parker carries its error, so it returns without taking the queue's mutex again), or
    /// to lead the next commit. The leader wakes them after releasing the mutex. Not a condition
    /// shared by all waiters: signalled under the mutex, it would wake every waiter after each
    /// commit, those whose writes are still queued only to sleep again, and the woken would queue
    /// for the mutex the leader still holds.
    private func waitUntilCommitted(through ticket: UInt64, gather: Bool, errorOf own: UInt64?, commit: Committer)
        -> Error?
    {
        pthread_mutex_lock(mutex)
        while true {
            if committedThroughTicket >= ticket {
                let error = own.flatMap { errors.removeValue(forKey: $0) }
                pthread_mutex_unlock(mutex)
                return error
            }
            if leaderActive {
                let parker = Parker(ticket: ticket, errorOf: own)
                parked.append(parker)
                pthread_mutex_unlock(mutex)
                parker.park()
                if parker.isCommitted { return parker.error }
                // Woken to lead.
                pthread_mutex_lock(mutex)
                continue
            }
            leaderActive = true
            if gather && announcedStillPreparing { gatherAnnouncedWriters() }
            let batch = pending
            let first = firstPendingTicket
            pending.removeAll(keepingCapacity: true)
            firstPendingTicket = nextTicket
            announcedQueued = 0
            pthread_mutex_unlock(mutex)
            let results = commit(batch)
            pthread_mutex_lock(mutex)
            for (offset, error) in results.enumerated() where error != nil {
                errors[first + UInt64(offset)] = error
            }
            committed.store(first + UInt64(batch.count) - 1, ordering: .releasing)
            leaderActive = false
            let woken = takeParkedToWake()
            pthread_mutex_unlock(mutex)
            for parker in woken { parker.unpark() }
            pthread_mutex_lock(mutex)
        }
    }

    /// The newest ticket whose write is committed (or failed), read with or without the queue's mutex.
    var committedThroughTicket: UInt64 { committed.load(ordering: .acquiring) }

    /// Waiters parked until a commit.
    private var parked: [Parker] = []

    /// Takes (mutex held) the parked waiters to wake after a commit: first the one with the
    /// oldest write still queued, to lead the next commit, then every one whose writes are
    /// committed, each given its write's error.
    private func takeParkedToWake() -> [Parker] {
        guard !parked.isEmpty else { return [] }
        var woken: [Parker] = []
        var kept: [Parker] = []
        var nextLeader: Parker?
        for parker in parked {
            if parker.ticket <= committedThroughTicket {
                parker.isCommitted = true
                parker.error = parker.errorOf.flatMap { errors.removeValue(forKey: $0) }
                woken.append(parker)
            } else if let leader = nextLeader, leader.ticket <= parker.ticket {
                kept.append(parker)
            } else {
                if let leader = nextLeader { kept.append(leader) }
                nextLeader = parker
            }
        }
        parked = kept
        if let nextLeader { woken.insert(nextLeader, at: 0) }
        return woken
    }

    /// Waits (mutex held) until half of the announced writers have queued, or `gatherLimit` passed.
    private func gatherAnnouncedWriters() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let (seconds, attoseconds) = gatherLimit.components
        let nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        var deadline = timespec(
            tv_sec: now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000,
            tv_nsec: nanoseconds % 1_000_000_000)
        leaderGathering = true
        while announcedStillPreparing {
            if pthread_cond_timedwait(arrived, mutex, &deadline) == ETIMEDOUT { break }
        }
        leaderGathering = false
    }
}

/// One waiter's wait: first a short spin that yields the core, then sleep on a semaphore of
/// its own, so waking it wakes no one else and it takes no lock to return. `isCommitted` and
/// `error` are set under the queue's mutex before `unpark()` and read after `park()` returns.
///
/// A commit of a group takes about 100 µs, and a waiter's write is most often committed within
/// one or two: sleeping at once would cost each write a futex sleep and wake-up (a context
/// switch each way, plus the wake-up's preemption of the leader), longer than the wait itself.
/// Yielding while it spins, a waiter leaves the core to the leader and to writers still
/// preparing. The spin costs CPU only while a write is waiting.
private final class Parker {
    let ticket: UInt64
    let errorOf: UInt64?
    var isCommitted = false
    var error: Error?
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    /// `waiting` (spinning), `woken`, or `asleep` on the semaphore.
    private let state = Atomic<Int>(waiting)
    private static let waiting = 0, woken = 1, asleep = 2

    /// How long a waiter spins before it sleeps.
    static let spinNanoseconds: UInt64 = 100_000

    init(ticket: UInt64, errorOf: UInt64?) {
        self.ticket = ticket
        self.errorOf = errorOf
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Waits until `unpark()`.
    func park() {
        let deadline = DispatchTime.now().uptimeNanoseconds + Self.spinNanoseconds
        repeat {
            if state.load(ordering: .acquiring) == Self.woken { return }
            sched_yield()
        } while DispatchTime.now().uptimeNanoseconds < deadline
        if state.compareExchange(expected: Self.waiting, desired: Self.asleep, ordering: .acquiringAndReleasing)
            .exchanged
        {
            while sem_wait(semaphore) != 0 {} // EINTR: a signal interrupted the wait
        }
    }

    /// Wakes the waiter (posting its semaphore only when it has gone to sleep).
    func unpark() {
        if state.exchange(Self.woken, ordering: .acquiringAndReleasing) == Self.asleep { sem_post(semaphore) }
    }
}
