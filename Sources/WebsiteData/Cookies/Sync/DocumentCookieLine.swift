import Foundation

/// The `document.cookie` string that recreates a stored cookie, and the rules for when none can.
enum DocumentCookieLine {
    /// The string to assign to `document.cookie`: the pair, then every attribute the cookie has.
    ///
    /// A nameless cookie is written as its bare value (RFC 6265bis 5.6 reads that back as a nameless
    /// cookie); `domain` is written only for a domain cookie; `expires` only for a persistent one.
    static func line(for cookie: Cookie) -> String {
        var line = cookie.pair + "; path=" + cookie.path
        if !cookie.isHostOnly { line += "; domain=" + cookie.domain }
        if let expires = cookie.expires { line += "; expires=" + CookieDate.format(expires) }
        if cookie.isSecure { line += "; secure" }
        switch cookie.sameSite {
        case .strict: line += "; samesite=strict"
        case .lax: line += "; samesite=lax"
        case .none: line += "; samesite=none"
        case .unspecified: break
        }
        if !cookie.partitionKey.isEmpty { line += "; partitioned" }
        return line
    }

    /// Why `document.cookie` cannot recreate `cookie` as stored, or `nil` when it can.
    ///
    /// The rules are those of the `Set-Cookie` parser (RFC 6265bis 5.6) that browsers apply to
    /// `document.cookie` writes, plus what Chromium refuses from script (TAB, `=a=b`, `__Http-`).
    static func skipReason(for cookie: Cookie) -> SkippedDocumentCookie.Reason? {
        if unwritable(cookie.name) || unwritable(cookie.value) || unwritable(cookie.path) || unwritable(cookie.domain)
            || cookie.name.utf8.contains(UInt8(ascii: "="))
        {
            return .unwritableCharacter
        }
        if padded(cookie.name) || padded(cookie.value) || padded(cookie.path) || padded(cookie.domain) {
            return .surroundingWhitespace
        }
        if cookie.name.isEmpty && cookie.value.utf8.contains(UInt8(ascii: "=")) { return .namelessValueWithEquals }
        if cookie.name.utf8.count + cookie.value.utf8.count > CookieRules.maxNameValueBytes
            || cookie.path.utf8.count > CookieRules.maxAttributeValueBytes
            || cookie.domain.utf8.count > CookieRules.maxAttributeValueBytes
        {
            return .tooLong
        }
        let prefixed = cookie.name.isEmpty ? cookie.value : cookie.name
        if hasPrefix(prefixed, "__http-") || hasPrefix(prefixed, "__host-http-") { return .httpOnlyPrefix }
        return nil
    }

    /// Control characters (TAB included) and `;` end or spoil a `document.cookie` string.
    private static func unwritable(_ string: String) -> Bool {
        string.utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: ";") }
    }

    /// Leading or trailing spaces and TABs are trimmed by the parser.
    private static func padded(_ string: String) -> Bool {
        guard let first = string.utf8.first, let last = string.utf8.last else { return false }
        return first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
    }

    private static func hasPrefix(_ string: String, _ lowerPrefix: String) -> Bool {
        let s = string.utf8
        let p = lowerPrefix.utf8
        guard s.count >= p.count else { return false }
        return zip(s, p).allSatisfy { a, b in a == b || (a >= 0x41 && a <= 0x5A && a | 0x20 == b) }
    }
}
