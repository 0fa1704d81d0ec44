import Foundation

/// Writes cookies as `chrome.cookies.getAll()` returns them and browser cookie extensions
/// export them (`JSON.stringify(cookies, null, 2)`): a top-level array of objects whose members
/// are in Chrome's order.
enum ExtensionCookieWriter {
    /// One cookie object, preceded by its separator.
    ///
    /// `sameSite` is `no_restriction`, `lax`, `strict` or `unspecified` (no SameSite given);
    /// `storeId` is `"0"`, Chrome's default store; a partitioned cookie has
    /// `"partitionKey": {"topLevelSite": ...}`.
    static func object(for cookie: Cookie, first: Bool) -> String {
        var text = first ? "\n  {\n" : ",\n  {\n"
        text += "    \"domain\": " + quoted(cookie.isHostOnly ? cookie.domain : "." + cookie.domain) + ",\n"
        if let expires = cookie.expires {
            text += "    \"expirationDate\": " + StorageStateWriter.expires(expires) + ",\n"
        }
        text += "    \"hostOnly\": " + (cookie.isHostOnly ? "true" : "false") + ",\n"
        text += "    \"httpOnly\": " + (cookie.isHTTPOnly ? "true" : "false") + ",\n"
        text += "    \"name\": " + quoted(cookie.name) + ",\n"
        if !cookie.partitionKey.isEmpty {
            text += "    \"partitionKey\": {\n      \"topLevelSite\": " + quoted(cookie.partitionKey) + "\n    },\n"
        }
        text += "    \"path\": " + quoted(cookie.path) + ",\n"
        text += "    \"sameSite\": " + sameSite(cookie.sameSite) + ",\n"
        text += "    \"secure\": " + (cookie.isSecure ? "true" : "false") + ",\n"
        text += "    \"session\": " + (cookie.expires == nil ? "true" : "false") + ",\n"
        text += "    \"storeId\": \"0\",\n"
        text += "    \"value\": " + quoted(cookie.value) + "\n  }"
        return text
    }

    /// `chrome.cookies.SameSiteStatus`, quoted.
    static func sameSite(_ value: CookieSameSite) -> String {
        switch value {
        case .none: return "\"no_restriction\""
        case .lax: return "\"lax\""
        case .strict: return "\"strict\""
        case .unspecified: return "\"unspecified\""
        }
    }

    private static func quoted(_ string: String) -> String { JSONString.quoted(string) }
}
