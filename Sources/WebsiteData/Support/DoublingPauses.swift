import Foundation

/// Pauses from 1 ms, doubling up to 64 ms, until a deadline: how a wait for another process's
/// short work (a writer closing a store, or building its log's index) polls. Short first
/// pauses answer at once when the work is done; the cap keeps a long wait from oversleeping it.
struct DoublingPauses {
    private let deadline: ContinuousClock.Instant
    private var pause = Duration.milliseconds(1)

    /// Pauses for up to `duration` from now.
    init(for duration: Duration) { deadline = .now + duration }

    /// Sleeps for the next pause and returns `true`, or returns `false` once the time is up.
    mutating func next() -> Bool {
        guard ContinuousClock.now < deadline else { return false }
        Thread.sleep(forTimeInterval: pause / .seconds(1))
        pause = min(pause * 2, .milliseconds(64))
        return true
    }
}
