import Foundation
import WebsiteData

/// The response to an `HTTPClient` request: the final status, header fields and body, and every
/// hop of the redirect chain that led to it.
public struct HTTPResponse: Sendable {
    /// The URL of the final response (after redirects).
    public var url: URL
    /// The final status code.
    public var status: Int
    /// The HTTP version of the final response: `1.0`, `1.1`, `2` or `3`.
    public var httpVersion: String
    /// The final response's header fields, in order, duplicates kept.
    public var headers: [HTTPHeaderField]
    /// The final body, decoded when `acceptsCompressedResponses` is on; empty when it went to `bodyFile`.
    public var body: Data
    /// The file the body was written to, when the request named a `destination`.
    public var bodyFile: URL?
    /// Every response of the chain, the redirects first and the final response last.
    public var hops: [HTTPResponseHop]
    /// Where the final response came from: `.hit` (the store's cache, no request made), `.miss`
    /// (the network), `.revalidated` (a stored response the origin confirmed with a `304`) or
    /// `.stale` (a stale stored response served as RFC 9111, RFC 5861 or the cache mode allow);
    /// `nil` when the cache was not involved (the client's `usesCache` is off, or a method
    /// other than `GET` and `HEAD`).
    public var cacheOutcome: CacheOutcome?

    /// The value of the first final header field named `name` (case-insensitive), or `nil`.
    ///
    /// - Parameter name: the field name.
    /// - Returns: the value, or `nil` when the final response has no such field.
    public func value(forHeader name: String) -> String? { headers.first(named: name) }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// One request and response of a redirect chain.
public struct HTTPResponseHop: Sendable, Hashable {
    /// The URL requested.
    public var url: URL
    /// The method used.
    public var method: String
    /// The status code received.
    public var status: Int
    /// The HTTP version of this hop's response: `1.0`, `1.1`, `2` or `3`; `1.1` for a response
    /// served from the cache, which does not keep the version it was received with.
    public var httpVersion: String
    /// The reason phrase of the status line as the server sent it (`Found` in
    /// `HTTP/1.1 302 Found`); empty when it sent none (HTTP/2 and HTTP/3 have none) and for a
    /// response served from the cache.
    public var reasonPhrase: String
    /// The request header fields sent for this hop, in order, as libcurl writes them: `Host`,
    /// `Authorization` (from `credentials`), `User-Agent` and `Accept` unless the request gave
    /// its own, the request's fields (the store's `Cookie` among them, and the cache's
    /// `If-None-Match` or `If-Modified-Since` on a revalidation), then `Content-Length` when
    /// there is a body. Empty when no request was sent (the response came from the cache).
    public var requestHeaders: [HTTPHeaderField]
    /// The `Set-Cookie` fields of this hop's response that the store refused, each with the rule
    /// that refused it, in the order received; empty when every cookie was stored or the
    /// response came from the cache.
    public var refusedCookies: [CookieRejection]
    /// The header fields received, in order, duplicates kept (a stored response's, with a
    /// current `Age`, when it came from the cache).
    public var headers: [HTTPHeaderField]
    /// Where this hop's response came from; `nil` when the cache was not involved.
    public var cacheOutcome: CacheOutcome?
}
