import Foundation

/// The context of a request that cookies are sent with or set from (RFC 6265bis 5.2, 5.8.3).
///
/// Same-site-ness is decided against `topLevelSite`, schemefully: `http://example.com` and
/// `https://example.com` are different sites. Without a top-level site the request is a
/// top-level navigation to its own URL, which is same-site.
public struct CookieRequestContext: Sendable, Hashable {
    /// The URL of the top-level document (the page in the address bar), or `nil` for a top-level request.
    public var topLevelSite: URL?
    /// The HTTP method.
    public var method: String
    /// Whether the request is a top-level navigation (a link followed, a redirect of one, the first request).
    public var isNavigation: Bool
    /// Whether the request's initiator chain is all same-site (5.2.1); a cross-site redirect clears it.
    public var isSameSiteChain: Bool

    /// Creates a context.
    ///
    /// - Parameters:
    ///   - topLevelSite: the URL or origin of the page making the request; `nil` for a top-level navigation.
    ///   - method: the request method; `GET` by default.
    ///   - isNavigation: whether the request navigates the top-level document; by default, when there is no top-level site.
    public init(
        topLevelSite: URL? = nil, method: String = "GET", isNavigation: Bool? = nil, isSameSiteChain: Bool = true
    ) {
        self.topLevelSite = topLevelSite
        // Most methods come in upper case: no new string then ("GET" compared first, as one
        // word: stepping its bytes costs more than the rest of making the context).
        self.method =
            method == "GET" || !method.utf8.contains(where: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") })
            ? method : method.uppercased()
        self.isNavigation = isNavigation ?? (topLevelSite == nil)
        self.isSameSiteChain = isSameSiteChain
    }

    /// A top-level GET navigation to the request URL: what a user typing the URL does.
    public static let topLevelNavigation = CookieRequestContext()

    /// Whether a request to `url` in this context is same-site (5.2).
    func isSameSite(_ url: URL) -> Bool {
        guard isSameSiteChain else { return false }
        guard let top = topLevelSite else { return true }
        // A navigation's top-level site is the URL it requests (HTTPClient's chains): same-site.
        if top == url { return true }
        return SchemefulSite(top) == SchemefulSite(url)
    }

    /// Whether the method is safe (RFC 9110 9.2.1), which Lax cookies need on cross-site navigations.
    var isSafeMethod: Bool {
        // A switch, not `contains` on an array literal, which would build the array at each call
        // (a lookup asks once per Lax cookie on a cross-site navigation).
        switch method {
        case "GET", "HEAD", "OPTIONS", "TRACE": true
        default: false
        }
    }
}

/// Which API reads or writes cookies: HTTP (headers) or not (page script, `document.cookie`).
public enum CookieAPI: Sendable, Hashable {
    /// `Set-Cookie` and `Cookie` headers; HttpOnly cookies included.
    case http
    /// Page script (`document.cookie`); HttpOnly cookies are neither read nor written.
    case nonHTTP
}
