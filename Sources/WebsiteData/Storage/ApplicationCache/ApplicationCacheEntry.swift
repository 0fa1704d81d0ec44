import Foundation

/// One resource of an application cache group: a URL and the response stored for it.
public struct ApplicationCacheEntry: Sendable, Hashable {
    /// Why a resource is in the cache, as the HTML application cache names its categories.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// A page that referred to the manifest (`<html manifest=…>`).
        case master
        /// The manifest itself.
        case manifest
        /// A resource listed in the manifest's `CACHE:` section.
        case explicit
        /// A fallback resource of the manifest's `FALLBACK:` section.
        case fallback
    }

    /// The resource's URL (without a fragment: lookups ignore fragments).
    public var url: URL
    /// Why it is cached.
    public var kind: Kind
    /// The response's status code.
    public var statusCode: Int
    /// The response's header fields, in the order received.
    public var headers: [HTTPHeaderField]
    /// The response body.
    public var body: Data

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - url: the resource's URL; a fragment is dropped.
    ///   - kind: why it is cached; `.explicit` by default.
    ///   - statusCode: the response's status; 200 by default.
    ///   - headers: the response's header fields.
    ///   - body: the response body.
    public init(url: URL, kind: Kind = .explicit, statusCode: Int = 200, headers: [HTTPHeaderField] = [], body: Data) {
        self.url = ApplicationCacheStorage.withoutFragment(url)
        self.kind = kind
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    /// The bytes the entry counts in its group's size: the UTF-8 bytes of its URL and of each
    /// header name and value, and the body's bytes.
    public var size: Int64 {
        Int64(
            url.absoluteString.utf8.count + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
                + body.count)
    }

    /// The value of the first header field with this name (ignoring ASCII case), if any.
    ///
    /// - Parameter name: the field name.
    /// - Returns: its value, or `nil` when the response has no such field.
    public func headerValue(_ name: String) -> String? { headers.first(named: name) }
}
