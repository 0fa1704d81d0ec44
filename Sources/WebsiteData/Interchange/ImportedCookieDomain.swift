import Foundation

/// The domain of a cookie read from a file: the host written in it, and whether a request
/// could ever carry a cookie of that domain.
///
/// wget's `--save-cookies` writes a non-default port after the host (`127.0.0.1:8080`,
/// `.example.com:8443`); cookies are not port-specific (RFC 6265bis 8.5), so the port is
/// dropped. A domain that is still no host (a `:` outside an IPv6 address, a character no URL
/// host holds) would be stored and never sent, so an import refuses it, naming it.
enum ImportedCookieDomain {
    /// The domain field without a port: `example.com:8443` → `example.com`, `[::1]:8080` and
    /// `[::1]` → `::1`. A leading `.` is kept; a bare IPv6 address (`::1`) is left as it is.
    static func droppingPort(_ field: String) -> String {
        var text = Substring(field)
        var dot = ""
        if text.hasPrefix(".") {
            text = text.dropFirst()
            dot = "."
        }
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let rest = text[text.index(after: close)...]
            if rest.isEmpty || isPort(rest) {
                return dot + String(text[text.index(after: text.startIndex)..<close])
            }
            return field
        }
        let colons = text.utf8.count(where: { $0 == UInt8(ascii: ":") })
        if colons == 1, let colon = text.firstIndex(of: ":"), colon != text.startIndex,
            isPort(text[colon...])
        {
            return dot + String(text[..<colon])
        }
        return field
    }

    /// `:` and 1 to 5 digits.
    private static func isPort(_ text: Substring) -> Bool {
        let digits = text.utf8.dropFirst()
        return text.hasPrefix(":") && (1...5).contains(digits.count)
            && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Why no request could carry a cookie of this domain, or `nil` when one could.
    ///
    /// - Parameter cookie: the cookie as read (its domain may still have its leading `.`).
    /// - Returns: the reason, naming the cookie and its domain, as `CookieRejection` words its own.
    static func problem(with cookie: Cookie) -> String? {
        var domain = Substring(cookie.domain)
        if domain.hasPrefix(".") { domain = domain.dropFirst() }
        let subject = cookie.name.isEmpty ? "cookie" : "cookie '\(cookie.name.prefix(80))'"
        if domain.isEmpty { return "\(subject) refused: its domain is empty" }
        let shown = "'\(domain.prefix(80))'"
        if domain.contains(":") && !isIPv6Address(String(domain)) {
            return
                "\(subject) refused: its domain \(shown) is not a host name or IP address (':' belongs only in an IPv6 address; a port does not belong in a cookie's domain), so no request could carry it"
        }
        if let bad = domain.unicodeScalars.first(where: isForbidden) {
            let character =
                bad.value < 0x21 || bad.value == 0x7F
                ? "U+\(String(bad.value, radix: 16, uppercase: true))" : "'\(bad)'"
            return
                "\(subject) refused: its domain \(shown) is not a host name (it holds \(character)), so no request could carry it"
        }
        return nil
    }

    /// The WHATWG URL standard's forbidden domain code points other than `:` (IPv6 is checked apart).
    private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x20 || scalar.value == 0x7F || "#%/<>?@[\\]^|".unicodeScalars.contains(scalar)
    }

    static func isIPv6Address(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}
