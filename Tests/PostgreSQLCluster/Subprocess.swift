import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process for tests, started with `posix_spawn`: the part of Foundation's `Process`
/// that tests use, under the same names.
///
/// Foundation's `Process.run()` on Linux lists `/proc/self/fd` to close the parent's
/// descriptors in the child, and with the thousand and more descriptors a whole parallel test
/// run holds (every open store has several), that listing reads past its buffer and the test
/// process crashes. Here the child closes every descriptor from 3 up itself
/// (`posix_spawn_file_actions_addclosefrom_np`), so also no child keeps another's pipe open.
/// A launch takes a lock: the environment and argument arrays are built under it.
public final class Subprocess: @unchecked Sendable {
    /// Why a child ended.
    public enum TerminationReason: Sendable, Equatable {
        /// It exited (`terminationStatus` is its exit status).
        case exit
        /// A signal ended it (`terminationStatus` is the signal's number).
        case uncaughtSignal
    }

    /// The program to run.
    public var executableURL: URL?
    /// Its arguments, without the program's name.
    public var arguments: [String] = []
    /// Its environment; `nil` for this process's.
    public var environment: [String: String]?
    /// Its working directory; `nil` for this process's.
    public var currentDirectoryURL: URL?
    /// Standard input, output and error: a `FileHandle`, a `Pipe` (the child gets the end it
    /// needs; this process's copy of that end is closed once the child started), or `nil` to
    /// share this process's.
    public var standardInput: Any?
    /// See `standardInput`.
    public var standardOutput: Any?
    /// See `standardInput`.
    public var standardError: Any?

    private let state = NSLock()
    private var pid: pid_t = 0
    private var ended: (reason: TerminationReason, status: Int32)?
    private static let launch = NSLock()

    /// A child not started yet.
    public init() {}

    /// The child's process ID (0 before `run()`).
    public var processIdentifier: Int32 { state.withLock { pid } }

    /// Starts the child.
    ///
    /// - Throws: `POSIXError` when it cannot be started (no such program, …).
    public func run() throws {
        guard let executableURL else { throw POSIXError(.ENOENT) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var closeAfter: [FileHandle] = []
        for (target, value, reading) in [
            (Int32(0), standardInput, true), (Int32(1), standardOutput, false), (Int32(2), standardError, false),
        ] {
            var added: Int32 = 0
            if let pipe = value as? Pipe {
                let end = reading ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                added = posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, target)
                closeAfter.append(end)
            } else if let handle = value as? FileHandle, handle.fileDescriptor >= 0 {
                added = posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            } else if value is FileHandle {
                // `FileHandle.nullDevice` has no descriptor of its own.
                added = posix_spawn_file_actions_addopen(
                    &actions, target, "/dev/null", reading ? O_RDONLY : O_WRONLY, 0)
            }
            guard added == 0 else { throw POSIXError(POSIXErrorCode(rawValue: added) ?? .EBADF) }
        }
        guard let closeFrom = Self.closeFrom else { throw POSIXError(.ENOSYS) }
        _ = closeFrom(&actions, 3)
        if let currentDirectoryURL {
            guard let chdir = Self.addChdir else { throw POSIXError(.ENOSYS) }
            _ = currentDirectoryURL.path.withCString { chdir(&actions, $0) }
        }
        let path = executableURL.path
        let environment = (self.environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var child: pid_t = 0
        let result = Self.launch.withLock {
            let argv = ([path] + arguments).map { strdup($0) }
            let envp = environment.map { strdup($0) }
            defer {
                for pointer in argv + envp { free(pointer) }
            }
            return posix_spawn(&child, path, &actions, nil, argv + [nil], envp + [nil])
        }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        state.withLock { pid = child }
        for handle in closeAfter { try? handle.close() }
    }

    /// Waits for the child to end.
    public func waitUntilExit() {
        let child = state.withLock { pid }
        guard child != 0, state.withLock({ ended == nil }) else { return }
        var status: Int32 = 0
        while waitpid(child, &status, 0) == -1 && errno == EINTR {}
        record(status)
    }

    /// Whether the child was started and has not ended.
    public var isRunning: Bool {
        let child = state.withLock { pid }
        guard child != 0, state.withLock({ ended == nil }) else { return false }
        var status: Int32 = 0
        if waitpid(child, &status, WNOHANG) == child {
            record(status)
            return false
        }
        return true
    }

    /// Its exit status, or the signal that ended it (after `waitUntilExit()`).
    public var terminationStatus: Int32 { state.withLock { ended?.status ?? 0 } }

    /// Whether it exited or a signal ended it (after `waitUntilExit()`).
    public var terminationReason: TerminationReason { state.withLock { ended?.reason ?? .exit } }

    /// Sends it SIGTERM.
    public func terminate() {
        let child = state.withLock { pid }
        if child != 0 && state.withLock({ ended == nil }) { kill(child, SIGTERM) }
    }

    private func record(_ status: Int32) {
        // WIFEXITED, WEXITSTATUS and WTERMSIG, which Swift cannot import.
        let signal = status & 0x7F
        state.withLock {
            ended = signal == 0 ? (.exit, (status >> 8) & 0xFF) : (.uncaughtSignal, signal)
        }
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir =
        @convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
        ) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later) and
    /// `posix_spawn_file_actions_addchdir_np` (2.29), which its headers declare only for C
    /// compiled with `_GNU_SOURCE`, so Swift does not see them.
    private static let closeFrom: CloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    private static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<T>(_ name: String) -> T? {
        guard let address = dlsym(nil, name) else { return nil }
        return unsafeBitCast(address, to: T.self)
    }
}
