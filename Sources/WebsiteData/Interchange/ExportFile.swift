import Foundation

/// Writing an export to a file so that the file never holds half of it.
enum ExportFile {
    /// Runs `body` on a new temporary file beside `url`, made readable by its owner only (0600:
    /// cookies and storage are credentials), and renames it over `url` when `body` returns. When
    /// `body` throws, the temporary file is removed and `url` is left as it was.
    ///
    /// - Parameters:
    ///   - url: the file to write.
    ///   - body: writes the export to the handle it is given.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws; `CookieFileError` when the file cannot be written.
    static func write<T>(to url: URL, _ body: (FileHandle) throws -> T) throws -> T {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw CookieFileError(path: url.path, reason: "cannot create a file in \(directory.path)")
        }
        var done = false
        defer { if !done { try? FileManager.default.removeItem(at: temporary) } }
        let handle: FileHandle
        do { handle = try FileHandle(forWritingTo: temporary) } catch {
            throw CookieFileError(path: url.path, reason: "cannot open the file for writing (\(reasonText(error)))")
        }
        let result: T
        do {
            defer { try? handle.close() }
            result = try body(handle)
            do { try handle.synchronize() } catch {
                throw CookieFileError(path: url.path, reason: "cannot write (\(reasonText(error)))")
            }
        }
        guard rename(temporary.path, url.path) == 0 else {
            throw CookieFileError(
                path: url.path, reason: "cannot replace the file (\(String(cString: strerror(errno))))")
        }
        done = true
        return result
    }

    /// The reason of a file error, in words (see `FileErrorReason`).
    static func reasonText(_ error: Error, path: String? = nil) -> String { FileErrorReason.text(error, path: path) }
}
