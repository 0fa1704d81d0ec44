import Foundation
import WebsiteData

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Foundation's cookie storage as a peer: a private, ephemeral `HTTPCookieStorage` (the one
/// `URLSessionConfiguration.ephemeral` makes), holding the same cookies as `HTTPCookie`s.
///
/// On Linux (swift-corelibs-foundation) `setCookie` scans every stored cookie for expired ones, so
/// loading n cookies costs O(n^2), and `cookies(for:)` filters every stored cookie by host only.
final class FoundationPeer {
    let storage: HTTPCookieStorage

    init() {
        storage = URLSessionConfiguration.ephemeral.httpCookieStorage ?? HTTPCookieStorage.shared
    }

    /// Loads cookies; returns how many the storage holds afterwards.
    @discardableResult
    func load(_ cookies: [Cookie]) -> Int {
        for cookie in cookies { add(cookie) }
        return storage.cookies?.count ?? 0
    }

    func add(_ cookie: Cookie) {
        if let http = Self.httpCookie(cookie) { storage.setCookie(http) }
    }

    static func httpCookie(_ cookie: Cookie) -> HTTPCookie? {
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: cookie.name, .value: cookie.value, .path: cookie.path,
            .domain: cookie.isHostOnly ? cookie.domain : "." + cookie.domain,
        ]
        if cookie.isSecure { properties[.secure] = "TRUE" }
        if let expires = cookie.expires { properties[.expires] = expires }
        if cookie.isHTTPOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        switch cookie.sameSite {
        case .lax: properties[HTTPCookiePropertyKey("SameSite")] = "lax"
        case .strict: properties[HTTPCookiePropertyKey("SameSite")] = "strict"
        default: break
        }
        return HTTPCookie(properties: properties)
    }

    /// Foundation's lookup: `cookies(for:)` then `HTTPCookie.requestHeaderFields(with:)`.
    func cookieHeader(for url: URL) -> String? {
        guard let cookies = storage.cookies(for: url), !cookies.isEmpty else { return nil }
        return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
    }
}
