import Foundation

/// What an `HTTPClient` does for every request: timeouts, HTTP version, TLS, proxy, redirects.
///
/// The options mirror curl's command line: `connectTimeout` is `--connect-timeout`, `timeout`
/// is `-m`, `insecure` is `-k`, `caCertificateFile` is `--cacert`, `proxy` is `-x`,
/// `userAgent` is `-A`, `acceptsCompressedResponses` is `--compressed`, `resolve` is
/// `--resolve`, `maxRedirects` is `--max-redirs`. `usesCache` puts the store's HTTP cache in
/// front of the network.
public struct HTTPClientConfiguration: Sendable {
    /// The longest wait for a connection to be set up, in seconds; `nil` for curl's default (300 s).
    public var connectTimeout: TimeInterval?
    /// The longest a whole request may take, redirects included, in seconds; `nil` for no limit.
    public var timeout: TimeInterval?
    /// Which HTTP versions to offer.
    public var httpVersion: HTTPVersionPreference
    /// A PEM file of certificate authorities to verify servers with, instead of the system's.
    public var caCertificateFile: URL?
    /// Whether to skip verifying the server's certificate and name (curl's `-k`). Off by default.
    public var insecure: Bool
    /// A proxy URL (`http://host:port`, `socks5h://host:port`, …); `""` disables proxies; `nil`
    /// for the store's `http.proxy` setting, and when it names none, curl's default, which
    /// honours the `http_proxy`, `https_proxy` and `no_proxy` environment variables.
    public var proxy: String?
    /// The `User-Agent` to send (unless a request names one); `""` for none; `nil` for the
    /// store's `http.user-agent` setting, and when it names none, no `User-Agent`.
    public var userAgent: String?
    /// The `Accept-Language` to send (unless a request names one); `""` for none; `nil` for the
    /// store's `http.accept-language` setting, and when it names none, no `Accept-Language`.
    /// The HTTP cache sees it, so a response that varies on it is kept per language.
    public var acceptLanguage: String?
    /// Whether to ask for compressed bodies (every encoding libcurl decodes) and decode them.
    public var acceptsCompressedResponses: Bool
    /// Fixed name resolutions, as curl's `--resolve`: `HOST:PORT:ADDRESS[,ADDRESS]…`.
    public var resolve: [String]
    /// The most redirects a request follows before it fails with `HTTPClientError.tooManyRedirects`.
    public var maxRedirects: Int
    /// Whether `Clear-Site-Data` response headers from secure origins clear the store.
    public var honorsClearSiteData: Bool
    /// Whether requests go through the store's HTTP cache (`store.httpCache`): stored responses
    /// served, stale ones revalidated, new ones stored. On by default.
    public var usesCache: Bool
    /// Whether a fresh hit of a plain request is served by `HTTPCache.freshHit` before the
    /// general path is set up. Tests turn it off to compare both paths; users have no reason to.
    package var servesFreshHitsFirst = true

    /// Creates a configuration; with no arguments, curl's defaults with TLS verification on,
    /// HTTP/2 offered over TLS, and 20 redirects at most.
    ///
    /// - Parameters:
    ///   - connectTimeout: the connection set-up limit in seconds.
    ///   - timeout: the whole-request limit in seconds.
    ///   - httpVersion: which HTTP versions to offer.
    ///   - caCertificateFile: a PEM file of certificate authorities.
    ///   - insecure: whether to skip certificate verification.
    ///   - proxy: a proxy URL.
    ///   - userAgent: the `User-Agent` to send.
    ///   - acceptLanguage: the `Accept-Language` to send.
    ///   - acceptsCompressedResponses: whether to ask for and decode compressed bodies.
    ///   - resolve: fixed name resolutions, `HOST:PORT:ADDRESS`.
    ///   - maxRedirects: the most redirects to follow.
    ///   - honorsClearSiteData: whether `Clear-Site-Data` is applied.
    ///   - usesCache: whether requests go through the store's HTTP cache.
    public init(
        connectTimeout: TimeInterval? = nil, timeout: TimeInterval? = nil,
        httpVersion: HTTPVersionPreference = .http2OverTLS, caCertificateFile: URL? = nil,
        insecure: Bool = false, proxy: String? = nil, userAgent: String? = nil, acceptLanguage: String? = nil,
        acceptsCompressedResponses: Bool = false, resolve: [String] = [], maxRedirects: Int = 20,
        honorsClearSiteData: Bool = true, usesCache: Bool = true
    ) {
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.httpVersion = httpVersion
        self.caCertificateFile = caCertificateFile
        self.insecure = insecure
        self.proxy = proxy
        self.userAgent = userAgent
        self.acceptLanguage = acceptLanguage
        self.acceptsCompressedResponses = acceptsCompressedResponses
        self.resolve = resolve
        self.maxRedirects = maxRedirects
        self.honorsClearSiteData = honorsClearSiteData
        self.usesCache = usesCache
    }
}

/// The HTTP versions a client offers, as curl's `--http1.1`, `--http2` and friends.
public enum HTTPVersionPreference: Sendable, Hashable {
    /// HTTP/1.1 only.
    case http1_1
    /// HTTP/2 where TLS negotiates it (ALPN), HTTP/1.1 otherwise: curl's default.
    case http2OverTLS
    /// HTTP/2 over TLS, and an `Upgrade: h2c` attempt over plain HTTP.
    case http2
    /// HTTP/2 without negotiation, for servers known to speak it (`--http2-prior-knowledge`).
    case http2PriorKnowledge
}
