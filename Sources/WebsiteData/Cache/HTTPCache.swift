import Foundation

/// A private HTTP cache (RFC 9111 with RFC 5861) in front of an origin: the layer an HTTP
/// client calls for each request, below redirect following.
///
/// `send(_:mode:topLevelSite:origin:)` answers a request from the cache when it can and
/// calls `origin` (the network) when it must: for a miss, to revalidate a stale response
/// with `If-None-Match`/`If-Modified-Since`, or to forward a request the cache does not
/// serve. Responses are stored partitioned by the top-level site the request was made
/// under, by URL and by `Vary` variant: on disk (persistent stores, within the store
/// setting `cache.max-size`) and in this process's memory (within `memorycache.max-size`).
///
/// What it does, in short:
/// - `GET` responses are stored when RFC 9111 §3 allows (with `max-age`, `Expires`, or a
///   heuristically cacheable status and `Last-Modified`, …), never with `no-store`; a `HEAD`
///   is answered from a stored `GET` response, and a `200` answer to a forwarded `HEAD`
///   refreshes the stored `GET` response; a `POST` response with explicit freshness and a
///   `Content-Location` naming its own URL is stored for `GET`.
/// - A successful unsafe request (`POST`, `PUT`, `DELETE`, any unknown method) invalidates
///   the stored responses of its URL and of same-origin `Location` and `Content-Location`.
/// - A `Range` request is answered with a `206` from a stored complete response; the cache
///   answers the caller's own `If-None-Match`/`If-Modified-Since` with a `304` when the stored
///   response satisfies it.
/// - `stale-while-revalidate` serves the stale response and revalidates in the background;
///   `stale-if-error` serves it when the origin fails (a thrown error, or 500, 502, 503, 504);
///   when the origin cannot be reached at all (its closure throws) a stale response is served
///   unless `must-revalidate` or `no-cache` forbids it, in which case the answer is a generated `504`.
///
/// Storing is best effort: a response that cannot be stored (a full disk, a database error)
/// is still returned. `HTTPCache` is a view of the store's cache components; make as many as
/// you like.
public struct HTTPCache: Sendable {
    let disk: HTTPDiskCache
    let memory: HTTPMemoryCache
    let database: StoreDatabase
    let clock: @Sendable () -> Date

    /// The network: performs one request (one hop, no redirect following) and returns the
    /// origin's response. Throw to report that the origin could not be reached.
    ///
    /// It may be called after `send` has returned, for a `stale-while-revalidate` background
    /// revalidation. A client that applies `Set-Cookie` and `Clear-Site-Data` should do so
    /// here, so that background revalidations apply them too.
    public typealias Origin = @Sendable (CacheRequest) async throws -> OriginResponse

    /// Answers a request from the cache, the origin, or both.
    ///
    /// - Parameters:
    ///   - request: the request (one hop).
    ///   - mode: how the request uses the cache (Fetch's `cache` option); `.default` applies RFC 9111.
    ///   - topLevelSite: the URL of the top-level page making the request, or `nil` for a
    ///     top-level request; the cache is partitioned by its site.
    ///   - origin: performs a request on the network.
    /// - Returns: the response, and where it came from.
    /// - Throws: the origin's error when it was needed and failed and no stored response
    ///   could stand in; `CancellationError` when cancelled.
    public func send(
        _ request: CacheRequest, mode: CacheMode = .default, topLevelSite: URL? = nil,
        origin: @escaping Origin
    ) async throws -> CachedResponse {
        try await send(
            request, mode: mode, partition: CacheEntryKey.partition(topLevelSite: topLevelSite, url: request.url),
            origin: origin)
    }

    /// `send(_:mode:topLevelSite:origin:)` with the partition (`CacheEntryKey.partition`) given
    /// by a client that knows it already.
    ///
    /// - Parameter lookedUp: what `freshHit(_:partition:)` found for this request when it
    ///   declined it (its use recorded), so that the exchange does not look it up again.
    package func send(
        _ request: CacheRequest, mode: CacheMode, partition: String, lookedUp: Lookup? = nil,
        origin: @escaping Origin
    ) async throws -> CachedResponse {
        let settings = memory.settingsOrDefaults()
        let exchange = CacheExchange(
            cache: self, request: request, mode: mode, partition: partition, settings: settings,
            lookedUp: lookedUp, origin: origin)
        switch request.normalizedMethod {
        case "GET", "HEAD": return try await exchange.retrieve()
        case "OPTIONS", "TRACE", "CONNECT": return try await exchange.forward()
        default: return try await exchange.unsafe()
        }
    }

    /// A new, empty, owner-only file for the body of a response being received, on the cache's
    /// file system (in the store's `cache/` folder; in a private temporary folder for a
    /// non-persistent or read-only store), so that storing the response costs a hard link, not a copy.
    ///
    /// - Returns: the file's URL. The file is the caller's until it passes it to the cache in an `OriginResponse`.
    /// - Throws: a file system error when the file cannot be made.
    public func makeTemporaryBodyFile() throws -> URL {
        if disk.writesFiles { return try disk.makeTemporaryFile() }
        let url = try HTTPDiskCache.privateTemporaryName()
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        return url
    }

    /// What a lookup found: the stored response that answers the request, or, when none does,
    /// every stored variant of its URL in its partition. Opaque outside the cache: the client
    /// only hands it from `freshHit` to `send`.
    package struct Lookup: Sendable {
        let entry: CacheEntry?
        let variants: [CacheEntry]
    }

    /// The stored response that answers `request` in `partition`, marked used: the memory
    /// cache first, then the disk cache (whose entry is then kept in memory too, with the
    /// options of `settings`). When nothing matched, every stored variant of the requested URL
    /// in this partition (read by the same query: a miss read the disk twice).
    func lookup(_ request: CacheRequest, partition: String, settings: () -> CacheSettings) throws -> Lookup {
        let url = CachePolicy.cacheURL(request.url)
        let resource = CacheResourceKey(partition: partition, method: "GET", url: url.absoluteString)
        if let entry = memory.use(resource, for: request) { return Lookup(entry: entry, variants: []) }
        return try lookupPastMemory(request, resource: resource, url: url, settings: settings)
    }

    /// `lookup` once the memory cache had no entry for `resource` (the request's, at `url`
    /// without fragment): the disk cache, or the memory cache's variants when there is no disk.
    func lookupPastMemory(
        _ request: CacheRequest, resource: CacheResourceKey, url: URL, settings: () -> CacheSettings
    ) throws -> Lookup {
        guard disk.isEnabled else { return Lookup(entry: nil, variants: memory.entries(for: resource)) }
        let stored = try disk.entries(for: resource, url: url)
        // Every entry read has the resource's URL.
        guard var entry = stored.first(where: { $0.policy.matchesVariant(of: request) }) else {
            return Lookup(entry: nil, variants: stored)
        }
        let settings = settings()
        entry.policy = entry.policy.with(options: settings.policyOptions)
        // The copy knows when the row last recorded a use: this one records it unless that was recent.
        memory.store(
            entry, mirrorsDisk: true, limit: settings.memoryMaxSize,
            diskAccessRecorded: entry.diskAccessIsRecorded ? entry.diskLastAccess : nil)
        return Lookup(entry: entry, variants: [])
    }

    /// Waits until the responses this store object stored are committed to the disk cache.
    ///
    /// Small responses are written behind: `send` returns before their rows are committed (with
    /// others, in the background), as browsers write their caches. Every read of the cache
    /// through this store object sees them; call this before another process or another store
    /// object must (before exiting, for instance). A crash loses such a response whole, never
    /// half of it.
    public func waitForPendingWrites() {
        disk.waitForWritesBehind()
    }

    /// Waits until every background revalidation started so far (`stale-while-revalidate`) has finished.
    public func waitForBackgroundRevalidations() async {
        await memory.waitForBackgroundWork()
    }

    /// Bytes the disk cache holds (0 for a non-persistent store).
    ///
    /// - Returns: the size, as counted against `cache.max-size`.
    /// - Throws: `StoreError` when the database cannot be read.
    public func diskUsage() throws -> Int64 { try disk.byteCount() }

    /// Bytes this process's memory cache holds.
    public var memoryUsage: Int64 { memory.byteCount }
}

/// One request going through the cache: its context, and the steps of RFC 9111 §4.
private struct CacheExchange: Sendable {
    let cache: HTTPCache
    let request: CacheRequest
    let mode: CacheMode
    let partition: String
    let settings: CacheSettings
    /// The fast path's lookup of this request, when it declined it: the first lookup's answer.
    let lookedUp: HTTPCache.Lookup?
    let origin: HTTPCache.Origin

    var options: CachePolicy.Options { settings.policyOptions }
    var method: String { request.normalizedMethod }
    var now: Date { cache.clock() }
    var urlKey: String { CachePolicy.cacheURL(request.url).absoluteString }
    var site: String { Site.displayName(for: request.url) ?? "" }

    /// Conditions the cache cannot evaluate against a stored response: the request goes to the origin.
    var hasForeignConditions: Bool {
        ["If-Match", "If-Unmodified-Since", "If-Range"].contains { request.headers.contains($0) }
    }

    /// The caller's own validation headers.
    var isCallerConditional: Bool {
        request.headers.contains("If-None-Match") || request.headers.contains("If-Modified-Since")
    }

    // MARK: - GET and HEAD

    func retrieve() async throws -> CachedResponse {
        let control = CacheControl(headers: request.headers)
        if mode == .noStore || control.contains("no-store") { return try await fetch(storing: false) }
        if mode == .reload || hasForeignConditions || (request.headers.contains("Range") && byteRange == nil) {
            return try await fetch(storing: true, replacing: mode == .reload ? try lookup() : nil)
        }
        let onlyIfCached = mode == .onlyIfCached || control.contains("only-if-cached")
        let lookup = try lookedUp ?? lookupWithVariants()
        guard let entry = lookup.entry else {
            if onlyIfCached { return Self.gatewayTimeout() }
            if method == "GET", mode != .noCache, !isCallerConditional, byteRange == nil {
                let others = lookup.variants.filter { $0.policy.headers.contains("ETag") }
                if !others.isEmpty { return try await validateVariants(others) }
            }
            return try await fetch(storing: true)
        }
        let policy = entry.policy
        let now = self.now
        switch mode {
        case .forceCache, .onlyIfCached:
            return try await serveOrFetch(
                entry, outcome: policy.isStale(at: now) ? .stale : .hit, allowFetch: mode == .forceCache)
        case .noCache:
            if policy.isImmutable, !policy.requiresValidation, !policy.isStale(at: now) {
                return try await serveOrFetch(entry, outcome: .hit)
            }
            return try await revalidate(entry)
        default:
            switch policy.reuse(for: request, at: now) {
            case .fresh: return try await serveOrFetch(entry, outcome: .hit)
            case .staleAllowed: return try await serveOrFetch(entry, outcome: .stale)
            case .staleWhileRevalidate:
                let background = self
                cache.memory.runInBackground(key: entry.key) {
                    if let response = try? await background.revalidate(entry) { response.body.discardIfFile() }
                }
                return try await serveOrFetch(entry, outcome: .stale)
            case .revalidate:
                return onlyIfCached ? Self.gatewayTimeout() : try await revalidate(entry)
            case .unusable:
                return try await fetch(storing: true)
            }
        }
    }

    /// The stored response that answers the request: the memory cache first, then the disk cache.
    func lookup() throws -> CacheEntry? { try lookupWithVariants().entry }

    /// `lookup()`, and when nothing matched, every stored variant of the requested URL in this
    /// partition (read by the same query: a miss read the disk twice).
    func lookupWithVariants() throws -> HTTPCache.Lookup {
        try cache.lookup(request, partition: partition, settings: { settings })
    }

    /// No stored variant matches the request's `Vary` fields: asks the origin with the entity
    /// tags of the stored variants (RFC 9111 §4.3.1). A `304` naming one of them selects it
    /// (§4.3.4): it is refreshed, stored for this request's variant too, and served. A `304`
    /// naming none is not an answer to the caller's request: the request is sent again without condition.
    func validateVariants(_ variants: [CacheEntry]) async throws -> CachedResponse {
        var outgoing = request
        outgoing.headers.set(
            "If-None-Match", variants.compactMap { $0.policy.headers.first(named: "ETag") }.joined(separator: ", "))
        addModeHeaders(&outgoing.headers)
        let requestTime = now
        let response = try await origin(outgoing)
        let responseTime = now
        guard response.status == 304 else {
            return received(
                response, request: outgoing, requestTime: requestTime, responseTime: responseTime, storing: true,
                replacing: nil)
        }
        guard let etag = response.headers.first(named: "ETag").map(CachePolicy.weakTag),
            let selected = variants.first(where: {
                $0.policy.headers.first(named: "ETag").map(CachePolicy.weakTag) == etag
            })
        else { return try await fetch(storing: true) }
        let (updated, _) = selected.policy.revalidated(
            request: outgoing, status: 304, headers: response.headers,
            requestTime: requestTime, responseTime: responseTime)
        refresh(selected, with: updated)
        let variant = CachePolicy(
            method: updated.method, url: updated.url, status: updated.status, headers: updated.headers,
            requestTime: requestTime, responseTime: responseTime,
            variantKey: CachePolicy.variantKey(CachePolicy.varyNames(updated.headers), request.headers),
            options: options)
        switch selected.body {
        case .inline(let data): store(variant, body: .data(data))
        case .file(let name, _): if let url = cache.disk.fileURL(name) { store(variant, body: .file(url)) }
        case .chunks(let id, let size):
            if let url = try? cache.disk.chunksCopy(entry: id, size: size) {
                store(variant, body: .file(url))
                try? FileManager.default.removeItem(at: url)
            }
        }
        if let entry = try lookup(), var served = try serve(entry, outcome: .revalidated) {
            served.networkHeaders = response.headers
            return served
        }
        return try await fetch(storing: true)
    }

    /// Validates a stored response with the origin (or, without validators, fetches anew), and
    /// answers with the updated stored response, a stale one when errors allow, or the new response.
    func revalidate(_ entry: CacheEntry) async throws -> CachedResponse {
        let policy = entry.policy
        var outgoing = request
        if method == "GET" && !isCallerConditional { outgoing.headers = policy.revalidationHeaders(for: request) }
        addModeHeaders(&outgoing.headers)
        let requestTime = now
        let response: OriginResponse
        do {
            response = try await origin(outgoing)
        } catch let error as CancellationError {
            throw error
        } catch {
            if policy.allowsStaleOnError(request, at: now, disconnected: true) {
                return try await serveOrFetch(entry, outcome: .stale, allowFetch: false)
            }
            return Self.gatewayTimeout()
        }
        let responseTime = now
        if response.status == 304 && method == "GET" {
            let (updated, _) = policy.revalidated(
                request: outgoing, status: 304, headers: response.headers,
                requestTime: requestTime, responseTime: responseTime)
            if isCallerConditional {
                // The caller's own validators: refresh ours only when the 304 is about our response.
                if policy.conditionIsNotModified(request) == true { refresh(entry, with: updated) }
                return CachedResponse(
                    status: 304, headers: response.headers, body: .empty, outcome: .revalidated,
                    networkHeaders: response.headers)
            }
            let refreshed = refresh(entry, with: updated)
            if var served = try serve(refreshed, outcome: .revalidated) {
                served.networkHeaders = response.headers
                return served
            }
            return try await fetch(storing: true)
        }
        if [500, 502, 503, 504].contains(response.status),
            policy.allowsStaleOnError(request, at: now, disconnected: false),
            var served = try serve(entry, outcome: .stale)
        {
            response.body.discardIfFile()
            served.networkHeaders = response.headers
            return served
        }
        if method == "HEAD" {
            if let updated = policy.updated(
                byHEADStatus: response.status, headers: response.headers,
                requestTime: requestTime, responseTime: responseTime)
            {
                // The HEAD response confirms the stored one (RFC 9111 §4.3.5): serve the refreshed stored fields.
                refresh(entry, with: updated)
                return CachedResponse(
                    status: updated.status, headers: updated.responseHeaders(at: now), body: .empty,
                    outcome: .revalidated, networkHeaders: response.headers)
            }
            return CachedResponse(
                status: response.status, headers: response.headers, body: response.body,
                outcome: .miss, networkHeaders: response.headers)
        }
        return received(
            response, request: outgoing, requestTime: requestTime, responseTime: responseTime,
            storing: true, replacing: entry)
    }

    // MARK: - Serving stored responses

    /// Serves a stored entry; when its body file has gone (removed by another process), drops
    /// the entry and fetches instead (or, with `allowFetch` false, generates a `504`).
    func serveOrFetch(_ entry: CacheEntry, outcome: CacheOutcome, allowFetch: Bool = true) async throws
        -> CachedResponse
    {
        if let served = try serve(entry, outcome: outcome) { return served }
        return allowFetch ? try await fetch(storing: true) : Self.gatewayTimeout()
    }

    /// The response for a stored entry: headers only for `HEAD`, a `304` for a satisfied caller
    /// condition, a `206` for a satisfiable byte range, else the whole body. `nil` when the
    /// body file can no longer be read.
    func serve(_ entry: CacheEntry, outcome: CacheOutcome) throws -> CachedResponse? {
        let policy = entry.policy
        let now = self.now
        if cache.disk.isEnabled, !entry.diskAccessIsRecorded { cache.disk.touch(entry.diskID, key: entry.key) }
        if method == "HEAD" {
            return CachedResponse(
                status: policy.status, headers: policy.responseHeaders(at: now), body: .empty, outcome: outcome)
        }
        if policy.conditionIsNotModified(request) == true {
            return CachedResponse(
                status: 304, headers: policy.notModifiedHeaders(at: now), body: .empty, outcome: outcome)
        }
        if let range = byteRange, policy.status == 200, let slice = range.resolved(length: entry.body.byteCount) {
            guard let bytes = try? read(entry, range: slice) else { return drop(entry) }
            var headers = policy.responseHeaders(at: now)
            headers.set("Content-Range", "bytes \(slice.lowerBound)-\(slice.upperBound - 1)/\(entry.body.byteCount)")
            headers.set("Content-Length", String(slice.count))
            return CachedResponse(status: 206, headers: headers, body: .data(bytes), outcome: outcome)
        }
        let body: CacheBody
        switch entry.body {
        case .inline(let data): body = .data(data)
        case .file(let name, _):
            guard let copy = try? cache.disk.linkedCopy(of: name) else { return drop(entry) }
            body = .file(copy)
        case .chunks(let id, let size):
            guard let copy = try? cache.disk.chunksCopy(entry: id, size: size) else { return drop(entry) }
            body = .file(copy)
        }
        return CachedResponse(
            status: policy.status, headers: policy.responseHeaders(at: now), body: body, outcome: outcome)
    }

    private func drop(_ entry: CacheEntry) -> CachedResponse? {
        cache.memory.remove(entry.key)
        if let id = entry.diskID {
            try? cache.disk.delete(ids: [id], sites: [entry.site])
        } else {
            // A copy of an entry written behind: its row is found by key.
            try? cache.disk.delete(key: entry.key, site: entry.site)
        }
        return nil
    }

    private func read(_ entry: CacheEntry, range: Range<Int64>) throws -> Data {
        switch entry.body {
        case .inline(let data):
            return data.subdata(in: Int(range.lowerBound)..<Int(range.upperBound))
        case .file(let name, _):
            guard let url = cache.disk.fileURL(name) else { throw CocoaError(.fileNoSuchFile) }
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(range.lowerBound))
            return try handle.read(upToCount: range.count) ?? Data()
        case .chunks(let id, _):
            var bytes = Data()
            try cache.disk.readChunks(entry: id, range: range) { bytes.append($0) }
            return bytes
        }
    }

    /// The request's single byte range (`bytes=a-b`, `bytes=a-`, `bytes=-n`), or `nil`.
    var byteRange: ByteRange? {
        guard let value = request.headers["Range"] else { return nil }
        return ByteRange(value)
    }

    /// Stores a refreshed policy for an entry (disk and memory); returns the refreshed entry.
    @discardableResult
    func refresh(_ entry: CacheEntry, with policy: CachePolicy) -> CacheEntry {
        var refreshed = entry
        refreshed.policy = policy
        refreshed.modified = now
        // An entry without an id is a copy of one written behind (or of none, in a non-persistent store).
        try? cache.disk.update(
            entry.diskID, key: entry.key, policy: policy, site: entry.site, bodySize: entry.body.byteCount)
        cache.memory.store(refreshed, mirrorsDisk: entry.diskID != nil, limit: settings.memoryMaxSize)
        return refreshed
    }

    // MARK: - The origin

    /// Sends the request to the origin and stores the response when it may.
    func fetch(storing: Bool, replacing old: CacheEntry? = nil) async throws -> CachedResponse {
        var outgoing = request
        addModeHeaders(&outgoing.headers)
        let requestTime = now
        let response = try await origin(outgoing)
        return received(
            response, request: outgoing, requestTime: requestTime, responseTime: now,
            storing: storing && method == "GET", replacing: old)
    }

    /// Handles a response from the origin: stores it when allowed, or drops the stored
    /// response it supersedes; returns it as a miss.
    func received(
        _ response: OriginResponse, request sent: CacheRequest, requestTime: Date, responseTime: Date,
        storing: Bool, replacing old: CacheEntry?
    ) -> CachedResponse {
        if storing && response.status != 206 {
            let policy = CachePolicy(
                request: sent, status: response.status, headers: response.headers,
                requestTime: requestTime, responseTime: responseTime, options: options)
            if policy.isStorable {
                store(policy, body: response.body)
            } else if let old, response.status < 500 {
                _ = drop(old)
            }
        }
        return CachedResponse(
            status: response.status, headers: response.headers, body: response.body, outcome: .miss,
            networkHeaders: response.headers)
    }

    /// Stores a response on disk (persistent stores) and in memory.
    func store(_ policy: CachePolicy, body: CacheBody) {
        let key = CacheEntryKey(
            partition: partition, method: policy.method, url: policy.url.absoluteString,
            variant: policy.variantKey)
        if cache.disk.isEnabled {
            // Drop any in-memory copy first: it must not outlive the disk entry it mirrored.
            cache.memory.remove(key)
            if let entry = try? cache.disk.store(
                key: key, policy: policy, site: site, body: body, maxSize: settings.maxSize)
            {
                cache.memory.store(entry, mirrorsDisk: true, limit: settings.memoryMaxSize)
            }
            return
        }
        let limit = settings.memoryMaxSize
        guard body.byteCount <= limit / 8, let data = try? body.data() else {
            cache.memory.remove(key)
            return
        }
        cache.memory.store(
            CacheEntry(key: key, policy: policy, site: site, body: .inline(data), modified: now),
            mirrorsDisk: false, limit: limit)
    }

    /// Forwards a request the cache does not serve (`OPTIONS`, `TRACE`).
    func forward() async throws -> CachedResponse {
        let response = try await origin(request)
        return CachedResponse(
            status: response.status, headers: response.headers, body: response.body, outcome: .miss,
            networkHeaders: response.headers)
    }

    /// Forwards an unsafe request; on success invalidates what it may have changed (RFC 9111 §4.4).
    func unsafe() async throws -> CachedResponse {
        let requestTime = now
        let response = try await origin(request)
        if (200..<400).contains(response.status) {
            invalidate(urlKey)
            for name in ["Location", "Content-Location"] {
                guard let value = response.headers.first(named: name),
                    let target = URL(string: value, relativeTo: request.url)?.absoluteURL,
                    Self.sameOrigin(target, request.url)
                else { continue }
                invalidate(CachePolicy.cacheURL(target).absoluteString)
            }
        }
        if method == "POST" {
            let policy = CachePolicy(
                request: request, status: response.status, headers: response.headers,
                requestTime: requestTime, responseTime: now, options: options)
            if policy.isStorable { store(policy, body: response.body) }
        }
        return CachedResponse(
            status: response.status, headers: response.headers, body: response.body, outcome: .miss,
            networkHeaders: response.headers)
    }

    func invalidate(_ url: String) {
        cache.memory.invalidate(url: url)
        try? cache.disk.invalidate(url: url)
    }

    /// Fetch's request headers for the cache modes that bypass or revalidate (Fetch §4.5 HTTP-network-or-cache fetch).
    func addModeHeaders(_ headers: inout HTTPHeaders) {
        switch mode {
        case .noStore, .reload:
            if !headers.contains("Pragma") { headers.append("Pragma", "no-cache") }
            if !headers.contains("Cache-Control") { headers.append("Cache-Control", "no-cache") }
        case .noCache:
            if !headers.contains("Cache-Control") { headers.append("Cache-Control", "max-age=0") }
        default:
            break
        }
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? {
            url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
        }
        return a.scheme?.lowercased() == b.scheme?.lowercased()
            && Site.canonicalHost(of: a) == Site.canonicalHost(of: b)
            && port(a) == port(b)
    }

    /// The response a cache generates when it cannot answer (RFC 9111 §5.2.1.7, §4.2.4).
    static func gatewayTimeout() -> CachedResponse {
        CachedResponse(status: 504, headers: ["Content-Length": "0"], body: .empty, outcome: .miss, isSynthesized: true)
    }
}

/// A single byte range of a `Range: bytes=…` header (RFC 9110 §14.1.2).
struct ByteRange: Sendable, Hashable {
    var first: Int64?
    var last: Int64?
    var suffix: Int64?

    init?(_ value: String) {
        let trimmed = value.trimmingHTTPWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingHTTPWhitespace()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let a = spec[..<dash].trimmingHTTPWhitespace()
        let b = spec[spec.index(after: dash)...].trimmingHTTPWhitespace()
        if a.isEmpty {
            guard let n = Int64(b), n > 0 else { return nil }
            suffix = n
        } else {
            guard let start = Int64(a), start >= 0 else { return nil }
            first = start
            if !b.isEmpty {
                guard let end = Int64(b), end >= start else { return nil }
                last = end
            }
        }
    }

    /// The bytes selected in a body of `length` bytes, or `nil` when unsatisfiable.
    func resolved(length: Int64) -> Range<Int64>? {
        if let suffix { return length > 0 ? max(0, length - suffix)..<length : nil }
        guard let first, first < length else { return nil }
        return first..<(min(last ?? (length - 1), length - 1) + 1)
    }
}

extension CacheBody {
    /// Deletes a file body nobody will read.
    func discardIfFile() {
        if case .file(let url) = self { try? FileManager.default.removeItem(at: url) }
    }
}

extension CachePolicy {
    /// The same policy with other options (those of the store's current settings).
    func with(options: Options) -> CachePolicy {
        // A copy: rebuilt, it parsed its `Cache-Control` again on every disk-cache hit.
        var policy = self
        policy.options = options
        return policy
    }
}
