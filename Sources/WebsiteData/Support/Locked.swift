#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a pthread mutex: the lock wkstore's shared state uses.
///
/// Chosen over `Synchronization.Mutex` for two reasons. On Linux, `Mutex` spins before it
/// sleeps: with more writing threads than cores (eight threads writing cookies on two cores),
/// the spinning takes the cores the thread holding the lock needs. A pthread mutex sleeps at
/// once and hands the core to the thread holding the lock. And ThreadSanitizer sees pthread
/// mutexes, so its reports about code using this lock are real (it cannot see `Mutex` on Linux).
///
/// The value is kept behind a pointer, not in a stored property: the lock already makes each
/// access exclusive, and an `inout` access to a class's stored property is checked at run time
/// besides (`swift_beginAccess`, about 80 instructions a call, a fiftieth of a cookie lookup).
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    /// Creates the lock holding `value`.
    ///
    /// - Parameter adaptive: spin briefly before sleeping (glibc's adaptive mutex), for a lock
    ///   held for a few microseconds by threads of a small pool: the cookie store's, taken by
    ///   every request of `HTTPClient`'s tasks, where sleeping at once costs a context switch
    ///   (about ten times a lookup) for a wait shorter than the switch.
    package init(_ value: sending Value, adaptive: Bool = false) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        if adaptive { pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP)) }
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}

/// A value behind a pthread read-write lock, for state read far more often than written (a
/// cache shared by every thread): readers do not wait for one another.
/// The value is behind a pointer, as `Locked`'s is.
package final class ReadMostlyLocked<Value>: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    private let value: UnsafeMutablePointer<Value>

    /// Creates the lock holding `value`.
    package init(_ value: sending Value) {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with the value, holding the lock for reading (others may read meanwhile).
    package func read<Result>(_ body: (Value) throws -> Result) rethrows -> Result {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(value.pointee)
    }

    /// Runs `body` with the value, holding the lock for writing.
    package func write<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(&value.pointee)
    }
}
