import Foundation

/// A change the jar made, for the persistent store to write.
enum CookieJarChange: Sendable {
    /// Insert or replace this cookie.
    case upsert(Cookie)
    /// Remove the cookie with this identity, for this reason.
    case delete(Cookie, CookieChangeCause)

    var site: String {
        switch self {
        case .upsert(let c), .delete(let c, _): c.site
        }
    }
}

/// Why a cookie left the jar, as observers see it.
public enum CookieChangeCause: String, Sendable, Hashable {
    /// Set for the first time.
    case inserted
    /// Replaced by a cookie with the same identity.
    case overwritten
    /// Removed by a `Set-Cookie` with an expiry in the past, or found expired.
    case expired
    /// Removed to keep the store within its limits.
    case evicted
    /// Removed by an explicit call (delete, clear).
    case explicit
    /// Removed because the browsing session ended (`endSession`): a session cookie.
    case sessionEnded
}

/// The in-memory cookie index: cookies by site (display name), with the limits and eviction of
/// RFC 6265bis 5.7 and Chromium's cookie monster. Not thread-safe; its owner locks it.
struct CookieJar {
    /// The cookies by site, in slots a store's table of hosts can point at (see `SiteTable`).
    private(set) var sites = SiteTable()
    private(set) var count = 0
    var limits: CookieLimits
    /// The newest creation time handed out, so that cookies created in the same instant still
    /// order by arrival (Chromium does the same).
    private var lastCreated = Date.distantPast

    init(limits: CookieLimits) { self.limits = limits }

    /// What one insertion did.
    struct Insertion {
        var changes: [CookieJarChange] = []
        var evicted: [Cookie] = []
        var cause: CookieChangeCause = .inserted
    }

    // MARK: Writing

    /// Stores a canonical cookie, applying the rules that depend on cookies already stored
    /// (5.7 steps 14, 18, 22–24) and then the limits.
    mutating func insert(
        _ new: Cookie, deletes: Bool, fromSecureOrigin: Bool, api: CookieAPI, now: Date,
        evict: Bool = true
    ) -> Result<Insertion, CookieRejection> {
        var cookie = new
        let site = SiteKey(cookie.site)
        // Taken out of its slot so that changing it does not copy it, then put back (a site
        // left without cookies leaves the table).
        var bucket = sites.checkOut(site)
        let outcome = insert(
            &cookie, into: &bucket.cookies, deletes: deletes, fromSecureOrigin: fromSecureOrigin, api: api, now: now,
            evict: evict)
        sites.checkIn(bucket)
        guard !deletes, case .success(var result) = outcome else { return outcome }
        if evict && count > limits.maxTotal { evictGlobally(now: now, keeping: cookie, into: &result) }
        return .success(result)
    }

    /// `insert` within the cookie's site, taken out of the table.
    private mutating func insert(
        _ cookie: inout Cookie, into bucket: inout SiteCookies, deletes: Bool, fromSecureOrigin: Bool,
        api: CookieAPI, now: Date, evict: Bool
    ) -> Result<Insertion, CookieRejection> {
        // Step 14: an insecure origin may not set a cookie that would shadow a Secure one.
        if !cookie.isSecure && !fromSecureOrigin && bucket.hasSecureCookie(shadowedBy: cookie, now: now) {
            return .failure(CookieRejection(.wouldOverwriteSecure, name: cookie.name))
        }

        var result = Insertion()
        if let index = bucket.index(ofKey: cookie) {
            let old = bucket.cookie(at: index)
            // Step 22: script may not overwrite an HttpOnly cookie.
            if old.isHTTPOnly && api == .nonHTTP {
                return .failure(CookieRejection(.httpOnlyFromScript, name: cookie.name))
            }
            cookie.created = old.created
            bucket.remove(at: index)
            count -= 1
            result.cause = deletes ? .expired : .overwritten
            result.changes.append(.delete(old, result.cause))
        }
        if result.changes.isEmpty && cookie.created == now {
            // A new cookie: its creation time is unique and increasing.
            cookie.created = max(now, lastCreated.addingTimeInterval(1e-6))
            lastCreated = cookie.created
        }
        if deletes {
            if result.changes.isEmpty { result.cause = .expired }
            return .success(result)
        }
        bucket.append(cookie)
        count += 1
        result.changes.append(.upsert(cookie))
        if evict && bucket.count > limits.maxPerSite {
            evictFromSite(&bucket, now: now, keeping: cookie, into: &result)
        }
        return .success(result)
    }

    /// Removes cookies matching `predicate`; returns them.
    mutating func remove(where predicate: (Cookie) -> Bool) -> [Cookie] {
        var removed: [Cookie] = []
        // The sites are found first and changed in place: changing the dictionary while
        // iterating over it would copy all of it.
        for slot in sites.occupiedSlots where sites.cookies(inSlot: slot).contains(where: predicate) {
            removed += sites.update(slot: slot) { $0.removeAll(where: predicate) }
        }
        count -= removed.count
        return removed
    }

    /// Removes every cookie of the given sites; returns them.
    mutating func removeSites(_ names: some Sequence<String>) -> [Cookie] {
        var removed: [Cookie] = []
        for name in names {
            if let bucket = sites.removeValue(forKey: SiteKey(name)) { removed += bucket.cookies }
        }
        count -= removed.count
        return removed
    }

    /// Replaces every cookie with those of `loaded` (read from the database), keeping this
    /// jar's limits and creation-time clock.
    mutating func replaceAll(with loaded: CookieJar) {
        sites = loaded.sites
        count = loaded.count
    }

    /// Applies cookie changes (read from the change log, or this process's own not yet
    /// committed), in order: a set replaces the cookie with the same key, a delete removes it,
    /// an access moves its last-access time on. Returns the sites changed.
    @discardableResult
    mutating func apply(_ changes: [LoggedCookie]) -> Set<String> {
        // A site's changes are applied in order; sites do not depend on one another.
        var bySite: [SiteKey: [LoggedCookie]] = [:]
        for change in changes { bySite[SiteKey(change.cookie.site), default: []].append(change) }
        for (site, siteChanges) in bySite {
            var bucket = sites.checkOut(site)
            if siteChanges.count * bucket.cookies.count <= Self.scanLimit {
                for change in siteChanges { Self.apply(change, to: &bucket.cookies, count: &count) }
            } else {
                // Many changes to a large site: applied to its cookies through an index, and the
                // site built again once.
                let before = bucket.cookies.count
                bucket.cookies = SiteCookies(Self.applying(siteChanges, to: bucket.cookies.cookies))
                count += bucket.cookies.count - before
            }
            sites.checkIn(bucket)
        }
        return Set(bySite.keys.map(\.name))
    }

    private static func apply(_ logged: LoggedCookie, to bucket: inout SiteCookies, count: inout Int) {
        let cookie = logged.cookie
        let index = bucket.index(ofKey: cookie)
        switch logged.op {
        case .set:
            if let index {
                bucket.replace(at: index, with: cookie)
            } else {
                bucket.append(cookie)
                count += 1
            }
        case .delete:
            if let index {
                bucket.remove(at: index)
                count -= 1
            }
        case .access:
            if let index, bucket.lastAccess(at: index) < cookie.lastAccess {
                bucket.setLastAccess(cookie.lastAccess, at: index)
            }
        }
    }

    /// Changes times cookies beyond which a site's changes are applied through an index of its
    /// cookies rather than by scanning them for each change.
    private static let scanLimit = 4096

    /// A site's cookies with its logged changes applied in order: a set replaces the cookie
    /// with the same key or adds it, a delete removes it, an access moves its last access on.
    static func applying(_ changes: [LoggedCookie], to cookies: [Cookie]) -> [Cookie] {
        var bucket = cookies
        if changes.count * bucket.count <= scanLimit {
            for change in changes {
                let index = bucket.firstIndex { $0.hasSameKey(as: change.cookie) }
                switch change.op {
                case .set:
                    if let index { bucket[index] = change.cookie } else { bucket.append(change.cookie) }
                case .delete:
                    if let index { bucket.remove(at: index) }
                case .access:
                    if let index, bucket[index].lastAccess < change.cookie.lastAccess {
                        bucket[index].lastAccess = change.cookie.lastAccess
                    }
                }
            }
            return bucket
        }
        // Many changes to a large site: find cookies through an index instead of scanning the
        // site for each change.
        var index = [CookieKey: Int](minimumCapacity: bucket.count + changes.count)
        for (i, cookie) in bucket.enumerated() { index[cookie.key] = i }
        var gone = [Bool](repeating: false, count: bucket.count)
        for change in changes {
            let key = change.cookie.key
            switch change.op {
            case .set:
                if let i = index[key] {
                    gone[i] = false
                    bucket[i] = change.cookie
                } else {
                    index[key] = bucket.count
                    bucket.append(change.cookie)
                    gone.append(false)
                }
            case .delete:
                if let i = index[key] { gone[i] = true }
            case .access:
                if let i = index[key], !gone[i], bucket[i].lastAccess < change.cookie.lastAccess {
                    bucket[i].lastAccess = change.cookie.lastAccess
                }
            }
        }
        if gone.contains(true) { bucket = zip(bucket, gone).compactMap { $1 ? nil : $0 } }
        return bucket
    }

    /// Replaces every cookie with cookies already grouped by site (`count` in all).
    mutating func replaceAll(bySite sites: [SiteKey: SiteCookies], count: Int) {
        self.sites = SiteTable(sites)
        self.count = count
    }

    /// Enforces the limits after a bulk load or a change of limits.
    mutating func enforceLimits(now: Date) -> [Cookie] {
        var result = Insertion()
        for slot in sites.occupiedSlots where sites.cookies(inSlot: slot).count > limits.maxPerSite {
            var bucket = sites.checkOut(slot: slot)
            evictFromSite(&bucket.cookies, now: now, keeping: nil, into: &result)
            sites.checkIn(bucket)
        }
        if count > limits.maxTotal { evictGlobally(now: now, keeping: nil, into: &result) }
        return result.evicted
    }

    // MARK: Eviction (Chromium's order: expired, then least recently used, non-secure before secure)

    /// Over the per-site limit: the site's expired cookies, then its least recently used, ordered
    /// from the site's facts (an insertion into a full site copied all its cookies to order them).
    private mutating func evictFromSite(
        _ bucket: inout SiteCookies, now: Date, keeping kept: Cookie?, into result: inout Insertion
    ) {
        let nowSeconds = now.timeIntervalSinceReferenceDate
        let keptIndex = kept.flatMap { bucket.index(ofKey: $0) }
        var victims = IndexSet()
        var candidates: [(index: Int, rank: SiteCookies.EvictionRank)] = []
        bucket.forEachEvictionFact { index, rank, expires in
            if expires <= nowSeconds {
                victims.insert(index)
            } else if index != keptIndex {
                candidates.append((index, rank))
            }
        }
        let excess = bucket.count - victims.count - limits.maxPerSite
        if excess > 0 {
            candidates.sort { $0.rank.evictsBefore($1.rank) }
            for candidate in candidates.prefix(excess) { victims.insert(candidate.index) }
        }
        let removed = bucket.remove(at: victims)
        count -= removed.count
        for c in removed.reversed() {
            result.evicted.append(c)
            result.changes.append(.delete(c, .evicted))
        }
    }

    /// Over the total limit: drop expired cookies everywhere, then the least recently used down to
    /// nine tenths of the limit, so that eviction's cost is shared by many insertions.
    private mutating func evictGlobally(now: Date, keeping kept: Cookie?, into result: inout Insertion) {
        let expired = removeExpired(now: now)
        for c in expired {
            result.evicted.append(c)
            result.changes.append(.delete(c, .evicted))
        }
        guard count > limits.maxTotal else { return }
        let target = max(0, limits.maxTotal - limits.maxTotal / 10)
        // Ordered by what eviction reads (Secure, last access), from the sites' facts: no cookie
        // is copied to be ordered.
        let keptSite = kept.map { SiteKey($0.site) }
        let keptSlot = keptSite.flatMap { sites.slot(of: $0)?.index }
        let keptIndex = keptSlot.flatMap { slot in kept.flatMap { sites.cookies(inSlot: slot).index(ofKey: $0) } }
        var all: [(rank: SiteCookies.EvictionRank, slot: Int, index: Int)] = []
        all.reserveCapacity(count)
        let occupied = sites.occupiedSlots
        for slot in occupied {
            let skip = slot == keptSlot ? keptIndex : nil
            sites.cookies(inSlot: slot).forEachEvictionFact { index, rank, _ in
                if index != skip { all.append((rank, slot, index)) }
            }
        }
        all.sort { $0.rank.evictsBefore($1.rank) }
        var victims: [Int: IndexSet] = [:]
        for candidate in all.prefix(max(0, count - target)) {
            victims[candidate.slot, default: IndexSet()].insert(candidate.index)
        }
        // Removed site by site in slot order, each site's in its order.
        for slot in occupied {
            guard let indices = victims[slot] else { continue }
            let removed = sites.update(slot: slot) { $0.remove(at: indices) }
            count -= removed.count
            for c in removed {
                result.evicted.append(c)
                result.changes.append(.delete(c, .evicted))
            }
        }
    }

    // MARK: Reading (RFC 6265bis 5.8.3)

    /// The cookies to send to `request` in `context` through `api`, in header order; marks them
    /// accessed. Calls `body` with them, read in place (a `Cookie` header needs only their
    /// names and values, not copies); `nil` for a site with no cookies. `linesAsked`: the lines
    /// the site's lookup reads have been asked for (see `SiteCookies.LookupHints`).
    mutating func withMatches<R>(
        _ request: CanonicalCookie.RequestBytes, url: URL, slot: Int, context: CookieRequestContext,
        api: CookieAPI, now: Date, linesAsked: Bool, touched: inout [Cookie],
        _ body: (SiteCookies.Matches) -> R
    ) -> R {
        sites.withCookies(inSlot: slot) {
            $0.withMatches(
                request, url: url, context: context, api: api, now: now, linesAsked: linesAsked, touched: &touched, body
            )
        }
    }

    /// Every cookie, in no particular order.
    var all: [Cookie] {
        var all: [Cookie] = []
        all.reserveCapacity(count)
        for slot in sites.occupiedSlots { all += sites.cookies(inSlot: slot).cookies }
        return all
    }
}

extension CookieJar {
    /// Removes the expired cookies of one site; returns them.
    mutating func purgeExpired(site: SiteKey, now: Date) -> [Cookie] {
        guard let slot = sites.slot(of: site)?.index else { return [] }
        return purgeExpired(slot: slot, now: now)
    }

    /// Removes the expired cookies in one slot; returns them.
    private mutating func purgeExpired(slot: Int, now: Date) -> [Cookie] {
        guard sites.cookies(inSlot: slot).hasExpiredCookie(at: now) else { return [] }
        let removed = sites.update(slot: slot) { $0.removeExpired(at: now) }
        count -= removed.count
        return removed
    }

    /// Removes every expired cookie; returns them.
    mutating func removeExpired(now: Date) -> [Cookie] {
        var removed: [Cookie] = []
        for slot in sites.occupiedSlots { removed += purgeExpired(slot: slot, now: now) }
        return removed
    }
}
