import Foundation

/// The SQLite side of the cookie store.
///
/// A store's cookies are the cookies table plus the cookie changes logged after its last fold
/// (`cookies.folded_through`). Writes only append to the change log (`LoggedCookie` entries),
/// which puts one response's commit on the log's last page, whatever the sites; once enough
/// entries follow the last fold, a commit folds them into the cookies table, in key order.
enum CookiePersistence {
    static let columns =
        "name, value, domain, path, host_only, secure, http_only, same_site, partition_key, expires, created, last_access, modified"

    /// The settings key that says through which change-log entry the cookies table is up to date.
    static let foldedThroughKey = "cookies.folded_through"

    /// The cookie in the 13 columns of `columns`, from column `offset` of `row`.
    static func cookie(_ row: Row, from offset: Int32 = 0) -> Cookie {
        Cookie(
            name: row.string(offset), value: row.string(offset + 1), domain: row.string(offset + 2),
            path: row.string(offset + 3),
            isHostOnly: row.bool(offset + 4), isSecure: row.bool(offset + 5), isHTTPOnly: row.bool(offset + 6),
            sameSite: CookieSameSite(rawValue: row.string(offset + 7)) ?? .unspecified,
            partitionKey: row.string(offset + 8),
            expires: row.optionalDouble(offset + 9).map { Date(timeIntervalSince1970: $0) },
            created: Date(timeIntervalSince1970: row.double(offset + 10)),
            lastAccess: Date(timeIntervalSince1970: row.double(offset + 11)),
            modified: Date(timeIntervalSince1970: row.double(offset + 12)))
    }

    /// The logged cookie change of a change-log row whose `op` is column `opAt`, followed by
    /// the cookie's columns; `nil` for an entry that is not a cookie change.
    static func loggedCookie(_ row: Row, opAt index: Int32) -> LoggedCookie? {
        guard !row.isNull(index), let op = LoggedCookie.Op(rawValue: row.int(index)), !row.isNull(index + 1) else {
            return nil
        }
        return LoggedCookie(op: op, cookie: cookie(row, from: index + 1))
    }

    /// Binds the cookie's 13 columns (in the order of `columns`) from parameter `first`.
    static func bind(_ c: Cookie, to statement: any DatabaseStatement, from first: Int32) throws {
        for (offset, value) in values(c).enumerated() { try statement.bind(value, at: first + Int32(offset)) }
    }

    /// The cookie's values for the 13 columns of `columns`, in order.
    static func values(_ c: Cookie) -> [DatabaseValue] {
        [
            .text(c.name), .text(c.value), .text(c.domain), .text(c.path), .integer(c.isHostOnly ? 1 : 0),
            .integer(c.isSecure ? 1 : 0), .integer(c.isHTTPOnly ? 1 : 0), .text(c.sameSite.rawValue),
            .text(c.partitionKey), c.expires.map { .real($0.timeIntervalSince1970) } ?? .null,
            .real(c.created.timeIntervalSince1970), .real(c.lastAccess.timeIntervalSince1970),
            .real(c.modified.timeIntervalSince1970),
        ]
    }

    // MARK: Reading

    /// A jar with `limits` holding every cookie: the cookies table, then the cookie changes
    /// logged after its last fold, applied in order. The caller runs it in one transaction.
    ///
    /// The logged changes are read first, by site: each site's are applied to its rows as the
    /// table is read, and the site is built once, from the result (`SiteCookies` shares the
    /// storage of equal domains and paths), rather than built from the table and then changed
    /// cookie by cookie.
    ///
    /// Rows of the table are keyed by site first, and a row's site is the display name of its
    /// domain, which comes from libpsl's public suffix list: a newer list can move a domain to
    /// another site. With `refile` (in the caller's write transaction), rows filed under a site
    /// that is no longer theirs are rewritten under their site, so every later fold finds them.
    static func loadAll(_ db: DatabaseConnection, limits: CookieLimits, refile: Bool = false) throws -> CookieJar {
        try load(db, limits: limits, scope: nil, refile: refile)
    }

    /// A jar with `limits` holding the cookies of one site only, the site of `host`: the jar a
    /// lookup for `host` reads in `loadAll`'s, with the same cookies in the same order. The caller
    /// runs it in one transaction.
    ///
    /// A lookup reads the cookies of its host's site alone. They are the rows and logged changes
    /// filed under that site, and rows that an older public suffix list filed elsewhere (see
    /// `loadAll`): a site is a suffix of its cookie's domain under any list, so the cookies that
    /// can match `host` are filed under `host` or one of its parent domains, which are read too.
    /// Cookies of the site filed elsewhere cannot match `host`: they are left out.
    static func loadSite(ofHost host: String, _ db: DatabaseConnection, limits: CookieLimits) throws -> CookieJar {
        try load(db, limits: limits, scope: LoadScope(host: host), refile: false)
    }

    /// What `loadSite(ofHost:_:limits:)` reads: the cookies of `site`, filed under `filedUnder`.
    struct LoadScope {
        /// The site whose cookies are kept.
        let site: String
        /// The sites whose rows and logged changes are read: the host, its parent domains, its site.
        let filedUnder: [String]

        init(host: String) {
            site = Site.displayName(forHost: host)
            var names = [host]
            var rest = Substring(host)
            while let dot = rest.firstIndex(of: ".") {
                rest = rest[rest.index(after: dot)...]
                if !rest.isEmpty { names.append(String(rest)) }
            }
            if !names.contains(site) { names.append(site) }
            filedUnder = names
        }

        /// `AND site IN (…)`, with `first` as the first parameter's number.
        func condition(from first: Int) -> String {
            "site IN (" + filedUnder.indices.map { "?\(first + $0)" }.joined(separator: ", ") + ")"
        }

        var values: [DatabaseValue] { filedUnder.map { .text($0) } }
    }

    /// `loadAll`, or with `scope`, `loadSite(ofHost:_:limits:)`.
    private static func load(_ db: DatabaseConnection, limits: CookieLimits, scope: LoadScope?, refile: Bool) throws
        -> CookieJar
    {
        let folded = try foldedThrough(db)
        var logged: [String: [LoggedCookie]] = [:]
        _ = try db.rows(
            "SELECT op, \(columns) FROM change_log WHERE seq > ?1 AND op IS NOT NULL"
                + (scope.map { " AND " + $0.condition(from: 2) } ?? "") + " ORDER BY seq",
            [.integer(folded)] + (scope?.values ?? [])
        ) { row in
            guard let change = loggedCookie(row, opAt: 0) else { return }
            let site = change.cookie.site
            if let scope, site != scope.site { return }
            logged[site, default: []].append(change)
        }
        // Sites whose logged changes were applied, should rows of theirs filed under another
        // site come later in the table.
        var applied: [String: [LoggedCookie]] = [:]
        var sites: [SiteKey: SiteCookies] = [:]
        var moved: [(stored: String, cookie: Cookie)] = []
        // Rows come in key order, a site's together.
        var run: (site: String, cookies: [Cookie]) = ("", [])
        func endRun() {
            guard !run.cookies.isEmpty else { return }
            var cookies = run.cookies
            if let changes = applied[run.site] {
                // Rows of a site already read, filed under another site (to be refiled): older
                // than every logged change, so the cookies those changed are not taken again.
                let changed = Set(changes.map(\.cookie.key))
                cookies.removeAll { changed.contains($0.key) }
            } else if let changes = logged.removeValue(forKey: run.site) {
                cookies = CookieJar.applying(changes, to: cookies)
                applied[run.site] = changes
            }
            let key = SiteKey(run.site)
            if let index = sites.index(forKey: key) {
                sites.values[index].append(contentsOf: cookies)
            } else if !cookies.isEmpty {
                sites[key] = SiteCookies(cookies)
            }
            run.cookies.removeAll(keepingCapacity: true)
        }
        // In the engine's order, filtered or not: on SQLite, key order either way, so the site's
        // cookies come in the same order (which breaks ties in header order) as in `loadAll`.
        _ = try db.rows(
            "SELECT \(columns), site FROM cookies" + (scope.map { " WHERE " + $0.condition(from: 1) } ?? ""),
            scope?.values ?? []
        ) { row in
            let cookie = cookie(row)
            let site = cookie.site
            if let scope, site != scope.site { return }
            if refile && row.string(13) != site { moved.append((row.string(13), cookie)) }
            if site != run.site {
                endRun()
                run.site = site
            }
            run.cookies.append(cookie)
        }
        endRun()
        // Sites the table does not hold yet.
        for (site, changes) in logged {
            let cookies = CookieJar.applying(changes, to: [])
            if !cookies.isEmpty { sites[SiteKey(site)] = SiteCookies(cookies) }
        }
        for (stored, cookie) in moved {
            try deleteRow(of: cookie, filedUnder: stored, db)
            try upsertRow(cookie, db)
        }
        var jar = CookieJar(limits: limits)
        jar.replaceAll(bySite: sites, count: sites.values.reduce(0) { $0 + $1.count })
        return jar
    }

    /// The settings key that holds how many entries past the last fold make the next fold.
    static let foldThresholdKey = "cookies.fold_threshold"

    /// How many change-log entries past the last fold make the next fold:
    /// `StoreTuning.cookieLogFoldEntries`, or the table's rows at the last fold when more. A fold
    /// of entries spread over many sites writes most of the table's pages, so a large table is
    /// folded less often, each time with more entries: the table's pages are rewritten about
    /// once per table's worth of changes, and a store that grows is folded at sizes that double.
    /// The log a reader replays at open stays under the table's size (beyond the minimum);
    /// `loadAll` applies it site by site as it reads the table. (A smaller threshold, such as a
    /// quarter of the table, folds more often: three folds instead of two for 100,000 cookies.)
    static func foldThreshold(_ db: DatabaseConnection) throws -> Int64 {
        max(StoreTuning.cookieLogFoldEntries, try SettingsTable.number(foldThresholdKey, db))
    }

    /// Through which change-log entry the cookies table is up to date.
    static func foldedThrough(_ db: DatabaseConnection) throws -> Int64 {
        try SettingsTable.number(foldedThroughKey, db)
    }

    // MARK: Folding

    /// The cookie store's part in keeping the change log short: logged cookie changes are
    /// folded into the cookies table once more entries than `foldThreshold` follow the last fold.
    ///
    /// A folded entry keeps its cookie only while it is among the newest
    /// `StoreTuning.cookieLogKeptCookies` entries (all of them go with `force`): the table holds
    /// the cookie, and a removed cookie's value must not outlive it in the log. The entry stays
    /// (its position, site, cause and time, within the log's retention) as one that names the
    /// site; a process that reads it reloads its cookies from the table.
    struct LogFold: ChangeLogFold {
        var subject: ChangeSubject { .data(.cookies) }

        func fold(_ db: DatabaseConnection, through newest: Int64, force: Bool) throws -> Int64 {
            let folded = try foldedThrough(db)
            let threshold = try foldThreshold(db)
            guard force || newest - folded > threshold else { return folded }
            try CookiePersistence.fold(db, after: folded, through: newest)
            let kept = force ? 0 : StoreTuning.cookieLogKeptCookies
            let cleared = Self.logColumns.map { "\($0) = NULL" }.joined(separator: ", ")
            try db.execute(
                "UPDATE change_log SET \(cleared) WHERE seq > ? AND seq <= ? AND op IS NOT NULL",
                [.integer(force ? 0 : max(0, folded - kept)), .integer(newest - kept)])
            return newest
        }

        /// The columns of a logged cookie change: the change and the cookie.
        static let logColumns = ["op"] + columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Folds the cookie changes logged after `after` through `through` into the cookies table,
    /// inside the caller's write transaction, in SQL: the last set or delete of each cookie
    /// (its key: site, domain, name, path, host-only flag, partition) decides, then the latest
    /// access times are applied. Rows are written in key order, so neighbours share pages.
    /// Without deletes in the stretch, sets are written in key then log order (a later set of a
    /// cookie replaces an earlier one), which spares grouping every change by key.
    static func fold(_ db: DatabaseConnection, after: Int64, through: Int64) throws {
        // One pass over the table: a fold sorts all its entries at once. SQLite's sorter keeps
        // about the writer's cache size (2 MB) in memory and spills the rest to a temporary
        // file (the writer's `temp_store` is FILE), so a fold of large rows stays bounded.
        try foldStretch(db, after: after, through: through)
        let rows = try db.scalar("SELECT count(*) FROM cookies")?.int64 ?? 0
        try SettingsTable.setNumber(foldedThroughKey, to: through, db)
        try SettingsTable.setNumber(foldThresholdKey, to: rows, db)
    }

    private static func foldStretch(_ db: DatabaseConnection, after: Int64, through: Int64) throws {
        let key = "site, domain, name, path, host_only, partition_key"
        let range: [DatabaseValue] = [.integer(after), .integer(through)]
        func any(_ op: LoggedCookie.Op) throws -> Bool {
            try db.scalar(
                "SELECT 1 FROM change_log WHERE seq > ?1 AND seq <= ?2 AND op = \(op.rawValue) LIMIT 1", range) != nil
        }
        let keyColumns = key.components(separatedBy: ", ")
        let rowColumns = ["site"] + columns.components(separatedBy: ", ")
        // PostgreSQL's ON CONFLICT takes each key once per statement: there, the last change of
        // each cookie is always picked out first.
        let deletes = try any(.delete)
        if db.engine == .postgreSQL || deletes {
            // The last set or delete of each cookie decides.
            let last = "SELECT max(seq) FROM change_log WHERE seq > ?1 AND seq <= ?2 AND op IN (1, 2) GROUP BY \(key)"
            if deletes {
                try db.execute(
                    "DELETE FROM cookies WHERE (\(key)) IN (SELECT \(key) FROM change_log WHERE seq IN (\(last)) AND op = 2)",
                    range)
            }
            try db.execute(
                db.engine.insertReplacing(
                    into: "cookies", columns: rowColumns, key: keyColumns,
                    "SELECT site, \(columns) FROM change_log WHERE seq IN (\(last)) AND op = 1 ORDER BY \(key)"),
                range)
        } else {
            // Sets only: in log order, each replacing the one before it.
            try db.execute(
                "INSERT OR REPLACE INTO cookies (site, \(columns)) SELECT site, \(columns) FROM change_log WHERE seq > ?1 AND seq <= ?2 AND op = 1 ORDER BY \(key), seq",
                range)
        }
        if try any(.access) {
            try db.execute(
                """
                UPDATE cookies SET last_access = \(db.engine.greatest)(cookies.last_access, access.last_access)
                FROM (SELECT \(key), max(last_access) AS last_access FROM change_log
                      WHERE seq > ?1 AND seq <= ?2 AND op = 3 GROUP BY \(key)) AS access
                WHERE (cookies.site, cookies.domain, cookies.name, cookies.path, cookies.host_only, cookies.partition_key)
                    = (access.site, access.domain, access.name, access.path, access.host_only, access.partition_key)
                """, range)
        }
    }

    /// Writes the row of `cookie` (its key), filed under its site.
    private static func upsertRow(_ c: Cookie, _ db: DatabaseConnection) throws {
        let statement = try db.statement(
            db.engine.insertReplacing(
                into: "cookies", columns: ["site"] + columns.components(separatedBy: ", "),
                key: ["site", "domain", "name", "path", "host_only", "partition_key"],
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"))
        try statement.reset()
        try statement.bind(.text(c.site), at: 1)
        try bind(c, to: statement, from: 2)
        try statement.run()
    }

    /// Deletes the rows of `cookies` (their keys), each filed under its site (as `loadAll` with
    /// `refile` leaves them).
    static func deleteRows(of cookies: [Cookie], _ db: DatabaseConnection) throws {
        for cookie in cookies { try deleteRow(of: cookie, filedUnder: cookie.site, db) }
    }

    /// Deletes the row of `cookie` (its key), filed under `site`.
    private static func deleteRow(of cookie: Cookie, filedUnder site: String, _ db: DatabaseConnection) throws {
        try db.execute(
            "DELETE FROM cookies WHERE site = ? AND domain = ? AND name = ? AND path = ? AND host_only = ? AND partition_key = ?",
            [
                .text(site), .text(cookie.domain), .text(cookie.name), .text(cookie.path),
                .integer(cookie.isHostOnly ? 1 : 0), .text(cookie.partitionKey),
            ])
    }

    // MARK: Writing

    /// The change-log cause of a jar change.
    static func cause(of change: CookieJarChange, setCause: ChangeCause) -> ChangeCause {
        switch change {
        case .upsert: setCause
        case .delete(_, .expired): .expiry
        case .delete(_, .evicted): .eviction
        case .delete(_, .explicit): .removal
        case .delete(_, .sessionEnded): .endSession
        case .delete(_, .inserted), .delete(_, .overwritten): setCause
        }
    }

    /// The change-log entries of jar changes, in order, then of cookies whose last access moved
    /// on. An overwrite (the old cookie's delete, then the new one) is logged as its set alone:
    /// a set replaces the cookie with the same key.
    ///
    /// - Parameter setCause: the cause of the sets (`.importing` for an import); a delete's
    ///   cause is its own.
    static func logEntries(_ changes: [CookieJarChange], touched: [Cookie], setCause: ChangeCause = .write)
        -> [ChangeLogEntry]
    {
        var entries: [ChangeLogEntry] = []
        entries.reserveCapacity(changes.count + touched.count)
        for (i, change) in changes.enumerated() {
            if case .delete(let c, _) = change, i + 1 < changes.count, case .upsert(let next) = changes[i + 1],
                next.hasSameKey(as: c)
            {
                continue
            }
            entries.append(ChangeLogEntry(LoggedCookie(change), cause: cause(of: change, setCause: setCause)))
        }
        for c in touched { entries.append(ChangeLogEntry(LoggedCookie(op: .access, cookie: c), cause: .access)) }
        return entries
    }
}
