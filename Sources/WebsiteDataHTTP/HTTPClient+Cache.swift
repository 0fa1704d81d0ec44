import Foundation
import WebsiteData

extension HTTPClient {
    /// Response bodies up to this many bytes are received in memory; larger ones (and every body
    /// the request sends to a `destination`) are streamed to a file of the cache's, which the
    /// cache adopts by hard link and the caller then receives: 1 MiB.
    public static let inMemoryBodyLimit = 1 << 20

    /// A hop answered by a fresh stored response (`HTTPCache.freshHit`), as `exchangeThroughCache`
    /// would answer it, without setting up what a transfer needs; declined, with what the
    /// cache's lookup found, when the general path must.
    func freshHit(_ hop: HopRequest, request: HTTPRequest, partition: String) throws -> FreshHitResult {
        guard configuration.servesFreshHitsFirst, request.cacheMode == .default, request.destination == nil else {
            return .declined(lookedUp: nil)
        }
        let cacheRequest = CacheRequest(
            method: hop.method, url: hop.url, headers: HTTPHeaders(hop.headers), body: hop.body)
        switch try store.httpCache.freshHit(cacheRequest, partition: partition) {
        case .declined(let lookedUp):
            return .declined(lookedUp: lookedUp)
        case .served(let hit):
            // A hit's body is in memory (`.inline`): the fast path serves no other.
            guard case .data(let body) = hit.body else { return .declined(lookedUp: nil) }
            return .served(
                HopExchange(
                    status: hit.status, httpVersion: "1.1", reasonPhrase: "", headers: hit.headers.fields,
                    requestHeaders: [], refusedCookies: [], body: body, bodyFile: nil, ownsBodyFile: false,
                    cacheOutcome: .hit))
        }
    }

    /// What `freshHit` did with a hop: answered it, or left it to `exchangeThroughCache` with
    /// what its lookup found.
    enum FreshHitResult {
        case served(HopExchange)
        case declined(lookedUp: HTTPCache.Lookup?)
    }

    /// One hop through the store's HTTP cache: the origin closure runs the libcurl transfer and
    /// applies the response's `Set-Cookie` and `Clear-Site-Data`, so that a revalidation (in the
    /// background too) applies them and a hit, which never reaches the origin, does not.
    ///
    /// - Parameter lookedUp: what `freshHit` found when it declined the hop.
    func exchangeThroughCache(
        _ hop: HopRequest, context: CookieRequestContext, partition: String, mode: CacheMode,
        wantsFile: Bool, lookedUp: HTTPCache.Lookup? = nil
    ) async throws -> HopExchange {
        let cache = store.httpCache
        let state = CacheExchangeState()
        let sink = BodySink.spill(
            limit: wantsFile ? 0 : Self.inMemoryBodyLimit, makeFile: { try cache.makeTemporaryBodyFile() })
        let origin: HTTPCache.Origin = { [self] outgoing in
            // A call after `send` returned is a background revalidation: nobody to report to.
            let foreground = !state.hasReturned
            var sent = hop
            sent.method = outgoing.method
            sent.url = outgoing.url
            sent.headers = outgoing.headers.fields
            sent.body = outgoing.body
            sent.sink = sink
            if !foreground { sent.progress = nil }
            let result: HopResult
            do {
                result = try await perform(sent)
            } catch {
                if foreground { state.record(transferError: error) }
                throw error
            }
            // A store failure is not the origin's: the cache must not answer it with a stale response.
            var refused: [CookieRejection] = []
            do {
                refused = try applyResponseState(result.headers, from: hop.url, context: context)
            } catch {
                if foreground { state.record(storeError: error) }
            }
            if foreground { state.record(result, refusedCookies: refused) }
            return OriginResponse(
                status: result.status, headers: HTTPHeaders(result.headers),
                body: result.bodyFile.map(CacheBody.file) ?? .data(result.body))
        }
        let request = CacheRequest(
            method: hop.method, url: hop.url, headers: HTTPHeaders(hop.headers),
            body: hop.body)
        let cached: CachedResponse
        do {
            cached = try await cache.send(
                request, mode: mode, partition: partition, lookedUp: lookedUp, origin: origin)
        } catch {
            state.markReturned()
            throw error
        }
        let outcome = state.markReturned()
        var exchange = HopExchange(
            status: cached.status, httpVersion: "1.1", reasonPhrase: "",
            headers: cached.headers.fields, requestHeaders: outcome.requestHeaders,
            refusedCookies: outcome.refusedCookies, body: Data(), bodyFile: nil, ownsBodyFile: false,
            cacheOutcome: hop.method == "GET" || hop.method == "HEAD" ? cached.outcome : nil)
        switch cached.body {
        case .data(let data): exchange.body = data
        case .file(let url):
            exchange.bodyFile = url
            exchange.ownsBodyFile = true
        }
        if cached.outcome == .miss, let version = outcome.httpVersion {
            exchange.httpVersion = version
            exchange.reasonPhrase = outcome.reasonPhrase
        } else if cached.outcome == .revalidated, let version = outcome.httpVersion {
            // The stored response, confirmed by a 304: the 304's phrase is not this response's.
            exchange.httpVersion = version
        }
        if let error = outcome.storeError, cached.networkHeaders != nil {
            exchange.discardBodyFile()
            throw error
        }
        if cached.isSynthesized {
            // The 504 a cache makes when it cannot answer. As Fetch: the transfer's own error when
            // a revalidation failed and the stored response may not be served stale; a network
            // error (`notCached`) for the `only-if-cached` mode. A request's own
            // `Cache-Control: only-if-cached` gets the 504 itself, as RFC 9111 says.
            exchange.discardBodyFile()
            if let error = outcome.transferError { throw error }
            if mode == .onlyIfCached {
                throw HTTPClientError(
                    .notCached, "\(hop.url.absoluteString) is not in the cache (only-if-cached)", url: hop.url)
            }
        }
        return exchange
    }

    /// The final body: in memory, or in the request's destination file.
    ///
    /// A file the cache handed over is moved to the destination (a rename on the same file
    /// system: no byte copied), or read into memory once and deleted.
    func deliver(_ exchange: HopExchange, to destination: URL?, url: URL) throws -> (body: Data, file: URL?) {
        guard exchange.ownsBodyFile, let file = exchange.bodyFile else {
            // A transfer that wrote to the destination itself names it; an in-memory body from
            // the cache (small, or stored inline) still goes to the file asked for.
            guard let destination, exchange.bodyFile == nil else { return (exchange.body, exchange.bodyFile) }
            do {
                try exchange.body.write(to: destination)
            } catch {
                throw HTTPClientError(
                    .cannotWriteBody, "cannot write \(destination.path): \(error.localizedDescription)", url: url)
            }
            return (Data(), destination)
        }
        guard let destination else {
            defer { exchange.discardBodyFile() }
            do {
                return (try Data(contentsOf: file), nil)
            } catch {
                throw HTTPClientError(
                    .cannotWriteBody, "cannot read the body file \(file.path): \(error.localizedDescription)", url: url)
            }
        }
        if !BodyFiles.isRegularOrAbsent(destination) {
            // A device, pipe or link (`/dev/null`, a FIFO): write through it, never replace it.
            defer { exchange.discardBodyFile() }
            do {
                try BodyFiles.copy(file, into: destination)
            } catch {
                throw HTTPClientError(
                    .cannotWriteBody, "cannot write \(destination.path): \(error.localizedDescription)", url: url)
            }
            return (Data(), destination)
        }
        if rename(file.path, destination.path) != 0 {
            let failure = errno
            do {
                guard failure == EXDEV else { throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO) }
                // Another file system: copy beside the destination, then rename over it.
                let part = destination.deletingLastPathComponent().appendingPathComponent(
                    ".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).part")
                try FileManager.default.copyItem(at: file, to: part)
                if rename(part.path, destination.path) != 0 {
                    let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                    try? FileManager.default.removeItem(at: part)
                    throw error
                }
                exchange.discardBodyFile()
            } catch {
                exchange.discardBodyFile()
                throw HTTPClientError(
                    .cannotWriteBody, "cannot write \(destination.path): \(error.localizedDescription)", url: url)
            }
        }
        return (Data(), destination)
    }
}

/// What one hop produced, from the cache or from a transfer.
struct HopExchange: Sendable {
    var status: Int
    var httpVersion: String
    var reasonPhrase: String
    var headers: [HTTPHeaderField]
    /// The request header fields sent to the origin; empty when none was asked.
    var requestHeaders: [HTTPHeaderField]
    /// The response's cookies the store refused.
    var refusedCookies: [CookieRejection]
    /// The body, when it is in memory.
    var body: Data
    /// The file holding the body: the destination (`ownsBodyFile` false), or a file the cache
    /// handed over, to move or delete (`ownsBodyFile` true).
    var bodyFile: URL?
    var ownsBodyFile: Bool
    var cacheOutcome: CacheOutcome?

    /// Deletes a handed-over body file nobody will read (a followed redirect's, a failed hop's).
    func discardBodyFile() {
        if ownsBodyFile, let bodyFile { try? FileManager.default.removeItem(at: bodyFile) }
    }
}

/// What the origin closure of one hop saw while `HTTPCache.send` was running for it.
final class CacheExchangeState: Sendable {
    /// What is recorded.
    struct Outcome: Sendable {
        var returned = false
        var httpVersion: String?
        var reasonPhrase = ""
        var requestHeaders: [HTTPHeaderField] = []
        var refusedCookies: [CookieRejection] = []
        var transferError: (any Error)?
        var storeError: (any Error)?
    }

    private let state = Locked(Outcome())

    /// Whether `send` has returned: later origin calls are background revalidations.
    var hasReturned: Bool { state.withLock { $0.returned } }

    /// Records what a foreground transfer sent and received, and the cookies the store refused.
    func record(_ result: HopResult, refusedCookies: [CookieRejection]) {
        state.withLock {
            $0.httpVersion = result.httpVersion
            $0.reasonPhrase = result.reasonPhrase
            $0.requestHeaders = result.requestHeaders
            $0.refusedCookies = refusedCookies
        }
    }
    func record(transferError: any Error) { state.withLock { $0.transferError = transferError } }
    func record(storeError: any Error) { state.withLock { if $0.storeError == nil { $0.storeError = storeError } } }

    /// Marks `send` returned; returns what the foreground origin calls recorded.
    @discardableResult
    func markReturned() -> Outcome {
        state.withLock { s in
            s.returned = true
            return s
        }
    }
}

/// What the client may do with a destination path.
enum BodyFiles {
    /// Whether `url` names a regular file (not following a final symbolic link).
    static func isRegularFile(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether `url` names a regular file or nothing: only then may it be replaced by a rename.
    static func isRegularOrAbsent(_ url: URL) -> Bool {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return errno == ENOENT }
        return (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Streams a file's bytes into an existing destination, opened for writing as it is.
    static func copy(_ source: URL, into destination: URL) throws {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        let output = try FileHandle(forWritingTo: destination)
        defer { try? output.close() }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
        }
    }
}
