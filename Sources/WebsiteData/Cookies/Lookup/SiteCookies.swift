import CWebsiteDataSupport
import Foundation

/// The cookies of one site (display name), kept in the compact form finding them reads.
///
/// No `Cookie` value is kept: a cookie is its key (below: flags, expiry, where its `Cookie`
/// header pair (`name=value`) is in the site's byte buffer), its place (where its domain and
/// path are in the buffer) and its record (`Stored`: creation and modification times, a hash of
/// its name, where the pair splits, its partition, a pair too long for the buffer), the keys and
/// records each in an array of their own, in the same order; `cookie(at:)` makes the `Cookie`.
/// Whole `Cookie` values, with their strings, took more memory than everything else the site
/// keeps. Equal domains and paths are mostly kept once in the buffer (see `find`). Finding a
/// cookie by key compares the records' numbers before bytes.
///
/// A lookup reads no string and no record: each cookie's key (32 bytes: its place,
/// flags, expiry, SameSite, last-access time, where its pair is, and its rank in header order),
/// and the site a list of its distinct places (domain, path, host-only). A lookup reads the
/// site's index (`PlaceIndex`: the places with cookies, each with its cookies, and the distinct
/// domains and paths), tests each distinct domain and path once, reads the keys of the cookies
/// of the places that match, puts what it sends in header order by rank, and copies their pairs
/// from the buffer. On a large store each string, record or key line read is a cache miss, and
/// sorting by path and creation time reads every cookie sent: so a lookup reads neither.
///
/// Every change goes through this type, which keeps the records, keys, ranks and places in step
/// with the cookies.
///
/// The folder's invariants and the rules behind this layout are in `README.md` beside it; its
/// plain model is `ReferenceCookieLookup`. Beside this file: what is kept per cookie
/// (`SiteCookies+Records.swift`: `Stored`, `Key`, `Place`, `Member`), the lookup index
/// (`SiteCookies+PlaceIndex.swift`) and what a lookup hands its caller
/// (`SiteCookies+Matches.swift`).
struct SiteCookies {
    /// The cookies' records, in insertion order. A cookie's last-access time is its key's (a
    /// lookup writes only the keys). Read the cookies through `cookies` and `cookie(at:)`.
    private var stored: [Stored] = []
    /// `keys[i]`: all a lookup reads and writes of the cookie of `stored[i]`, 32 bytes apiece: it
    /// reads nothing else of a cookie but its pair.
    private var keys: [Key] = []
    /// The distinct (domain, path, host-only) combinations of the site's cookies, mostly once
    /// each (see `makeKey`). What a lookup reads of them is in `index`.
    private(set) var places: [Place] = []
    /// What a lookup reads before it knows which keys and pairs to ask for (`PlaceIndex`), in one
    /// allocation. Built again by the first lookup after a change.
    private var index: [UInt8] = []
    /// Where `index`, `keys` and `bytes` were when the index was built (or a lookup found them
    /// moved by a copy): a lookup asks for their lines before it has read their headers, and
    /// the store's table of hosts keeps them for the next lookup of a host, which asks for them
    /// before it has read the site's slot. Hints only (see `LookupHints`).
    private(set) var hints = LookupHints()
    /// Whether the cookies changed since `index` was built.
    private var indexIsStale = false
    /// UTF-8: each distinct domain and path, and each cookie's pair (`value` alone for a
    /// nameless cookie) up to `longestPairKept` bytes. A cookie added with a domain or path
    /// already held uses those bytes. About `unusedBytes` of
    /// it are no cookie's any more (a removed cookie's domain and path are counted, used by
    /// others or not). The domains and paths are in the same array as the pairs, not one of
    /// their own: a store holds many small sites, each array a header and spare capacity.
    private var bytes: [UInt8] = []
    private var unusedBytes = 0

    /// Longer pairs are kept as strings of their own (`Stored.longPair`): each is one
    /// allocation, where the buffer would grow (and be copied) by its size.
    static let longestPairKept = 256

    init() {}

    /// The cookies of a site, in this order.
    init(_ cookies: [Cookie]) {
        stored.reserveCapacity(cookies.count)
        keys.reserveCapacity(cookies.count)
        // At most this many bytes (less when domains and paths repeat, as they mostly do).
        bytes.reserveCapacity(
            cookies.reduce(0) { total, cookie in
                let pair = Self.pairLength(of: cookie)
                return total + (pair <= Self.longestPairKept ? pair : 0) + cookie.domain.utf8.count
                    + cookie.path.utf8.count
            })
        append(contentsOf: cookies)
    }

    var count: Int { stored.count }
    var isEmpty: Bool { stored.isEmpty }

    /// The cookies, in insertion order.
    var cookies: [Cookie] { stored.indices.map(cookie(at:)) }

    /// The cookie at `index`.
    func cookie(at index: Int) -> Cookie {
        bytes.withUnsafeBufferPointer { bytes in
            Self.cookie(stored[index], keys[index], place(of: index), bytes: bytes)
        }
    }

    /// The cookie whose record, key and place these are, its strings read from `bytes`.
    static func cookie(_ record: Stored, _ key: Key, _ place: Place, bytes: UnsafeBufferPointer<UInt8>) -> Cookie {
        func text(_ offset: UInt32, _ length: Int) -> String {
            guard length > 0 else { return "" }
            let start = Int(offset)
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<start + length]), as: UTF8.self)
        }
        let nameLength = Int(record.nameLength)
        // The value starts after the name and its `=`; a nameless cookie's pair is its value.
        let valueStart = nameLength > 0 ? nameLength + 1 : 0
        let name: String
        let value: String
        if let pair = record.longPair {
            name = String(decoding: pair.utf8.prefix(nameLength), as: UTF8.self)
            value = String(decoding: pair.utf8.dropFirst(valueStart), as: UTF8.self)
        } else {
            name = text(key.pair, nameLength)
            value = text(key.pair + UInt32(valueStart), Int(key.pairLength) - valueStart)
        }
        return Cookie(
            name: name, value: value, domain: text(place.domain, Int(place.domainLength)),
            path: text(place.path, Int(place.pathLength)), isHostOnly: key.flags & Key.hostOnly != 0,
            isSecure: key.flags & Key.secure != 0, isHTTPOnly: key.flags & Key.httpOnly != 0,
            sameSite: key.sameSite, partitionKey: record.partitionKey,
            expires: key.flags & Key.session != 0 ? nil : Date(timeIntervalSinceReferenceDate: key.expires),
            created: Date(timeIntervalSinceReferenceDate: record.created),
            lastAccess: Date(timeIntervalSinceReferenceDate: key.lastAccess),
            modified: Date(timeIntervalSinceReferenceDate: record.modified))
    }

    /// The last-access time of the cookie at `index`.
    func lastAccess(at index: Int) -> Date { Date(timeIntervalSinceReferenceDate: keys[index].lastAccess) }

    /// Whether a cookie has expired at `date` (read from the keys: no cookie is made).
    func hasExpiredCookie(at date: Date) -> Bool {
        let seconds = date.timeIntervalSinceReferenceDate
        return keys.contains { $0.expires <= seconds }
    }

    /// Removes the cookies expired at `date`; returns them.
    mutating func removeExpired(at date: Date) -> [Cookie] {
        let seconds = date.timeIntervalSinceReferenceDate
        var indices = IndexSet()
        for i in keys.indices where keys[i].expires <= seconds { indices.insert(i) }
        return remove(at: indices)
    }

    /// What eviction orders cookies by (Chromium's order): non-secure before Secure, then the
    /// least recently accessed first.
    struct EvictionRank {
        var isSecure: Bool
        /// Seconds since the reference date.
        var lastAccess: Double

        /// Whether a cookie of this rank goes before one of `other`'s.
        func evictsBefore(_ other: EvictionRank) -> Bool {
            isSecure != other.isSecure ? !isSecure : lastAccess < other.lastAccess
        }
    }

    /// Calls `body` with each cookie's index, eviction rank and expiry (seconds since the
    /// reference date; infinity for a session cookie), read from the keys.
    func forEachEvictionFact(_ body: (Int, EvictionRank, Double) -> Void) {
        for i in keys.indices {
            body(
                i, EvictionRank(isSecure: keys[i].flags & Key.secure != 0, lastAccess: keys[i].lastAccess),
                keys[i].expires)
        }
    }

    /// Whether a cookie matches `predicate`.
    func contains(where predicate: (Cookie) -> Bool) -> Bool {
        stored.indices.contains { predicate(cookie(at: $0)) }
    }

    // MARK: Changing

    /// Appends a cookie. Its domain and path share the storage of equal ones already held.
    mutating func append(_ cookie: Cookie) {
        appendUnranked(cookie)
        insertRank(of: keys.count - 1)
    }

    /// Appends cookies, in this order, and ranks the site once (not once per cookie, which
    /// reads every cookie's place and record each time).
    mutating func append(contentsOf cookies: [Cookie]) {
        for cookie in cookies { appendUnranked(cookie) }
        rankAll()
    }

    /// Appends a cookie with rank 0, for `rankAll` to rank.
    private mutating func appendUnranked(_ cookie: Cookie) {
        let (record, key) = compactForm(of: cookie)
        stored.makeRoom(for: 1)
        keys.makeRoom(for: 1)
        stored.append(record)
        keys.append(key)
        indexIsStale = true
    }

    /// Replaces the cookie at `index`.
    mutating func replace(at index: Int, with cookie: Cookie) {
        unusedBytes += heldBytes(at: index)
        removeRank(of: index)
        (stored[index], keys[index]) = compactForm(of: cookie)
        indexIsStale = true
        insertRank(of: index)
        compactIfSparse()
    }

    /// Removes and returns the cookie at `index`.
    @discardableResult
    mutating func remove(at index: Int) -> Cookie {
        unusedBytes += heldBytes(at: index)
        let removed = cookie(at: index)
        removeRank(of: index)
        keys.remove(at: index)
        indexIsStale = true
        stored.remove(at: index)
        compactIfSparse()
        return removed
    }

    /// Removes the cookies at `indices`; returns them, in order.
    mutating func remove(at indices: IndexSet) -> [Cookie] {
        guard !indices.isEmpty else { return [] }
        var removed: [Cookie] = []
        var keptCookies: [Stored] = []
        var keptKeys: [Key] = []
        keptCookies.reserveCapacity(stored.count - indices.count)
        keptKeys.reserveCapacity(stored.count - indices.count)
        for i in stored.indices {
            if indices.contains(i) {
                removed.append(cookie(at: i))
                unusedBytes += heldBytes(at: i)
            } else {
                keptCookies.append(stored[i])
                keptKeys.append(keys[i])
            }
        }
        stored = keptCookies
        keys = keptKeys
        indexIsStale = true
        rankAll()
        compactIfSparse()
        return removed
    }

    /// Removes the cookies matching `predicate`; returns them.
    mutating func removeAll(where predicate: (Cookie) -> Bool) -> [Cookie] {
        var indices = IndexSet()
        for i in stored.indices where predicate(cookie(at: i)) { indices.insert(i) }
        return remove(at: indices)
    }

    /// Moves the last-access time of the cookie at `index` on (nothing a lookup tests changes).
    mutating func setLastAccess(_ date: Date, at index: Int) {
        keys[index].lastAccess = date.timeIntervalSinceReferenceDate
    }

    /// The index of the cookie with `cookie`'s key (name, domain, host-only, path, partition), if held.
    func index(ofKey cookie: Cookie) -> Int? {
        let hash = Self.hash(cookie.name)
        let hostOnly = cookie.isHostOnly ? Key.hostOnly : 0
        var domain = cookie.domain
        var path = cookie.path
        // Domains and paths compared as bytes: equal ones are not always at one offset (see `find`).
        return domain.withUTF8 { domain in
            path.withUTF8 { path in
                bytes.withUnsafeBufferPointer { bytes -> Int? in
                    for i in stored.indices where stored[i].nameHash == hash && keys[i].flags & Key.hostOnly == hostOnly
                    {
                        let place = place(of: i)
                        if Int(place.domainLength) == domain.count && Int(place.pathLength) == path.count
                            && Self.same(bytes, at: place.domain, as: domain)
                            && Self.same(bytes, at: place.path, as: path)
                            && hasName(cookie.name, at: i, bytes: bytes)
                            && stored[i].partitionKey.sameBytes(as: cookie.partitionKey)
                        {
                            return i
                        }
                    }
                    return nil
                }
            }
        }
    }

    /// Whether the cookie at `index` is named `name`, byte for byte (its pair starts with it;
    /// compared in place, no string made).
    private func hasName(_ name: String, at index: Int, bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard Int(stored[index].nameLength) == name.utf8.count else { return false }
        if let pair = stored[index].longPair { return pair.utf8.starts(with: name.utf8) }
        let start = Int(keys[index].pair)
        return bytes[start..<start + name.utf8.count].elementsEqual(name.utf8)
    }

    /// Whether the bytes at `offset` are `other`'s.
    private static func same(
        _ bytes: UnsafeBufferPointer<UInt8>, at offset: UInt32, as other: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        other.isEmpty || memcmp(bytes.baseAddress! + Int(offset), other.baseAddress!, other.count) == 0
    }

    /// Whether a Secure cookie held would be shadowed by `cookie` (RFC 6265bis 5.7 step 14):
    /// same name, domains matching either way, `cookie`'s path matching the held one's, not expired.
    func hasSecureCookie(shadowedBy cookie: Cookie, now: Date) -> Bool {
        let hash = Self.hash(cookie.name)
        for i in stored.indices where keys[i].flags & Key.secure != 0 && stored[i].nameHash == hash {
            let old = self.cookie(at: i)
            if old.name.sameBytes(as: cookie.name)
                && (CanonicalCookie.domainMatches(old.domain, cookie.domain)
                    || CanonicalCookie.domainMatches(cookie.domain, old.domain))
                && CanonicalCookie.pathMatches(cookie.path, old.path) && !old.isExpired(at: now)
            {
                return true
            }
        }
        return false
    }

    // MARK: Finding (RFC 6265bis 5.8.3)

    /// The cookies to send to `request` in `context` through `api`, in header order, each marked
    /// accessed at `now` (and added to `touched` when its stored access time is due to be written).
    ///
    /// Calls `body` with the cookies to send (none when nothing matches). The request is read as
    /// bytes (see `CanonicalCookie.RequestBytes`). `linesAsked`: the lines of the index, keys
    /// and bytes have been asked for where they are (by the store's table of hosts).
    mutating func withMatches<R>(
        _ request: CanonicalCookie.RequestBytes, url: URL, context: CookieRequestContext, api: CookieAPI,
        now: Date, linesAsked: Bool = false, touched: inout [Cookie], _ body: (Matches) -> R
    ) -> R {
        let nowSeconds = now.timeIntervalSinceReferenceDate
        let excluded = (request.isSecureOrigin ? 0 : Key.secure) | (api == .nonHTTP ? Key.httpOnly : 0)
        let host = request.host
        let path = request.path
        if indexIsStale { buildIndex() }
        // Asked for here when the table of hosts had no hints for the host, or older ones.
        let hints = self.hints
        if !linesAsked { hints.prefetch() }
        let (result, due, moved) = withParts { all, mutableKeys, index, bytes -> (R, [Int], Bool) in
            let moved = !hints.hold(
                index: UnsafeRawPointer(index.baseAddress), keys: UnsafeRawPointer(mutableKeys.baseAddress),
                bytes: UnsafeRawPointer(bytes.baseAddress))
            guard !index.isEmpty else { return (body(.none), [], moved) }
            let index = PlaceIndex(index)
            let keys = UnsafeBufferPointer(mutableKeys)
            // Sized by the index's count of cookies, not the keys': the lookup's stack waits for
            // the count it is sized by, and the index's lines are asked for first.
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: index.memberCount) {
                found -> (R, [Int], Bool) in
                var n = 0
                var sameSite: Bool?
                var topLevelKey: String?
                // Each distinct domain and path tested once; then each place by their results, and
                // the keys read only of the cookies of the places that match.
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: index.domainCount + index.pathCount) {
                    results in
                    index.test(host: host, path: path, into: results)
                    for p in 0..<index.placeCount {
                        let place = index.place(p)
                        guard index.matches(place, results) else { continue }
                        let cookies = Int(place.first)..<Int(place.first) + Int(place.count)
                        // A place's cookies' keys are anywhere in the site's, and their pairs
                        // anywhere in the bytes: all asked for at once (the pairs of those not
                        // sent too), where the hints did not reach.
                        for j in cookies {
                            let member = index.member(j)
                            wkstore_prefetch(keys.baseAddress! + Int(member.index))
                            if member.pair != Key.notKept { wkstore_prefetch(bytes.baseAddress! + Int(member.pair)) }
                        }
                        for j in cookies {
                            let i = Int(index.member(j).index)
                            let key = keys[i]
                            guard key.flags & excluded == 0, key.expires > nowSeconds else { continue }
                            if key.sameSite != .none {
                                let same = sameSite ?? context.isSameSite(url)
                                sameSite = same
                                if !same {
                                    if key.sameSite == .strict { continue }
                                    if !(context.isNavigation && context.isSafeMethod && api == .http) { continue }
                                }
                            }
                            if key.flags & Key.partitioned != 0 {
                                let partition =
                                    topLevelKey
                                    ?? ((context.topLevelSite.flatMap(SchemefulSite.init) ?? SchemefulSite(url))?
                                        .description ?? "")
                                topLevelKey = partition
                                if all.stored.pointee[i].partitionKey != partition { continue }
                            }
                            // Its rank beside its index: sorted as numbers (see `sortInHeaderOrder`).
                            found[n] = Int(key.rank) << 32 | i
                            n += 1
                        }
                    }
                }
                Self.sortInHeaderOrder(UnsafeMutableBufferPointer(rebasing: found[..<n]))
                let matched = UnsafeBufferPointer(rebasing: found[..<n])
                var due: [Int] = []
                for i in matched {
                    if nowSeconds - mutableKeys[i].lastAccess >= CookieRules.lastAccessPersistInterval { due.append(i) }
                    mutableKeys[i].lastAccess = nowSeconds
                }
                return (body(Matches(all: all, keys: keys, bytes: bytes, indices: matched)), due, moved)
            }
        }
        // A copy of the site (alive while the arrays were reached as mutable) moved them.
        if moved { refreshHints() }
        for i in due { touched.append(cookie(at: i)) }
        return result
    }

    /// Calls `body` with the site's cookies, keys (to move their last-access times on), index
    /// and bytes, in place. Always inlined, as the lookup's other helpers are (see
    /// `Site.withRequestBytes`). Each array reached as mutable, though only the keys are changed:
    /// from a lookup, a non-mutating method takes a copy of the whole site, and each array
    /// borrowed for the call is retained and released around it (atomic writes, to lines a
    /// lookup may not otherwise read).
    @inline(__always)
    private mutating func withParts<R>(
        _ body: (
            Records, UnsafeMutableBufferPointer<Key>, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>
        ) -> R
    ) -> R {
        withUnsafePointer(to: &stored) { stored in
            withUnsafePointer(to: &places) { places in
                keys.withUnsafeMutableBufferPointer { keys in
                    index.withUnsafeMutableBufferPointer { index in
                        bytes.withUnsafeMutableBufferPointer { bytes in
                            body(
                                Records(stored: stored, places: places), keys, UnsafeBufferPointer(index),
                                UnsafeBufferPointer(bytes))
                        }
                    }
                }
            }
        }
    }

    /// Puts a lookup's matches in header order, each given as its key's rank times 2^32 plus its
    /// index (a site's ranks are 0 to `count` - 1, each once), and leaves their indices. Sorting
    /// the numbers themselves reads no key: compared through the keys, a sort reads two ranks a
    /// step.
    private static func sortInHeaderOrder(_ found: UnsafeMutableBufferPointer<Int>) {
        var found = found
        found.sort()
        for k in found.indices { found[k] &= (1 << 32) - 1 }
    }

    /// Where the index, keys and bytes are now.
    var currentHints: LookupHints {
        index.withUnsafeBufferPointer { index in
            keys.withUnsafeBufferPointer { keys in
                bytes.withUnsafeBufferPointer { bytes in
                    LookupHints(
                        index: UnsafeRawPointer(index.baseAddress), keys: UnsafeRawPointer(keys.baseAddress),
                        bytes: UnsafeRawPointer(bytes.baseAddress))
                }
            }
        }
    }

    /// Notes where the index, keys and bytes are now (see `hints`).
    private mutating func refreshHints() { hints = currentHints }

    /// Builds the index (`PlaceIndex`).
    private mutating func buildIndex() {
        index = PlaceIndex.build(places: places, keys: keys, bytes: bytes)
        refreshHints()
        indexIsStale = false
    }

    // MARK: Header order

    /// Whether the cookie at `a` goes before the one at `b` in a `Cookie` header (RFC 6265bis
    /// 5.8.3): the longer path first, then the earlier creation; then index order, so that the
    /// order of equals does not depend on how it is found.
    private func goesBefore(_ a: Int, _ b: Int) -> Bool {
        let pathA = place(of: a).pathLength
        let pathB = place(of: b).pathLength
        if pathA != pathB { return pathA > pathB }
        if stored[a].created != stored[b].created { return stored[a].created < stored[b].created }
        return a < b
    }

    /// Ranks the cookie at `index` among the others, whose ranks are 0 to count - 2: those it
    /// goes before move one on.
    private mutating func insertRank(of index: Int) {
        var rank: UInt32 = 0
        for j in keys.indices where j != index && goesBefore(j, index) { rank += 1 }
        keys.withUnsafeMutableBufferPointer { keys in
            for j in keys.indices where j != index && keys[j].rank >= rank { keys[j].rank += 1 }
            keys[index].rank = rank
        }
    }

    /// Takes the cookie at `index` out of the ranks: those after it move one back.
    private mutating func removeRank(of index: Int) {
        keys.withUnsafeMutableBufferPointer { keys in
            let rank = keys[index].rank
            for j in keys.indices where keys[j].rank > rank { keys[j].rank -= 1 }
        }
    }

    /// Ranks every cookie again, from their places and records.
    private mutating func rankAll() {
        var order = Array(keys.indices)
        order.sort { goesBefore($0, $1) }
        keys.withUnsafeMutableBufferPointer { keys in
            for (rank, i) in order.enumerated() { keys[i].rank = UInt32(rank) }
        }
    }

    // MARK: Places and bytes

    /// The record and key of `cookie`, its domain, path and pair kept in `bytes` (or found
    /// there) and its place in `places`.
    private mutating func compactForm(of cookie: Cookie) -> (Stored, Key) {
        let (place, pair, pairLength) = keepBytes(of: cookie)
        return (
            Stored(cookie, pairKept: pair != Key.notKept), makeKey(cookie, place, pair: pair, pairLength: pairLength)
        )
    }

    /// The place (domain, path, host-only) of the cookie at `index`.
    private func place(of index: Int) -> Place { places[Int(keys[index].place)] }

    /// The key of `cookie`, at `place`, whose pair (of `pairLength` bytes) is at `pair`: the
    /// place is added to `places` unless one of the newest `placeWindow` places is the same.
    private mutating func makeKey(_ cookie: Cookie, _ place: Place, pair: UInt32, pairLength: Int) -> Key {
        var i = places.count - 1
        while i >= max(0, places.count - Self.placeWindow) {
            if places[i].isSame(as: place) { return Key(cookie, pair: pair, pairLength: pairLength, place: i) }
            i -= 1
        }
        places.makeRoom(for: 1)
        places.append(place)
        return Key(cookie, pair: pair, pairLength: pairLength, place: places.count - 1)
    }

    /// The place of `cookie`, its domain and path found in `bytes` or added; where its pair is
    /// (`Key.notKept` when longer than `longestPairKept`), and the pair's length.
    private mutating func keepBytes(of cookie: Cookie) -> (Place, pair: UInt32, pairLength: Int) {
        let domain = intern(cookie.domain, asPath: false)
        let path = intern(cookie.path, asPath: true)
        let pairLength = Self.pairLength(of: cookie)
        var pair = Key.notKept
        if pairLength <= Self.longestPairKept {
            pair = UInt32(bytes.count)
            bytes.makeRoom(for: pairLength)
            if !cookie.name.isEmpty {
                bytes += cookie.name.utf8
                bytes.append(UInt8(ascii: "="))
            }
            bytes += cookie.value.utf8
        }
        let place = Place(
            domain: domain, domainLength: UInt32(cookie.domain.utf8.count), path: path,
            pathLength: UInt32(cookie.path.utf8.count), isHostOnly: cookie.isHostOnly)
        return (place, pair, pairLength)
    }

    /// The bytes the cookie at `index` takes in `bytes`: its pair when kept, its domain and its
    /// path (the last two perhaps shared with other cookies).
    private func heldBytes(at index: Int) -> Int {
        let place = place(of: index)
        return Int(keys[index].pairLength) + Int(place.domainLength) + Int(place.pathLength)
    }

    /// Where `string`'s bytes are in `bytes`, appended when no place has them as its domain (or path).
    private mutating func intern(_ string: String, asPath: Bool) -> UInt32 {
        if let found = find(string, asPath: asPath) { return found }
        let start = UInt32(bytes.count)
        bytes.makeRoom(for: string.utf8.count)
        bytes += string.utf8
        return start
    }

    /// The offset of `string`'s bytes as a domain (or path), when one of the newest
    /// `internWindow` places has them (a response's cookies mostly share the domain and path of
    /// the one before). Further back, the bytes are stored again: sharing saves memory, and a
    /// site of many cookies with many paths would make every insertion (and a rebuild,
    /// quadratically) scan them all.
    private func find(_ string: String, asPath: Bool) -> UInt32? {
        var string = string
        return string.withUTF8 { wanted -> UInt32? in
            bytes.withUnsafeBufferPointer { bytes -> UInt32? in
                var i = places.count - 1
                while i >= max(0, places.count - Self.internWindow) {
                    let place = places[i]
                    if Int(asPath ? place.pathLength : place.domainLength) == wanted.count {
                        let start = asPath ? place.path : place.domain
                        if wanted.isEmpty
                            || memcmp(bytes.baseAddress! + Int(start), wanted.baseAddress!, wanted.count) == 0
                        {
                            return start
                        }
                    }
                    i -= 1
                }
                return nil
            }
        }
    }

    /// How many of the newest places `find` looks through.
    static let internWindow = 64

    /// How many of the newest places `makeKey` looks through. Equal places further back are
    /// kept again, as `find` keeps bytes again: a lookup tests each of them.
    static let placeWindow = 64

    /// Rebuilds the places and the bytes when much of what they hold may no longer be used
    /// (cookies removed or replaced).
    private mutating func compactIfSparse() {
        // Small sites count: a store holds many, and a few kilobytes unused in each add up.
        guard unusedBytes > max(256, bytes.count / 2) else { return }
        self = SiteCookies(cookies)
    }

    /// The length in bytes of `cookie.pair` (`value` alone for a nameless cookie), without making it.
    static func pairLength(of cookie: Cookie) -> Int {
        let name = cookie.name.utf8.count
        return (name > 0 ? name + 1 : 0) + cookie.value.utf8.count
    }

    /// FNV-1a over the UTF-8 bytes.
    static func hash(_ string: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in string.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash
    }
}

extension Array {
    /// Makes room for `extra` more elements: when they do not fit, the capacity grows by a
    /// quarter (or to what they need, when more), where an append would double it. A store
    /// holds many small sites, each with arrays of its own, and doubling leaves a third of each
    /// spare on average; growing by a quarter keeps appends amortized constant time. The
    /// jar's table of sites grows so too: its slots are 112 bytes, and doubling leaves 6,384
    /// of them spare at 10,000 sites.
    mutating func makeRoom(for extra: Int) {
        let needed = count + extra
        guard needed > capacity else { return }
        reserveCapacity(Swift.max(needed, count + count / 4))
    }
}
