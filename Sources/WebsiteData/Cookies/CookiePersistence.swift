import Foundation

/// The SQLite side of the cookie store: loading rows into cookies and writing jar changes.
enum CookiePersistence {
    static let columns = "name, value, domain, path, host_only, secure, http_only, same_site, partition_key, expires, created, last_access, modified"

    static func cookie(_ row: Row) -> Cookie {
        Cookie(name: row.string(0), value: row.string(1), domain: row.string(2), path: row.string(3),
               isHostOnly: row.bool(4), isSecure: row.bool(5), isHTTPOnly: row.bool(6),
               sameSite: CookieSameSite(rawValue: row.string(7)) ?? .unspecified, partitionKey: row.string(8),
               expires: row.optionalDouble(9).map { Date(timeIntervalSince1970: $0) },
               created: Date(timeIntervalSince1970: row.double(10)),
               lastAccess: Date(timeIntervalSince1970: row.double(11)),
               modified: Date(timeIntervalSince1970: row.double(12)))
    }

    static func loadAll(_ db: DatabaseConnection) throws -> [Cookie] {
        try db.rows("SELECT \(columns) FROM cookies", [], cookie)
    }

    /// Loads every cookie, grouped by site, at open.
    ///
    /// Rows are keyed by site first, and a row's site is the display name of its domain, which
    /// comes from libpsl's public suffix list: a newer list can move a domain to another site.
    /// Rows filed under a site that is no longer theirs are rewritten under their site (within
    /// the caller's write transaction), so every later write and delete, keyed by the cookie's
    /// site, finds them.
    static func loadAllBySite(_ db: DatabaseConnection) throws -> (sites: [String: [Cookie]], count: Int) {
        var sites: [String: [Cookie]] = [:]
        var moved: [(stored: String, cookie: Cookie)] = []
        var count = 0
        _ = try db.rows("SELECT \(columns), site FROM cookies", []) { row in
            let cookie = cookie(row)
            let site = cookie.site
            if row.string(13) != site { moved.append((row.string(13), cookie)) }
            sites[site, default: []].append(cookie)
            count += 1
        }
        for (stored, cookie) in moved { try deleteRow(of: cookie, filedUnder: stored, db) }
        try apply(moved.map { .upsert($0.cookie) }, touched: [], db)
        return (sites, count)
    }

    static func load(sites: [String], _ db: DatabaseConnection) throws -> [String: [Cookie]] {
        var result: [String: [Cookie]] = [:]
        for site in sites {
            result[site] = try db.rows("SELECT \(columns) FROM cookies WHERE site = ?", [.text(site)], cookie)
        }
        return result
    }

    /// Deletes the row of `cookie` (its key), filed under `site`.
    private static func deleteRow(of cookie: Cookie, filedUnder site: String, _ db: DatabaseConnection) throws {
        try db.execute("DELETE FROM cookies WHERE site = ? AND domain = ? AND name = ? AND path = ? AND host_only = ? AND partition_key = ?",
                       [.text(site), .text(cookie.domain), .text(cookie.name), .text(cookie.path),
                        .integer(cookie.isHostOnly ? 1 : 0), .text(cookie.partitionKey)])
    }

    /// Writes jar changes, in order.
    static func apply(_ changes: [CookieJarChange], touched: [Cookie], _ db: DatabaseConnection) throws {
        for change in changes {
            switch change {
            case .upsert(let c):
                try db.execute("""
                    INSERT OR REPLACE INTO cookies (site, \(columns))
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.text(c.site), .text(c.name), .text(c.value), .text(c.domain), .text(c.path),
                          .integer(c.isHostOnly ? 1 : 0), .integer(c.isSecure ? 1 : 0), .integer(c.isHTTPOnly ? 1 : 0),
                          .text(c.sameSite.rawValue), .text(c.partitionKey),
                          c.expires.map { .real($0.timeIntervalSince1970) } ?? .null,
                          .real(c.created.timeIntervalSince1970), .real(c.lastAccess.timeIntervalSince1970),
                          .real(c.modified.timeIntervalSince1970)])
            case .delete(let c):
                try deleteRow(of: c, filedUnder: c.site, db)
            }
        }
        for c in touched {
            try db.execute("UPDATE cookies SET last_access = ? WHERE site = ? AND domain = ? AND name = ? AND path = ? AND host_only = ? AND partition_key = ?",
                           [.real(c.lastAccess.timeIntervalSince1970), .text(c.site), .text(c.domain), .text(c.name),
                            .text(c.path), .integer(c.isHostOnly ? 1 : 0), .text(c.partitionKey)])
        }
    }
}
