/// A line or entry of a cookie file that a lenient import left out, and why.
public struct CookieImportRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line of the file: the cookie's line in `cookies.txt`; in JSON the line of the
    /// cookie object's `{`, or of the member at fault when one member is wrong.
    public let line: Int
    /// For JSON, the 0-based position of the cookie object in its array (`cookies[index]` in a
    /// storage state, `[index]` in a cookie array); `nil` for `cookies.txt`.
    public let index: Int?
    /// For JSON, the path of what is wrong (`cookies[3]`, `[3].expirationDate`); `nil` for
    /// `cookies.txt`.
    public let path: String?
    /// What was wrong, in words a user can act on.
    public let reason: String

    /// Creates a refusal.
    ///
    /// - Parameters:
    ///   - line: the 1-based line of the file.
    ///   - index: the 0-based position of the entry in its JSON array, for JSON.
    ///   - path: the JSON path of what is wrong, for JSON.
    ///   - reason: what was wrong.
    public init(line: Int, index: Int? = nil, path: String? = nil, reason: String) {
        self.line = line
        self.index = index
        self.path = path
        self.reason = reason
    }

    /// `line N: reason`, or `line N, path: reason` for JSON.
    public var description: String {
        if let path { return "line \(line), \(path): \(reason)" }
        return "line \(line): \(reason)"
    }
}
