import Foundation
import Testing

/// A task executor that runs each job on a thread of its own.
///
/// Swift Testing runs every test on Swift concurrency's cooperative pool, which has one thread
/// per core. A test that blocks (a synchronous test, a wait for a child process, a large import)
/// holds one of those threads until it is done, and on two cores two such tests stall every other
/// test's async work: an HTTP client test then waits minutes to be resumed and reaches its own
/// time limit. Jobs of this executor run on threads the operating system schedules fairly
/// beside the pool.
public final class ThreadPerJobExecutor: TaskExecutor {
    /// The one executor the `ownThreads` trait uses.
    public static let shared = ThreadPerJobExecutor()

    /// Runs `job` on a new thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

/// Runs a suite's or a test's work on threads of its own rather than the cooperative pool (see
/// `ThreadPerJobExecutor`); `Test.current` and issues recorded by the test are unchanged.
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// The trait applies to every test of a suite it is given to.
    public var isRecursive: Bool { true }

    /// Runs the test with this executor preferred for its tasks.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Run on threads of their own, not the cooperative pool: for tests that block.
    public static var ownThreads: Self { OwnThreadsTrait() }
}
