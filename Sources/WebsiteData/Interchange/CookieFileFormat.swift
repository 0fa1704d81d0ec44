import Foundation

/// A file format cookies are imported from and exported to.
public enum CookieFileFormat: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Netscape `cookies.txt`, as curl (`-b`/`-c`), wget, yt-dlp and Python's `MozillaCookieJar`
    /// read and write it: seven tab-separated fields a line.
    case netscape
    /// Playwright's `storageState` JSON (`{"cookies": [...], "origins": [...]}`). `CookieInterchange`
    /// reads and writes its `cookies` only; `StorageStateInterchange` moves its `origins` too.
    case storageState = "storage-state"

    /// The name the command line takes: `netscape` or `storage-state`.
    public var description: String { rawValue }

}
