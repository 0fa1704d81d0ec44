import Foundation
import WebsiteData

/// A request for `HTTPClient`: method, URL, header fields, body, and the browsing context that
/// decides which cookies it carries.
///
/// By default a request is a top-level navigation (what a user typing the URL does): every
/// cookie of the URL that is not `Secure`-only over plain HTTP is sent. Give `topLevelSite`
/// (the page making the request) to make it a subresource request of that page, which
/// SameSite rules then apply to; set `isNavigation` for a navigation initiated by that page.
public struct HTTPRequest: Sendable {
    /// The URL to request (`http` or `https`).
    public var url: URL
    /// The method: `GET`, `HEAD`, `POST`, `PUT`, `DELETE`, or any other token.
    public var method: String
    /// Header fields to send, in order. A `Cookie` field given here is sent after the store's
    /// cookies (joined with `; `) while the request stays on the origin it started on.
    public var headers: [HTTPHeaderField]
    /// The body to send, or `nil` for none.
    public var body: Data?
    /// The URL of the page making the request, or `nil` for a top-level request.
    public var topLevelSite: URL?
    /// Whether the request navigates the top-level document; `nil` means "when there is no `topLevelSite`".
    public var isNavigation: Bool?
    /// A file to write the final response body to instead of keeping it in memory; replaced if it exists.
    public var destination: URL?
    /// A time limit for the whole request, redirects included, overriding the client's.
    public var timeout: TimeInterval?
    /// User name and password to send with HTTP authentication (curl's `-u`), to the first origin only.
    public var credentials: HTTPCredentials?
    /// Whether redirects are followed; when `false`, a redirect response is the final response.
    public var followsRedirects: Bool
    /// The most redirects to follow before failing, overriding the client's.
    public var maxRedirects: Int?
    /// Called on the client's transfer thread as bytes move; keep it short.
    public var progress: (@Sendable (HTTPTransferProgress) -> Void)?
    /// How the request uses the store's HTTP cache, as Fetch's `cache` option: `.default`
    /// (RFC 9111), `.noStore`, `.reload`, `.noCache`, `.forceCache` or `.onlyIfCached`.
    /// Applies to every hop of the redirect chain; ignored when the client's `usesCache` is off.
    public var cacheMode: CacheMode

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - url: the URL to request.
    ///   - method: the method; `GET` by default.
    ///   - headers: header fields to send.
    ///   - body: the body to send, if any.
    ///   - topLevelSite: the URL of the page making the request; `nil` for a top-level request.
    ///   - isNavigation: whether the request is a navigation; by default when `topLevelSite` is `nil`.
    public init(
        url: URL, method: String = "GET", headers: [HTTPHeaderField] = [], body: Data? = nil,
        topLevelSite: URL? = nil, isNavigation: Bool? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.topLevelSite = topLevelSite
        self.isNavigation = isNavigation
        self.destination = nil
        self.timeout = nil
        self.credentials = nil
        self.followsRedirects = true
        self.maxRedirects = nil
        self.progress = nil
        self.cacheMode = .default
    }
}

/// A user name and a password for HTTP authentication (Basic, as curl's `-u` sends by default).
public struct HTTPCredentials: Sendable, Hashable {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// Creates credentials.
    ///
    /// - Parameters:
    ///   - user: the user name.
    ///   - password: the password.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// Parses curl's `user:password` form (the password is everything after the first colon).
    ///
    /// - Parameter userColonPassword: `user:password`; without a colon the password is empty.
    public init(_ userColonPassword: String) {
        if let colon = userColonPassword.firstIndex(of: ":") {
            user = String(userColonPassword[..<colon])
            password = String(userColonPassword[userColonPassword.index(after: colon)...])
        } else {
            user = userColonPassword
            password = ""
        }
    }
}

/// How far a transfer has got, as libcurl reports it for the hop in progress.
public struct HTTPTransferProgress: Sendable, Hashable {
    /// The URL of the hop being transferred.
    public var url: URL
    /// Body bytes received so far.
    public var received: Int64
    /// Body bytes expected, or 0 when unknown.
    public var expectedToReceive: Int64
    /// Body bytes sent so far.
    public var sent: Int64
    /// Body bytes to send, or 0 when none or unknown.
    public var expectedToSend: Int64
}
