import Foundation

#if canImport(WebsiteData)
    import WebsiteData
#endif

/// The fuzz targets: each takes arbitrary bytes and must never crash, hang or break an invariant.
///
/// Built with libFuzzer (`scripts/fuzz.sh`), the target is chosen by `WKSTORE_FUZZ_TARGET`;
/// built normally, `wkstore-fuzz TARGET FILE...` replays inputs (the regression corpus).
enum FuzzTargets {
    static let all: [String: @Sendable (Data) -> Void] = [
        "set-cookie": setCookie,
        "cookie-date": cookieDate,
        "cookie-store": cookieStore,
        "netscape": netscapeImport,
        "storage-state": storageStateImport,
        "extension-json": extensionJSONImport,
        "cache-control": cacheControl,
        "vary": vary,
        "idb-key": idbKey,
        "user-script": userScript,
    ]

    /// The Set-Cookie parser: any bytes parse or are refused; a parsed cookie keeps the limits.
    static func setCookie(_ data: Data) {
        let header = String(decoding: data, as: UTF8.self)
        guard let parsed = ParsedCookie.parse(header) else { return }
        precondition(parsed.name.utf8.count + parsed.value.utf8.count <= CookieRules.maxNameValueBytes)
        precondition(!(parsed.name.isEmpty && parsed.value.isEmpty))
        // Bytes, not Swift's `contains`, which finds ";" in U+037E (canonically equivalent).
        precondition(!parsed.name.utf8.contains(UInt8(ascii: ";")) && !parsed.value.utf8.contains(UInt8(ascii: ";")))
        // Bytes again: Swift's `hasPrefix("/")` is false for "/" followed by a combining mark
        // (one character), though the path's first byte is "/" as RFC 6265bis asks.
        if let path = parsed.path {
            precondition(path.utf8.first == UInt8(ascii: "/") && path.utf8.count <= CookieRules.maxAttributeValueBytes)
        }
    }

    /// The cookie-date algorithm: a parsed date formats and parses back to itself.
    static func cookieDate(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        guard let date = CookieDate.parse(text) else { return }
        let formatted = CookieDate.format(date)
        precondition(CookieDate.parse(formatted) == date, "\(text) -> \(formatted)")
    }

    /// The whole engine: bytes become a URL and Set-Cookie lines; what is stored is sent back only where it may be.
    static let store = WebsiteDataStore.nonPersistent()
    static func cookieStore(_ data: Data) {
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.first else { return }
        let hosts = [
            "example.com", "www.example.com", "a.b.example.co.uk", "localhost", "127.0.0.1", "github.io", "x.github.io",
        ]
        let host = hosts[Int(first.utf8.first ?? 0) % hosts.count]
        let scheme = (first.utf8.count % 2 == 0) ? "https" : "http"
        guard let url = URL(string: "\(scheme)://\(host)/\(first.prefix(20).filter { $0.isLetter || $0 == "/" })")
        else { return }
        let cookies = store.httpCookieStore
        _ = try? cookies.setCookies(fromSetCookieHeaders: lines.dropFirst().map(String.init), for: url)
        for cookie in (try? cookies.cookies(for: url)) ?? [] {
            precondition(!cookie.isSecure || Site.isSecureOrigin(url))
            precondition(!Site.isPublicSuffix(cookie.domain) || cookie.isHostOnly)
        }
        if (try? cookies.allCookies().count) ?? 0 > 2000 {
            _ = try? store.removeData(ofTypes: [.cookies], matching: RemovalFilter())
        }
    }
}
