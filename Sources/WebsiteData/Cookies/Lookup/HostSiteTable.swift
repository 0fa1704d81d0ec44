/// Sites by host, for one cookie store's lookups, under the store's lock: an open-addressed
/// table of 80-byte entries, each holding a host's bytes (up to `longestHostHeld`) beside the
/// slot of its site in the store's `SiteTable`, that slot's stamp, and where the arrays the
/// site's lookup reads were last seen. Finding a host reads one entry, and then the site's slot
/// while the lines of its index, keys and bytes are already asked for: no dictionary of names is
/// read, and the slot is the last read a lookup waits for before its cookies. The shared display-name
/// cache (a dictionary of strings, behind its own lock) read its bucket, its key's bytes and its
/// value apart, and then the jar's dictionary its bucket, key and value, each a cache miss on a
/// large store. Longer hosts go that way every time.
///
/// A host's site never changes (the public suffix list is built in), but its slot does: a site
/// removed frees its slot, a host whose site had no cookies may get some. An entry whose stamp
/// no longer matches (see `SiteTable`) is looked up again by the site's display name. The table
/// empties itself when it holds `limit` hosts.
///
/// Not thread-safe: its owner uses it only under its own lock (hence `@unchecked Sendable`).
final class HostSiteTable: @unchecked Sendable {
    /// One host: `tag` (0 for a free entry) is the hash of `host` with its low bit set; `host`
    /// holds the host's bytes, zero-padded, and their count in its last byte. `slot` is the
    /// site's slot, or -1 when the site had no cookies; `stamp` is then the table's `lastStamp`.
    /// `hints` are where the arrays the site's lookup reads were the last time the host was
    /// looked up (see `SiteCookies.hints`): asked for with the slot, not once the slot has come.
    /// 80 bytes, two lines read together.
    private struct Entry {
        var tag: UInt32
        var slot: Int32
        var stamp: UInt64
        var hints: SiteCookies.LookupHints
        var host: Host

        static let free = Entry(tag: 0, slot: -1, stamp: 0, hints: SiteCookies.LookupHints(), host: (0, 0, 0, 0, 0))
    }

    /// A host's bytes as an entry holds them.
    private typealias Host = (UInt64, UInt64, UInt64, UInt64, UInt64)

    /// Hosts of at most this many bytes are held.
    static let longestHostHeld = 39
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

    /// The slot in `sites` of the site of `host` (a canonical host's bytes, as
    /// `Site.canonicalHost` gives it), or `nil` when the site has no cookies: from the table
    /// while its entry holds, else from the site's display name, then held. `linesAsked` is set
    /// when the lines of the site's index, keys and bytes have been asked for where they are.
    func slot(forHost host: UnsafeBufferPointer<UInt8>, in sites: SiteTable, linesAsked: inout Bool) -> Int? {
        guard let key = Self.key(host) else { return Self.slot(of: host, in: sites).index }
        let tag = Self.tag(of: key)
        var i = Int(truncatingIfNeeded: tag >> 1) & (capacity - 1)
        while entries[i].tag != 0 {
            if entries[i].tag == tag && entries[i].host == key {
                let entry = entries[i]
                // Only asked for: the arrays may have moved or gone since.
                entry.hints.prefetch()
                let slot = Int(entry.slot)
                if slot >= 0 ? sites.holds(slot, stamp: entry.stamp) : entry.stamp == sites.lastStamp {
                    guard slot >= 0 else { return nil }
                    let hints = sites.hints(inSlot: slot)
                    if hints != entry.hints { entries[i].hints = hints } else { linesAsked = true }
                    return slot
                }
                // The site's slot moved, or a site got its first cookies: found again.
                let (found, stamp) = Self.slot(of: host, in: sites)
                entries[i].slot = Int32(found ?? -1)
                entries[i].stamp = stamp
                return found
            }
            i = (i + 1) & (capacity - 1)
        }
        let (slot, stamp) = Self.slot(of: host, in: sites)
        insert(Entry(tag: tag, slot: Int32(slot ?? -1), stamp: stamp, hints: SiteCookies.LookupHints(), host: key))
        return slot
    }

    /// The slot of `host`'s site found by its display name, and the stamp an entry holds for it.
    private static func slot(of host: UnsafeBufferPointer<UInt8>, in sites: SiteTable) -> (index: Int?, stamp: UInt64) {
        let site = SiteKey(Site.displayName(forHost: String(decoding: host, as: UTF8.self)))
        guard let (index, stamp) = sites.slot(of: site) else { return (nil, sites.lastStamp) }
        return (index, stamp)
    }

    private func insert(_ entry: Entry) {
        if count >= limit {
            Self.free(entries, capacity)
            capacity = 64
            entries = Self.allocate(capacity)
            count = 0
        } else if (count + 1) * 2 > capacity {
            let old = entries
            let oldCapacity = capacity
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
    private static func key(_ host: UnsafeBufferPointer<UInt8>) -> Host? {
        guard host.count <= longestHostHeld else { return nil }
        var key: Host = (0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &key) { raw in
            if let base = host.baseAddress { raw.baseAddress!.copyMemory(from: base, byteCount: host.count) }
            raw[longestHostHeld] = UInt8(host.count)
        }
        return key
    }

    /// The key's hash (`Hasher`, seeded per process: hosts cannot be chosen to collide) with its
    /// low bit set.
    private static func tag(of key: Host) -> UInt32 {
        var hasher = Hasher()
        hasher.combine(key.0)
        hasher.combine(key.1)
        hasher.combine(key.2)
        hasher.combine(key.3)
        hasher.combine(key.4)
        return UInt32(truncatingIfNeeded: hasher.finalize()) | 1
    }

    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<Entry> {
        // Entries of 80 bytes from a cache-line boundary: reading one reads two lines, together.
        let raw = UnsafeMutableRawPointer.allocate(byteCount: capacity * MemoryLayout<Entry>.stride, alignment: 64)
        let entries = raw.bindMemory(to: Entry.self, capacity: capacity)
        entries.initialize(repeating: .free, count: capacity)
        return entries
    }

    private static func free(_ entries: UnsafeMutablePointer<Entry>, _ capacity: Int) {
        entries.deinitialize(count: capacity)
        UnsafeMutableRawPointer(entries).deallocate()
    }

    /// The bytes an entry takes (80: two cache lines, read together).
    static var entrySize: Int { MemoryLayout<Entry>.stride }
}
