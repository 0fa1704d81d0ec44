import CSQLite
import Foundation

extension StoreDatabase {
    /// The main database file of a store directory that a read-only open may read.
    ///
    /// - Throws: `StoreError.cannotOpen` naming what is wrong: nothing is ever created here.
    static func checkReadable(directory: URL) throws -> URL {
        var info = stat()
        guard stat(directory.path, &info) == 0 else {
            let reason = errno == ENOENT ? "no such directory" : String(cString: strerror(errno))
            throw StoreError.cannotOpen(
                path: directory.path, detail: "\(reason) (a read-only open creates nothing)")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StoreError.cannotOpen(path: directory.path, detail: "it is a file, not a store directory")
        }
        guard access(directory.path, R_OK | X_OK) == 0 else {
            throw StoreError.cannotOpen(
                path: directory.path, detail: "the directory cannot be read (\(String(cString: strerror(errno))))")
        }
        let file = directory.appendingPathComponent(fileName)
        guard stat(file.path, &info) == 0 else {
            let reason =
                errno == ENOENT ? "the directory holds no store (no \(fileName))" : String(cString: strerror(errno))
            throw StoreError.cannotOpen(path: directory.path, detail: reason)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StoreError.cannotOpen(path: file.path, detail: "it is not a file")
        }
        guard access(file.path, R_OK) == 0 else {
            throw StoreError.cannotOpen(
                path: file.path, detail: "the store file cannot be read (\(String(cString: strerror(errno))))")
        }
        return file
    }

    /// How a read-only connection reads a WAL database without creating or writing a file.
    ///
    /// SQLite's read-only connections still create the write-ahead log and its index (`-wal`,
    /// `-shm`) when they are missing and the directory allows it, and write read marks into an
    /// index they may write. So: without a log, or with an empty log and no index, nothing
    /// holds changes beyond the main file, which is read as immutable (no locks, no side
    /// files). With a log and its index, the index is opened read-only (`readonly_shm`: SQLite
    /// then copies it to private memory and checks it, as for read-only media). A log that
    /// holds changes without an index cannot be read without making one: refused.
    static func readOnlyParameters(file: URL) throws -> String {
        var wal = stat()
        var shm = stat()
        let hasLog = lstat(file.path + "-wal", &wal) == 0
        let hasIndex = lstat(file.path + "-shm", &shm) == 0
        if !hasLog { return "immutable=1" }
        if hasIndex { return "mode=ro&readonly_shm=1" }
        if wal.st_size == 0 { return "immutable=1" }
        throw StoreError.cannotOpen(
            path: file.path,
            detail:
                "its write-ahead log (\(fileName)-wal) holds changes, and the index SQLite needs to read it (\(fileName)-shm) is missing; a read-only open creates no file: open the store writable once to fold the log in"
        )
    }

    /// A read-only connection to `file`, opened as `readOnlyParameters` says and its first read
    /// done.
    ///
    /// The side files are looked at before SQLite opens them, and another process may remove
    /// them in between: the last connection to close folds the log in and deletes `-shm`, then
    /// `-wal`. SQLite then cannot open a file it was told to use, or the log is seen without its
    /// index for a moment. Either is retried with the side files looked at again, after pauses
    /// of up to 64 ms for about a second; a condition that lasts is reported as it is. (An
    /// index a writer is still building is waited for by the connection itself.)
    ///
    /// - Throws: `DatabaseError` from SQLite, or `StoreError.cannotOpen` from
    ///   `readOnlyParameters`.
    static func readOnlyConnection(file: URL) throws -> SQLiteConnection {
        var pauses = DoublingPauses(for: .seconds(1))
        while true {
            do {
                let parameters = try readOnlyParameters(file: file)
                let connection = try SQLiteConnection(location: .file(file), readOnly: true, uriParameters: parameters)
                try connection.execute("PRAGMA query_only = 1")
                // Opening reads nothing; the first read opens the side files.
                _ = try connection.scalar("PRAGMA schema_version")
                return connection
            } catch let error as DatabaseError where error.code.primary == .cantOpen {
                if !pauses.next() { throw error }
            } catch let error as StoreError {
                guard case .cannotOpen = error, pauses.next() else { throw error }
            }
        }
    }

    /// A new connection for reads, of the kind `reader` is (read-only for a read-only store); for
    /// a SQLite store, to `file`.
    func newReaderConnection(file: URL?) throws -> DatabaseConnection {
        if let postgreSQL { return PostgreSQLStoreConnection(try postgreSQL.connect()) }
        guard let file else { throw StoreError.invalidArgument("a store in memory has no reader connections") }
        if isReadOnly { return try Self.readOnlyConnection(file: file) }
        let connection = try SQLiteConnection(location: .file(file))
        try connection.execute("PRAGMA query_only = 1")
        return connection
    }

    /// The error every write of a read-only store throws.
    var readOnlyError: StoreError { StoreError.readOnly(path: directory?.path ?? postgreSQL?.summary ?? ":memory:") }

    /// Throws `StoreError.readOnly` when the store was opened read-only.
    func checkWritable() throws {
        if isReadOnly { throw readOnlyError }
    }

    /// Makes the store's files readable by their owner only (0600).
    static func restrictPermissions(directory: URL) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasPrefix(fileName) {
            chmod(directory.appendingPathComponent(name).path, 0o600)
        }
    }

    /// Describes the store's files and directory that group or others may access.
    static func permissionProblems(directory: URL) -> [String] {
        let fm = FileManager.default
        var problems: [String] = []
        func check(_ url: URL, allowed: Int) {
            guard let mode = (try? fm.attributesOfItem(atPath: url.path))?[.posixPermissions] as? Int else { return }
            if mode & 0o077 != 0 {
                problems.append(
                    "\(url.path) is mode \(String(mode, radix: 8)), readable or writable by others than its owner (expected \(String(allowed, radix: 8)))"
                )
            }
        }
        check(directory, allowed: 0o700)
        for name in (try? fm.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasPrefix(fileName) {
            check(directory.appendingPathComponent(name), allowed: 0o600)
        }
        // The folders of cache bodies and WebSQL databases hold website data too. A cache body
        // file is guarded by its 0700 folder (there may be many: they are not each checked);
        // WebSQL databases, few, are.
        for folder in [HTTPDiskCache.folderName, WebSQLStorage.folderName] {
            check(directory.appendingPathComponent(folder), allowed: 0o700)
        }
        let websql = directory.appendingPathComponent(WebSQLStorage.folderName)
        for name in (try? fm.contentsOfDirectory(atPath: websql.path)) ?? [] {
            check(websql.appendingPathComponent(name), allowed: 0o600)
        }
        return problems
    }
}
