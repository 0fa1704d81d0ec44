import Foundation

/// A web origin: a scheme, a host and a port, as web storage is keyed by them.
///
/// The serialization is `scheme://host[:port]` (the HTML "ASCII serialization of an origin"):
/// scheme and host in lower case, IPv6 hosts in brackets, the port omitted when it is the
/// scheme's default. Every `file:` URL has the one origin `file://`, as WebKit keys local
/// documents' storage. URLs without a host (`data:`, `about:blank`, `blob:`) have an opaque
/// origin, which has no storage, so they make no `SecurityOrigin`.
public struct SecurityOrigin: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The scheme, in lower case (`https`).
    public let scheme: String
    /// The host, in lower case, without brackets for IPv6; empty for `file://`.
    public let host: String
    /// The port, or `nil` when it is the scheme's default (or the scheme has none).
    public let port: Int?

    /// The origin of a URL.
    ///
    /// The path, query, fragment and user information of the URL are ignored: an origin is
    /// what pages of one scheme, host and port share.
    ///
    /// - Parameter url: any URL of the origin (`https://www.example.com:8443/a/b?c`).
    /// - Returns: `nil` when the URL has an opaque origin (no host, and not `file:`).
    public init?(url: URL) {
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty else { return nil }
        if scheme == "file" {
            self.init(uncheckedScheme: "file", host: "", port: nil)
            return
        }
        guard let host = Site.canonicalHost(of: url), !host.isEmpty,
            !host.unicodeScalars.contains(where: {
                $0.value <= 0x20 || $0.value == 0x7F || "/\\?#@".unicodeScalars.contains($0)
            })
        else { return nil }
        var port = url.port
        if let given = port, !(0...65535).contains(given) { return nil }
        if port == Self.defaultPorts[scheme] { port = nil }
        self.init(uncheckedScheme: scheme, host: host, port: port)
    }

    /// Parses the serialization of an origin.
    ///
    /// Accepts `scheme://host[:port]`, optionally followed by a single `/`, as `description`
    /// prints it; anything more (a path, a query, a fragment, user information) is refused, so a
    /// page URL is not mistaken for an origin. Use `init(url:)` to take the origin of a page URL.
    ///
    /// - Parameter string: the serialization (`https://example.com:8443`).
    /// - Returns: `nil` when the string is not the serialization of a tuple origin.
    public init?(string: String) {
        var text = Substring(string)
        if text.hasSuffix("/") && !text.hasSuffix("://") { text = text.dropLast() }
        guard let separator = text.range(of: "://") else { return nil }
        let authority = text[separator.upperBound...]
        if authority.contains(where: { "/?#@\\".contains($0) }) { return nil }
        guard let url = URL(string: String(text)), url.path.isEmpty || url.path == "/",
            url.query == nil, url.fragment == nil, url.user == nil, url.password == nil,
            let origin = SecurityOrigin(url: url)
        else { return nil }
        if origin.scheme == "file" && !authority.isEmpty { return nil }
        self = origin
    }

    private init(uncheckedScheme scheme: String, host: String, port: Int?) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// The serialization: `scheme://host[:port]`.
    public var description: String {
        var text = scheme + "://"
        text += host.contains(":") ? "[\(host)]" : host
        if let port { text += ":\(port)" }
        return text
    }

    /// The origin as a URL (`https://example.com:8443/`).
    public var url: URL {
        URL(string: description + "/")!
    }

    /// The site (display name) the origin's data is listed and removed under (`Site.displayName(for:)`).
    public var site: String {
        Site.displayName(for: url) ?? host
    }

    /// Orders origins by their serialization.
    public static func < (lhs: SecurityOrigin, rhs: SecurityOrigin) -> Bool {
        lhs.description < rhs.description
    }

    /// Decodes an origin from its serialization.
    ///
    /// - Parameter decoder: the decoder holding a single string.
    /// - Throws: `DecodingError.dataCorrupted` when the string is not an origin.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let origin = SecurityOrigin(string: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an origin")
        }
        self = origin
    }

    /// Encodes the origin as its serialization.
    ///
    /// - Parameter encoder: the encoder to write a single string to.
    /// - Throws: the encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Ports that the serialization omits, per scheme (the URL Standard's special schemes).
    static let defaultPorts: [String: Int] = ["http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21]
}
