/// A site's display name with its hash worked out once.
///
/// Dictionaries keyed by it (the cookie jar's sites) hash the stored number, not the name's
/// bytes, and compare names by identity first: names handed out by `Site.displayName(forHost:)`
/// share one string per site, so finding a site reads none of its name (on a large store, the
/// name is a cache miss).
struct SiteKey: Hashable, Sendable {
    /// The display name.
    let name: String
    /// `name.hashValue`.
    let hash: Int

    init(_ name: String) {
        self.name = name
        self.hash = name.hashValue
    }

    static func == (a: SiteKey, b: SiteKey) -> Bool { a.hash == b.hash && a.name == b.name }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}

/// Sites by host, for one cookie store's lookups, under the store's lock: an open-addressed
/// table of 64-byte entries, each holding a host's bytes (up to `longestHostHeld`) beside its
/// site's key. Finding a host reads one entry; the shared display-name cache (a dictionary of
/// strings, behind its own lock) read its bucket, its key's bytes and its value apart, each a
/// cache miss on a large store, and then the jar hashed the site's name. Longer hosts go to
/// that cache every time.
///
/// A host's site never changes (the public suffix list is built in), so entries are never
/// wrong, only dropped: the table empties itself when it holds `limit` hosts.
///
/// Not thread-safe: its owner uses it only under its own lock (hence `@unchecked Sendable`).
final class HostSiteTable: @unchecked Sendable {
    /// One host: `tag` (0 for a free entry) is the hash of `host` with its low bit set; `host`
    /// holds the host's bytes, zero-padded, and their count in its last byte.
    private struct Entry {
        var tag: UInt64
        var site: SiteKey
        var host: (UInt64, UInt64, UInt64, UInt64)

        static let free = Entry(tag: 0, site: SiteKey(""), host: (0, 0, 0, 0))
    }

    /// Hosts of at most this many bytes are held.
    static let longestHostHeld = 31
    /// Hosts held before the table empties itself.
    let limit: Int

    private var entries: UnsafeMutablePointer<Entry>
    private var capacity: Int
    /// Hosts held.
    private(set) var count = 0

    /// An empty table that holds up to `limit` hosts (at most half its entries in use).
    init(limit: Int = 50_000) {
        self.limit = limit
        capacity = 64
        entries = Self.allocate(capacity)
    }

    deinit { Self.free(entries, capacity) }

    /// Calls `body` with the key of the site of `host` (a canonical host's bytes, as
    /// `Site.canonicalHost` gives it), from the table or else from `Site.displayName(forHost:)`,
    /// then held.
    func withSite<R>(forHost host: UnsafeBufferPointer<UInt8>, _ body: (SiteKey) throws -> R) rethrows -> R {
        guard let key = Self.key(host) else { return try body(SiteKey(Site.displayName(forHost: String(decoding: host, as: UTF8.self)))) }
        let tag = Self.tag(of: key)
        var i = Int(truncatingIfNeeded: tag >> 1) & (capacity - 1)
        while entries[i].tag != 0 {
            if entries[i].tag == tag && entries[i].host == key { return try body(entries[i].site) }
            i = (i + 1) & (capacity - 1)
        }
        let site = SiteKey(Site.displayName(forHost: String(decoding: host, as: UTF8.self)))
        insert(Entry(tag: tag, site: site, host: key))
        return try body(site)
    }

    private func insert(_ entry: Entry) {
        if count >= limit {
            Self.free(entries, capacity)
            capacity = 64
            entries = Self.allocate(capacity)
            count = 0
        } else if (count + 1) * 2 > capacity {
            let old = entries, oldCapacity = capacity
            capacity *= 2
            entries = Self.allocate(capacity)
            for i in 0..<oldCapacity where old[i].tag != 0 { place(old[i]) }
            Self.free(old, oldCapacity)
        }
        place(entry)
        count += 1
    }

    /// Puts `entry` in the first free entry from its hash on (the host is not held yet).
    private func place(_ entry: Entry) {
        var i = Int(truncatingIfNeeded: entry.tag >> 1) & (capacity - 1)
        while entries[i].tag != 0 { i = (i + 1) & (capacity - 1) }
        entries[i] = entry
    }

    /// The host's bytes as an entry holds them, or `nil` when it is too long.
    private static func key(_ host: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64, UInt64, UInt64)? {
        guard host.count <= longestHostHeld else { return nil }
        var key: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &key) { raw in
            if let base = host.baseAddress { raw.baseAddress!.copyMemory(from: base, byteCount: host.count) }
            raw[longestHostHeld] = UInt8(host.count)
        }
        return key
    }

    /// The key's hash with its low bit set: each word folded in by a full-width multiply, from
    /// a seed drawn once per process (so that hosts cannot be chosen to collide without it).
    /// `Hasher` (SipHash) over the four words was a thirtieth of a lookup's instructions.
    private static func tag(of key: (UInt64, UInt64, UInt64, UInt64)) -> UInt64 {
        var hash = seed
        hash = mix(hash ^ key.0)
        hash = mix(hash ^ key.1)
        hash = mix(hash ^ key.2)
        hash = mix(hash ^ key.3)
        return mix(hash) | 1
    }

    private static let seed = UInt64.random(in: .min ... .max)

    /// The two halves of `value` times an odd constant (the 64-bit golden ratio), xored.
    private static func mix(_ value: UInt64) -> UInt64 {
        let product = value.multipliedFullWidth(by: 0x9E37_79B9_7F4A_7C15)
        return product.high ^ product.low
    }

    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<Entry> {
        // Entries start on cache-line boundaries: reading one reads one line.
        let raw = UnsafeMutableRawPointer.allocate(byteCount: capacity * MemoryLayout<Entry>.stride, alignment: 64)
        let entries = raw.bindMemory(to: Entry.self, capacity: capacity)
        entries.initialize(repeating: .free, count: capacity)
        return entries
    }

    private static func free(_ entries: UnsafeMutablePointer<Entry>, _ capacity: Int) {
        entries.deinitialize(count: capacity)
        UnsafeMutableRawPointer(entries).deallocate()
    }

    /// The bytes an entry takes (64: one cache line).
    static var entrySize: Int { MemoryLayout<Entry>.stride }
}
