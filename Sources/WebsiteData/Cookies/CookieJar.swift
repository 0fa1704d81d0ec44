import Foundation

/// A change the jar made, for the persistent store to write.
enum CookieJarChange: Sendable {
    /// Insert or replace this cookie.
    case upsert(Cookie)
    /// Remove the cookie with this identity.
    case delete(Cookie)

    var site: String {
        switch self {
        case .upsert(let c), .delete(let c): c.site
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
    /// Removed by an explicit call (delete, clear, end of session).
    case explicit
}

/// The in-memory cookie index: cookies by site (display name), with the limits and eviction of
/// RFC 6265bis 5.7 and Chromium's cookie monster. Not thread-safe; its owner locks it.
struct CookieJar {
    private(set) var sites: [String: [Cookie]] = [:]
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
    mutating func insert(_ new: Cookie, deletes: Bool, fromSecureOrigin: Bool, api: CookieAPI, now: Date,
                         evict: Bool = true) -> Result<Insertion, CookieRejection> {
        var cookie = new
        let site = cookie.site
        // Taken out of the dictionary so that changing it does not copy it (put back below).
        var bucket = sites.removeValue(forKey: site) ?? []

        // Step 14: an insecure origin may not set a cookie that would shadow a Secure one.
        if !cookie.isSecure && !fromSecureOrigin {
            for old in bucket where old.isSecure && old.name.sameBytes(as: cookie.name)
                && (CanonicalCookie.domainMatches(old.domain, cookie.domain) || CanonicalCookie.domainMatches(cookie.domain, old.domain))
                && CanonicalCookie.pathMatches(cookie.path, old.path) && !old.isExpired(at: now) {
                sites[site] = bucket.isEmpty ? nil : bucket
                return .failure(CookieRejection(.wouldOverwriteSecure, name: cookie.name))
            }
        }

        var result = Insertion()
        if let index = bucket.firstIndex(where: { $0.hasSameKey(as: cookie) }) {
            let old = bucket[index]
            // Step 22: script may not overwrite an HttpOnly cookie.
            if old.isHTTPOnly && api == .nonHTTP {
                sites[site] = bucket
                return .failure(CookieRejection(.httpOnlyFromScript, name: cookie.name))
            }
            cookie.created = old.created
            bucket.remove(at: index)
            count -= 1
            result.changes.append(.delete(old))
            result.cause = deletes ? .expired : .overwritten
        }
        if result.changes.isEmpty && cookie.created == now {
            // A new cookie: its creation time is unique and increasing.
            cookie.created = max(now, lastCreated.addingTimeInterval(1e-6))
            lastCreated = cookie.created
        }
        if deletes {
            sites[site] = bucket.isEmpty ? nil : bucket
            if result.changes.isEmpty { result.cause = .expired }
            return .success(result)
        }
        Self.shareStrings(of: &cookie, with: bucket)
        bucket.append(cookie)
        count += 1
        result.changes.append(.upsert(cookie))
        if evict && bucket.count > limits.maxPerSite {
            evictFromSite(&bucket, now: now, keeping: cookie, into: &result)
        }
        sites[site] = bucket
        if evict && count > limits.maxTotal { evictGlobally(now: now, keeping: cookie.key, into: &result) }
        return .success(result)
    }

    /// Removes cookies matching `predicate`; returns them.
    mutating func remove(where predicate: (Cookie) -> Bool) -> [Cookie] {
        var removed: [Cookie] = []
        for (site, bucket) in sites {
            guard bucket.contains(where: predicate) else { continue }
            var kept: [Cookie] = []
            for cookie in bucket { if predicate(cookie) { removed.append(cookie) } else { kept.append(cookie) } }
            sites[site] = kept.isEmpty ? nil : kept
        }
        count -= removed.count
        return removed
    }

    /// Removes every cookie of the given sites; returns them.
    mutating func removeSites(_ names: some Sequence<String>) -> [Cookie] {
        var removed: [Cookie] = []
        for name in names {
            if let bucket = sites.removeValue(forKey: name) { removed += bucket }
        }
        count -= removed.count
        return removed
    }

    /// Makes `cookie` share the storage of its domain and path with a cookie of its site that
    /// has the same, when there is one. A lookup reads the domain and path of every cookie of
    /// the site; shared, they are a few strings in cache instead of one allocation per cookie
    /// (and equal strings compare by identity).
    static func shareStrings(of cookie: inout Cookie, with bucket: [Cookie]) {
        var sharedDomain = false, sharedPath = false
        for other in bucket.reversed() {
            if !sharedDomain && other.domain == cookie.domain {
                cookie.domain = other.domain
                sharedDomain = true
            }
            if !sharedPath && other.path == cookie.path {
                cookie.path = other.path
                sharedPath = true
            }
            if sharedDomain && sharedPath { return }
        }
    }

    /// Replaces every cookie with those of `loaded` (read from the database), keeping this
    /// jar's limits and creation-time clock.
    mutating func replaceAll(with loaded: CookieJar) {
        replaceAll(bySite: loaded.sites, count: loaded.count)
    }

    /// Applies cookie changes (read from the change log, or this process's own not yet
    /// committed), in order: a set replaces the cookie with the same key, a delete removes it,
    /// an access moves its last-access time on. Returns the sites changed.
    @discardableResult
    mutating func apply(_ changes: [LoggedCookie]) -> Set<String> {
        // A site's changes are applied in order; sites do not depend on one another.
        var bySite: [String: [LoggedCookie]] = [:]
        for change in changes { bySite[change.cookie.site, default: []].append(change) }
        for (site, siteChanges) in bySite {
            var bucket = sites.removeValue(forKey: site) ?? []
            if siteChanges.count * bucket.count <= 4096 {
                for change in siteChanges { Self.apply(change, to: &bucket, count: &count) }
            } else {
                // Many changes to a large site: find cookies through an index of the bucket
                // instead of scanning it for each change.
                Self.applyIndexed(siteChanges, to: &bucket, count: &count)
            }
            if !bucket.isEmpty { sites[site] = bucket }
        }
        return Set(bySite.keys)
    }

    private static func apply(_ logged: LoggedCookie, to bucket: inout [Cookie], count: inout Int) {
        let cookie = logged.cookie
        let index = bucket.firstIndex { $0.hasSameKey(as: cookie) }
        switch logged.op {
        case .set:
            var cookie = cookie
            shareStrings(of: &cookie, with: bucket)
            if let index { bucket[index] = cookie } else {
                bucket.append(cookie)
                count += 1
            }
        case .delete:
            if let index {
                bucket.remove(at: index)
                count -= 1
            }
        case .access:
            if let index, bucket[index].lastAccess < cookie.lastAccess { bucket[index].lastAccess = cookie.lastAccess }
        }
    }

    private static func applyIndexed(_ changes: [LoggedCookie], to bucket: inout [Cookie], count: inout Int) {
        var index = [CookieKey: Int](minimumCapacity: bucket.count + changes.count)
        for (i, cookie) in bucket.enumerated() { index[cookie.key] = i }
        var gone = [Bool](repeating: false, count: bucket.count)
        for change in changes {
            let key = change.cookie.key
            switch change.op {
            case .set:
                if let i = index[key] {
                    if gone[i] {
                        gone[i] = false
                        count += 1
                    }
                    bucket[i] = change.cookie
                } else {
                    index[key] = bucket.count
                    bucket.append(change.cookie)
                    gone.append(false)
                    count += 1
                }
            case .delete:
                if let i = index[key], !gone[i] {
                    gone[i] = true
                    count -= 1
                }
            case .access:
                if let i = index[key], !gone[i], bucket[i].lastAccess < change.cookie.lastAccess {
                    bucket[i].lastAccess = change.cookie.lastAccess
                }
            }
        }
        if gone.contains(true) { bucket = zip(bucket, gone).compactMap { $1 ? nil : $0 } }
    }

    /// Replaces every cookie with cookies already grouped by site (`count` in all).
    mutating func replaceAll(bySite sites: [String: [Cookie]], count: Int) {
        self.sites = sites
        self.count = count
    }

    /// Enforces the limits after a bulk load or a change of limits.
    mutating func enforceLimits(now: Date) -> [Cookie] {
        var result = Insertion()
        for (site, var bucket) in sites where bucket.count > limits.maxPerSite {
            evictFromSite(&bucket, now: now, keeping: nil, into: &result)
            sites[site] = bucket
        }
        if count > limits.maxTotal { evictGlobally(now: now, keeping: nil, into: &result) }
        return result.evicted
    }

    // MARK: Eviction (Chromium's order: expired, then least recently used, non-secure before secure)

    private mutating func evictFromSite(_ bucket: inout [Cookie], now: Date, keeping kept: Cookie?, into result: inout Insertion) {
        var victims = IndexSet()
        for (i, c) in bucket.enumerated() where c.isExpired(at: now) { victims.insert(i) }
        let excess = bucket.count - victims.count - limits.maxPerSite
        if excess > 0 {
            let order = bucket.indices.filter { i in !victims.contains(i) && !(kept.map { bucket[i].hasSameKey(as: $0) } ?? false) }
                .sorted { evictsBefore(bucket[$0], bucket[$1]) }
            for i in order.prefix(excess) { victims.insert(i) }
        }
        for i in victims.reversed() {
            let c = bucket.remove(at: i)
            count -= 1
            result.evicted.append(c)
            result.changes.append(.delete(c))
        }
    }

    /// Over the total limit: drop expired cookies everywhere, then the least recently used down to
    /// nine tenths of the limit, so that eviction's cost is shared by many insertions.
    private mutating func evictGlobally(now: Date, keeping key: CookieKey?, into result: inout Insertion) {
        let expired = remove { $0.isExpired(at: now) }
        for c in expired { result.evicted.append(c); result.changes.append(.delete(c)) }
        guard count > limits.maxTotal else { return }
        let target = max(0, limits.maxTotal - limits.maxTotal / 10)
        var all: [Cookie] = []
        all.reserveCapacity(count)
        for bucket in sites.values { all += bucket }
        all.sort(by: evictsBefore)
        var victims = Set<CookieKey>()
        for c in all where c.key != key {
            if count - victims.count <= target { break }
            victims.insert(c.key)
        }
        let removed = remove { victims.contains($0.key) }
        for c in removed { result.evicted.append(c); result.changes.append(.delete(c)) }
    }

    private func evictsBefore(_ a: Cookie, _ b: Cookie) -> Bool {
        if a.isSecure != b.isSecure { return !a.isSecure }
        return a.lastAccess < b.lastAccess
    }

    // MARK: Reading (RFC 6265bis 5.8.3)

    /// The cookies to send to `url` in `context` through `api`, in header order; marks them accessed.
    ///
    /// Calls `visit` with the site's cookies and the index of each one to send, once it is marked
    /// accessed. `visit` reads the cookie in place (a `Cookie` header needs only its name and value,
    /// not a copy of it) and must not change it.
    mutating func forEachMatch(_ request: CanonicalCookie.RequestFacts, site: String, context: CookieRequestContext,
                               api: CookieAPI, now: Date, touched: inout [Cookie],
                               _ visit: (UnsafeMutableBufferPointer<Cookie>, Int) -> Void) {
        // In place: fields are read without copying whole cookies, and access times are written
        // without copying the bucket (a copy of the array alive here would make the write copy it).
        sites[site]?.withUnsafeMutableBufferPointer { bucket in
            var indices: [Int] = []
            var sameSite: Bool?
            var topLevelKey: String?
            for i in bucket.indices {
                if bucket[i].isHostOnly ? (bucket[i].domain != request.host)
                    : !CanonicalCookie.domainMatches(request.host, bucket[i].domain) { continue }
                if !CanonicalCookie.pathMatches(request.path, bucket[i].path) { continue }
                if bucket[i].isSecure && !request.isSecureOrigin { continue }
                if bucket[i].isHTTPOnly && api == .nonHTTP { continue }
                if let expires = bucket[i].expires, expires <= now { continue }
                let policy = bucket[i].sameSite
                if policy != .none {
                    let same = sameSite ?? context.isSameSite(request.url)
                    sameSite = same
                    if !same {
                        if policy == .strict { continue }
                        if !(context.isNavigation && context.isSafeMethod && api == .http) { continue }
                    }
                }
                if !bucket[i].partitionKey.isEmpty {
                    let key = topLevelKey ?? ((context.topLevelSite.flatMap(SchemefulSite.init) ?? SchemefulSite(request.url))?.description ?? "")
                    topLevelKey = key
                    if bucket[i].partitionKey != key { continue }
                }
                indices.append(i)
            }
            guard !indices.isEmpty else { return }
            indices.sort { a, b in
                let pa = bucket[a].path.utf8.count, pb = bucket[b].path.utf8.count
                if pa != pb { return pa > pb }
                return bucket[a].created < bucket[b].created
            }
            for i in indices {
                if now.timeIntervalSince(bucket[i].lastAccess) >= CookieRules.lastAccessPersistInterval {
                    bucket[i].lastAccess = now
                    touched.append(bucket[i])
                } else {
                    bucket[i].lastAccess = now
                }
                visit(bucket, i)
            }
        }
    }

    /// Every cookie, in no particular order.
    var all: [Cookie] { sites.values.flatMap { $0 } }
}

extension CookieJar {
    /// Removes the expired cookies of one site; returns them.
    mutating func purgeExpired(site: String, now: Date) -> [Cookie] {
        guard let bucket = sites[site], bucket.contains(where: { $0.isExpired(at: now) }) else { return [] }
        let removed = bucket.filter { $0.isExpired(at: now) }
        let kept = bucket.filter { !$0.isExpired(at: now) }
        sites[site] = kept.isEmpty ? nil : kept
        count -= removed.count
        return removed
    }
}
