import Foundation
import WebsiteData

extension CurlTransfer {
    /// The request header fields libcurl sends for `hop`, in the order it sends them, computed
    /// from what the transfer gives libcurl rather than read back from it.
    ///
    /// libcurl (HTTP/1.x, `http.c`) writes `Host`, `Authorization` (Basic, from the
    /// credentials), `User-Agent` and `Accept: */*`, each unless a field of the same name is
    /// among the caller's; then the caller's fields in order (`Host` in the first place when
    /// given); then `Content-Length` for a request with a body (`POST` always has one). The
    /// transfer removes libcurl's `Expect` and form `Content-Type`, so neither is listed unless
    /// the caller gave it.
    ///
    /// - Parameters:
    ///   - hop: the hop being sent.
    ///   - configuration: the client's options (`userAgent`).
    /// - Returns: the fields, duplicates kept.
    static func requestHeaders(for hop: HopRequest, configuration: HTTPClientConfiguration) -> [HTTPHeaderField] {
        let given = hop.headers
        var fields: [HTTPHeaderField] = []
        if let host = given.first(named: "Host") {
            fields.append(HTTPHeaderField("Host", host))
        } else {
            fields.append(HTTPHeaderField("Host", hostField(of: hop.url)))
        }
        if let credentials = hop.credentials, given.first(named: "Authorization") == nil {
            let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
            fields.append(HTTPHeaderField("Authorization", "Basic " + token))
        }
        if let userAgent = configuration.userAgent, !userAgent.isEmpty, given.first(named: "User-Agent") == nil {
            fields.append(HTTPHeaderField("User-Agent", userAgent))
        }
        if given.first(named: "Accept") == nil { fields.append(HTTPHeaderField("Accept", "*/*")) }
        fields += given.filter { !$0.hasName("Host") }
        if hop.body != nil || hop.method == "POST", given.first(named: "Content-Length") == nil {
            fields.append(HTTPHeaderField("Content-Length", String(hop.body?.count ?? 0)))
        }
        return fields
    }

    /// `host` or `host:port` (the port only when it is not the scheme's default), IPv6 in brackets.
    static func hostField(of url: URL) -> String {
        var host = url.host(percentEncoded: true) ?? ""
        // Searched as bytes: `contains` with a string argument is Foundation's, through
        // `NSString`, and took a hundredth of every transfer's request.
        if host.utf8.contains(UInt8(ascii: ":")) && !host.hasPrefix("[") { host = "[" + host + "]" }
        let scheme = Site.lowercasedScheme(of: url)
        guard let port = url.port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) else {
            return host
        }
        return "\(host):\(port)"
    }
}
