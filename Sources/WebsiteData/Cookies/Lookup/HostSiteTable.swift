import Foundation

/// Sites by host, for one cookie store's lookups, under the store's lock: 80-byte entries, each
/// holding a host's bytes (up to `longestHostHeld`) beside the slot of its site in the store's
/// `SiteTable`, that slot's stamp, and where the arrays the site's lookup reads were last seen;
/// and an open-addressed table of 8-byte buckets, each a host's hash beside its entry's number.
/// Finding a host reads its bucket (the buckets take a fifth of the entries' memory or less at
/// the same load, and stay in the caches of a process that looks hosts up), then one entry,
/// and then the site's slot while the lines of its index, keys and bytes are already asked
/// for: no dictionary of names is read, and the site's slot is the last read a lookup waits
/// for before its cookies. The shared
/// display-name cache (a dictionary of strings, behind its own lock) read its bucket, its key's
/// bytes and its value apart, and then the jar's dictionary its bucket, key and value, each a
/// cache miss on a large store. Longer hosts go that way every time.
///
/// The entries are packed in blocks, not spread over the open-addressed table: a table at most
/// half full of 80-byte entries takes two to four times their size. A block, once made, never
/// moves or grows: an array of entries grown by copying leaves its old copies behind as holes
/// the allocator keeps, which take more memory than the entries.
///
/// A host's site never changes (the public suffix list is built in), but its slot does: a site
/// removed frees its slot, a host whose site had no cookies may get some. An entry whose stamp
/// no longer matches (see `SiteTable`) is looked up again by the site's display name. The table
/// empties itself when it holds `limit` hosts.
///
/// Not thread-safe: its owner uses it only under its own lock (hence `@unchecked Sendable`).
final class HostSiteTable: @unchecked Sendable {
    /// One host: `host` holds the host's bytes, zero-padded, and their count in its last byte.
    /// `slot` is the site's slot, or -1 when the site had no cookies; `stamp` is then the
    /// table's `lastStamp`. `hints` are where the arrays the site's lookup reads were the last
    /// time the host was looked up (see `SiteCookies.hints`): asked for with the slot, not once
    /// the slot has come. 80 bytes, two lines read together.
    private struct Entry {
        var slot: Int32
        var stamp: UInt64
        var hints: SiteCookies.LookupHints
        var host: Host
    }

    /// A host's bytes as an entry holds them.
    private typealias Host = (UInt64, UInt64, UInt64, UInt64, UInt64)

    /// Hosts of at most this many bytes are held.
    static let longestHostHeld = 39
    /// Hosts held before the table empties itself.
    let limit: Int

    /// The open-addressed table: 0 for a free bucket, else a host's tag (its hash, low bit set)
    /// times 2^32 plus its entry's number.
    private var buckets: UnsafeMutablePointer<UInt64>
    private var bucketCount: Int
    /// The entries, `count` of them in use, in the order their hosts came: entry `e` is
    /// `blocks[e / blockSize]![e % blockSize]`. Enough blocks for `limit` hosts; those past
    /// the last entry are not made yet.
    private let blocks: UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>
    private let blockCount: Int
    /// Entries in a block: 80 KiB, a block the allocator makes from its heap.
    private static let blockSize = 1024
    /// Hosts held.
    private(set) var count = 0

    /// An empty table that holds up to `limit` hosts (at most half its buckets in use).
    init(limit: Int = 50_000) {
        self.limit = limit
        bucketCount = 64
        buckets = Self.allocateBuckets(bucketCount)
        blockCount = (limit + Self.blockSize - 1) / Self.blockSize
        blocks = .allocate(capacity: blockCount)
        blocks.initialize(repeating: nil, count: blockCount)
    }

    deinit {
        buckets.deallocate()
        freeEntries()
        blocks.deallocate()
    }

    /// The slot in `sites` of the site of `host` (a canonical host's bytes, as
    /// `Site.canonicalHost` gives it), or `nil` when the site has no cookies: from the table
    /// while its entry holds, else from the site's display name, then held. `linesAsked` is set
    /// when the lines of the site's index, keys and bytes have been asked for where they are.
    func slot(forHost host: UnsafeBufferPointer<UInt8>, in sites: SiteTable, linesAsked: inout Bool) -> Int? {
        guard let key = Self.key(host) else { return Self.slot(of: host, in: sites, held: false).index }
        let tag = Self.tag(of: key)
        let mask = bucketCount - 1
        var i = Int(truncatingIfNeeded: tag >> 1) & mask
        while buckets[i] != 0 {
            let e = Int(truncatingIfNeeded: buckets[i] & 0xFFFF_FFFF)
            let held = pointer(toEntry: e)
            if UInt32(truncatingIfNeeded: buckets[i] >> 32) == tag && held.pointee.host == key {
                let entry = held.pointee
                // Only asked for: the arrays may have moved or gone since.
                entry.hints.prefetch()
                let slot = Int(entry.slot)
                if slot >= 0 ? sites.holds(slot, stamp: entry.stamp) : entry.stamp == sites.lastStamp {
                    guard slot >= 0 else { return nil }
                    let hints = sites.hints(inSlot: slot)
                    if hints != entry.hints { held.pointee.hints = hints } else { linesAsked = true }
                    return slot
                }
                // The site's slot moved, or a site got its first cookies: found again.
                let (found, stamp) = Self.slot(of: host, in: sites)
                held.pointee.slot = Int32(found ?? -1)
                held.pointee.stamp = stamp
                return found
            }
            i = (i + 1) & mask
        }
        let (slot, stamp) = Self.slot(of: host, in: sites)
        insert(Entry(slot: Int32(slot ?? -1), stamp: stamp, hints: SiteCookies.LookupHints(), host: key), tag: tag)
        return slot
    }

    /// The slot of `host`'s site found by its display name, and the stamp an entry holds for it.
    /// For a host this table holds (`held`), the name is worked out by libpsl, not read through
    /// the shared cache of display names: the table keeps the answer, and hosts kept in both
    /// took the cache's dictionary past 2 MB on a store of 25,000 hosts. A longer host goes
    /// through the cache, which keeps its site.
    private static func slot(of host: UnsafeBufferPointer<UInt8>, in sites: SiteTable, held: Bool = true) -> (
        index: Int?, stamp: UInt64
    ) {
        let name = String(decoding: host, as: UTF8.self)
        let site = SiteKey(held ? Site.uncachedDisplayName(forHost: name) : Site.displayName(forHost: name))
        guard let (index, stamp) = sites.slot(of: site) else { return (nil, sites.lastStamp) }
        return (index, stamp)
    }

    /// Holds `entry`, whose host's tag is `tag` (the host is not held yet).
    private func insert(_ entry: Entry, tag: UInt32) {
        if count >= limit {
            buckets.deallocate()
            freeEntries()
            bucketCount = 64
            buckets = Self.allocateBuckets(bucketCount)
            count = 0
        } else if (count + 1) * 2 > bucketCount {
            // The buckets hold the tags: growing reads no entry and hashes no host again.
            let old = buckets
            let oldCount = bucketCount
            bucketCount *= 2
            buckets = Self.allocateBuckets(bucketCount)
            for i in 0..<oldCount where old[i] != 0 { place(old[i]) }
            old.deallocate()
        }
        if count % Self.blockSize == 0 {
            // Entries from `malloc`, which aligns to 16 bytes: an 80-byte entry then starts 0, 16,
            // 32 or 48 bytes into a cache line, and reading it reads two lines, together.
            guard let raw = malloc(Self.blockSize * MemoryLayout<Entry>.stride) else {
                fatalError("out of memory for the table of hosts")
            }
            blocks[count / Self.blockSize] = raw.bindMemory(to: Entry.self, capacity: Self.blockSize)
        }
        pointer(toEntry: count).initialize(to: entry)
        place(UInt64(tag) << 32 | UInt64(count))
        count += 1
    }

    /// Puts `bucket` (a tag times 2^32 plus an entry's number) in the first free bucket from
    /// its hash on.
    private func place(_ bucket: UInt64) {
        var i = Int(truncatingIfNeeded: bucket >> 33) & (bucketCount - 1)
        while buckets[i] != 0 { i = (i + 1) & (bucketCount - 1) }
        buckets[i] = bucket
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
    /// low bit set, so that no bucket in use is 0.
    private static func tag(of key: Host) -> UInt32 {
        var hasher = Hasher()
        hasher.combine(key.0)
        hasher.combine(key.1)
        hasher.combine(key.2)
        hasher.combine(key.3)
        hasher.combine(key.4)
        return UInt32(truncatingIfNeeded: hasher.finalize()) | 1
    }

    private static func allocateBuckets(_ count: Int) -> UnsafeMutablePointer<UInt64> {
        let buckets = UnsafeMutablePointer<UInt64>.allocate(capacity: count)
        buckets.initialize(repeating: 0, count: count)
        return buckets
    }

    /// Entry `e`.
    private func pointer(toEntry e: Int) -> UnsafeMutablePointer<Entry> {
        blocks[e / Self.blockSize].unsafelyUnwrapped + e % Self.blockSize
    }

    /// Frees the entries' blocks (entries hold no references).
    private func freeEntries() {
        for b in 0..<blockCount {
            free(blocks[b])
            blocks[b] = nil
        }
    }

    /// The bytes an entry takes (80: two cache lines, read together).
    static var entrySize: Int { MemoryLayout<Entry>.stride }
}
