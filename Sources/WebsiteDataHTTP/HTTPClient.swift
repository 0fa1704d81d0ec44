import CCurl
import Foundation
import WebsiteData

/// An HTTP client over libcurl that keeps its cookies in a `WebsiteDataStore`, as a browser does.
///
/// curl's own cookie engine and redirect following stay off. The client follows redirects
/// itself, so every hop reads its `Cookie` header from the store and writes every `Set-Cookie`
/// it receives (those of redirect responses too) back to it, with the request's browsing
/// context (top-level site, navigation or not, method, same-site redirect chain) deciding what
/// SameSite cookies go where. `Clear-Site-Data` from secure origins clears the store.
///
/// Every hop goes through the store's HTTP cache (`store.httpCache`, RFC 9111): fresh stored
/// responses are served without a request, stale ones revalidated with `If-None-Match` /
/// `If-Modified-Since`, new ones stored, in the request's `cacheMode`. Bodies over
/// `inMemoryBodyLimit` are streamed to a file, which the cache adopts by hard link.
/// `usesCache` in the configuration turns this off.
///
/// All transfers of one client share one libcurl multi handle, driven by one thread: connections
/// are reused and HTTP/2 streams multiplexed. Make one client and send many requests through
/// it, from as many tasks as you like.
///
/// ```swift
/// let store = try WebsiteDataStore(directory: dir)
/// let client = try HTTPClient(store: store)
/// let response = try await client.send(HTTPRequest(url: URL(string: "https://example.com/")!))
/// print(response.status, response.text)
/// ```
public final class HTTPClient: Sendable {
    /// The store cookies are read from and written to.
    public let store: WebsiteDataStore
    /// The options every request uses: those given, with the store's network identity
    /// (`WebsiteDataStore.networkIdentity()`, read when the client is made) where they left the
    /// proxy, `User-Agent` or `Accept-Language` `nil`.
    public let configuration: HTTPClientConfiguration

    private let engine: CurlEngine
    private let resolveList: CurlStringList?

    /// Creates a client and starts its transfer thread.
    ///
    /// - Parameters:
    ///   - store: the store to keep cookies in.
    ///   - configuration: the options for every request.
    /// - Throws: `CurlError` when libcurl cannot be initialised; `HTTPClientError.invalidRequest`
    ///   for a `resolve` entry with a CR, LF or NUL; `StoreError` when the store's settings cannot be read.
    public init(store: WebsiteDataStore, configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws {
        self.store = store
        var configuration = configuration
        if configuration.proxy == nil || configuration.userAgent == nil || configuration.acceptLanguage == nil {
            let identity = try store.networkIdentity()
            configuration.proxy = configuration.proxy ?? identity.proxy
            configuration.userAgent = configuration.userAgent ?? identity.userAgent
            configuration.acceptLanguage = configuration.acceptLanguage ?? identity.acceptLanguage
        }
        self.configuration = configuration
        resolveList = configuration.resolve.isEmpty ? nil : try CurlStringList(configuration.resolve)
        engine = try CurlEngine()
    }

    deinit { engine.stop() }

    /// Sends a `GET` for `url`, as a top-level navigation.
    ///
    /// - Parameter url: the URL to get.
    /// - Returns: the final response.
    /// - Throws: as `send(_:)`.
    public func get(_ url: URL) async throws -> HTTPResponse {
        try await send(HTTPRequest(url: url))
    }

    /// Sends a request, following redirects, with cookies from and to the store, through the
    /// store's HTTP cache.
    ///
    /// For each hop: the `Cookie` header is the store's for the hop's URL and context, followed
    /// by the request's own `Cookie` field while the chain is still on the first origin. The hop
    /// then goes through `store.httpCache` (unless `usesCache` is off) in the request's
    /// `cacheMode`, partitioned by the hop's top-level site; whenever the cache asks the network
    /// (a miss, a revalidation, a background `stale-while-revalidate` revalidation), the
    /// response's `Set-Cookie` fields are stored, then its `Clear-Site-Data` applied. A response
    /// served from the cache sets no cookie. A 301/302 turns `POST` into `GET` and a 303 turns
    /// anything but `HEAD` into `GET` (dropping the body and its header fields); 307/308 keep
    /// both. On leaving the first origin, `Authorization`, the request's own `Cookie` and
    /// `credentials` are dropped for good.
    ///
    /// - Parameter request: the request.
    /// - Returns: the final response, with every hop and where each came from.
    /// - Throws: `CurlError` for a transfer failure (connection, TLS, timeout…), also when a
    ///   stored response could not be revalidated and may not be served stale;
    ///   `HTTPClientError` for too many redirects, a bad redirect, a bad request, an
    ///   unwritable body file, or nothing stored in the `.onlyIfCached` mode; a `StoreError`
    ///   when the store cannot commit; `CancellationError` when the task is cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let scheme = Site.lowercasedScheme(of: request.url), scheme == "http" || scheme == "https",
            let firstSite = SchemefulSite(request.url, lowercasedScheme: scheme)
        else {
            throw HTTPClientError(
                .invalidRequest, "'\(request.url.absoluteString)' is not an http or https URL", url: request.url)
        }
        // Checked before the cache sees the request: it would take libcurl's refusal for an unreachable origin.
        try Self.validate(request.headers, url: request.url)
        let cookies = store.httpCookieStore
        let limit = (request.timeout ?? configuration.timeout).map { Int64(($0 * 1000).rounded(.up)) }
        let deadline = limit.map { ContinuousClock.now + .milliseconds($0) }
        let maxRedirects = request.maxRedirects ?? configuration.maxRedirects
        var url = request.url
        var method = Self.normalizedMethod(request.method)
        var body = request.body
        var headers = request.headers
        var callerCookie = ""
        // Most requests carry no `Cookie` field of their own: joining none made a string per request.
        if headers.first(named: "Cookie") != nil {
            callerCookie = headers.values(named: "Cookie").joined(separator: "; ")
            headers.removeAll(named: "Cookie")
        }
        if configuration.acceptsCompressedResponses, headers.first(named: "Accept-Encoding") == nil,
            !Self.decodedEncodings.isEmpty
        {
            // What libcurl would send, made explicit so that the cache sees it (`Vary: Accept-Encoding`).
            headers.append(HTTPHeaderField("Accept-Encoding", Self.decodedEncodings))
        }
        if let language = configuration.acceptLanguage, !language.isEmpty,
            headers.first(named: "Accept-Language") == nil
        {
            // Added here, not by the transfer, so that the cache sees it (`Vary: Accept-Language`).
            headers.append(HTTPHeaderField("Accept-Language", language))
        }
        var firstOriginOnly = true
        var chain = CookieRequestChain(topLevelSite: request.topLevelSite, isNavigation: request.isNavigation)
        var hops: [HTTPResponseHop] = []
        // The first hop's site, found by the check of the URL above; each later hop finds its own.
        var knownSite: SchemefulSite? = firstSite

        while true {
            let context = chain.next(url, site: knownSite ?? SchemefulSite(url), method: method)
            knownSite = nil

            var hopHeaders = headers
            var cookie = try cookies.cookieHeader(for: url, context: context) ?? ""
            if firstOriginOnly && !callerCookie.isEmpty {
                cookie = cookie.isEmpty ? callerCookie : cookie + "; " + callerCookie
            }
            if !cookie.isEmpty { hopHeaders.append(HTTPHeaderField("Cookie", cookie)) }

            // No hop starts once the limit is reached: the first only under a limit of zero or
            // less (no clock read, for a hit's sake), a later one by the clock.
            if let limit, let deadline, hops.isEmpty ? limit <= 0 : deadline <= ContinuousClock.now {
                throw CurlError(
                    code: CURLE_OPERATION_TIMEDOUT, detail: "the request's time limit was reached between redirects")
            }
            var hop = HopRequest(
                url: url, method: method, headers: hopHeaders, body: body,
                credentials: firstOriginOnly ? request.credentials : nil,
                timeoutMilliseconds: nil, sink: .memory,
                followsRedirects: request.followsRedirects, progress: request.progress)
            let result: HopExchange
            if configuration.usesCache {
                switch try freshHit(hop, request: request, partition: chain.partition) {
                case .served(let hit):
                    result = hit
                case .declined(let lookedUp):
                    hop.timeoutMilliseconds = deadline.map(Self.millisecondsLeft)
                    result = try await exchangeThroughCache(
                        hop, context: context, partition: chain.partition, mode: request.cacheMode,
                        wantsFile: request.destination != nil, lookedUp: lookedUp)
                }
            } else {
                hop.timeoutMilliseconds = deadline.map(Self.millisecondsLeft)
                if let destination = request.destination { hop.sink = .destination(destination) }
                let received = try await perform(hop)
                let refused = try applyResponseState(received.headers, from: url, context: context)
                result = HopExchange(
                    status: received.status, httpVersion: received.httpVersion, reasonPhrase: received.reasonPhrase,
                    headers: received.headers, requestHeaders: received.requestHeaders, refusedCookies: refused,
                    body: received.body, bodyFile: received.bodyFile, ownsBodyFile: false, cacheOutcome: nil)
            }
            hops.append(
                HTTPResponseHop(
                    url: url, method: method, status: result.status, httpVersion: result.httpVersion,
                    reasonPhrase: result.reasonPhrase, requestHeaders: result.requestHeaders,
                    refusedCookies: result.refusedCookies, headers: result.headers,
                    cacheOutcome: result.cacheOutcome))

            guard request.followsRedirects, HTTPRedirect.isRedirect(result.status),
                let location = result.headers.first(named: "Location")
            else {
                let (finalBody, bodyFile) = try deliver(result, to: request.destination, url: url)
                return HTTPResponse(
                    url: url, status: result.status, httpVersion: result.httpVersion, headers: result.headers,
                    body: finalBody, bodyFile: bodyFile, hops: hops, cacheOutcome: result.cacheOutcome)
            }
            result.discardBodyFile()
            if hops.count > maxRedirects {
                throw HTTPClientError(
                    .tooManyRedirects, "more than \(maxRedirects) redirects, the last from \(url.absoluteString)",
                    url: request.url)
            }
            let next = try HTTPRedirect.target(of: location, relativeTo: url)
            let rule = HTTPRedirect.nextMethod(after: result.status, method: method)
            method = rule.method
            if rule.dropsBody {
                body = nil
                for name in HTTPRedirect.bodyHeaderNames { headers.removeAll(named: name) }
            }
            if firstOriginOnly && !HTTPRedirect.isSameOrigin(next, request.url) {
                firstOriginOnly = false
                headers.removeAll(named: "Authorization")
            }
            url = next
        }
    }

    /// The whole milliseconds left before `deadline`, plus one: the transfer's time limit, read
    /// only when a hop goes to the network (a clock read and the division, made for every hop,
    /// were about 3% of a memory-cache hit).
    static func millisecondsLeft(_ deadline: ContinuousClock.Instant) -> Int {
        let left = deadline - ContinuousClock.now
        return Int(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000) + 1
    }

    /// Stores a response's `Set-Cookie` fields, then applies its `Clear-Site-Data` (Fetch's order).
    ///
    /// - Returns: the cookies the store refused, with the rule that refused each.
    @discardableResult
    func applyResponseState(
        _ headers: [HTTPHeaderField], from url: URL, context: CookieRequestContext
    ) throws -> [CookieRejection] {
        let setCookies = headers.values(named: "Set-Cookie")
        var refused: [CookieRejection] = []
        if !setCookies.isEmpty {
            refused = try store.httpCookieStore.setCookies(
                fromSetCookieHeaders: setCookies, for: url, context: context
            ).rejected
        }
        if configuration.honorsClearSiteData {
            try ClearSiteData.apply(headers, from: url, to: store)
        }
        return refused
    }

    /// Refuses header fields libcurl could not send as given: a bad name, or a CR, LF or NUL.
    static func validate(_ headers: [HTTPHeaderField], url: URL) throws(HTTPClientError) {
        for field in headers {
            if field.name.isEmpty || field.name.utf8.contains(where: { $0 <= 32 || $0 == 58 || $0 >= 127 }) {
                throw HTTPClientError(.invalidRequest, "'\(field.name)' is not a header field name", url: url)
            }
            if CurlStringList.hasLineBreakOrNUL(field.value) {
                throw HTTPClientError(
                    .invalidRequest, "the value of '\(field.name)' contains a NUL, CR or LF", url: url)
            }
        }
    }

    /// The `Accept-Encoding` value libcurl sends for `--compressed`: the encodings it can decode, in its order.
    static let decodedEncodings: String = {
        let features = curl_version_info(CURLVERSION_FIRST)?.pointee.features ?? 0
        var names: [String] = []
        if features & CURL_VERSION_LIBZ != 0 { names += ["deflate", "gzip"] }
        if features & CURL_VERSION_BROTLI != 0 { names.append("br") }
        if features & CURL_VERSION_ZSTD != 0 { names.append("zstd") }
        return names.joined(separator: ", ")
    }()

    /// Upper-cases the methods Fetch normalises (`get`, `post`…), and `patch`; others are sent as given.
    static func normalizedMethod(_ method: String) -> String {
        let upper = method.uppercased()
        return ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH"].contains(upper) ? upper : method
    }

    /// Runs one hop on the transfer thread and waits for it.
    func perform(_ hop: HopRequest) async throws -> HopResult {
        let id = engine.makeID()
        let flag = CancellationFlag()
        let handoff = TransferHandoff(
            transfer: try CurlTransfer(
                id: id, hop: hop, configuration: configuration,
                resolve: resolveList, cancellation: flag))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                handoff.transfer.start(continuation)
                engine.submit(handoff)
            }
        } onCancel: {
            flag.set()
            engine.cancel(id)
        }
    }
}
