/// A document-start script that recreates a store's cookies in a browser, with what it writes and
/// what it had to leave out.
///
/// Made by `HTTPCookieStore.documentCookieScript(for:context:messageHandler:forMainFrameOnly:)`.
/// The cookies are written in `Cookie` header order, so that the browser, which orders
/// `document.cookie` by path length and then creation time, shows them in the order the store does.
public struct DocumentCookieScript: Sendable, Hashable {
    /// The script, to inject at document start.
    public var userScript: UserScript
    /// The cookies the script writes, in the order it writes them.
    public var cookies: [Cookie]
    /// The cookies page script may see at the URL that `document.cookie` cannot recreate faithfully, each with why.
    public var skipped: [SkippedDocumentCookie]

    /// Creates a script description.
    ///
    /// - Parameters:
    ///   - userScript: the script.
    ///   - cookies: the cookies it writes.
    ///   - skipped: the cookies it leaves out.
    public init(userScript: UserScript, cookies: [Cookie], skipped: [SkippedDocumentCookie]) {
        self.userScript = userScript
        self.cookies = cookies
        self.skipped = skipped
    }

    /// The script as an inline HTML element, `<script>…</script>`, to put first in a page's `<head>`.
    ///
    /// The source holds no `<` at all (string contents are escaped), so the element cannot end
    /// early or switch the HTML parser into another state, whatever the cookie values are.
    public var scriptTag: String { "<script>" + userScript.source + "</script>" }
}

/// A cookie a document-start script leaves out, because `document.cookie` cannot recreate it as the store holds it.
public struct SkippedDocumentCookie: Sendable, Hashable, CustomStringConvertible {
    /// The cookie.
    public var cookie: Cookie
    /// Why it cannot be written by script.
    public var reason: Reason

    /// Creates a skipped-cookie entry.
    ///
    /// - Parameters:
    ///   - cookie: the cookie.
    ///   - reason: why it was left out.
    public init(cookie: Cookie, reason: Reason) {
        self.cookie = cookie
        self.reason = reason
    }

    /// Why `document.cookie` cannot recreate a cookie.
    public struct Reason: RawRepresentable, Sendable, Hashable {
        /// A short machine-readable name.
        public let rawValue: String

        /// Creates a reason.
        ///
        /// - Parameters:
        ///   - rawValue: the machine-readable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The name, value, path or domain holds a character a `document.cookie` string cannot carry:
        /// a control character (TAB included: browsers refuse it from script), a `;`, or an `=` in the name.
        public static let unwritableCharacter = Reason(rawValue: "unwritable-character")
        /// The name, value or path begins or ends with a space or TAB, which the browser would trim.
        public static let surroundingWhitespace = Reason(rawValue: "surrounding-whitespace")
        /// A nameless cookie whose value holds `=`: written, it would read as a name and a value
        /// (browsers refuse `=a=b` from script).
        public static let namelessValueWithEquals = Reason(rawValue: "nameless-value-with-equals")
        /// The name and value exceed 4096 bytes, or the path or domain 1024.
        public static let tooLong = Reason(rawValue: "too-long")
        /// The name has the `__Http-` or `__Host-Http-` prefix, which browsers accept only from HTTP
        /// responses with `HttpOnly`.
        public static let httpOnlyPrefix = Reason(rawValue: "http-only-prefix")
    }

    /// One line: which cookie and why.
    public var description: String {
        let subject = cookie.name.isEmpty ? "nameless cookie" : "cookie '\(cookie.name)'"
        return "\(subject) (\(cookie.domain)\(cookie.path)) not written by script: \(reason.rawValue)"
    }
}
