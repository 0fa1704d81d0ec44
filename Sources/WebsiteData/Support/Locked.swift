#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a pthread mutex: the lock wkstore's shared state uses.
///
/// Chosen over `Synchronization.Mutex` for two measured reasons. On Linux, `Mutex` spins before
/// it sleeps: with eight threads writing cookies on two cores, a third of the process's time went
/// to that spinning (`wkstore-bench ingest`). A pthread mutex sleeps at once and hands the core
/// to the thread holding the lock. And ThreadSanitizer sees pthread mutexes, so its reports
/// about code using this lock are real (it cannot see `Mutex` on Linux).
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates the lock holding `value`.
    package init(_ value: sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
