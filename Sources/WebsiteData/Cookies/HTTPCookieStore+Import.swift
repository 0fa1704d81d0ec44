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
    /// Cookie lines or entries read from the source: `imported + expired + refused`.
    public var read = 0
    /// Cookies stored (new or replacing one with the same identity).
    public var imported = 0
    /// Cookies already expired in the source, skipped (an expired cookie deletes its namesake).
    public var expired = 0
    /// Cookies evicted to keep the store within its limits during the import; raise
    /// `cookies.max-total` / `cookies.max-per-site` (`wkstore config set`) to keep them.
    public var evicted = 0
    /// Lines or entries a lenient import left out (syntax errors, cookies the store's rules
    /// refuse, domains no request could match); each is in `refusals`, up to
    /// `maxListedRefusals`. Always `0` after a strict import, which throws instead.
    public var refused = 0
    /// The lines or entries left out, in file order, with their numbers and reasons: the first
    /// `maxListedRefusals` of `refused`.
    public var refusals: [CookieImportRefusal] = []
    /// Cookies given as `SameSite=None` without Secure (as Firefox and WebKit keep cookies set
    /// with no SameSite, and Playwright and their extension APIs report them), imported as
    /// cookies with no SameSite attribute, not Secure: the store, like RFC 6265bis and
    /// Chromium, refuses `SameSite=None` without Secure (Docs/interchange.md).
    public var sameSiteNoneWithoutSecure = 0

    /// Whether anything in the source was left out (so a command can exit non-zero).
    public var hasRefusals: Bool { refused > 0 }

    /// How many refusals `refusals` lists at most; the rest are only counted in `refused`, so a
    /// file of millions of bad lines takes bounded memory.
    public static let maxListedRefusals = 1000

    /// Creates an empty summary.
    public init() {}

    /// Counts a refusal and lists it while fewer than `maxListedRefusals` are listed.
    mutating func record(_ refusal: CookieImportRefusal) {
        refused += 1
        if refusals.count < Self.maxListedRefusals { refusals.append(refusal) }
    }
}

/// What an import source hands the store: a cookie with where it was read, or a line or
/// entry the source could not read.
enum CookieImportItem {
    /// A cookie, its line, its JSON path (`cookies[2]`, `[2]`; `nil` for `cookies.txt`) and
    /// index, and whether its `SameSite=None` without Secure was mapped to no SameSite.
    case cookie(Cookie, line: Int, index: Int? = nil, path: String? = nil, sameSiteMapped: Bool = false)
    /// A line or entry that is not a cookie.
    case refused(CookieImportRefusal)
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
        try importCookies(options: .strict) {
            try next().map { CookieImportItem.cookie($0.cookie, line: $0.line) }
        }
    }

    /// Imports cookies in one transaction, reading them one at a time from `next`.
    ///
    /// Each cookie needs a domain a request can match (`ImportedCookieDomain`) and must meet the
    /// rules a `Set-Cookie` over HTTPS from its own domain meets. A strict import throws at the
    /// first item that fails, storing nothing; a lenient one records it in the summary and goes on.
    ///
    /// - Parameters:
    ///   - options: strict or lenient.
    ///   - next: the next item, or `nil` at the end; an error it throws aborts the import.
    /// - Returns: counts of what was read, imported, skipped, evicted and refused.
    /// - Throws: `CookieImportError` (strict) for a refused item, the error `next` threw, or a
    ///   `StoreError`. Nothing is stored in any of these cases.
    func importCookies(options: CookieImportOptions, _ next: () throws -> CookieImportItem?) throws
        -> CookieImportSummary
    {
        try withExclusiveWrite { jar, now, flush in
            var summary = CookieImportSummary()
            var changes: [CookieJarChange] = []
            while let item = try next() {
                summary.read += 1
                guard case .cookie(let cookie, let line, let index, let path, let mapped) = item else {
                    if case .refused(let refusal) = item {
                        if options.isStrict {
                            let reason = refusal.path.map { $0 + " " + refusal.reason } ?? refusal.reason
                            throw CookieImportError(line: refusal.line, reason: reason)
                        }
                        summary.record(refusal)
                    }
                    continue
                }
                func refuse(_ reason: String) throws {
                    if options.isStrict { throw CookieImportError(line: line, reason: reason) }
                    summary.record(CookieImportRefusal(line: line, index: index, path: path, reason: reason))
                }
                if let problem = ImportedCookieDomain.problem(with: cookie) {
                    try refuse(problem)
                    continue
                }
                let valid: Cookie
                switch CanonicalCookie.validate(cookie, api: .http, now: now) {
                case .success(let c): valid = c
                case .failure(let rejection):
                    try refuse(rejection.description)
                    continue
                }
                var stamped = valid
                stamped.modified = now
                if cookie.lastAccess == cookie.created { stamped.lastAccess = now }
                let expired = stamped.isExpired(at: now)
                switch jar.insert(stamped, deletes: expired, fromSecureOrigin: true, api: .http, now: now) {
                case .success(let insertion):
                    if expired { summary.expired += 1 } else { summary.imported += 1 }
                    if mapped { summary.sameSiteNoneWithoutSecure += 1 }
                    summary.evicted += insertion.evicted.count
                    changes += insertion.changes
                case .failure(let rejection):
                    try refuse(rejection.description)
                    continue
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
