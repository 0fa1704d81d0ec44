/// Why a cookie file could not be opened, read or written.
///
/// Errors in a file's content are `CookieImportError`s, which name the line.
public struct CookieFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, as given (`-` for standard input or output).
    public let path: String
    /// What went wrong.
    public let reason: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - path: the file, as the user named it.
    ///   - reason: what went wrong, in words a user can act on.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `path: reason`.
    public var description: String { "\(path): \(reason)" }
}
