import Foundation

extension ChromiumCookiesFile {
    /// The tables of a schema 24 cookie database, as Chromium creates them.
    static let schema = [
        "CREATE TABLE meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR)",
        """
        CREATE TABLE cookies(creation_utc INTEGER NOT NULL,host_key TEXT NOT NULL,top_frame_site_key TEXT NOT NULL,\
        name TEXT NOT NULL,value TEXT NOT NULL,encrypted_value BLOB NOT NULL,path TEXT NOT NULL,\
        expires_utc INTEGER NOT NULL,is_secure INTEGER NOT NULL,is_httponly INTEGER NOT NULL,\
        last_access_utc INTEGER NOT NULL,has_expires INTEGER NOT NULL,is_persistent INTEGER NOT NULL,\
        priority INTEGER NOT NULL,samesite INTEGER NOT NULL,source_scheme INTEGER NOT NULL,\
        source_port INTEGER NOT NULL,last_update_utc INTEGER NOT NULL,source_type INTEGER NOT NULL,\
        has_cross_site_ancestor INTEGER NOT NULL)
        """,
        """
        CREATE UNIQUE INDEX cookies_unique_index ON cookies(host_key, top_frame_site_key, has_cross_site_ancestor, \
        name, path, source_scheme, source_port)
        """,
        "INSERT INTO meta VALUES ('mmap_status', '-1'), ('version', '24'), ('last_compatible_version', '24')",
    ]

    /// Writes cookies into a Chromium cookie database in one transaction, creating it (schema
    /// 24) when missing. A row with the same `host_key`, partition, name and path is replaced;
    /// other rows are kept. Values are `v10`-encrypted, as Chromium's basic store keeps them.
    ///
    /// - Parameters:
    ///   - cookies: the cookies.
    ///   - file: the `Cookies` file.
    ///   - now: the time written as each row's last update.
    /// - Throws: `BrowserProfileError` `.schemaTooNew` or `.damaged` for a file of another schema
    ///   or one SQLite cannot write; nothing is written then.
    static func write(_ cookies: [Cookie], to file: URL, now: Date) throws(BrowserProfileError) {
        let exists = FileManager.default.fileExists(atPath: file.path)
        func damaged(_ why: String) -> BrowserProfileError {
            BrowserProfileError(
                .damaged, path: file.path, reason: "cannot be written as a Chromium cookie database (\(why))")
        }
        do {
            let connection = try SQLiteConnection(location: .file(file), busyTimeout: .seconds(5))
            try connection.transaction(write: true) {
                if exists {
                    let meta = try connection.rows("SELECT key, value FROM meta", []) { ($0.string(0), $0.string(1)) }
                    let version = meta.first { $0.0 == "version" }.flatMap { Int($0.1) } ?? 0
                    guard version == newestVersion else {
                        throw BrowserProfileError(
                            version > newestVersion ? .schemaTooNew : .damaged, path: file.path,
                            reason:
                                "cookie database schema \(version); this wkstore writes schema \(newestVersion) only (open the profile once with a Chromium of the same schema)"
                        )
                    }
                } else {
                    for statement in schema { try connection.execute(statement) }
                }
                let cipher = ChromiumCookieCipher(password: ChromiumCookieCipher.v10Password)
                let lastUpdate = chromiumTime(now)
                for cookie in cookies {
                    let hostKey = cookie.isHostOnly ? cookie.domain : "." + cookie.domain
                    try connection.execute(
                        "DELETE FROM cookies WHERE host_key = ? AND top_frame_site_key = ? AND name = ? AND path = ?",
                        [.text(hostKey), .text(cookie.partitionKey), .text(cookie.name), .text(cookie.path)])
                    let encrypted = Array("v10".utf8) + cipher.encrypt(cookie.value, hostKey: hostKey)
                    let expires = cookie.expires.map(chromiumTime) ?? 0
                    // source_scheme 2 is secure and 0 unset; -1 is Chromium's unspecified port.
                    try connection.execute(
                        "INSERT INTO cookies VALUES (?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, -1, ?, 0, 0)",
                        [
                            .integer(chromiumTime(cookie.created)), .text(hostKey), .text(cookie.partitionKey),
                            .text(cookie.name), .blob(encrypted), .text(cookie.path), .integer(expires),
                            .integer(cookie.isSecure ? 1 : 0), .integer(cookie.isHTTPOnly ? 1 : 0),
                            .integer(chromiumTime(cookie.lastAccess)), .integer(cookie.expires == nil ? 0 : 1),
                            .integer(cookie.expires == nil ? 0 : 1), .integer(sameSiteNumber(cookie.sameSite)),
                            .integer(cookie.isSecure ? 2 : 0), .integer(lastUpdate),
                        ])
                }
            }
        } catch {
            // A file this call made is removed again: a failed export leaves nothing behind.
            if !exists { try? FileManager.default.removeItem(at: file) }
            if let error = error as? BrowserProfileError { throw error }
            throw damaged(String(describing: error))
        }
    }
}
