import Foundation

/// A private copy of a browser's files, read instead of the files themselves.
///
/// A running browser holds its databases open, writes them at any moment and keeps a lock on
/// its LevelDB folders; opening them in place could take a lock the browser then waits on, or
/// (for SQLite) replay a write-ahead log into the browser's own file. So each file is copied,
/// with its journal and write-ahead log, into a folder only this user can read (cookies are
/// credentials), and the copy is what gets opened. The folder is removed when the snapshot ends.
final class ProfileSnapshot {
    /// The private folder holding the copies.
    let directory: URL

    /// Makes an empty private folder under the temporary directory.
    init() throws(BrowserProfileError) {
        let base = FileManager.default.temporaryDirectory
        let directory = base.appendingPathComponent("wkstore-profile-\(UUID().uuidString.lowercased())")
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw BrowserProfileError(
                .damaged, path: base.path, reason: "cannot make a private folder to copy the profile's files into")
        }
        self.directory = directory
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Copies a SQLite database with its rollback journal and write-ahead log (those that exist),
    /// so that opening the copy sees what the browser last committed.
    ///
    /// - Parameter file: the database.
    /// - Returns: the copy.
    /// - Throws: `BrowserProfileError.notFound` when the database does not exist, `.damaged` when
    ///   it cannot be read.
    func copySQLite(_ file: URL) throws(BrowserProfileError) -> URL {
        let folder = directory.appendingPathComponent(UUID().uuidString.lowercased(), isDirectory: true)
        let copy = folder.appendingPathComponent(file.lastPathComponent)
        let fm = FileManager.default
        guard fm.fileExists(atPath: file.path) else {
            throw BrowserProfileError(.notFound, path: file.path, reason: "no such file")
        }
        do {
            try fm.createDirectory(at: folder, withIntermediateDirectories: false)
            for suffix in ["", "-journal", "-wal"] {
                let source = URL(fileURLWithPath: file.path + suffix)
                guard fm.fileExists(atPath: source.path) else { continue }
                try fm.copyItem(at: source, to: URL(fileURLWithPath: copy.path + suffix))
            }
        } catch {
            throw BrowserProfileError(
                .damaged, path: file.path, reason: "cannot be copied (\(ExportFile.reasonText(error)))")
        }
        return copy
    }

    /// Copies a folder (a LevelDB database) without its `LOCK` file, which the browser holds.
    ///
    /// - Parameter folder: the folder.
    /// - Returns: the copy.
    /// - Throws: `BrowserProfileError.damaged` when it cannot be read.
    func copyFolder(_ folder: URL) throws(BrowserProfileError) -> URL {
        let copy = directory.appendingPathComponent(UUID().uuidString.lowercased(), isDirectory: true)
        let fm = FileManager.default
        do {
            try fm.createDirectory(at: copy, withIntermediateDirectories: false)
            for name in try fm.contentsOfDirectory(atPath: folder.path) where name != "LOCK" {
                try fm.copyItem(at: folder.appendingPathComponent(name), to: copy.appendingPathComponent(name))
            }
        } catch {
            throw BrowserProfileError(
                .damaged, path: folder.path, reason: "cannot be copied (\(ExportFile.reasonText(error)))")
        }
        return copy
    }
}
