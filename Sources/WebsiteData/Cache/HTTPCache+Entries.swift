import Foundation

extension HTTPCache {
    /// One stored response as a listing shows it: its key, sizes, times, where it lives, and
    /// its rules (`policy`), rebuilt with the stored request and response times so that
    /// `policy.timeToLive(at:)`, `policy.isStale(at:)` and `policy.reuse(for:at:)` answer as
    /// the cache would.
    ///
    /// Listing entries is not a use of them: no last-access time and no eviction order changes.
    public struct StoredEntry: Sendable, Hashable {
        /// One request field a `Vary` response was stored for, with the request's value.
        public struct VariantField: Sendable, Hashable {
            /// The field name, in lower case.
            public let name: String
            /// The request's value, normalised (repeated fields combined, list members trimmed),
            /// or `nil` when the request did not carry the field.
            public let value: String?
        }

        /// The URL the response answers, without fragment.
        public let url: URL
        /// The method it is stored for (`GET`; a `POST` response stored for its `Content-Location` is stored as `GET`).
        public let method: String
        /// The partition: the schemeful top-level site the request was made under, e.g. `https://example.com`.
        public let partition: String
        /// The values of the request fields the response's `Vary` names; empty without `Vary`.
        public let variant: [VariantField]
        /// The display name of the URL's site (the name `dataRecords` and removal by site use).
        public let site: String
        /// The stored status code.
        public let status: Int
        /// Bytes of the body.
        public let bodySize: Int64
        /// Bytes counted against the cache's limit: URL, header fields and body.
        public let size: Int64
        /// When the entry was first stored (on disk, or for a memory-only entry in this process's memory).
        public let created: Date
        /// When the entry was last stored or refreshed by a revalidation.
        public let modified: Date
        /// When the entry was last stored or used, as the least-recently-used eviction counts it.
        public let lastAccess: Date
        /// The rules of the stored response, with its stored header fields and request and response times.
        public let policy: CachePolicy
        /// Whether the entry is in the store's disk cache.
        public let isOnDisk: Bool
        /// Whether this process's memory cache holds the entry (a copy of the disk entry in a
        /// persistent store, the only copy in a non-persistent one).
        public let isInMemory: Bool

        /// Whether the entry answers a request made under `topLevelSite` (the same partition,
        /// method, URL and `Vary` values), as a lookup by the cache would choose it.
        ///
        /// - Parameters:
        ///   - request: the request (`GET` or `HEAD`).
        ///   - topLevelSite: the URL of the top-level page making the request, or `nil` for a top-level request.
        /// - Returns: whether the entry would be looked at for the request; `policy.reuse(for:at:)` says how.
        public func matches(_ request: CacheRequest, topLevelSite: URL? = nil) -> Bool {
            partition == CacheEntryKey.partition(topLevelSite: topLevelSite, url: request.url)
                && policy.matches(request)
        }

        init(
            key: CacheEntryKey, site: String, policy: CachePolicy, bodySize: Int64, size: Int64, created: Date,
            modified: Date, lastAccess: Date, isOnDisk: Bool, isInMemory: Bool
        ) {
            url = URL(string: key.url) ?? policy.url
            method = key.method
            partition = key.partition
            variant =
                key.variant.isEmpty
                ? []
                : key.variant.split(separator: "\u{1F}", omittingEmptySubsequences: false).map { part in
                    guard let colon = part.firstIndex(of: ":") else {
                        return VariantField(name: String(part), value: nil)
                    }
                    return VariantField(name: String(part[..<colon]), value: String(part[part.index(after: colon)...]))
                }
            self.site = site
            status = policy.status
            self.bodySize = bodySize
            self.size = size
            self.created = created
            self.modified = modified
            self.lastAccess = lastAccess
            self.policy = policy
            self.isOnDisk = isOnDisk
            self.isInMemory = isInMemory
        }
    }

    /// The stored responses of the disk cache and of this process's memory cache, read without
    /// using them: no last-access time and no eviction order changes.
    ///
    /// An entry the memory cache holds a copy of is listed once, from the disk, with
    /// `isInMemory` set. Entries come ordered by site, URL, partition, method and variant.
    ///
    /// - Parameter sites: only the entries of these sites (display names, as `dataRecords`
    ///   gives them), or `nil` for every entry.
    /// - Returns: the entries.
    /// - Throws: `StoreError` when the database cannot be read.
    public func entries(sites: Set<String>? = nil) throws -> [StoredEntry] {
        try listing(url: nil, sites: sites)
    }

    /// The stored responses of one URL (its fragment ignored): every partition, method and
    /// `Vary` variant, in the disk cache and this process's memory cache, read without using them.
    ///
    /// - Parameter url: the URL.
    /// - Returns: the entries, ordered by partition, method and variant.
    /// - Throws: `StoreError` when the database cannot be read.
    public func entries(for url: URL) throws -> [StoredEntry] {
        try listing(url: CachePolicy.cacheURL(url).absoluteString, sites: nil)
    }

    /// Removes every stored response of one URL (its fragment ignored): every partition, method
    /// and `Vary` variant, from the disk cache and this process's memory cache. Processes holding
    /// the store open drop their in-memory copies of the URL's site, since memory caches follow
    /// removals by site; what they drop is only fetched again.
    ///
    /// - Parameter url: the URL.
    /// - Returns: how many stored responses were removed (an entry on disk and in memory counts once).
    /// - Throws: `StoreError` when the database cannot be read or written.
    @discardableResult
    public func removeEntries(for url: URL) throws -> Int {
        let listed = try entries(for: url)
        guard !listed.isEmpty else { return 0 }
        let key = CachePolicy.cacheURL(url).absoluteString
        memory.invalidate(url: key)
        do {
            try disk.invalidate(url: key)
            let sites = Set(listed.map(\.site)).sorted()
            try database.write(changes: sites.map { ChangeLogEntry(.memoryCache, site: $0, cause: .removal) })
        } catch {
            throw HTTPCookieStore.storeError(error)
        }
        return listed.count
    }

    private func listing(url: String?, sites: Set<String>?) throws -> [StoredEntry] {
        let settings = try? CacheSettings.read(database)
        let options = CachePolicy.Options(storesCookieHeaders: settings?.storesCookieHeaders ?? false)
        var inMemory: [CacheEntryKey: HTTPMemoryCache.Item] = [:]
        for item in memory.snapshot(url: url, sites: sites) { inMemory[item.entry.key] = item }
        var result: [StoredEntry] = []
        for row in try disk.rows(url: url, sites: sites, options: options) {
            let copy = inMemory.removeValue(forKey: row.key)
            let lastAccess = max(row.lastAccess, copy?.lastAccess ?? .distantPast)
            result.append(
                StoredEntry(
                    key: row.key, site: row.site, policy: row.policy, bodySize: row.bodySize, size: row.size,
                    created: row.created, modified: row.modified, lastAccess: lastAccess,
                    isOnDisk: true, isInMemory: copy != nil))
        }
        for item in inMemory.values {
            let entry = item.entry
            result.append(
                StoredEntry(
                    key: entry.key, site: entry.site, policy: entry.policy.with(options: options),
                    bodySize: entry.body.byteCount, size: item.size, created: item.created,
                    modified: entry.modified, lastAccess: item.lastAccess, isOnDisk: false, isInMemory: true))
        }
        return result.sorted {
            ($0.site, $0.url.absoluteString, $0.partition, $0.method, $0.policy.variantKey)
                < ($1.site, $1.url.absoluteString, $1.partition, $1.method, $1.policy.variantKey)
        }
    }
}
