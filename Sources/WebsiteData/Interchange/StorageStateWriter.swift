import Foundation

/// Writes Playwright `storageState` JSON as Playwright does (`JSON.stringify(state, null, 2)`),
/// one cookie object at a time.
enum StorageStateWriter {
    /// What precedes the first cookie object.
    static let opening = "{\n  \"cookies\": ["

    /// What follows the last cookie object in a cookie-only export: an empty `origins`.
    static func closing(wroteCookies: Bool) -> String {
        originsOpening(wroteCookies: wroteCookies) + originsClosing(wroteOrigins: false)
    }

    /// What follows the last cookie object and precedes the first origin entry.
    static func originsOpening(wroteCookies: Bool) -> String {
        (wroteCookies ? "\n  ]" : "]") + ",\n  \"origins\": ["
    }

    /// One origin entry, preceded by its separator.
    static func origin(_ entry: IDBJSONValue, first: Bool) -> String {
        (first ? "\n    " : ",\n    ") + entry.json(indent: 2, level: 2)
    }

    /// What follows the last origin entry: the end of the document.
    static func originsClosing(wroteOrigins: Bool) -> String {
        (wroteOrigins ? "\n  ]" : "]") + "\n}\n"
    }

    /// One cookie object, preceded by its separator.
    ///
    /// A cookie without a SameSite attribute is written `"sameSite": "Lax"` (how Playwright
    /// reports it, and how browsers enforce it) with `"sameSiteSpecified": false`, a member
    /// Playwright ignores and an import reads back, so nothing is lost.
    static func object(for cookie: Cookie, first: Bool) -> String {
        var text = first ? "\n    {\n" : ",\n    {\n"
        text += "      \"name\": " + quoted(cookie.name) + ",\n"
        text += "      \"value\": " + quoted(cookie.value) + ",\n"
        text += "      \"domain\": " + quoted(cookie.isHostOnly ? cookie.domain : "." + cookie.domain) + ",\n"
        text += "      \"path\": " + quoted(cookie.path) + ",\n"
        text += "      \"expires\": " + expires(cookie.expires) + ",\n"
        text += "      \"httpOnly\": " + (cookie.isHTTPOnly ? "true" : "false") + ",\n"
        text += "      \"secure\": " + (cookie.isSecure ? "true" : "false") + ",\n"
        text += "      \"sameSite\": " + sameSite(cookie.sameSite)
        if !cookie.partitionKey.isEmpty {
            text += ",\n      \"partitionKey\": " + quoted(cookie.partitionKey)
        }
        if cookie.sameSite == .unspecified {
            text += ",\n      \"sameSiteSpecified\": false"
        }
        text += "\n    }"
        return text
    }

    /// Unix seconds, whole when they are whole; `-1` for a session cookie.
    static func expires(_ date: Date?) -> String {
        guard let date else { return "-1" }
        let seconds = date.timeIntervalSince1970
        if seconds == seconds.rounded(), abs(seconds) < 1e15 { return String(Int64(seconds)) }
        // Swift prints the shortest decimal that reads back as the same Double.
        return "\(seconds)"
    }

    static func sameSite(_ value: CookieSameSite) -> String {
        switch value {
        case .strict: return "\"Strict\""
        case .none: return "\"None\""
        case .lax, .unspecified: return "\"Lax\""
        }
    }

    /// A JSON string literal.
    static func quoted(_ string: String) -> String { JSONString.quoted(string) }
}
