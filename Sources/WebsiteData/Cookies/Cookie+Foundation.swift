import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Cookie {
    /// Creates a cookie from a Foundation `HTTPCookie`.
    ///
    /// A domain starting with `.` makes a domain cookie; otherwise the cookie is host-only.
    /// Foundation keeps no creation or access times, so both are `now`.
    public init(_ cookie: HTTPCookie, now: Date = Date()) {
        var domain = cookie.domain.lowercased()
        let hostOnly = !domain.hasPrefix(".")
        if !hostOnly { domain.removeFirst() }
        let sameSite: CookieSameSite
        switch (cookie.properties?[Self.sameSiteKey] as? String)?.lowercased() {
        case "strict": sameSite = .strict
        case "lax": sameSite = .lax
        case "none": sameSite = .none
        default: sameSite = .unspecified
        }
        self.init(
            name: cookie.name, value: cookie.value, domain: domain, path: cookie.path.isEmpty ? "/" : cookie.path,
            isHostOnly: hostOnly, isSecure: cookie.isSecure, isHTTPOnly: cookie.isHTTPOnly, sameSite: sameSite,
            expires: cookie.isSessionOnly ? nil : cookie.expiresDate, created: now)
    }

    /// Foundation's `HTTPCookiePropertyKey.sameSitePolicy` ("SameSite"), spelled out: Linux's
    /// Foundation has no constant for it.
    static let sameSiteKey = HTTPCookiePropertyKey("SameSite")

    /// The cookie as a Foundation `HTTPCookie`, or `nil` when Foundation cannot represent it
    /// (a nameless cookie).
    public var httpCookie: HTTPCookie? {
        guard !name.isEmpty else { return nil }
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: name, .value: value, .path: path,
            .domain: isHostOnly ? domain : "." + domain,
        ]
        if isSecure { properties[.secure] = "TRUE" }
        if isHTTPOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        if let expires { properties[.expires] = expires } else { properties[.discard] = "TRUE" }
        switch sameSite {
        case .strict: properties[Self.sameSiteKey] = "strict"
        case .lax: properties[Self.sameSiteKey] = "lax"
        case .none: properties[Self.sameSiteKey] = "none"
        case .unspecified: break
        }
        return HTTPCookie(properties: properties)
    }
}
