import Foundation

/// A file format cookies are imported from and exported to.
public enum CookieFileFormat: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Netscape `cookies.txt`, as curl (`-b`/`-c`), wget, yt-dlp and Python's `MozillaCookieJar`
    /// read and write it: seven tab-separated fields a line.
    case netscape
    /// Playwright's `storageState` JSON (`{"cookies": [...], "origins": [...]}`). `CookieInterchange`
    /// reads and writes its `cookies` only; `StorageStateInterchange` moves its `origins` too.
    case storageState = "storage-state"
    /// A top-level JSON array of cookie objects, as `chrome.cookies.getAll()` returns them and
    /// browser cookie extensions (EditThisCookie, Cookie-Editor, "Get cookies.txt"-style JSON
    /// exports) save them: `domain`, `hostOnly`, `path`, `secure`, `httpOnly`, `expirationDate`,
    /// `session`, `sameSite` (`no_restriction`, `lax`, `strict`, `unspecified`), `storeId`,
    /// `name`, `value`. An array of Playwright cookie objects (`context.cookies()`) reads too.
    case extensionJSON = "extension-json"

    /// The name the command line takes: `netscape`, `storage-state` or `extension-json`.
    public var description: String { rawValue }

}
