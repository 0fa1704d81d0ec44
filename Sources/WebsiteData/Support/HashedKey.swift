/// A dictionary key that carries its hash, computed once when it is made. Probing a run of
/// buckets then compares integers, and the keys themselves only on a hash match: keys made of
/// strings (the memory cache's partitions and URLs, which share long prefixes; the cookie jar's
/// site names) are each a heap read, a cache miss on a large table. Growing the table rehashes
/// integers.
struct HashedKey<Key: Hashable & Sendable>: Hashable, Sendable {
    let key: Key
    let hash: Int

    init(_ key: Key) {
        self.key = key
        self.hash = key.hashValue
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.hash == rhs.hash && lhs.key == rhs.key }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}
