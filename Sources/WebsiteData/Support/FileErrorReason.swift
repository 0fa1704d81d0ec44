import Foundation

/// Why a file operation failed, in words a user can act on.
///
/// The POSIX message where the error carries one (`No such file or directory`), else what
/// Foundation's error code means in the same words (`Is a directory`, `Permission denied`); never Foundation's
/// own text (`The operation could not be completed. (NSCocoaErrorDomain error 256.)`), which
/// names no cause.
package enum FileErrorReason {
    /// The reason `error` gives, for a file operation on `path` (when known, a directory there is named as such).
    ///
    /// - Parameters:
    ///   - error: the error a file operation threw.
    ///   - path: the file it was working on, to tell a directory from a file.
    /// - Returns: the reason, without a final period.
    package static func text(_ error: Error, path: String? = nil) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain
        {
            return posix(Int32(underlying.code))
        }
        if nsError.domain == NSPOSIXErrorDomain { return posix(Int32(nsError.code)) }
        guard nsError.domain == NSCocoaErrorDomain else { return nsError.localizedDescription }
        var isDirectory: ObjCBool = false
        if let path, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return posix(EISDIR)
        }
        switch CocoaError.Code(rawValue: nsError.code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: return posix(ENOENT)
        case .fileReadNoPermission, .fileWriteNoPermission: return posix(EACCES)
        case .fileWriteOutOfSpace: return posix(ENOSPC)
        case .fileWriteVolumeReadOnly: return posix(EROFS)
        case .fileWriteFileExists: return posix(EEXIST)
        case .fileReadTooLarge: return posix(EFBIG)
        case .fileReadCorruptFile: return "the file is not in the expected format"
        case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding:
            return "the file is not text in the expected encoding"
        default: return "the file could not be read or written (Foundation error \(nsError.code))"
        }
    }

    /// The error's message for a user: the file it names, when it names one, and the reason.
    ///
    /// - Parameter error: an error from a file operation (Foundation's or POSIX).
    /// - Returns: `PATH: reason`, or the reason alone.
    package static func message(_ error: Error) -> String {
        let path = (error as NSError).userInfo[NSFilePathErrorKey] as? String
        let reason = text(error, path: path)
        return path.map { "\($0): \(reason)" } ?? reason
    }

    /// Whether `error` is one of Foundation's file errors, whose own text names no cause.
    package static func isFoundationFileError(_ error: Error) -> Bool {
        (error as NSError).domain == NSCocoaErrorDomain
    }

    private static func posix(_ code: Int32) -> String { String(cString: strerror(code)) }
}
