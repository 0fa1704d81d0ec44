import Foundation

extension StoreSetting {
    /// The proxy `HTTPClient` and `wkstore fetch` use, as WebKit's `proxyConfigurations` and
    /// Playwright's `proxy` context option: a proxy URL, or `direct` for none.
    public static let httpProxy = StoreSetting(
        key: "http.proxy",
        summary:
            "the proxy requests use (http://host:port, socks5h://host:port…), or direct for none; unset: libcurl's http_proxy, https_proxy and no_proxy",
        defaultValue: "", validate: NetworkIdentity.proxyProblem)
    /// The `User-Agent` `HTTPClient` and `wkstore fetch` send, as Playwright's `userAgent`.
    public static let httpUserAgent = StoreSetting(
        key: "http.user-agent",
        summary: "the User-Agent requests send; unset: the client's own (wkstore fetch: wkstore/VERSION)",
        defaultValue: "", validate: { NetworkIdentity.fieldProblem($0) })
    /// The `Accept-Language` `HTTPClient` and `wkstore fetch` send, as Playwright's `locale`
    /// gives it.
    public static let httpAcceptLanguage = StoreSetting(
        key: "http.accept-language",
        summary: "the Accept-Language requests send (en-US,en;q=0.9); unset: none",
        defaultValue: "", validate: { NetworkIdentity.fieldProblem($0) })
}

/// The network identity a store keeps for the clients that use it: the proxy, `User-Agent` and
/// `Accept-Language` in its settings (`http.proxy`, `http.user-agent`, `http.accept-language`),
/// shared by every process. A client's own configuration and a request's own header fields
/// take precedence.
public struct NetworkIdentity: Sendable, Hashable {
    /// The proxy URL; `""` for no proxy (the setting `direct`); `nil` when the store names
    /// none (libcurl's default then reads the proxy environment variables).
    public var proxy: String?
    /// The `User-Agent`, or `nil` when the store names none.
    public var userAgent: String?
    /// The `Accept-Language`, or `nil` when the store names none.
    public var acceptLanguage: String?

    /// Creates an identity.
    ///
    /// - Parameters:
    ///   - proxy: the proxy URL, `""` for none.
    ///   - userAgent: the `User-Agent`.
    ///   - acceptLanguage: the `Accept-Language`.
    public init(proxy: String? = nil, userAgent: String? = nil, acceptLanguage: String? = nil) {
        self.proxy = proxy
        self.userAgent = userAgent
        self.acceptLanguage = acceptLanguage
    }

    /// The schemes libcurl takes for a proxy.
    static let proxySchemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// Why `value` is not an `http.proxy` value, or `nil` when it is one.
    @Sendable static func proxyProblem(_ value: String) -> String? {
        if value.isEmpty || value == "direct" { return nil }
        if let problem = fieldProblem(value) { return problem }
        guard let url = URL(string: value), let scheme = url.scheme?.lowercased(), proxySchemes.contains(scheme),
            let host = url.host(percentEncoded: false), !host.isEmpty, !value.contains(" ")
        else {
            return
                "expected a proxy URL (\(proxySchemes.sorted().joined(separator: ", ")), such as http://proxy.internal:3128) or direct"
        }
        return nil
    }

    /// Why `value` cannot be a header field's value (a control character, or over 8192 bytes),
    /// or `nil` when it can.
    static func fieldProblem(_ value: String) -> String? {
        if value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
            return "a header field value may not hold a control character (CR, LF, NUL…)"
        }
        if value.utf8.count > 8192 { return "longer than 8192 bytes" }
        return nil
    }
}

extension WebsiteDataStore {
    /// The network identity kept in the store's settings, for every process using it.
    ///
    /// - Returns: the identity; a field the store does not set is `nil`.
    /// - Throws: `StoreError` when the settings cannot be read.
    public func networkIdentity() throws -> NetworkIdentity {
        let settings = try settings()
        func value(_ setting: StoreSetting) -> String? {
            guard let text = settings[setting], !text.isEmpty else { return nil }
            return text
        }
        let proxy = value(.httpProxy)
        return NetworkIdentity(
            proxy: proxy == "direct" ? "" : proxy, userAgent: value(.httpUserAgent),
            acceptLanguage: value(.httpAcceptLanguage))
    }
}
