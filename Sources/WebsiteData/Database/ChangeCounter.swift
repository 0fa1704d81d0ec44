import CSQLite
import Foundation

/// A counter every process on a store shares through a small memory-mapped file beside the
/// database (`store.sqlite-changes`): each commit bumps it after it is durable, so a process
/// knows that nothing changed with one atomic read instead of an SQLite read transaction
/// (which costs more than a whole cookie lookup: about 1.9 µs against 1.4 µs on a store of
/// 100,000 cookies, `wkstore-bench lookup`).
///
/// On PostgreSQL the counter is this process's own (`init()`): a listener bumps it when the
/// server announces another connection's commit (`PostgreSQLChangeListener`).
///
/// It is a hint, never the truth: whoever sees it move reads the change log. A writer killed
/// between its commit and the bump leaves the counter still, so readers also read the change
/// log once a second whatever the counter says.
final class ChangeCounter: @unchecked Sendable {
    /// The file's name in a store directory.
    static let fileName = StoreDatabase.fileName + "-changes"

    private static let length = 4096
    private let mapping: UnsafeMutableRawPointer
    private let counter: UnsafeMutablePointer<UInt64>
    /// Whether the mapping may be written (not for a read-only store).
    private let writable: Bool
    /// Whether `mapping` is a file's mapping (else process memory of `init()`).
    private let isMapped: Bool

    /// A counter in this process's memory only.
    init() {
        mapping = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64)
        mapping.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
        counter = mapping.bindMemory(to: UInt64.self, capacity: 1)
        writable = true
        isMapped = false
    }

    /// Maps the counter file of a store directory, creating it (0600) when needed; `nil` when
    /// it cannot be made or mapped (a read-only directory, a full disk): readers then read the
    /// change log every time.
    init?(directory: URL) {
        let path = directory.appendingPathComponent(Self.fileName).path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        if info.st_size < Self.length {
            // Written, not just extended: a page of a sparse file that cannot be allocated when
            // first touched through the mapping (a full disk) would kill the process with SIGBUS.
            let zeros = [UInt8](repeating: 0, count: Self.length)
            guard pwrite(fd, zeros, Self.length, 0) == Self.length else { return nil }
        }
        guard let pointer = mmap(nil, Self.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0),
            pointer != MAP_FAILED
        else { return nil }
        mapping = pointer
        counter = pointer.bindMemory(to: UInt64.self, capacity: 1)
        writable = true
        isMapped = true
    }

    /// Maps an existing counter file for reading only, creating and writing nothing (a store
    /// opened read-only); `nil` when there is none to map: readers then read the change log every time.
    init?(readingDirectory directory: URL) {
        let path = directory.appendingPathComponent(Self.fileName).path
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size >= Self.length else {
            return nil
        }
        guard let pointer = mmap(nil, Self.length, PROT_READ, MAP_SHARED, fd, 0), pointer != MAP_FAILED else {
            return nil
        }
        mapping = pointer
        counter = pointer.bindMemory(to: UInt64.self, capacity: 1)
        writable = false
        isMapped = true
    }

    deinit {
        if isMapped { munmap(mapping, Self.length) } else { mapping.deallocate() }
    }

    /// The counter's value now.
    var value: UInt64 { wk_atomic_load_u64(counter) }

    /// Bumps the counter: a commit became visible.
    func increment() {
        // A read-only mapping is never written (a read-only store commits nothing).
        guard writable else { return }
        wk_atomic_increment_u64(counter)
    }
}
