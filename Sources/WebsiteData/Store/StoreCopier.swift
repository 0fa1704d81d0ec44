import Foundation

/// Copies every persistent table of one store into another, empty one, on either engine
/// (`WebsiteDataStore.copyStore(from:to:)`).
///
/// The schemas of both engines have the same tables and columns, so rows are copied as they are,
/// ids included (other tables refer to them), a page at a time. What differs is converted in one
/// place each: cookies are read as the cookie store reads them (the table and the changes logged
/// after its last fold), text that may hold NUL is bytea on PostgreSQL (`DatabaseEngine.anyText`),
/// cache bodies go through the disk cache's own functions, WebSQL databases through
/// `WebSQLStorage.image(ofFile:)` and `writeFile(image:in:)`.
///
/// The source is read in one read transaction; the destination written in one write transaction
/// that first appends its change-log entries (on PostgreSQL that takes the log's lock, so no
/// other writer commits between the emptiness check and the copy). As rows are read, a digest
/// of each table is kept; after the commit the destination's tables are read again and their
/// digests must be the same.
final class StoreCopier {
    let source: WebsiteDataStore
    let destination: WebsiteDataStore
    private(set) var summary = StoreCopySummary()
    /// The digest of each table as read from the source.
    private var digests: [String: TableDigest] = [:]
    /// Files written into the destination's folders, deleted should its transaction fail.
    private var madeFiles: [URL] = []

    init(from source: WebsiteDataStore, to destination: WebsiteDataStore) {
        self.source = source
        self.destination = destination
    }

    /// A table copied row for row.
    struct Table {
        let name: String
        var columns: [String]
        /// The primary key, which pages are read in order of.
        let key: [String]
        /// Columns of text that may hold NUL: bytea on PostgreSQL.
        var anyText: Set<String> = []
        /// The identity column on PostgreSQL, whose sequence must pass the copied ids.
        var identity: String? = nil
    }

    /// The tables copied as they are, parents before children (PostgreSQL checks references).
    static let plainTables: [Table] = [
        Table(
            name: "local_storage", columns: ["id", "origin", "key", "value", "size", "site", "modified"],
            key: ["id"], anyText: ["key", "value"], identity: "id"),
        Table(
            name: "appcache_groups",
            columns: ["id", "manifest_url", "origin", "manifest", "site", "created", "modified"],
            key: ["id"], identity: "id"),
        Table(
            name: "appcache_entries",
            columns: ["group_id", "url", "kind", "status", "headers", "body", "size", "site", "modified"],
            key: ["group_id", "url"]),
        Table(
            name: "idb_databases", columns: ["id", "origin", "name", "version", "site", "modified", "size"],
            key: ["id"], identity: "id"),
        Table(
            name: "idb_object_stores",
            columns: ["id", "database_id", "name", "key_path", "auto_increment", "current_key"], key: ["id"],
            identity: "id"),
        Table(
            name: "idb_indexes", columns: ["id", "store_id", "name", "key_path", "is_unique", "multi_entry"],
            key: ["id"], identity: "id"),
        Table(name: "idb_records", columns: ["store_id", "key", "value"], key: ["store_id", "key"]),
        Table(
            name: "idb_index_records", columns: ["index_id", "key", "primary_key"],
            key: ["index_id", "key", "primary_key"]),
    ]

    /// The cookies table, as the cookie store's rows are keyed.
    static let cookies = Table(
        name: "cookies", columns: ["site"] + CookiePersistence.columns.components(separatedBy: ", "),
        key: ["site", "domain", "name", "path", "host_only", "partition_key"])

    /// The WebSQL catalog's columns both engines have (a SQLite store adds `file`, a PostgreSQL
    /// store `image`).
    static let webSQL = Table(
        name: "websql_databases",
        columns: [
            "id", "origin", "name", "version", "display_name", "estimated_size", "site", "created", "modified",
        ], key: ["id"], identity: "id")

    /// The disk cache's columns but the body's (`body`, `body_file`), which are read and written
    /// through the disk cache.
    static let diskCache = Table(
        name: "http_cache",
        columns: [
            "id", "site", "partition_key", "method", "url", "variant", "status", "headers", "request_time",
            "response_time", "body_size", "size", "created", "modified", "last_access",
        ], key: ["id"], identity: "id")

    /// Every table whose rows make a store non-empty.
    static var dataTables: [String] {
        ["cookies", "http_cache", "websql_databases"] + plainTables.map(\.name)
    }

    /// Copies, commits, then checks the destination against what was read.
    func run() throws -> StoreCopySummary {
        try copyAndCommit()
        try check()
        return summary
    }

    /// Copies in one destination transaction and commits.
    func copyAndCommit() throws {
        try checkStores()
        let from = source.database
        let to = destination.database
        if !from.isReadOnly { from.drainQueue() }
        to.drainQueue()
        do {
            try from.read { src in
                try src.transaction(write: false) {
                    try to.writer.withLock { dst in
                        try dst.transaction { try self.copy(src, dst) }
                    }
                }
            }
        } catch {
            for file in madeFiles { try? FileManager.default.removeItem(at: file) }
            throw HTTPCookieStore.storeError(error)
        }
        // The entries are not this object's own: every store object on the destination,
        // this process's included, reloads what it holds in memory.
        to.changeCounter?.increment()
    }

    private func checkStores() throws {
        guard source.isPersistent, destination.isPersistent else {
            throw StoreCopyError(
                .notPersistent, "a store held in memory cannot be copied from or into (nothing was changed)")
        }
        try destination.database.checkWritable()
        let same: Bool
        if let a = source.database.postgreSQL, let b = destination.database.postgreSQL {
            same = a == b
        } else if let a = source.directory, let b = destination.directory {
            same = a.standardizedFileURL.resolvingSymlinksInPath() == b.standardizedFileURL.resolvingSymlinksInPath()
        } else {
            same = false
        }
        if same {
            throw StoreCopyError(
                .sameStore, "the source and the destination are the same store, \(destination.locationDescription)")
        }
    }

    // MARK: - Copying

    private func copy(_ src: DatabaseConnection, _ dst: DatabaseConnection) throws {
        let types: [WebsiteDataType] = [
            .cookies, .diskCache, .localStorage, .indexedDBDatabases, .webSQLDatabases, .offlineWebApplicationCache,
        ]
        let subjects = types.map { ChangeSubject.data($0) } + [.settings]
        // First, so that on PostgreSQL the log's lock is held from here to the commit.
        _ = try StoreDatabase.appendToLog(
            subjects.map { ChangeLogEntry(subject: $0, site: "*", cause: .importing) }, dst)
        // The copy writes the cookies table and the fold's settings, as the log maintenance does.
        try StoreDatabase.lockFolds(dst)
        try checkEmpty(dst)
        try copySettings(src, dst)
        try copyCookies(src, dst)
        for table in Self.plainTables {
            let rows = try copyRows(table, src, dst)
            switch table.name {
            case "local_storage": summary.localStorageItems = rows
            case "appcache_groups": summary.applicationCacheGroups = rows
            case "idb_databases": summary.indexedDBDatabases = rows
            case "idb_records": summary.indexedDBRecords = rows
            default: break
            }
        }
        summary.webSQLDatabases = try copyWebSQL(src, dst)
        summary.diskCacheEntries = try copyDiskCache(src, dst)
        if dst.engine == .postgreSQL {
            for table in Self.plainTables + [Self.webSQL, Self.diskCache] {
                guard let column = table.identity else { continue }
                _ = try dst.scalar(
                    "SELECT setval(pg_get_serial_sequence('\(table.name)', '\(column)'), max(\(column))) FROM \(table.name)"
                )
            }
        }
    }

    /// Refuses a destination that holds website data. Its cookie changes logged after the last
    /// fold are folded first, so that what the cookie store would load is what is counted, and
    /// so that none of them is replayed over the copied cookies.
    private func checkEmpty(_ dst: DatabaseConnection) throws {
        let newest = try dst.scalar("SELECT max(seq) FROM change_log")?.int64 ?? 0
        let folded = try CookiePersistence.foldedThrough(dst)
        if newest > folded { try CookiePersistence.fold(dst, after: folded, through: newest) }
        var held: [String] = []
        for table in Self.dataTables where try dst.scalar("SELECT 1 FROM \(table) LIMIT 1") != nil {
            held.append(table)
        }
        guard held.isEmpty else {
            throw StoreCopyError(
                .destinationNotEmpty,
                "the destination, \(destination.locationDescription), holds website data (in \(held.joined(separator: ", "))): copy into an empty store (nothing was changed)"
            )
        }
    }

    private func copySettings(_ src: DatabaseConnection, _ dst: DatabaseConnection) throws {
        let keys = Set(StoreSetting.all.map(\.key))
        let values = try SettingsTable.values(src).filter { keys.contains($0.key) }
        for key in keys { try dst.execute("DELETE FROM settings WHERE key = ?", [.text(key)]) }
        var digest = TableDigest()
        for (key, value) in values {
            try dst.execute("INSERT INTO settings (key, value) VALUES (?, ?)", [.text(key), .text(value)])
            digest.add([.text(key), .text(value)])
        }
        digests["settings"] = digest
        summary.settings = values.count
    }

    private func copyCookies(_ src: DatabaseConnection, _ dst: DatabaseConnection) throws {
        let limits = SettingsTable.cookieLimits(try SettingsTable.values(src))
        let cookies = try CookiePersistence.loadAll(src, limits: limits).all
        var digest = TableDigest()
        var page: [[DatabaseValue]] = []
        for cookie in cookies {
            let row = Self.cookieRow(cookie)
            digest.add(row)
            page.append(row)
            if page.count == Self.pageSize {
                try Self.insert(Self.cookies, page, dst)
                page.removeAll(keepingCapacity: true)
            }
        }
        try Self.insert(Self.cookies, page, dst)
        digests["cookies"] = digest
        summary.cookies = cookies.count
    }

    /// A cookie's row: its site, then the columns of `CookiePersistence.columns`.
    static func cookieRow(_ c: Cookie) -> [DatabaseValue] {
        [
            .text(c.site), .text(c.name), .text(c.value), .text(c.domain), .text(c.path),
            .integer(c.isHostOnly ? 1 : 0), .integer(c.isSecure ? 1 : 0), .integer(c.isHTTPOnly ? 1 : 0),
            .text(c.sameSite.rawValue), .text(c.partitionKey),
            c.expires.map { .real($0.timeIntervalSince1970) } ?? .null,
            .real(c.created.timeIntervalSince1970), .real(c.lastAccess.timeIntervalSince1970),
            .real(c.modified.timeIntervalSince1970),
        ]
    }

    private func copyRows(_ table: Table, _ src: DatabaseConnection, _ dst: DatabaseConnection) throws -> Int {
        var digest = TableDigest()
        try Self.forEachPage(table, src) { rows in
            for row in rows { digest.add(row) }
            try Self.insert(table, rows, dst)
        }
        digests[table.name] = digest
        return digest.rows
    }

    private func copyWebSQL(_ src: DatabaseConnection, _ dst: DatabaseConnection) throws -> Int {
        let table = Self.webSQL
        var read = table
        read.columns.append(src.engine == .sqlite ? "file" : "image")
        var written = table
        written.columns.append(dst.engine == .sqlite ? "file" : "image")
        var digest = TableDigest()
        try Self.forEachPage(read, src, size: 8) { rows in
            var out: [[DatabaseValue]] = []
            for var row in rows {
                let image = try sourceImage(row.removeLast())
                digest.add(row + [.blob(image)])
                out.append(row + [try destinationImage(image)])
            }
            try Self.insert(written, out, dst)
        }
        digests[table.name] = digest
        return digest.rows
    }

    /// The image of a source catalog row's database: its `file` (SQLite) or `image` (PostgreSQL).
    private func sourceImage(_ value: DatabaseValue) throws -> [UInt8] {
        switch value {
        case .text(let file):
            guard let directory = source.directory else { return [] }
            return try WebSQLStorage.image(
                ofFile: directory.appendingPathComponent(WebSQLStorage.folderName).appendingPathComponent(file))
        case .blob(let image): return image
        default: return []
        }
    }

    /// The destination catalog row's `file` (a new file written from the image) or `image`.
    private func destinationImage(_ image: [UInt8]) throws -> DatabaseValue {
        guard let directory = destination.directory else { return .blob(image) }
        let folder = directory.appendingPathComponent(WebSQLStorage.folderName)
        let name = try WebSQLStorage.writeFile(image: image, in: folder)
        madeFiles.append(folder.appendingPathComponent(name))
        return .text(name)
    }

    private func copyDiskCache(_ src: DatabaseConnection, _ dst: DatabaseConnection) throws -> Int {
        var read = Self.diskCache
        read.columns += ["body", "body_file"]
        let written = Self.diskCache.columns + ["body", "body_file"]
        let insert =
            "INSERT INTO http_cache (\(written.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: written.count).joined(separator: ", ") + ")"
        let from = source.component(HTTPDiskCache.self)
        let into = destination.component(HTTPDiskCache.self)
        var digest = TableDigest()
        try Self.forEachPage(read, src, size: 16) { rows in
            for var row in rows {
                let file = row.removeLast()
                let inline = row.removeLast()
                let id = row[0].int64 ?? 0
                let size = row[10].int64 ?? 0
                let body = HTTPDiskCache.storedBody(id: id, inline: inline, file: file.text, size: size)
                // The body is read twice when it is chunked on the destination (written after
                // its row): a piece at a time each time, never whole.
                var hash = RowDigest()
                func pieces(_ sink: (Data) throws -> Void) throws -> Bool {
                    hash = RowDigest()
                    return try from.readBody(body, src) { piece in
                        piece.withUnsafeBytes { hash.combine(bytes: $0) }
                        try sink(piece)
                    }
                }
                var found = true
                let prepared = try into.prepareBody(size: size) { sink in found = try pieces(sink) }
                if let file = prepared.madeFile { madeFiles.append(file) }
                // A body file removed after the snapshot: the source no longer has that entry.
                guard found else {
                    if let file = prepared.madeFile { try? FileManager.default.removeItem(at: file) }
                    continue
                }
                try dst.execute(insert, row + [prepared.inline, prepared.file])
                if prepared.chunked {
                    try HTTPDiskCache.writeChunks(entry: id, dst) { sink in found = try pieces(sink) }
                    // Its chunks go with it.
                    guard found else {
                        try dst.execute("DELETE FROM http_cache WHERE id = ?", [.integer(id)])
                        continue
                    }
                }
                digest.add(row + [.integer(Int64(bitPattern: hash.finalize().0))])
            }
        }
        digests[Self.diskCache.name] = digest
        return digest.rows
    }

    // MARK: - Checking

    /// Reads the destination's copied tables again in one read transaction and compares their
    /// digests with the source's.
    ///
    /// - Throws: `StoreCopyError.mismatch` naming the tables that differ.
    func check() throws {
        let cache = destination.component(HTTPDiskCache.self)
        let found = try destination.database.read { db in
            try db.transaction(write: false) { () -> [String: TableDigest] in
                var found: [String: TableDigest] = [:]
                let keys = Set(StoreSetting.all.map(\.key))
                var settings = TableDigest()
                for (key, value) in try SettingsTable.values(db) where keys.contains(key) {
                    settings.add([.text(key), .text(value)])
                }
                found["settings"] = settings
                for table in [Self.cookies] + Self.plainTables {
                    var digest = TableDigest()
                    try Self.forEachPage(table, db) { rows in for row in rows { digest.add(row) } }
                    found[table.name] = digest
                }
                var webSQL = Self.webSQL
                webSQL.columns.append(db.engine == .sqlite ? "file" : "image")
                var images = TableDigest()
                try Self.forEachPage(webSQL, db, size: 8) { rows in
                    for var row in rows {
                        let value = row.removeLast()
                        let image: [UInt8]
                        if case .text(let file) = value, let directory = destination.directory {
                            image = try WebSQLStorage.image(
                                ofFile: directory.appendingPathComponent(WebSQLStorage.folderName)
                                    .appendingPathComponent(file))
                        } else if case .blob(let bytes) = value {
                            image = bytes
                        } else {
                            image = []
                        }
                        images.add(row + [.blob(image)])
                    }
                }
                found[webSQL.name] = images
                var read = Self.diskCache
                read.columns += ["body", "body_file"]
                var entries = TableDigest()
                try Self.forEachPage(read, db, size: 16) { rows in
                    for var row in rows {
                        let file = row.removeLast()
                        let inline = row.removeLast()
                        let body = HTTPDiskCache.storedBody(
                            id: row[0].int64 ?? 0, inline: inline, file: file.text, size: row[10].int64 ?? 0)
                        var hash = RowDigest()
                        let whole = try cache.readBody(body, db) { piece in
                            piece.withUnsafeBytes { hash.combine(bytes: $0) }
                        }
                        entries.add(row + [.integer(whole ? Int64(bitPattern: hash.finalize().0) : 0)])
                    }
                }
                found[read.name] = entries
                return found
            }
        }
        let differing = digests.keys.sorted().filter { found[$0] != digests[$0] }
        guard differing.isEmpty else {
            let detail = differing.map { "\($0): \(digests[$0]?.rows ?? 0) rows read, \(found[$0]?.rows ?? 0) found" }
            throw StoreCopyError(
                .mismatch,
                "the copy in \(destination.locationDescription) does not match the source (\(detail.joined(separator: "; "))); was another process writing it?"
            )
        }
    }

    // MARK: - Rows

    /// Rows read and written at a time.
    static let pageSize = 100

    /// Reads `table` in pages of `size` rows in key order, each value as the copy writes it
    /// (`anyText` columns as text), and hands each page to `body`.
    static func forEachPage(
        _ table: Table, _ db: DatabaseConnection, size: Int = pageSize, _ body: ([[DatabaseValue]]) throws -> Void
    ) throws {
        let keyIndexes = table.key.map { table.columns.firstIndex(of: $0)! }
        let textIndexes = Set(table.anyText.map { table.columns.firstIndex(of: $0)! })
        let keys = table.key.joined(separator: ", ")
        let tuple = table.key.count == 1 ? keys : "(\(keys))"
        let marks = table.key.count == 1 ? "?" : "(" + table.key.map { _ in "?" }.joined(separator: ", ") + ")"
        let select = "SELECT \(table.columns.joined(separator: ", ")) FROM \(table.name)"
        let order = " ORDER BY \(keys) LIMIT \(size)"
        var after: [DatabaseValue]?
        while true {
            let sql = select + (after == nil ? "" : " WHERE \(tuple) > \(marks)") + order
            let rows = try db.rows(sql, after ?? []) { row in
                (0..<Int32(table.columns.count)).map { index in
                    textIndexes.contains(Int(index)) && !row.isNull(index) ? .text(row.string(index)) : row[index]
                }
            }
            if rows.isEmpty { return }
            try body(rows)
            if rows.count < size { return }
            // (No table's key holds an `anyText` column, so the values read are the engine's.)
            after = keyIndexes.map { rows[rows.count - 1][$0] }
        }
    }

    /// Inserts rows of `table` (values in the order of its columns) with one statement.
    static func insert(_ table: Table, _ rows: [[DatabaseValue]], _ db: DatabaseConnection) throws {
        guard !rows.isEmpty else { return }
        let tuple = "(" + table.columns.map { _ in "?" }.joined(separator: ", ") + ")"
        let sql =
            "INSERT INTO \(table.name) (\(table.columns.joined(separator: ", "))) VALUES "
            + Array(repeating: tuple, count: rows.count).joined(separator: ", ")
        let textIndexes = Set(table.anyText.map { table.columns.firstIndex(of: $0)! })
        var values: [DatabaseValue] = []
        values.reserveCapacity(rows.count * table.columns.count)
        for row in rows {
            for (index, value) in row.enumerated() {
                if textIndexes.contains(index), case .text(let text) = value {
                    values.append(db.engine.anyText(text))
                } else {
                    values.append(value)
                }
            }
        }
        try db.execute(sql, values)
    }
}

/// An order-independent digest of a table's rows: their count and the sum of their hashes.
struct TableDigest: Equatable {
    private(set) var rows = 0
    private var first: UInt64 = 0
    private var second: UInt64 = 0

    /// Adds a row.
    mutating func add(_ row: [DatabaseValue]) {
        var hash = RowDigest()
        for value in row { hash.combine(value) }
        let (a, b) = hash.finalize()
        rows += 1
        first &+= a
        second &+= b
    }
}

/// The hash of a row's values (two of Swift's seeded hashes, for this process only).
struct RowDigest {
    private var first = Hasher()
    private var second = Hasher()

    init() { second.combine(0x5743_4F50_5900_0001 as UInt64) }

    /// Adds a value, its kind included.
    mutating func combine(_ value: DatabaseValue) {
        switch value {
        case .null: tag(0)
        case .integer(let v):
            tag(1)
            first.combine(v)
            second.combine(v)
        case .real(let v):
            tag(2)
            first.combine(v.bitPattern)
            second.combine(v.bitPattern)
        case .text(let v):
            tag(3)
            var text = v
            text.withUTF8 { combine(bytes: UnsafeRawBufferPointer($0)) }
            first.combine(v.utf8.count)
            second.combine(v.utf8.count)
        case .blob(let v):
            tag(4)
            v.withUnsafeBytes { combine(bytes: $0) }
            first.combine(v.count)
            second.combine(v.count)
        }
    }

    /// Adds bytes; bytes given in several calls hash as given in one.
    mutating func combine(bytes: UnsafeRawBufferPointer) {
        first.combine(bytes: bytes)
        second.combine(bytes: bytes)
    }

    private mutating func tag(_ kind: UInt8) {
        first.combine(kind)
        second.combine(kind)
    }

    /// The two hashes.
    func finalize() -> (UInt64, UInt64) {
        (UInt64(bitPattern: Int64(first.finalize())), UInt64(bitPattern: Int64(second.finalize())))
    }
}
