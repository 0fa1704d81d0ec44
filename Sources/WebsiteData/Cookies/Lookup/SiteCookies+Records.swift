import Foundation

/// What a site keeps of each cookie (see `SiteCookies`): its record and its key; and its place,
/// and a place's member as the lookup index lists it.
extension SiteCookies {
    /// What a site keeps of a cookie besides its key, its place and its bytes: with them, all of
    /// the cookie (`SiteCookies.cookie(at:)` makes it). 32 bytes.
    struct Stored {
        /// The partition and the long pair, for a cookie with either (few have one): a
        /// reference, where two strings would take 32 bytes of every record.
        private var extra: Extra?
        /// Last modification time as seconds since the reference date.
        var modified: Double
        /// Creation time as seconds since the reference date.
        var created: Double
        /// The name's length in bytes: where the pair splits into name and value.
        var nameLength: UInt32
        /// FNV-1a of the name's bytes: a search by key compares it before any bytes.
        var nameHash: UInt32

        /// The partition the cookie was set in; empty for most.
        var partitionKey: String { extra?.partitionKey ?? "" }
        /// The pair (`name=value`, or the value of a nameless cookie) when it is longer than
        /// `longestPairKept`, and so not in `bytes`.
        var longPair: String? { extra?.longPair }

        /// What `cookie`'s record keeps, its pair kept in `bytes` or not.
        init(_ cookie: Cookie, pairKept: Bool) {
            let longPair = pairKept ? nil : cookie.pair
            extra =
                cookie.partitionKey.isEmpty && longPair == nil
                ? nil : Extra(partitionKey: cookie.partitionKey, longPair: longPair)
            modified = cookie.modified.timeIntervalSinceReferenceDate
            created = cookie.created.timeIntervalSinceReferenceDate
            nameLength = UInt32(cookie.name.utf8.count)
            nameHash = SiteCookies.hash(cookie.name)
        }

        /// A record's partition and long pair.
        final class Extra: Sendable {
            let partitionKey: String
            let longPair: String?

            init(partitionKey: String, longPair: String?) {
                self.partitionKey = partitionKey
                self.longPair = longPair
            }
        }
    }

    /// Where a cookie may be sent: its domain and path (offsets in `bytes`) and whether it is
    /// host-only.
    struct Place {
        var domain: UInt32
        var domainLength: UInt32
        var path: UInt32
        var pathLength: UInt32
        var isHostOnly: Bool

        /// Whether `other` is the same domain, path and host-only flag (at the same offsets).
        func isSame(as other: Place) -> Bool {
            domain == other.domain && domainLength == other.domainLength && path == other.path
                && pathLength == other.pathLength && isHostOnly == other.isHostOnly
        }
    }

    /// A cookie of a place, as `PlaceIndex` lists it: its index, and where its pair is (as in
    /// `Key`), so that a lookup asks for a cookie's key and pair at once, not the pair only once
    /// the key has come (a wait for memory apiece, on a large store).
    struct Member {
        var index: UInt32
        var pair: UInt32
    }

    /// What a lookup reads and writes of a cookie: its place (an index in `places`), its flags,
    /// expiry and SameSite and where its pair is, its last-access time, and its rank in header
    /// order. The record does not repeat what the key and the place hold.
    struct Key {
        /// Expiry as seconds since the reference date; infinity for a session cookie.
        var expires: Double
        /// The cookie's last-access time as seconds since the reference date, and the one that
        /// counts: a lookup moves it on here, where its cache line already is (see `stored`).
        var lastAccess: Double
        var place: UInt32
        /// Where the cookie's pair starts in `bytes`: `notKept` for a pair longer than
        /// `longestPairKept` (`Stored.longPair`).
        var pair: UInt32
        /// The cookie's place among the site's in `Cookie` header order (`goesBefore`): the
        /// ranks of a site's cookies are 0 to count - 1, each once.
        var rank: UInt32
        /// The pair's length in bytes when it is kept (at most `longestPairKept`), else 0.
        var pairLength: UInt16
        /// `hostOnly`, `secure`, `httpOnly`, `partitioned`, `session`.
        var flags: UInt8
        var sameSite: CookieSameSite

        /// `pair` of a cookie whose pair is not in `bytes`.
        static let notKept = UInt32.max
        /// The bits of `flags`.
        static let hostOnly: UInt8 = 1, secure: UInt8 = 2, httpOnly: UInt8 = 4, partitioned: UInt8 = 8
        /// The bit of `flags` of a cookie with no expiry (`expires` is then infinity).
        static let session: UInt8 = 16

        /// The key of `cookie`, whose pair (of `pairLength` bytes) is at `pair`, at `place`;
        /// rank 0 until ranked.
        init(_ cookie: Cookie, pair: UInt32, pairLength: Int, place: Int) {
            expires = cookie.expires?.timeIntervalSinceReferenceDate ?? .infinity
            lastAccess = cookie.lastAccess.timeIntervalSinceReferenceDate
            self.place = UInt32(place)
            self.pair = pair
            rank = 0
            self.pairLength = pair == Self.notKept ? 0 : UInt16(pairLength)
            var flags: UInt8 = 0
            if cookie.isHostOnly { flags |= Self.hostOnly }
            if cookie.isSecure { flags |= Self.secure }
            if cookie.isHTTPOnly { flags |= Self.httpOnly }
            if !cookie.partitionKey.isEmpty { flags |= Self.partitioned }
            if cookie.expires == nil { flags |= Self.session }
            self.flags = flags
            sameSite = cookie.sameSite
        }
    }
}
