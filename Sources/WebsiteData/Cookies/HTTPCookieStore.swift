import Foundation

/// What a write of cookies did: how many were stored, deleted, refused and evicted.
public struct CookieWriteSummary: Sendable, Hashable {
    /// Cookies stored (new or overwritten).
    public var stored = 0
    /// Cookies deleted by an expiry in the past.
    public var deleted = 0
    /// Cookies refused, with the rule that refused each.
    public var rejected: [CookieRejection] = []
    /// Cookies evicted to keep within the store's limits (`cookies.max-per-site`, `cookies.max-total`).
    public var evicted = 0

    /// Creates an empty summary.
    public init() {}
}

/// A change observers of a cookie store see.
public struct CookieStoreChange: Sendable, Hashable {
    /// The cookie written or removed.
    public var cookie: Cookie
    /// Why.
    public var cause: CookieChangeCause
    /// `true` when the cookie was removed, `false` when it was written.
    public var removed: Bool
    /// How many changes, just before this one, the subscriber did not get because it had
    /// `HTTPCookieStore.observerBufferLimit` changes unread (0 when it got them all). When it is
    /// not 0, read the cookies again (`allCookies()`): the changes themselves are gone.
    public var missedBefore: Int

    init(cookie: Cookie, cause: CookieChangeCause, removed: Bool) {
        self.cookie = cookie
        self.cause = cause
        self.removed = removed
        missedBefore = 0
    }
}

/// The cookies of one website data store, as WebKit's `WKHTTPCookieStore` offers them, with the
/// request side (`Cookie` headers) and response side (`Set-Cookie`) of RFC 6265bis.
///
/// Lookups are served from an in-memory index by site; every call that changes cookies returns
/// after its change is committed to the store's database (concurrent calls share commits).
/// Changes made by other processes on the same store are picked up on the next call.
/// All methods are thread-safe and block only for the commit of their own changes.
public final class HTTPCookieStore: Sendable {
    let database: StoreDatabase
    let clock: @Sendable () -> Date
    private let state: Locked<State>

    struct State {
        var jar: CookieJar
        var policy: CookiePolicy
        var lastSeq: Int64 = 0
        /// Memory may disagree with the database: a read-only store has not read its cookies
        /// yet, or a reload memory needed failed (the database was unreachable). The next call
        /// that needs memory reloads every cookie before it answers.
        var stale = false
        /// What the shared change counter said when the change log was last read.
        var watch = StoreDatabase.ChangeWatch()
        /// Changes queued for commit, by ticket (oldest first), to replay over a reload. Those
        /// committed are dropped by the next call that takes the lock (`pruneInflight`), not by
        /// their writers: a writer returns from its commit without taking the lock again.
        var inflight: [(ticket: UInt64, changes: [CookieJarChange])] = []
        /// Cookies whose last-access time moved on enough to be worth persisting with the next write.
        var touched: [Cookie] = []
        var observers: [UInt64: Observer] = [:]
        var nextObserver: UInt64 = 0
        /// The sites of the hosts looked up, for lookups (see `HostSiteTable`).
        let hosts = HostSiteTable()
    }

    /// A subscriber of `changes()`: its stream, and how many changes it missed since it last got one.
    struct Observer {
        var continuation: AsyncStream<CookieStoreChange>.Continuation
        var missed = 0
    }

    required init(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws {
        self.database = database
        self.clock = clock
        let now = clock()
        // A read-only store reads its cookies as they are when a call first needs them (see
        // `stale`): a process that answers one lookup (`cookiesOfOneLookup`) reads one site.
        if database.isReadOnly {
            var state = State(jar: CookieJar(limits: CookieLimits()), policy: .allowAll)
            state.stale = true
            self.state = Locked(state, adaptive: true)
            return
        }
        // Purge what expired while the store was closed; the rest stays loaded. A write of this
        // object's own, whose commit bumps the shared change counter: feeds hear of it at once.
        let (jar, settings, seq) = try database.writeNow(changes: []) { db, log in
            // The purge and the refiling write the cookies table, as a fold does.
            try StoreDatabase.lockFolds(db)
            let settings = try SettingsTable.values(db)
            var jar = try CookiePersistence.loadAll(db, limits: SettingsTable.cookieLimits(settings), refile: true)
            // Every cookie that expired, whether the table or the log holds it, is deleted through
            // the log, so that change feeds and other processes hear of it. The jar is the table
            // with the log applied: a table row that a later logged set replaced is not expired
            // there, and one a logged delete removed is not in it, so no delete follows a newer
            // set of the same cookie, in a fold or in a reader's replay.
            let expired = jar.removeExpired(now: now)
            try log.append(CookiePersistence.logEntries(expired.map { .delete($0, .expired) }, touched: []))
            // Their rows go now, not at the next fold, so that readers do not load them again;
            // the fold then finds them gone, which changes nothing. Rows of exactly the cookies
            // logged (not every row past a date): a row whose expiry the log replaced stays for
            // the fold to overwrite.
            try CookiePersistence.deleteRows(of: expired, db)
            return (jar, settings, try db.scalar("SELECT coalesce(max(seq), 0) FROM change_log")?.int64 ?? 0)
        }
        var state = State(jar: jar, policy: SettingsTable.cookiePolicy(settings))
        state.lastSeq = seq
        self.state = Locked(state, adaptive: true)
    }

    deinit {
        // Persist access times that moved on since the last write.
        let touched = state.withLock { s in
            let t = s.touched
            s.touched = []
            return t
        }
        if !touched.isEmpty && !database.isReadOnly {
            try? database.write(changes: CookiePersistence.logEntries([], touched: touched))
        }
    }

    // MARK: - Reading

    /// Every cookie in the store, including those of other processes' latest changes.
    public func allCookies() throws -> [Cookie] {
        try state.withLock { s in
            try refresh(&s)
            let now = clock()
            return s.jar.all.filter { !$0.isExpired(at: now) }.sorted(by: Self.listingOrder)
        }
    }

    /// The cookies of one site (display name).
    public func cookies(forSite site: String) throws -> [Cookie] {
        try state.withLock { s in
            try refresh(&s)
            let now = clock()
            return (s.jar.sites[SiteKey(site)]?.cookies ?? []).filter { !$0.isExpired(at: now) }.sorted(
                by: Self.listingOrder)
        }
    }

    /// The cookies a request to `url` carries, in `Cookie` header order (RFC 6265bis 5.8.3): longer
    /// paths first, then earlier creation. Marks them accessed.
    ///
    /// - Parameters:
    ///   - url: the request URL.
    ///   - context: the request's context (top-level site, method, navigation); a top-level navigation by default.
    ///   - api: `.http` for a request, `.nonHTTP` for what page script (`document.cookie`) may see.
    public func cookies(for url: URL, context: CookieRequestContext = .topLevelNavigation, api: CookieAPI = .http)
        throws -> [Cookie]
    {
        try withMatches(for: url, context: context, api: api) { $0.cookies } ?? []
    }

    /// The value of the `Cookie` header for a request, or `nil` when no cookie applies.
    public func cookieHeader(for url: URL, context: CookieRequestContext = .topLevelNavigation) throws -> String? {
        // Built in one allocation from the site's pairs (`SiteCookies.header`): copying the
        // cookies out (`cookies(for:)`) and joining their pairs was half the cost of a lookup.
        try withMatches(for: url, context: context, api: .http) { $0.header } ?? nil
    }

    /// `cookies(for:context:)` for a process that makes one lookup, such as `wkstore cookies
    /// header`: on a read-only store that has not read its cookies (no call has needed them yet),
    /// only the cookies of the request's site are read, into a jar of their own that the lookup
    /// reads as it reads the store's (see `CookiePersistence.loadSite`), and that is then
    /// dropped. The store's memory stays unread, so each such lookup reads the database again.
    /// Otherwise, as `cookies(for:context:)`.
    package func cookiesOfOneLookup(for url: URL, context: CookieRequestContext = .topLevelNavigation) throws
        -> [Cookie]
    {
        guard database.isReadOnly, state.withLock({ $0.stale }) else { return try cookies(for: url, context: context) }
        let now = clock()
        let found = try CanonicalCookie.RequestBytes.with(url) { request -> [Cookie]? in
            let host = String(decoding: request.host, as: UTF8.self)
            let (loaded, policy) = try database.read { db in
                // The log after the last fold is read to its end, each page once: through a small
                // page cache, so that its pages do not stay in memory (a read-only store's cache
                // holds up to 2 MB), then the cache is as it was.
                let cacheSize = db.engine == .sqlite ? try db.scalar("PRAGMA cache_size")?.int64 : nil
                if cacheSize != nil { try db.execute("PRAGMA cache_size = 16") }
                defer { if let cacheSize { try? db.execute("PRAGMA cache_size = \(cacheSize)") } }
                return try db.transaction(write: false) {
                    let settings = try SettingsTable.values(db)
                    let jar = try CookiePersistence.loadSite(
                        ofHost: host, db, limits: SettingsTable.cookieLimits(settings))
                    return (jar, SettingsTable.cookiePolicy(settings))
                }
            }
            // Marked accessed in the dropped jar alone, as a read-only store keeps no access times.
            var jar = loaded
            var touched: [Cookie] = []
            return Self.withMatches(
                request, url: url, context: context, api: .http, now: now, in: &jar, policy: policy,
                hosts: HostSiteTable(), touched: &touched
            ) { $0.cookies }
        }
        return (found ?? nil) ?? []
    }

    /// Whether memory holds the store's cookies: not before a read-only store's first call that
    /// needs them (`cookiesOfOneLookup` reads one site without them).
    var memoryHoldsCookies: Bool { !state.withLock { $0.stale } }

    /// The lookup behind `cookies(for:)` and `cookieHeader(for:)`: `body` gets the cookies to
    /// send, in header order, marked accessed, while the store is locked; `nil` when the site has
    /// no cookies or the policy sends none.
    private func withMatches<R: Sendable>(
        for url: URL, context: CookieRequestContext, api: CookieAPI,
        _ body: (SiteCookies.Matches) -> R
    ) throws -> R? {
        let now = clock()
        // The host and path as bytes of the URL's own string where it can: no string is made.
        let found = try CanonicalCookie.RequestBytes.with(url) { request in
            try state.withLock { s -> R? in
                try refresh(&s)
                var touched: [Cookie] = []
                let result = Self.withMatches(
                    request, url: url, context: context, api: api, now: now, in: &s.jar, policy: s.policy,
                    hosts: s.hosts, touched: &touched, body)
                if !touched.isEmpty { s.touched += touched }
                return result
            }
        }
        return found ?? nil
    }

    /// The lookup of `request` in `jar`, whose sites `hosts` finds: `body` gets the cookies to
    /// send, in header order, marked accessed (and added to `touched`); `nil` when the site has
    /// no cookies or `policy` sends none.
    private static func withMatches<R>(
        _ request: CanonicalCookie.RequestBytes, url: URL, context: CookieRequestContext, api: CookieAPI, now: Date,
        in jar: inout CookieJar, policy: CookiePolicy, hosts: HostSiteTable, touched: inout [Cookie],
        _ body: (SiteCookies.Matches) -> R
    ) -> R? {
        guard allows(policy, url: url, context: context) else { return nil }
        // The site's slot straight from the store's own table of hosts: no other lock, and
        // no dictionary read (see `HostSiteTable`).
        var linesAsked = false
        guard let slot = hosts.slot(forHost: request.host, in: jar.sites, linesAsked: &linesAsked) else {
            return nil
        }
        return jar.withMatches(
            request, url: url, slot: slot, context: context, api: api, now: now,
            linesAsked: linesAsked, touched: &touched, body)
    }

    /// Request header fields carrying the cookies for `url` (`["Cookie": …]`, or empty).
    public func requestHeaderFields(for url: URL, context: CookieRequestContext = .topLevelNavigation) throws
        -> [String: String]
    {
        guard let header = try cookieHeader(for: url, context: context) else { return [:] }
        return ["Cookie": header]
    }

    // MARK: - Writing

    /// Stores the cookies of one response's `Set-Cookie` header values, as a browser would on
    /// receiving them from `url`; all of them in one transaction.
    ///
    /// - Parameters:
    ///   - headers: the `Set-Cookie` values, in the order received.
    ///   - url: the URL the response came from.
    ///   - context: the request's context; a top-level navigation by default.
    ///   - api: `.nonHTTP` for a `document.cookie` write (which may not set HttpOnly cookies).
    /// - Returns: what was stored, deleted, refused and evicted.
    /// - Throws: a `StoreError` when the change could not be committed (nothing of it is kept then).
    @discardableResult
    public func setCookies(
        fromSetCookieHeaders headers: [String], for url: URL,
        context: CookieRequestContext = .topLevelNavigation, api: CookieAPI = .http
    ) throws -> CookieWriteSummary {
        // Announced from the start, parsing included: a commit leader waits for this write
        // while it is being prepared, so concurrent responses share commits.
        try database.announcingWrite {
            try storeSetCookieHeaders(headers, for: url, context: context, api: api)
        }
    }

    private func storeSetCookieHeaders(
        _ headers: [String], for url: URL, context: CookieRequestContext,
        api: CookieAPI
    ) throws -> CookieWriteSummary {
        var summary = CookieWriteSummary()
        guard let request = CanonicalCookie.RequestFacts(url: url) else {
            summary.rejected = headers.map { _ in CookieRejection(.unsupportedURL) }
            return summary
        }
        let now = clock()
        var outcomes: [CanonicalCookie.Outcome] = []
        outcomes.reserveCapacity(headers.count)
        for header in headers {
            guard let parsed = ParsedCookie.parse(header) else {
                summary.rejected.append(CookieRejection(.malformed, detail: CookieRules.whyIgnored(header)))
                continue
            }
            switch CanonicalCookie.make(parsed, request: request, url: url, context: context, api: api, now: now) {
            case .success(let outcome): outcomes.append(outcome)
            case .failure(let rejection): summary.rejected.append(rejection)
            }
        }
        if outcomes.isEmpty { return summary }
        try apply(
            outcomes.map { ($0.cookie, $0.deletes) }, fromSecureOrigin: request.isSecureOrigin, api: api,
            url: url, context: context, now: now, summary: &summary)
        return summary
    }

    /// Stores cookies from a response's header fields (every `Set-Cookie` among them).
    @discardableResult
    public func setCookies(
        fromResponseHeaderFields fields: [(name: String, value: String)], for url: URL,
        context: CookieRequestContext = .topLevelNavigation
    ) throws -> CookieWriteSummary {
        try setCookies(
            fromSetCookieHeaders: fields.filter { $0.name.lowercased() == "set-cookie" }.map(\.value),
            for: url, context: context)
    }

    /// Stores one cookie given whole, with the rules a `Set-Cookie` from its own domain over HTTPS
    /// would meet (public suffixes, prefixes, size, 400-day cap). Its creation time is kept when it
    /// replaces an existing cookie.
    ///
    /// - Throws: `CookieRejection` when a rule refuses it; a `StoreError` when it could not be committed.
    public func setCookie(_ cookie: Cookie, api: CookieAPI = .http) throws {
        let summary = try setCookies([cookie], api: api)
        if let rejection = summary.rejected.first { throw rejection }
    }

    /// Stores cookies given whole (an import), in one transaction; refused ones are listed in the summary.
    @discardableResult
    public func setCookies(_ cookies: [Cookie], api: CookieAPI = .http) throws -> CookieWriteSummary {
        try database.announcingWrite { try storeCookies(cookies, api: api) }
    }

    private func storeCookies(_ cookies: [Cookie], api: CookieAPI) throws -> CookieWriteSummary {
        var summary = CookieWriteSummary()
        let now = clock()
        var accepted: [(Cookie, Bool)] = []
        for cookie in cookies {
            switch CanonicalCookie.validate(cookie, api: api, now: now) {
            case .success(var valid):
                valid.modified = now
                accepted.append((valid, valid.isExpired(at: now)))
            case .failure(let rejection): summary.rejected.append(rejection)
            }
        }
        if !accepted.isEmpty {
            try apply(
                accepted, fromSecureOrigin: true, api: api, url: nil, context: .topLevelNavigation, now: now,
                summary: &summary)
        }
        return summary
    }

    /// Deletes one cookie (matched by name, domain, host-only flag, path and partition).
    public func delete(_ cookie: Cookie) throws {
        try remove(cause: .explicit) { $0.key == cookie.key }
    }

    /// Deletes the cookies named `name` whose domain is `domain` (with or without a leading dot), and path `path` if given.
    /// `deleteCookies(matching:dryRun:)` takes any of name, domain, path and partition.
    ///
    /// - Returns: the cookies deleted.
    @discardableResult
    public func deleteCookies(named name: String, domain: String, path: String? = nil) throws -> [Cookie] {
        try deleteCookies(matching: CookieFilter(name: name, domain: domain, path: path))
    }

    /// Ends the store's browsing session: every session cookie (no expiry) is removed, in every
    /// process sharing the store.
    ///
    /// - Returns: the cookies removed.
    @discardableResult
    public func endSession() throws -> [Cookie] {
        try remove(cause: .sessionEnded, everySite: true) { $0.isSession }
    }

    /// The store's cookie policy, kept in its settings for every process using the store (as
    /// WebKit's `getCookiePolicy`).
    ///
    /// - Throws: `StoreError` when the store cannot be read.
    public var cookiePolicy: CookiePolicy {
        get throws {
            do {
                return try state.withLock { s in
                    try refresh(&s)
                    return s.policy
                }
            } catch { throw StorageRemoval.storeError(error) }
        }
    }

    /// Sets the store's cookie policy for every process using the store (as WebKit's
    /// `setCookiePolicy(_:)`; the `cookies.policy` setting).
    ///
    /// - Parameter policy: the policy; it applies to the next lookup and the next write.
    /// - Throws: `StoreError.readOnly` for a read-only store, or a `StoreError` from the database.
    public func setCookiePolicy(_ policy: CookiePolicy) throws {
        do {
            try database.checkWritable()
            try database.writeSetting(.cookiesPolicy, policy.rawValue)
            try settingsChanged(try database.read { try SettingsTable.values($0) })
        } catch { throw StorageRemoval.storeError(error) }
    }

    /// The changes a `changes()` stream holds for a subscriber that has not read them.
    public static let observerBufferLimit = 10_000

    /// A stream of every change to this store's cookies made through this object, as it is made
    /// (before its commit). Changes made by other objects and processes, and every change in
    /// commit order: `WebsiteDataStore.changes(ofTypes:since:)`.
    ///
    /// The stream holds up to `observerBufferLimit` (10,000) changes its subscriber has not read.
    /// Changes made while it is full are not kept: the next change it keeps, once the subscriber
    /// has read some, says how many went just before it (`CookieStoreChange.missedBefore`).
    public func changes() -> AsyncStream<CookieStoreChange> {
        changes(bufferLimit: Self.observerBufferLimit)
    }

    /// `changes()` with a buffer of `bufferLimit` changes (tests fill a small one).
    func changes(bufferLimit: Int) -> AsyncStream<CookieStoreChange> {
        // The oldest changes are kept, so that those a subscriber reads are contiguous up to
        // the one that counts what was missed.
        let (stream, continuation) = AsyncStream<CookieStoreChange>.makeStream(
            bufferingPolicy: .bufferingOldest(bufferLimit))
        let id = state.withLock { s in
            let id = s.nextObserver
            s.nextObserver += 1
            s.observers[id] = Observer(continuation: continuation)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: - Internals

    static func listingOrder(_ a: Cookie, _ b: Cookie) -> Bool {
        if a.domain != b.domain { return a.domain < b.domain }
        if a.path != b.path { return a.path < b.path }
        if a.name != b.name { return a.name < b.name }
        return a.created < b.created
    }

    private static func allows(_ policy: CookiePolicy, url: URL, context: CookieRequestContext) -> Bool {
        switch policy {
        case .allowAll: return true
        case .disallow: return false
        case .blockThirdParty: return context.isNavigation || context.isSameSite(url)
        }
    }

    /// Applies cookies to the jar and queues their write. Called only inside `announcingWrite`:
    /// it queues at most one write, announced.
    private func apply(
        _ cookies: [(Cookie, Bool)], fromSecureOrigin: Bool, api: CookieAPI, url: URL?,
        context: CookieRequestContext, now: Date, summary: inout CookieWriteSummary
    ) throws {
        // Refused before the jar changes or observers hear of it.
        try database.checkWritable()
        let ticket = try state.withLock { s -> UInt64? in
            try refresh(&s)
            if let url, !Self.allows(s.policy, url: url, context: context) {
                summary.rejected += cookies.map { CookieRejection(.policy, name: $0.0.name) }
                return nil
            }
            if url == nil && s.policy == .disallow {
                summary.rejected += cookies.map { CookieRejection(.policy, name: $0.0.name) }
                return nil
            }
            var changes: [CookieJarChange] = []
            var events: [CookieStoreChange] = []
            var sites = Set<String>()
            for (cookie, deletes) in cookies {
                switch s.jar.insert(cookie, deletes: deletes, fromSecureOrigin: fromSecureOrigin, api: api, now: now) {
                case .success(let insertion):
                    changes += insertion.changes
                    sites.insert(cookie.site)
                    if deletes {
                        if !insertion.changes.isEmpty { summary.deleted += 1 }
                    } else {
                        summary.stored += 1
                    }
                    summary.evicted += insertion.evicted.count
                    for c in insertion.evicted {
                        sites.insert(c.site)
                        events.append(CookieStoreChange(cookie: c, cause: .evicted, removed: true))
                    }
                    if !s.observers.isEmpty {
                        events.append(CookieStoreChange(cookie: cookie, cause: insertion.cause, removed: deletes))
                    }
                case .failure(let rejection):
                    summary.rejected.append(rejection)
                }
            }
            // Purge what has expired in the sites written to.
            for site in sites {
                for c in s.jar.purgeExpired(site: SiteKey(site), now: now) { changes.append(.delete(c, .expired)) }
            }
            guard !changes.isEmpty else { return nil }
            notify(&s, events)
            let touched = s.touched
            s.touched = []
            let ticket = database.enqueueWrite(
                changes: CookiePersistence.logEntries(changes, touched: touched), announced: true
            )
            s.inflight.append((ticket, changes))
            return ticket
        }
        guard let ticket else { return }
        try waitForCommit(ticket)
    }

    /// Waits for the commit of a write queued with `ticket`. When it failed, nothing of it is
    /// kept: memory is made to agree with the database again.
    private func waitForCommit(_ ticket: UInt64) throws {
        do {
            try database.waitForCommit(ticket)
        } catch {
            // A failed reload marks memory stale: the next call reloads before it answers.
            try? state.withLock { s in
                s.inflight.removeAll { $0.ticket == ticket }
                try reloadAll(&s)
            }
            throw Self.storeError(error)
        }
    }

    /// Drops the queued changes whose commits are done (`committed`: the database's newest
    /// committed ticket, read before the log or the table it goes with).
    private func pruneInflight(_ s: inout State, committed: UInt64) {
        guard let first = s.inflight.first, first.ticket <= committed else { return }
        let done = s.inflight.firstIndex { $0.ticket > committed } ?? s.inflight.count
        s.inflight.removeFirst(done)
    }

    /// Removes cookies matching `predicate` from memory and the database.
    @discardableResult
    func remove(cause: CookieChangeCause, everySite: Bool = false, where predicate: @escaping (Cookie) -> Bool) throws
        -> [Cookie]
    {
        try database.checkWritable()
        let (ticket, removed) = try state.withLock { s -> (UInt64?, [Cookie]) in
            try refresh(&s)
            let removed = s.jar.remove(where: predicate)
            guard !removed.isEmpty else { return (nil, []) }
            notify(&s, removed.map { CookieStoreChange(cookie: $0, cause: cause, removed: true) })
            let changes = removed.map { CookieJarChange.delete($0, cause) }
            let ticket = database.enqueueWrite(changes: CookiePersistence.logEntries(changes, touched: []))
            s.inflight.append((ticket, changes))
            return (ticket, removed)
        }
        guard let ticket else { return [] }
        try waitForCommit(ticket)
        return removed
    }

    /// Runs an import holding this store's lock and the database's write lock,
    /// in one transaction. `body` changes the jar and writes its changes with the `flush` it is
    /// given; if it throws, the transaction is rolled back and the jar reloaded, so nothing of it remains.
    func withExclusiveWrite<T: Sendable>(
        _ body: (inout CookieJar, Date, _ flush: (inout [CookieJarChange]) throws -> Void) throws -> T
    ) throws -> T {
        try database.checkWritable()
        let now = clock()
        return try state.withLock { s in
            try refresh(&s)
            do {
                return try database.writeNow(
                    changes: [],
                    logging: { db, log in
                        try body(&s.jar, now) { changes in
                            try log.append(CookiePersistence.logEntries(changes, touched: [], setCause: .importing))
                            changes.removeAll(keepingCapacity: true)
                            // A long import folds as it goes, so what a reader replays at open
                            // (the changes after the last fold) stays bounded.
                            try database.maintainLog(db)
                        }
                    })
            } catch {
                // The import's error is the one to report; a failed reload marks memory stale.
                try? reloadAll(&s)
                throw Self.storeError(error)
            }
        }
    }

    /// Applies another process's changes: the cookie changes the change log holds, in order.
    ///
    /// Once the log has been read, a failure to apply it (the database went away while the
    /// settings or every cookie were read again) marks memory stale, since `lastSeq` has moved
    /// past entries that were not applied: the next call reloads everything.
    private func refresh(_ s: inout State) throws {
        if s.stale { try reloadAll(&s) }
        // Read before the log: the changes committed by then are in what it reads.
        let committed = database.committedThrough
        pruneInflight(&s, committed: committed)
        guard let changes = try database.foreignChanges(since: s.lastSeq, watch: &s.watch, cookies: true) else {
            return
        }
        s.lastSeq = changes.newestSeq
        do {
            try apply(changes, &s)
        } catch {
            s.stale = true
            throw error
        }
    }

    /// Applies the change-log entries `refresh` read.
    private func apply(_ changes: ForeignChanges, _ s: inout State) throws {
        var logged: [LoggedCookie] = []
        var everything = changes.everything
        var settingsChanged = changes.everything
        for entry in changes.entries {
            if entry.subject == .settings { settingsChanged = true }
            guard entry.isAbout(.cookies) else { continue }
            if let cookie = entry.cookie {
                logged.append(cookie)
            } else {
                // An entry that names a site without its cookies: read everything again.
                everything = true
            }
        }
        if everything { return try reloadAll(&s) }
        let sites = logged.isEmpty ? [] : s.jar.apply(logged)
        if settingsChanged {
            let values = try database.read { try SettingsTable.values($0) }
            s.jar.limits = SettingsTable.cookieLimits(values)
            s.policy = SettingsTable.cookiePolicy(values)
        }
        if !sites.isEmpty { replayInflight(&s, sites: sites) }
    }

    /// Reads the settings and every cookie from the database again (after a failed write, or
    /// when this process fell too far behind the change log), then this process's own changes
    /// not yet committed. The log position moves to the one of the snapshot they were read
    /// from. When the read fails, memory is marked stale and the next call tries again.
    private func reloadAll(_ s: inout State) throws {
        pruneInflight(&s, committed: database.committedThrough)
        let (loaded, values, seq): (CookieJar, [String: String], Int64)
        do {
            (loaded, values, seq) = try database.read { db in
                try db.transaction(write: false) {
                    let newest = try db.scalar("SELECT coalesce(max(seq), 0) FROM change_log")?.int64 ?? 0
                    let values = try SettingsTable.values(db)
                    let jar = try CookiePersistence.loadAll(db, limits: SettingsTable.cookieLimits(values))
                    return (jar, values, newest)
                }
            }
        } catch {
            s.stale = true
            throw error
        }
        s.jar.replaceAll(with: loaded)
        s.jar.limits = SettingsTable.cookieLimits(values)
        s.policy = SettingsTable.cookiePolicy(values)
        s.lastSeq = seq
        s.stale = false
        replayInflight(&s, sites: nil)
    }

    /// Re-applies this process's changes not known to be committed over freshly loaded sites.
    private func replayInflight(_ s: inout State, sites: Set<String>?) {
        var changes: [LoggedCookie] = []
        for (_, queued) in s.inflight {
            for change in queued where sites?.contains(change.site) ?? true { changes.append(LoggedCookie(change)) }
        }
        if !changes.isEmpty { s.jar.apply(changes) }
    }

    private func notify(_ s: inout State, _ events: [CookieStoreChange]) {
        guard !s.observers.isEmpty else { return }
        for index in s.observers.values.indices {
            for var event in events {
                event.missedBefore = s.observers.values[index].missed
                switch s.observers.values[index].continuation.yield(event) {
                case .enqueued: s.observers.values[index].missed = 0
                case .dropped: s.observers.values[index].missed += 1
                case .terminated: break
                @unknown default: break
                }
            }
        }
    }

    /// Applies new limits or policy set through this process's store object; lowered limits
    /// evict at once (and the evictions are committed before this returns).
    func settingsChanged(_ values: [String: String]) throws {
        let ticket = state.withLock { s -> UInt64? in
            s.jar.limits = SettingsTable.cookieLimits(values)
            s.policy = SettingsTable.cookiePolicy(values)
            let evicted = s.jar.enforceLimits(now: clock())
            guard !evicted.isEmpty else { return nil }
            notify(&s, evicted.map { CookieStoreChange(cookie: $0, cause: .evicted, removed: true) })
            let changes = evicted.map { CookieJarChange.delete($0, .evicted) }
            return database.enqueueWrite(changes: CookiePersistence.logEntries(changes, touched: []))
        }
        if let ticket { try database.waitForCommit(ticket) }
    }

    static func storeError(_ error: Error) -> Error {
        if let db = error as? DatabaseError { return StoreError.database(db) }
        return error
    }
}
