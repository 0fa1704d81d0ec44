import CLZ4
import Foundation

/// Firefox's cookies: `cookies.sqlite` (`moz_cookies`) for persistent ones, and the session
/// store (`sessionstore-backups/recovery.jsonlz4`, mozLz4) for session cookies.
///
/// The layout is Firefox's `netwerk/cookie/CookiePersistentStorage.cpp`: `host` starts with a dot
/// for a domain cookie; `expiry` is in seconds, or in milliseconds from schema 16 on (told apart
/// by size, below); `creationTime` and `lastAccessed` are microseconds since 1970; `sameSite` is
/// 0 (none), 1 (lax), 2 (strict) or 256 (not set); `originAttributes` is `^key=value&…` (empty
/// for the default container): `userContextId` is the container, `partitionKey` the top-level
/// site (`(https,example.com)`) of a cookie kept by Total Cookie Protection.
enum FirefoxCookies {
    /// The newest `moz_cookies` schema (`PRAGMA user_version`) this version reads.
    static let newestVersion = 17
    /// Firefox's "SameSite not set" (`nsICookie::SAMESITE_UNSET`).
    static let sameSiteUnset: Int64 = 256
    /// An `expiry` above this is in milliseconds: in seconds it would be past the year 5000,
    /// beyond any cookie's 400-day cap; in milliseconds it is 1973.
    static let millisecondsThreshold: Int64 = 100_000_000_000

    /// The cookies of a Firefox profile in the chosen container, for the store's import.
    static func items(
        _ profile: BrowserProfile, snapshot: ProfileSnapshot, options: BrowserProfileImportOptions,
        summary: inout BrowserProfileImportSummary
    ) throws(BrowserProfileError) -> [CookieImportItem] {
        let container = try containerID(options.container, profile: profile)
        var items: [CookieImportItem] = []
        let file = profile.directory.appendingPathComponent("cookies.sqlite")
        if FileManager.default.fileExists(atPath: file.path) {
            let copy = try snapshot.copySQLite(file)
            for (index, row) in try read(copy: copy, original: file).enumerated() {
                if let item = item(row, line: index + 1, path: nil, container: container, sites: options.sites) {
                    items.append(item)
                }
            }
        }
        let sessionCookies = try FirefoxSessionStore.cookies(profile.directory)
        for (index, row) in sessionCookies.rows.enumerated() {
            let path = "\(sessionCookies.file) cookies[\(index)]"
            if let item = item(row, line: index + 1, path: path, container: container, sites: options.sites) {
                items.append(item)
                summary.sessionCookies += 1
            }
        }
        return items
    }

    /// One cookie as Firefox keeps it.
    struct Row {
        var originAttributes: String
        var name: String
        var value: String
        var host: String
        var path: String
        /// Seconds or milliseconds since 1970; `nil` for a session cookie.
        var expiry: Int64?
        var lastAccessed: Int64
        var creationTime: Int64
        var isSecure: Bool
        var isHTTPOnly: Bool
        var sameSite: Int64
    }

    /// Reads a copy of `cookies.sqlite`.
    static func read(copy: URL, original: URL) throws(BrowserProfileError) -> [Row] {
        func damaged(_ why: String) -> BrowserProfileError {
            BrowserProfileError(
                .damaged, path: original.path, reason: "not a readable Firefox cookie database (\(why))")
        }
        do {
            let connection = try SQLiteConnection(location: .file(copy), busyTimeout: .seconds(5))
            let version = try connection.scalar("PRAGMA user_version", [])?.int64 ?? 0
            if version > Int64(newestVersion) {
                throw BrowserProfileError(
                    .schemaTooNew, path: original.path,
                    reason: "cookie database schema \(version) is newer than the \(newestVersion) this wkstore reads")
            }
            let columns = Set(try connection.rows("PRAGMA table_info(moz_cookies)", []) { $0.string(1) })
            for column in [
                "originAttributes", "name", "value", "host", "path", "expiry", "lastAccessed", "creationTime",
                "isSecure", "isHttpOnly",
            ] where !columns.contains(column) {
                throw damaged("its moz_cookies table has no \(column) column")
            }
            // rawSameSite, where a layout has it, is the attribute as set; sameSite was the one enforced.
            let sameSite =
                columns.contains("rawSameSite") ? "rawSameSite" : columns.contains("sameSite") ? "sameSite" : "256"
            return try connection.rows(
                """
                SELECT originAttributes, name, value, host, path, expiry, lastAccessed, creationTime, isSecure,
                    isHttpOnly, \(sameSite) FROM moz_cookies ORDER BY creationTime, id
                """, []
            ) { row in
                Row(
                    originAttributes: row.string(0), name: row.string(1), value: row.string(2), host: row.string(3),
                    path: row.string(4), expiry: row.int(5), lastAccessed: row.int(6), creationTime: row.int(7),
                    isSecure: row.bool(8), isHTTPOnly: row.bool(9), sameSite: row.int(10))
            }
        } catch let error as BrowserProfileError {
            throw error
        } catch {
            throw damaged(String(describing: error))
        }
    }

    /// A row as an import item, or `nil` when it is in another container, private, or of another site.
    static func item(_ row: Row, line: Int, path: String?, container: Int, sites: Set<String>?) -> CookieImportItem? {
        let attributes = originAttributes(row.originAttributes)
        guard Int(attributes["userContextId"] ?? "0") == container, (attributes["privateBrowsingId"] ?? "0") == "0",
            (attributes["firstPartyDomain"] ?? "").isEmpty
        else { return nil }
        var domain = row.host.lowercased()
        let isHostOnly = !domain.hasPrefix(".")
        if !isHostOnly { domain.removeFirst() }
        if let sites, !sites.contains(Site.displayName(forHost: domain)) { return nil }
        let partition = attributes["partitionKey"].flatMap(partitionKey) ?? ""
        var sameSite: CookieSameSite =
            switch row.sameSite {
            case 0: .none
            case 1: .lax
            case 2: .strict
            default: .unspecified
            }
        // Firefox keeps SameSite=None without Secure; the store, like RFC 6265bis, refuses it, so
        // it becomes no SameSite, as for a Firefox storage state (Docs/interchange.md).
        let mapped = sameSite == .none && !row.isSecure
        if mapped { sameSite = .unspecified }
        let expires = row.expiry.map { value in
            Date(timeIntervalSince1970: value > millisecondsThreshold ? Double(value) / 1000 : Double(value))
        }
        let cookie = Cookie(
            name: row.name, value: row.value, domain: domain, path: row.path, isHostOnly: isHostOnly,
            isSecure: row.isSecure, isHTTPOnly: row.isHTTPOnly, sameSite: sameSite, partitionKey: partition,
            expires: expires, created: Date(timeIntervalSince1970: Double(row.creationTime) / 1_000_000),
            lastAccess: Date(timeIntervalSince1970: Double(row.lastAccessed) / 1_000_000))
        return .cookie(cookie, line: line, path: path, sameSiteMapped: mapped)
    }

    /// `^userContextId=2&partitionKey=%28https%2Cexample.com%29` as a dictionary (values decoded).
    static func originAttributes(_ text: String) -> [String: String] {
        guard text.hasPrefix("^") else { return [:] }
        var result: [String: String] = [:]
        for pair in text.dropFirst().split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            result[String(parts[0])] = String(parts[1]).removingPercentEncoding ?? String(parts[1])
        }
        return result
    }

    /// Firefox's partition key `(scheme,host[,port][,f])` as the store's: `scheme://site`.
    static func partitionKey(_ text: String) -> String? {
        guard text.hasPrefix("("), text.hasSuffix(")") else { return nil }
        let parts = text.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count >= 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return SchemefulSite(scheme: String(parts[0]).lowercased(), site: Site.displayName(forHost: String(parts[1])))
            .description
    }

    /// The `userContextId` of a container name (`containers.json`; Firefox's four built-in
    /// containers by their English names when the file does not name them); 0 for none.
    static func containerID(_ name: String?, profile: BrowserProfile) throws(BrowserProfileError) -> Int {
        guard let name else { return 0 }
        let builtIn = [
            "user-context-personal": "Personal", "user-context-work": "Work", "user-context-banking": "Banking",
            "user-context-shopping": "Shopping",
        ]
        var known: [(name: String, id: Int)] = [("Personal", 1), ("Work", 2), ("Banking", 3), ("Shopping", 4)]
        let file = profile.directory.appendingPathComponent("containers.json")
        if let data = try? Data(contentsOf: file),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let identities = object["identities"] as? [[String: Any]]
        {
            known = identities.compactMap { identity in
                guard let id = identity["userContextId"] as? Int, identity["public"] as? Bool != false else {
                    return nil
                }
                let label = identity["name"] as? String ?? (identity["l10nId"] as? String).flatMap { builtIn[$0] }
                return label.map { ($0, id) }
            }
        }
        guard let match = known.first(where: { $0.name.lowercased() == name.lowercased() }) else {
            throw BrowserProfileError(
                .unknownContainer, path: file.path,
                reason:
                    "no container named '\(name)'; containers: \(known.map(\.name).joined(separator: ", "))")
        }
        return match.id
    }
}

/// Firefox's session store, where its session cookies live: `sessionstore-backups/recovery.jsonlz4`
/// while it runs (else `sessionstore.jsonlz4`), in mozLz4: the magic `mozLz40\0`, the decompressed
/// size (4 bytes, little-endian), then one LZ4 block of JSON whose `cookies` array holds them.
enum FirefoxSessionStore {
    /// The largest decompressed size accepted: a session store is a few megabytes; a bigger
    /// number in an untrusted header is not worth the memory.
    static let maxSize = 256 << 20

    /// The session cookies of a profile, in the order the file lists them, and the file's name
    /// relative to the profile; none without a session store.
    static func cookies(_ profile: URL) throws(BrowserProfileError) -> (file: String, rows: [FirefoxCookies.Row]) {
        let names = ["sessionstore-backups/recovery.jsonlz4", "sessionstore.jsonlz4"]
        guard
            let name = names.first(where: {
                FileManager.default.fileExists(atPath: profile.appendingPathComponent($0).path)
            })
        else { return ("", []) }
        let file = profile.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: file) else {
            throw BrowserProfileError(.damaged, path: file.path, reason: "cannot be read")
        }
        func damaged(_ why: String) -> BrowserProfileError {
            BrowserProfileError(.damaged, path: file.path, reason: "not a readable Firefox session store (\(why))")
        }
        let json = try decompress(Array(data), damaged: damaged)
        guard let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else {
            throw damaged("its content is not a JSON object")
        }
        let cookies = object["cookies"] as? [[String: Any]] ?? []
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let rows = cookies.compactMap { entry -> FirefoxCookies.Row? in
            guard let host = entry["host"] as? String else { return nil }
            let attributes = entry["originAttributes"] as? [String: Any] ?? [:]
            let text = attributes.compactMap { key, value -> String? in
                let string = "\(value)"
                guard !string.isEmpty, string != "0" else { return nil }
                return key + "=" + (string.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? string)
            }.sorted().joined(separator: "&")
            return FirefoxCookies.Row(
                originAttributes: text.isEmpty ? "" : "^" + text, name: entry["name"] as? String ?? "",
                value: entry["value"] as? String ?? "", host: host, path: entry["path"] as? String ?? "/",
                expiry: nil, lastAccessed: now, creationTime: now, isSecure: entry["secure"] as? Bool ?? false,
                isHTTPOnly: entry["httponly"] as? Bool ?? false,
                sameSite: (entry["sameSite"] as? Int).map(Int64.init) ?? FirefoxCookies.sameSiteUnset)
        }
        return (name, rows)
    }

    /// The bytes of a mozLz4 file, decompressed.
    static func decompress(_ bytes: [UInt8], damaged: (String) -> BrowserProfileError) throws(BrowserProfileError)
        -> [UInt8]
    {
        let magic = Array("mozLz40\0".utf8)
        guard bytes.count > 12, Array(bytes[0..<8]) == magic else { throw damaged("no mozLz4 header") }
        let size = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24
        guard size <= maxSize else { throw damaged("it claims \(size) bytes, more than a session store holds") }
        var output = [UInt8](repeating: 0, count: max(size, 1))
        let body = Array(bytes[12...])
        let written = body.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                source.baseAddress!.withMemoryRebound(to: CChar.self, capacity: source.count) { src in
                    target.baseAddress!.withMemoryRebound(to: CChar.self, capacity: target.count) { dst in
                        LZ4_decompress_safe(src, dst, Int32(source.count), Int32(size))
                    }
                }
            }
        }
        guard written == Int32(size) else { throw damaged("its LZ4 block does not decompress") }
        return Array(output[0..<size])
    }
}
