import Foundation

/// The lock that tells a removal a store is open: every store object on a store directory
/// holds a shared `flock` on the directory's `store.sqlite-lock` file for as long as it lives,
/// and `WebsiteDataStore.removeDataStore(forIdentifier:force:)` needs the exclusive one.
///
/// `flock` locks belong to an open file description, so two objects of one process count as
/// two holders, and a process that dies (even by SIGKILL) lets go at once. A read-only open
/// takes the lock on the file when it is there and never makes it (it writes nothing); a store
/// where the file cannot be opened holds none. On PostgreSQL, session advisory locks play the
/// same part (`StoreDatabase`).
final class StoreUseLock: Sendable {
    /// The lock file's name, in the store directory.
    static let fileName = StoreDatabase.fileName + "-lock"

    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Takes the shared lock of the store in `directory`.
    ///
    /// - Parameter create: make the lock file when it is missing (a writable open).
    /// - Returns: the lock, or `nil` when the file cannot be opened (or made).
    static func shared(_ directory: URL, create: Bool) -> StoreUseLock? {
        guard let descriptor = open(directory, create: create) else { return nil }
        // A shared lock waits only for a removal that holds the exclusive one, which lasts
        // while the directory is deleted.
        guard flock(descriptor, LOCK_SH) == 0 else {
            Foundation.close(descriptor)
            return nil
        }
        return StoreUseLock(descriptor: descriptor)
    }

    /// Takes the exclusive lock of the store in `directory` if no store object holds the
    /// shared one.
    ///
    /// - Returns: the lock, or `nil` while the store is open somewhere (or its lock file cannot
    ///   be opened: then whether it is open cannot be told).
    static func exclusive(_ directory: URL) -> StoreUseLock? {
        guard let descriptor = open(directory, create: true) else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            Foundation.close(descriptor)
            return nil
        }
        return StoreUseLock(descriptor: descriptor)
    }

    private static func open(_ directory: URL, create: Bool) -> Int32? {
        let path = directory.appendingPathComponent(fileName).path
        var descriptor: Int32 = -1
        if create { descriptor = Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        if descriptor < 0 { descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        return descriptor < 0 ? nil : descriptor
    }
}
