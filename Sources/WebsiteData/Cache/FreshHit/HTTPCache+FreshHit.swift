import Foundation

extension HTTPCache {
    /// What `freshHit(_:partition:)` did with a request.
    package enum FreshHitAnswer: Sendable {
        /// A fresh stored response answered it, with the outcome `.hit`.
        case served(CachedResponse)
        /// It was not answered here: the general path decides, starting from `lookedUp` (what
        /// the lookup found, its use recorded) when there is one, so that it does not look the
        /// request up again (`send(_:mode:partition:lookedUp:origin:)`); `nil` when the request
        /// was declined before the cache was read.
        case declined(lookedUp: Lookup?)
    }

    /// The answer `send(_:mode:partition:origin:)` gives a plain request that a fresh stored
    /// response answers, found without the general path's steps; declined when the request is
    /// not plain (`FreshHit.isPlain`) or no fresh in-memory body answers it, and the general
    /// path must decide.
    ///
    /// The stored response is looked up as the general path looks it up (the memory cache, then
    /// `lookupPastMemory`), so a response read from the disk cache is kept in memory whether or
    /// not it is served here. The use is recorded (order of use, the disk entry's last-access
    /// time) before the decision, and a declined request's lookup is handed to the general path.
    ///
    /// - Parameters:
    ///   - request: the request (one hop).
    ///   - partition: the request's partition (`CacheEntryKey.partition`).
    /// - Returns: the response, or what the lookup found.
    /// - Throws: `StoreError` when the disk cache cannot be read.
    package func freshHit(_ request: CacheRequest, partition: String) throws -> FreshHitAnswer {
        guard request.method == "GET", request.body == nil, FreshHit.isPlain(request.headers) else {
            return .declined(lookedUp: nil)
        }
        // The memory cache's entry is read where it is kept; a disk-cache entry as `lookup` reads it.
        let url = CachePolicy.cacheURL(request.url)
        let resource = CacheResourceKey(partition: partition, method: "GET", url: url.absoluteString)
        let now = clock()
        let box: HTTPMemoryCache.Item.Box
        let diskAccessIsRecorded: Bool
        if let (stored, recorded) = memory.useStored(resource, for: request, at: now) {
            (box, diskAccessIsRecorded) = (stored, recorded)
        } else if disk.isEnabled {
            let lookup = try lookupPastMemory(
                request, resource: resource, url: url, settings: memory.settingsOrDefaults)
            guard let entry = lookup.entry else { return .declined(lookedUp: lookup) }
            (box, diskAccessIsRecorded) = (HTTPMemoryCache.Item.Box(entry), entry.diskAccessIsRecorded)
        } else {
            return .declined(lookedUp: nil)
        }
        if let response = serveIfFresh(box, diskAccessIsRecorded: diskAccessIsRecorded, at: now) {
            return .served(response)
        }
        var entry = box.entry
        entry.diskAccessIsRecorded = true
        return .declined(lookedUp: Lookup(entry: entry, variants: []))
    }

    /// The response for a stored entry used at `now` (the time its use was recorded, read
    /// once) when it is fresh, its body in memory and no validation required; `nil` otherwise.
    /// The use is recorded on disk either way. The entry is read in its box, field by field: a
    /// copy of the whole entry was a twentieth of a hit.
    private func serveIfFresh(_ box: HTTPMemoryCache.Item.Box, diskAccessIsRecorded: Bool, at now: Date)
        -> CachedResponse?
    {
        if disk.isEnabled, !diskAccessIsRecorded { disk.touch(box.entry.diskID, key: box.entry.key) }
        guard case .inline(let body) = box.entry.body, !box.entry.policy.requiresValidation else { return nil }
        let age = box.entry.policy.age(at: now)
        guard box.entry.policy.freshnessLifetime > age else { return nil }
        return CachedResponse(
            status: box.entry.policy.status, headers: box.entry.policy.responseHeaders(age: age), body: .data(body),
            outcome: .hit)
    }
}

/// What makes a request plain for `HTTPCache.freshHit`.
enum FreshHit {
    /// Request header fields that change how the cache answers: freshness limits or
    /// validation (`Cache-Control`), a part (`Range`), or a condition (`If-…`). A request with
    /// any of them goes the general path.
    static let decidingFields = [
        "Cache-Control", "Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range",
    ]

    /// Whether no field of `headers` is one of `decidingFields`.
    static func isPlain(_ headers: HTTPHeaders) -> Bool {
        !headers.fields.contains { field in decidingFields.contains { field.hasName($0) } }
    }
}
