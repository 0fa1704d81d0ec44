import Foundation

/// Chromium's cookie database (`Cookies`, SQLite): its `meta` version and its `cookies` rows.
///
/// The layout is Chromium's `net/extras/sqlite/sqlite_persistent_cookie_store.cc`: times are
/// microseconds since 1601-01-01 UTC; `host_key` starts with a dot for a domain cookie;
/// `samesite` is -1 (unspecified), 0 (none), 1 (lax) or 2 (strict); `top_frame_site_key` is the
/// partition (`https://example.com`) of a partitioned cookie, empty otherwise; a value is in
/// `value` as plain text or in `encrypted_value` with a `v10`/`v11` prefix.
enum ChromiumCookiesFile {
    /// The newest schema this version reads and writes; a database whose
    /// `last_compatible_version` is newer cannot be read without knowing what changed.
    static let newestVersion = 24
    /// The first schema that starts each encrypted value with the SHA-256 of `host_key`.
    static let firstHashedVersion = 24
    /// Seconds from 1601-01-01 to 1970-01-01, the epochs of Chromium's and Unix time.
    static let windowsEpochOffset: Int64 = 11_644_473_600

    /// One row of `cookies`, as stored.
    struct Row {
        var hostKey: String
        var topFrameSiteKey: String
        var name: String
        var value: String
        var encryptedValue: [UInt8]
        var path: String
        var expiresUTC: Int64
        var isSecure: Bool
        var isHTTPOnly: Bool
        var creationUTC: Int64
        var lastAccessUTC: Int64
        var hasExpires: Bool
        var isPersistent: Bool
        var sameSite: Int64
    }

    /// The columns a row is read from; the first seven exist in every layout since Chromium
    /// started encrypting values, the others default when a layout lacks them.
    private static let required = [
        "host_key", "name", "value", "encrypted_value", "path", "expires_utc", "is_secure", "is_httponly",
        "creation_utc", "last_access_utc", "has_expires", "is_persistent",
    ]

    /// Reads a copy of a cookie database.
    ///
    /// - Parameters:
    ///   - copy: the private copy to open.
    ///   - original: the browser's file, for messages.
    /// - Returns: the schema version and every row, in the table's order.
    /// - Throws: `BrowserProfileError` `.schemaTooNew` for a layout newer than `newestVersion`,
    ///   `.damaged` for a file SQLite cannot read or without the `cookies` table and columns.
    static func read(copy: URL, original: URL) throws(BrowserProfileError) -> (version: Int, rows: [Row]) {
        func damaged(_ why: String) -> BrowserProfileError {
            BrowserProfileError(
                .damaged, path: original.path, reason: "not a readable Chromium cookie database (\(why))")
        }
        do {
            let connection = try SQLiteConnection(location: .file(copy), busyTimeout: .seconds(5))
            let meta = try connection.rows("SELECT key, value FROM meta", []) { row in
                (row.string(0), row.string(1))
            }
            let version = meta.first { $0.0 == "version" }.flatMap { Int($0.1) } ?? 0
            let compatible = meta.first { $0.0 == "last_compatible_version" }.flatMap { Int($0.1) } ?? version
            if compatible > newestVersion {
                throw BrowserProfileError(
                    .schemaTooNew, path: original.path,
                    reason:
                        "cookie database schema \(version) (readable from \(compatible)) is newer than the \(newestVersion) this wkstore reads"
                )
            }
            let columns = Set(try connection.rows("PRAGMA table_info(cookies)", []) { $0.string(1) })
            if let missing = required.first(where: { !columns.contains($0) }) {
                throw damaged("its cookies table has no \(missing) column")
            }
            let sameSite = columns.contains("samesite") ? "samesite" : "-1"
            let partition = columns.contains("top_frame_site_key") ? "top_frame_site_key" : "''"
            let sql = """
                SELECT host_key, \(partition), name, value, encrypted_value, path, expires_utc, is_secure,
                    is_httponly, creation_utc, last_access_utc, has_expires, is_persistent, \(sameSite)
                FROM cookies ORDER BY rowid
                """
            let rows = try connection.rows(sql, []) { row in
                Row(
                    hostKey: row.string(0), topFrameSiteKey: row.string(1), name: row.string(2),
                    value: row.string(3), encryptedValue: row.isNull(4) ? [] : row.blob(4), path: row.string(5),
                    expiresUTC: row.int(6), isSecure: row.bool(7), isHTTPOnly: row.bool(8), creationUTC: row.int(9),
                    lastAccessUTC: row.int(10), hasExpires: row.bool(11), isPersistent: row.bool(12),
                    sameSite: row.int(13))
            }
            return (version, rows)
        } catch let error as BrowserProfileError {
            throw error
        } catch {
            throw damaged(String(describing: error))
        }
    }

    /// A Chromium time (microseconds since 1601-01-01 UTC) as a date.
    static func date(_ microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1_000_000 - Double(windowsEpochOffset))
    }

    /// A date as a Chromium time.
    static func chromiumTime(_ date: Date) -> Int64 {
        Int64(((date.timeIntervalSince1970 + Double(windowsEpochOffset)) * 1_000_000).rounded())
    }

    /// The store's SameSite for Chromium's number.
    static func sameSite(_ value: Int64) -> CookieSameSite {
        switch value {
        case 0: .none
        case 1: .lax
        case 2: .strict
        default: .unspecified
        }
    }

    /// Chromium's number for the store's SameSite.
    static func sameSiteNumber(_ value: CookieSameSite) -> Int64 {
        switch value {
        case .none: 0
        case .lax: 1
        case .strict: 2
        case .unspecified: -1
        }
    }
}

/// Decrypts the values of one Chromium cookie database with the passwords Chromium may have used.
struct ChromiumCookieDecryptor {
    /// The `v10` cipher (password `peanuts`).
    private let v10 = ChromiumCookieCipher(password: ChromiumCookieCipher.v10Password)
    /// The `v11` ciphers, in the order tried: passwords given, the keyring's, the empty one.
    private let v11: [ChromiumCookieCipher]
    /// Whether values start with the SHA-256 of `host_key`.
    let hashed: Bool

    /// A decryptor trying `keyringPasswords`, then the empty password, for the `v11` values of `rows`.
    ///
    /// From schema 24 each value carries the hash of its `host_key`, so a wrong password cannot
    /// pass for a right one and each value may try every password. Before it, only the padding and
    /// UTF-8 tell, which a wrong key passes now and then for a short value: there one password must
    /// decrypt every `v11` value of the file, or none is taken (Chromium uses one per profile).
    init(keyringPasswords: [String], version: Int, rows: [ChromiumCookiesFile.Row]) {
        var seen: Set<String> = []
        let passwords = (keyringPasswords + [ChromiumCookieCipher.emptyKeyringPassword]).filter {
            seen.insert($0).inserted
        }
        let ciphers = passwords.map(ChromiumCookieCipher.init(password:))
        let hashed = version >= ChromiumCookiesFile.firstHashedVersion
        self.hashed = hashed
        guard !hashed else {
            v11 = ciphers
            return
        }
        let encrypted = rows.filter { $0.encryptedValue.starts(with: Self.v11Prefix) }
        v11 =
            ciphers.first { cipher in
                encrypted.allSatisfy {
                    cipher.decrypt($0.encryptedValue.dropFirst(3), hostKey: $0.hostKey, hashed: false) != nil
                }
            }.map { [$0] } ?? []
    }

    /// The prefix of values encrypted with the keyring's password.
    static let v11Prefix = Array("v11".utf8)

    /// What a row's value reads as.
    enum Outcome {
        /// The value.
        case value(String)
        /// A `v11` value no password tried decrypts.
        case needsKeyringPassword
        /// A value in a form this version does not read (another prefix, or a `v10` value that
        /// does not decrypt: a damaged row).
        case unreadable(String)
    }

    /// The value of a row: its plain `value` when `encrypted_value` is empty, else the decryption.
    func value(of row: ChromiumCookiesFile.Row) -> Outcome {
        let encrypted = row.encryptedValue
        guard !encrypted.isEmpty else { return .value(row.value) }
        let prefix = String(decoding: encrypted.prefix(3), as: UTF8.self)
        let body = encrypted.dropFirst(3)
        switch prefix {
        case "v10":
            if let value = v10.decrypt(body, hostKey: row.hostKey, hashed: hashed) { return .value(value) }
            return .unreadable("its v10 value does not decrypt")
        case "v11":
            for cipher in v11 {
                if let value = cipher.decrypt(body, hostKey: row.hostKey, hashed: hashed) { return .value(value) }
            }
            return .needsKeyringPassword
        default:
            return .unreadable("its value is encrypted in a form this wkstore does not read")
        }
    }
}
