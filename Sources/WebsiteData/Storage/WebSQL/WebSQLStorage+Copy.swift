import CSQLite
import Foundation

/// How a WebSQL-style database moves between the engines when a store is copied
/// (`WebsiteDataStore.copyStore(from:to:)`): a SQLite store keeps each database as a file in its
/// `websql/` folder, a PostgreSQL store as the image of that file in its catalog row
/// (`websql_databases.image`). An image is what `sqlite3_serialize` gives of the file's main
/// schema, marked as a rollback-journal database (not WAL), so that it opens as a file of its own.
extension WebSQLStorage {
    /// The image of a database file, read through a read-only connection in one read
    /// transaction, so it is consistent even while another connection writes the file.
    ///
    /// - Parameter file: the database file.
    /// - Returns: the bytes of the database, in rollback-journal mode; empty for an empty database.
    /// - Throws: `StoreError.cannotOpen` naming the file when it cannot be opened or read.
    static func image(ofFile file: URL) throws -> [UInt8] {
        do {
            let connection = try SQLiteConnection(location: .file(file), readOnly: true)
            return try connection.transaction(write: false) {
                // A read starts the transaction's snapshot; serialising reads within it.
                _ = try connection.scalar("SELECT count(*) FROM sqlite_schema")
                var size: sqlite3_int64 = 0
                guard let bytes = sqlite3_serialize(connection.handle, "main", &size, 0) else {
                    if size == 0 { return [] }
                    throw DatabaseError(connection: connection.handle, code: SQLITE_NOMEM)
                }
                defer { sqlite3_free(bytes) }
                var image = Array(UnsafeBufferPointer(start: bytes, count: Int(size)))
                // The file format's write and read versions (header bytes 18 and 19): 1 is a
                // rollback-journal database, 2 a WAL one.
                if image.count >= 20 {
                    image[18] = 1
                    image[19] = 1
                }
                return image
            }
        } catch let error as DatabaseError {
            throw StoreError.cannotOpen(path: file.path, detail: error.messageWithCode)
        }
    }

    /// Writes an image as a new database file in a store's `websql/` folder (made 0700 when
    /// missing), named as `open` names the files it makes.
    ///
    /// - Parameters:
    ///   - image: the bytes of the database, as `image(ofFile:)` gives them.
    ///   - folder: the store's `websql/` folder.
    /// - Returns: the file's name, which its catalog row holds.
    /// - Throws: `StoreError.cannotOpen` when the folder or the file cannot be made.
    static func writeFile(image: [UInt8], in folder: URL) throws -> String {
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError.cannotOpen(
                path: folder.path, detail: "cannot create the directory (\(FileErrorReason.text(error)))")
        }
        let name = UUID().uuidString.lowercased() + ".sqlite"
        let path = folder.appendingPathComponent(name).path
        let fd = Foundation.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.cannotOpen(path: path, detail: String(cString: strerror(errno))) }
        defer { close(fd) }
        var written = 0
        while written < image.count {
            let count = image.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            guard count > 0 else {
                let detail = String(cString: strerror(errno))
                unlink(path)
                throw StoreError.cannotOpen(path: path, detail: detail)
            }
            written += count
        }
        return name
    }
}
