import Foundation

/// A request as the HTTP cache sees it: method, URL, header fields and body.
///
/// The cache sits below redirect following: one `CacheRequest` is one hop. The body is
/// passed to the origin unchanged; only `GET` (and `HEAD`, answered from stored `GET`
/// responses) are served from the cache.
public struct CacheRequest: Sendable, Hashable {
    /// The method, as sent (`GET`, `HEAD`, `POST`, …); compared in upper case.
    public var method: String
    /// The URL requested; its fragment is ignored.
    public var url: URL
    /// The header fields to send, in order.
    public var headers: HTTPHeaders
    /// The body to send, or `nil` for none.
    public var body: Data?

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: the method; `GET` by default.
    ///   - url: the URL.
    ///   - headers: the header fields to send.
    ///   - body: the body, if any.
    public init(method: String = "GET", url: URL, headers: HTTPHeaders = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The method in upper case (most methods are sent so, and are then returned as they are).
    var normalizedMethod: String {
        method.utf8.allSatisfy({ $0 < 0x80 && !(0x61...0x7A).contains($0) }) ? method : method.uppercased()
    }
}

/// A response body: bytes in memory, or a file.
///
/// A file body handed to the cache by an origin (`OriginResponse`) stays the caller's: the
/// cache adopts it by hard link when it stores the response, so no byte is copied and the
/// caller may move or delete its file afterwards (but must not rewrite it in place). A file
/// body handed back by the cache (`CachedResponse`) is likewise the caller's to move or
/// delete; make origin files with `HTTPCache.makeTemporaryBodyFile()` so they sit on the
/// cache's file system.
public enum CacheBody: Sendable, Hashable {
    /// Bytes in memory.
    case data(Data)
    /// A file holding the bytes.
    case file(URL)

    /// No bytes.
    public static let empty = CacheBody.data(Data())

    /// The number of bytes.
    ///
    /// - Returns: the size; 0 for a file that cannot be read.
    public var byteCount: Int64 {
        switch self {
        case .data(let data): return Int64(data.count)
        case .file(let url):
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        }
    }

    /// Reads the whole body into memory.
    ///
    /// - Returns: the bytes.
    /// - Throws: a file system error when a file body cannot be read.
    public func data() throws -> Data {
        switch self {
        case .data(let data): return data
        case .file(let url): return try Data(contentsOf: url, options: .mappedIfSafe)
        }
    }
}

/// The response an origin gave to a request the cache forwarded.
public struct OriginResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields, in order, duplicates kept (as received: the cache removes what it must not store).
    public var headers: HTTPHeaders
    /// The body (none for `HEAD`, `204` and `304`).
    public var body: CacheBody

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: the header fields.
    ///   - body: the body; none by default.
    public init(status: Int, headers: HTTPHeaders = [], body: CacheBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Where a response the cache returned came from (the `X-Cache`-style verdict).
public enum CacheOutcome: String, Sendable, Hashable, CaseIterable {
    /// Served from the cache without contacting the origin (including a `304` the cache
    /// generated for the caller's own conditional request).
    case hit = "HIT"
    /// Fetched from the origin (and stored when it could be).
    case miss = "MISS"
    /// A stored response the origin confirmed with `304 Not Modified`, served with the updated header fields.
    case revalidated = "REVALIDATED"
    /// A stale stored response served because `stale-while-revalidate` or `stale-if-error`
    /// (RFC 5861), the request's `max-stale`, a `force-cache`/`only-if-cached` mode, or an
    /// unreachable origin allowed it.
    case stale = "STALE"
}

/// How a request uses the cache, as Fetch's `cache` option.
public enum CacheMode: String, Sendable, Hashable, CaseIterable {
    /// RFC 9111: fresh stored responses are used, stale ones revalidated, new ones stored.
    case `default` = "default"
    /// The cache is neither read nor written; `Cache-Control: no-cache` and `Pragma: no-cache` are sent.
    case noStore = "no-store"
    /// The cache is not read but the response is stored; `Cache-Control: no-cache` and `Pragma: no-cache` are sent.
    case reload = "reload"
    /// A stored response is always revalidated first (a fresh `immutable` one excepted);
    /// `Cache-Control: max-age=0` is sent.
    case noCache = "no-cache"
    /// A stored response is used however stale; otherwise the origin is asked.
    case forceCache = "force-cache"
    /// A stored response is used however stale; otherwise a `504` is generated and the origin is never asked.
    case onlyIfCached = "only-if-cached"
}

/// The response the cache hands back for a request.
public struct CachedResponse: Sendable {
    /// The status code (`206` for a range served from a stored response, `304` for a caller's
    /// conditional request the stored response satisfies, `504` when the cache could not answer).
    public var status: Int
    /// The header fields; a stored response carries an `Age` field with its current age.
    public var headers: HTTPHeaders
    /// The body: bytes, or a file that is now the caller's (see `CacheBody`).
    public var body: CacheBody
    /// Where the response came from.
    public var outcome: CacheOutcome
    /// The header fields the origin sent in this exchange (the full response, the `304`, or
    /// the `HEAD` response), or `nil` when the origin was not contacted.
    ///
    /// A client that applies `Set-Cookie` or `Clear-Site-Data` reads them here (or in its
    /// origin closure), never from `headers`: a stored response must not replay them.
    public var networkHeaders: HTTPHeaders?
    /// Whether the cache generated the response itself (a `504 Gateway Timeout` for
    /// `only-if-cached`, or for a stale response that may not be served while the origin is unreachable).
    public var isSynthesized: Bool

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: the header fields.
    ///   - body: the body.
    ///   - outcome: where it came from.
    ///   - networkHeaders: the header fields received from the origin in this exchange.
    ///   - isSynthesized: whether the cache generated it.
    public init(
        status: Int, headers: HTTPHeaders, body: CacheBody, outcome: CacheOutcome,
        networkHeaders: HTTPHeaders? = nil, isSynthesized: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.outcome = outcome
        self.networkHeaders = networkHeaders
        self.isSynthesized = isSynthesized
    }
}
