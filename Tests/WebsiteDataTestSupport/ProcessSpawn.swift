import Foundation

/// Starts child processes one at a time.
///
/// Foundation's `Process.run()` on Linux is not safe to call from many threads at once: with
/// tens of tests on threads of their own (`.ownThreads`) launching children together, a launch
/// can read memory another launch has freed. A launch takes a millisecond or two, so one lock
/// around every launch in the test process costs nothing; the children still run, and are
/// waited for, side by side.
public enum ProcessSpawn {
    private static let lock = NSLock()

    /// Starts `process`, as `process.run()` does, never at the same moment as another launch.
    ///
    /// - Throws: what `Process.run()` throws.
    public static func run(_ process: Process) throws {
        lock.lock()
        defer { lock.unlock() }
        try process.run()
    }
}
