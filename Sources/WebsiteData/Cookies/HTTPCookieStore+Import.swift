import Foundation

/// Why an import of cookies was refused; nothing of it was stored.
public struct CookieImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line (or entry) number of the offending cookie in the source, 1-based.
    public let line: Int
    /// What was wrong.
    public let reason: String

    /// Creates an error.
    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    /// `line N: reason (nothing was imported)`.
    public var description: String { "line \(line): \(reason) (nothing was imported)" }
}

/// What an import did.
public struct CookieImportSummary: Sendable, Hashable {
    /// Cookies read from the source.
    public var read = 0
    /// Cookies stored (new or replacing one with the same identity).
    public var imported = 0
    /// Cookies already expired in the source, skipped (an expired cookie deletes its namesake).
    public var expired = 0
    /// Cookies evicted to keep the store within its limits during the import; raise
    /// `cookies.max-total` / `cookies.max-per-site` (`wkstore config set`) to keep them.
    public var evicted = 0

    /// Creates an empty summary.
    public init() {}
}

extension HTTPCookieStore {
    /// Imports cookies in one transaction, reading them one at a time from `next` (so a large
    /// file is streamed), each checked with the rules a `Set-Cookie` meets. The first refused
    /// cookie aborts the whole import: nothing of it is stored.
    ///
    /// - Parameter next: returns the next cookie and its line number, or `nil` at the end; it may
    ///   throw (a syntax error in the source), which aborts the import.
    /// - Returns: counts of what was read, imported, skipped and evicted.
    /// - Throws: `CookieImportError` for a refused cookie, the error `next` threw, or a `StoreError`.
    public func importCookies(_ next: () throws -> (cookie: Cookie, line: Int)?) throws -> CookieImportSummary {
        try withExclusiveWrite { jar, now, flush in
            var summary = CookieImportSummary()
            var changes: [CookieJarChange] = []
            while let (cookie, line) = try next() {
                summary.read += 1
                let valid: Cookie
                switch CanonicalCookie.validate(cookie, api: .http, now: now) {
                case .success(let c): valid = c
                case .failure(let rejection): throw CookieImportError(line: line, reason: rejection.description)
                }
                var stamped = valid
                stamped.modified = now
                if cookie.lastAccess == cookie.created { stamped.lastAccess = now }
                let expired = stamped.isExpired(at: now)
                switch jar.insert(stamped, deletes: expired, fromSecureOrigin: true, api: .http, now: now) {
                case .success(let insertion):
                    if expired { summary.expired += 1 } else { summary.imported += 1 }
                    summary.evicted += insertion.evicted.count
                    changes += insertion.changes
                case .failure(let rejection):
                    throw CookieImportError(line: line, reason: rejection.description)
                }
                if changes.count >= 512 {
                    try flush(&changes)
                }
            }
            try flush(&changes)
            return summary
        }
    }
}
