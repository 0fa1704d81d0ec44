import Foundation

/// The in-process HTTP memory cache: stored responses with their bodies in memory, bounded
/// in bytes, the least recently used evicted first.
///
/// In a persistent store it sits in front of the disk cache and keeps copies of hot entries
/// (small bodies only); in a non-persistent store it is the only cache. It is process memory:
/// every process has its own. A removal of memory-cache data in another process (for
/// example `wkstore clear --types memorycache`) is recorded in the store's change log with
/// its site and date, and every process sharing the store honours it on its next access;
/// a change of disk-cache entries by another process drops the copies of that site's entries.
final class HTTPMemoryCache: Sendable {
    let database: StoreDatabase
    let clock: @Sendable () -> Date
    private let state: Locked<State>
    /// Background revalidations in flight (`stale-while-revalidate`), by number.
    let background = Locked<BackgroundWork>(BackgroundWork())

    /// Entries are kept in numbered slots: the order of use and the variants of a resource
    /// hold numbers, so a hit hashes its resource's key once; keyed by `CacheEntryKey` (four
    /// strings) the order of use alone hashed it six times, a quarter of a memory-cache hit.
    struct State {
        var items = Slots()
        var numbers: [HashedKey<CacheEntryKey>: Int] = [:]
        var variants: [HashedKey<CacheResourceKey>: VariantSlots] = [:]
        var order = UseOrder()
        var bytes: Int64 = 0
        var lastSeq: Int64 = 0
        /// What the shared change counter said when the change log was last read.
        var watch = StoreDatabase.ChangeWatch()
        /// The cache's settings as last read; `nil` after a change of settings.
        var settings: CacheSettings?
    }

    struct Item {
        /// The entry, behind one reference: a hit looks at every variant of its resource, and
        /// copying an entry's strings and fields for each was a tenth of a memory-cache hit.
        final class Box: Sendable {
            let entry: CacheEntry
            init(_ entry: CacheEntry) { self.entry = entry }
        }
        let box: Box
        var entry: CacheEntry { box.entry }
        var size: Int64
        /// Whether the entry is a copy of a disk-cache entry (dropped when another process changes the disk cache).
        var mirrorsDisk: Bool
        /// When the entry was first stored here (kept when a refreshed copy replaces it).
        var created: Date
        /// When the entry was last stored or used.
        var lastAccess: Date
        /// When a use of this copy was last recorded in the disk entry's last-access time.
        var diskAccessRecorded: Date
    }

    /// An entry used within this time of the last use recorded on disk (by its memory-cache
    /// copy, or in the row a disk hit reads) does not record it again: the disk's order of use
    /// is then right to the minute, and hits in a row write nothing (a recorded use is a row
    /// update, about 20 µs of the writer's CPU, a tenth of a memory hit on its thread).
    static let diskAccessInterval: TimeInterval = 60

    struct BackgroundWork {
        var tasks: [UInt64: Task<Void, Never>] = [:]
        var keys: Set<CacheEntryKey> = []
        var next: UInt64 = 0
    }

    init(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws {
        self.database = database
        self.clock = clock
        var state = State()
        state.lastSeq = try database.newestSequence()
        self.state = Locked(state)
    }

    // MARK: - Settings

    /// The cache's settings, read from the store once and again after a change of settings (by
    /// this store object, or by another, seen in the change log): reading them per request was a
    /// fifth of a memory-cache hit.
    func settings() throws -> CacheSettings {
        try state.withLock { s in
            refresh(&s)
            if let settings = s.settings { return settings }
            let settings = try CacheSettings.read(database)
            s.settings = settings
            return settings
        }
    }

    /// `settings()`, or the defaults when the store cannot be read: a cache that cannot read its
    /// settings still answers.
    func settingsOrDefaults() -> CacheSettings {
        (try? settings()) ?? CacheSettings(maxSize: 256 << 20, memoryMaxSize: 32 << 20, storesCookieHeaders: false)
    }

    /// Forgets the settings read, after this store object changed one.
    func settingsChanged() {
        state.withLock { $0.settings = nil }
    }

    // MARK: - Entries

    /// The entries stored for every variant of a resource, most recently stored first.
    func entries(for resource: CacheResourceKey) -> [CacheEntry] {
        state.withLock { s in
            refresh(&s)
            return Self.variants(of: resource, s).map(\.entry)
        }
    }

    /// The most recently stored variant of a resource that answers `request`
    /// (`CachePolicy.matchesVariant`: every variant has its URL), marked used now. Its
    /// `diskAccessIsRecorded` says whether the disk entry's last-access time needs no update.
    func use(_ resource: CacheResourceKey, for request: CacheRequest) -> CacheEntry? {
        guard let (box, recorded) = useStored(resource, for: request, at: clock()) else { return nil }
        var entry = box.entry
        entry.diskAccessIsRecorded = recorded
        return entry
    }

    /// `use(_:for:)`, returning the entry where it is kept, and whether the disk entry's
    /// last-access time needs no update. The entries are read in their boxes, field by field:
    /// copying an entry's fields (to test it, or to return it) was a tenth of a fresh hit.
    func useStored(_ resource: CacheResourceKey, for request: CacheRequest, at now: Date) -> (
        Item.Box, diskAccessIsRecorded: Bool
    )? {
        let resource = HashedKey(resource)
        return state.withLock { s -> (Item.Box, diskAccessIsRecorded: Bool)? in
            refresh(&s)
            guard let numbers = s.variants[resource] else { return nil }
            var best: (number: Int, item: Item)?
            for number in numbers {
                // Every variant has the resource's URL.
                guard let item = s.items[number], item.box.entry.policy.matchesVariant(of: request) else { continue }
                if let chosen = best,
                    chosen.item.box.entry.policy.responseTime >= item.box.entry.policy.responseTime
                {
                    continue
                }
                best = (number, item)
            }
            guard let (number, item) = best else { return nil }
            s.order.touch(number)
            let recorded = now.timeIntervalSince(item.diskAccessRecorded) < Self.diskAccessInterval
            s.items[number]?.lastAccess = now
            if !recorded { s.items[number]?.diskAccessRecorded = now }
            return (item.box, recorded)
        }
    }

    private static func variants(of resource: CacheResourceKey, _ s: State) -> [Item] {
        (s.variants[HashedKey(resource)].map(Array.init) ?? []).compactMap { s.items[$0] }.sorted {
            $0.entry.policy.responseTime > $1.entry.policy.responseTime
        }
    }

    /// A snapshot of the entries held, for listing: neither their order of use nor their
    /// last-access times change. Other processes' removals are applied first.
    ///
    /// - Parameters:
    ///   - url: only the entries of this URL (any partition, method or variant), or `nil` for all.
    ///   - sites: only the entries of these sites, or `nil` for all.
    func snapshot(url: String? = nil, sites: Set<String>? = nil) -> [Item] {
        state.withLock { s in
            refresh(&s)
            return s.items.values.filter { item in
                (url.map { item.entry.key.url == $0 } ?? true) && (sites.map { $0.contains(item.entry.site) } ?? true)
            }
        }
    }

    /// Stores (or replaces) an entry whose body is in memory, evicting least recently used ones to stay within `limit`.
    ///
    /// - Parameter diskAccessRecorded: when the disk entry last recorded a use, when not now
    ///   (a row read whose recent use this one does not record again); `nil`: now.
    func store(_ entry: CacheEntry, mirrorsDisk: Bool, limit: Int64, diskAccessRecorded: Date? = nil) {
        let size = entry.size
        let now = clock()
        let key = HashedKey(entry.key)
        let resource = HashedKey(entry.key.resource)
        state.withLock { s in
            refresh(&s)
            let created = s.numbers[key].flatMap { s.items[$0]?.created } ?? now
            for number in s.variants[resource].map(Array.init) ?? [] {
                if let stored = s.items[number]?.entry.key, entry.key.supersedes(variant: stored.variant) {
                    remove(stored, &s)
                }
            }
            // One entry may take at most an eighth of the cache, so that it cannot empty it.
            guard case .inline = entry.body, limit > 0, size <= limit / 8 else { return }
            // A stored or refreshed row has its access time, and a row read records this use
            // unless it recorded one within `diskAccessInterval` (`diskAccessRecorded`).
            let number = s.items.insert(
                Item(
                    box: Item.Box(entry), size: size, mirrorsDisk: mirrorsDisk, created: created, lastAccess: now,
                    diskAccessRecorded: diskAccessRecorded ?? now))
            s.numbers[key] = number
            if s.variants[resource]?.append(number) == nil { s.variants[resource] = VariantSlots(number) }
            s.order.touch(number)
            s.bytes += size
            while s.bytes > limit, let oldest = s.order.leastRecent, let oldestKey = s.items[oldest]?.entry.key {
                remove(oldestKey, &s)
            }
        }
    }

    /// Removes one entry.
    func remove(_ key: CacheEntryKey) {
        state.withLock { s in remove(key, &s) }
    }

    /// Removes every variant of the resources of `url` (any partition, any method).
    func invalidate(url: String) {
        state.withLock { s in
            for key in s.numbers.keys where key.key.url == url { remove(key.key, &s) }
        }
    }

    /// Bytes held.
    var byteCount: Int64 { state.withLock { $0.bytes } }

    private func remove(_ key: CacheEntryKey, _ s: inout State) {
        guard let number = s.numbers.removeValue(forKey: HashedKey(key)),
            let item = s.items.removeValue(forKey: number)
        else {
            return
        }
        s.bytes -= item.size
        s.order.remove(number)
        let resource = HashedKey(key.resource)
        if s.variants[resource]?.remove(number) == false { s.variants[resource] = nil }
    }

    /// Removes the entries `predicate` matches; returns how many per display name.
    private func remove(_ s: inout State, where predicate: (Item) -> Bool) -> [String: Int] {
        var counts: [String: Int] = [:]
        for item in s.items.values where predicate(item) {
            counts[item.entry.site, default: 0] += 1
            remove(item.entry.key, &s)
        }
        return counts
    }

    /// Applies other processes' changes: memory-cache removals by site and date, and disk-cache
    /// changes (whose copies here may be outdated).
    private func refresh(_ s: inout State) {
        guard let changes = try? database.foreignChanges(since: s.lastSeq, watch: &s.watch) else { return }
        s.lastSeq = changes.newestSeq
        if changes.everything {
            s.settings = nil
            _ = remove(&s) { _ in true }
            return
        }
        for change in changes.entries {
            if change.subject == .settings { s.settings = nil }
            let everySite = change.site == "*"
            if change.isAbout(.memoryCache) {
                let since = change.since.map { Date(timeIntervalSince1970: $0) }
                _ = remove(&s) { item in
                    (everySite || item.entry.site == change.site) && (since.map { item.entry.modified >= $0 } ?? true)
                }
            } else if change.isAbout(.diskCache) {
                _ = remove(&s) { $0.mirrorsDisk && (everySite || $0.entry.site == change.site) }
            }
        }
    }

    // MARK: - Background revalidation

    /// Runs `work` in the background unless a revalidation of `key` is already running.
    func runInBackground(key: CacheEntryKey, _ work: @escaping @Sendable () async -> Void) {
        background.withLock { b in
            guard b.keys.insert(key).inserted else { return }
            let id = b.next
            b.next += 1
            b.tasks[id] = Task { [weak self] in
                await work()
                _ = self?.background.withLock { b in
                    b.keys.remove(key)
                    b.tasks.removeValue(forKey: id)
                }
            }
        }
    }

    /// Waits for every background revalidation started so far (and those they start).
    func waitForBackgroundWork() async {
        while true {
            let tasks = background.withLock { Array($0.tasks.values) }
            if tasks.isEmpty { return }
            for task in tasks { await task.value }
        }
    }
}

extension HTTPMemoryCache: WebsiteDataComponent {
    static func open(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws -> Self {
        try Self(database: database, clock: clock)
    }

    var dataType: WebsiteDataType { .memoryCache }

    func siteSizes() throws -> [String: Int64] {
        state.withLock { s in
            refresh(&s)
            var sizes: [String: Int64] = [:]
            for item in s.items.values { sizes[item.entry.site, default: 0] += item.size }
            return sizes
        }
    }

    /// Removes matching entries here and records the removal in the change log, so that every
    /// other process sharing the store removes its own matching entries on its next access.
    func removeData(matching filter: RemovalFilter, dryRun: Bool) throws -> [String: Int] {
        let counts = state.withLock { s -> [String: Int] in
            refresh(&s)
            let match: (Item) -> Bool = { filter.matches(site: $0.entry.site, modified: $0.entry.modified) }
            if dryRun {
                return s.items.values.filter(match).reduce(into: [:]) { $0[$1.entry.site, default: 0] += 1 }
            }
            return remove(&s, where: match)
        }
        if !dryRun {
            let since = filter.modifiedSince
            let log =
                filter.sites.map {
                    $0.sorted().map { ChangeLogEntry(.memoryCache, site: $0, cause: .removal, since: since) }
                }
                ?? [ChangeLogEntry(.memoryCache, site: "*", cause: .removal, since: since)]
            try database.write(changes: log)
        }
        return counts
    }
}
