import Foundation

/// The HTTP disk cache of a persistent store: header fields and small bodies in the
/// `http_cache` table, bodies over `inlineLimit` as files in the `cache/` folder beside
/// `store.sqlite` (files 0600, folder 0700, made when the first file is written), within the
/// `cache.max-size` setting, the least recently used entries evicted first. A PostgreSQL store
/// has no folder: its large bodies are rows of `http_cache_chunks`, `chunkSize` bytes each,
/// written and read a chunk at a time, so no body sits in memory whole.
///
/// A body file is written before its row and deleted after its row, so a crash can leave a
/// file without a row but never a row without its file; such orphans (older than
/// `orphanGracePeriod`, so as not to race a writer in another process) are deleted when the
/// store opens. A non-persistent store has no disk cache: its memory cache is its only cache.
final class HTTPDiskCache: Sendable {
    let database: StoreDatabase
    let clock: @Sendable () -> Date
    /// The `cache/` folder, or `nil` for a non-persistent store.
    let folder: URL?
    /// Last-access times of entries served since the last write, persisted with the next write.
    private let touched = Locked<[Used: Double]>([:])

    /// An entry whose use is waiting to be persisted: by row id, or by key for an entry
    /// written behind whose id its in-memory copy does not know.
    enum Used: Hashable {
        case id(Int64)
        case key(CacheEntryKey)
    }
    /// Rows written behind, not yet committed.
    private let behind = Locked(WriteBehind())
    /// Commits rows written behind, in order, off the callers' threads.
    private let committer = DispatchQueue(label: "wkstore.disk-cache-writer")

    /// Bodies up to this size are kept in the database row.
    static let inlineLimit = 64 * 1024
    /// The largest chunk of a body kept in `http_cache_chunks` (PostgreSQL).
    static let chunkSize = 1024 * 1024
    /// Files in `cache/` that no row names are deleted on open once they are this old.
    static let orphanGracePeriod: TimeInterval = 600
    /// The folder's name inside the store directory.
    static let folderName = "cache"

    init(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws {
        self.database = database
        self.clock = clock
        guard let directory = database.directory else {
            folder = nil
            return
        }
        // The folder is made when the first body file is written.
        self.folder = directory.appendingPathComponent(Self.folderName)
        // A read-only store deletes nothing, orphans included.
        if !database.isReadOnly { try deleteOrphans() }
    }

    /// The cache folder, created (0700) when missing.
    func existingFolder() throws -> URL {
        try database.checkWritable()
        guard let folder else { throw CocoaError(.fileNoSuchFile) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return folder
        }
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError.cannotOpen(
                path: folder.path, detail: "cannot create the cache folder (\(FileErrorReason.text(error)))")
        }
        chmod(folder.path, 0o700)
        return folder
    }

    deinit {
        let pending = touched.withLock { t in
            let p = t
            t = [:]
            return p
        }
        if !pending.isEmpty && !database.isReadOnly {
            try? database.write(changes: []) { db in try Self.persistAccess(pending, db) }
        }
    }

    /// Whether responses are kept: in every persistent store (a PostgreSQL store keeps them
    /// all in its rows), never in a non-persistent one.
    var isEnabled: Bool { folder != nil || database.engine == .postgreSQL }

    // MARK: - Reading

    /// Every stored variant of a resource, most recently stored first. An entry whose row
    /// records a use within `HTTPMemoryCache.diskAccessInterval` is marked
    /// `diskAccessIsRecorded`: its use now needs no write, as a memory-cache copy's does not.
    ///
    /// - Parameters:
    ///   - resource: the resource.
    ///   - url: `resource.url` as a URL, when the caller has it (parsing it again costs a URL per hit).
    func entries(for resource: CacheResourceKey, url: URL? = nil) throws -> [CacheEntry] {
        guard isEnabled else { return [] }
        if behind.withLock({ $0.resources[resource] != nil }) { waitForWritesBehind() }
        let url = url ?? URL(string: resource.url)!
        let now = clock().timeIntervalSince1970
        var entries = try database.read { db in
            try db.rows(
                """
                SELECT id, variant, site, status, headers, request_time, response_time, body, body_file, body_size, modified,
                    last_access
                FROM http_cache WHERE partition_key = ? AND method = ? AND url = ?
                """, [.text(resource.partition), .text(resource.method), .text(resource.url)]
            ) { row in
                let key = CacheEntryKey(
                    partition: resource.partition, method: resource.method, url: resource.url, variant: row.string(1))
                let policy = CachePolicy(
                    method: resource.method, url: url, status: Int(row.int(3)),
                    headers: HTTPHeaders(serialized: row.string(4)),
                    requestTime: Date(timeIntervalSince1970: row.double(5)),
                    responseTime: Date(timeIntervalSince1970: row.double(6)),
                    variantKey: row.string(1), options: CachePolicy.Options())
                let body: StoredBody =
                    if !row.isNull(8) {
                        .file(name: row.string(8), size: row.int(9))
                    } else if row.isNull(7) {
                        .chunks(entry: row.int(0), size: row.int(9))
                    } else {
                        .inline(Data(row.blob(7)))
                    }
                var entry = CacheEntry(
                    key: key, policy: policy, site: row.string(2), body: body,
                    modified: Date(timeIntervalSince1970: row.double(10)), diskID: row.int(0))
                entry.diskLastAccess = Date(timeIntervalSince1970: row.double(11))
                entry.diskAccessIsRecorded = now - row.double(11) < HTTPMemoryCache.diskAccessInterval
                return entry
            }
        }
        // Ordered here, not by `ORDER BY`: no index has that order, and SQLite's sorter copied
        // every row it read, body and all, in every disk-cache hit.
        entries.sort { $0.policy.responseTime > $1.policy.responseTime }
        return entries
    }

    /// One row as a listing shows it: everything but the body's bytes.
    struct Row: Sendable {
        var id: Int64
        var key: CacheEntryKey
        var site: String
        var policy: CachePolicy
        var bodySize: Int64
        var bodyFile: String?
        var size: Int64
        var created: Date
        var modified: Date
        var lastAccess: Date
    }

    /// The stored entries without their bodies, for listing: reading them is not a use (no
    /// last-access time changes). A use by this process not yet persisted counts in `lastAccess`.
    ///
    /// - Parameters:
    ///   - url: only the entries of this URL (any partition, method or variant), or `nil` for all.
    ///   - sites: only the entries of these sites, or `nil` for all.
    ///   - options: the options of the rebuilt policies.
    func rows(url: String? = nil, sites: Set<String>? = nil, options: CachePolicy.Options) throws -> [Row] {
        guard isEnabled else { return [] }
        waitForWritesBehind()
        var conditions: [String] = []
        var values: [DatabaseValue] = []
        if let url {
            conditions.append("url = ?")
            values.append(.text(url))
        }
        if let sites {
            guard !sites.isEmpty else { return [] }
            conditions.append("site IN (" + sites.map { _ in "?" }.joined(separator: ", ") + ")")
            values += sites.sorted().map { .text($0) }
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let pending = touched.withLock { $0 }
        let sql =
            "SELECT id, partition_key, method, url, variant, site, status, headers, request_time, response_time, "
            + "body_file, body_size, size, created, modified, last_access FROM http_cache" + whereClause
            + " ORDER BY site, url, partition_key, method, variant"
        return try database.read { db in
            try db.rows(sql, values) { row in
                let id = row.int(0)
                let key = CacheEntryKey(
                    partition: row.string(1), method: row.string(2), url: row.string(3), variant: row.string(4))
                let policy = CachePolicy(
                    method: key.method, url: URL(string: key.url) ?? URL(fileURLWithPath: "/"),
                    status: Int(row.int(6)), headers: HTTPHeaders(serialized: row.string(7)),
                    requestTime: Date(timeIntervalSince1970: row.double(8)),
                    responseTime: Date(timeIntervalSince1970: row.double(9)),
                    variantKey: key.variant, options: options)
                return Row(
                    id: id, key: key, site: row.string(5), policy: policy, bodySize: row.int(11),
                    bodyFile: row.optionalString(10), size: row.int(12),
                    created: Date(timeIntervalSince1970: row.double(13)),
                    modified: Date(timeIntervalSince1970: row.double(14)),
                    lastAccess: Date(
                        timeIntervalSince1970: max(row.double(15), pending[.id(id)] ?? 0, pending[.key(key)] ?? 0)))
            }
        }
    }

    /// Marks an entry used now (persisted with the next write).
    ///
    /// - Parameters:
    ///   - id: the row, or `nil` for an entry written behind (found by its key).
    ///   - key: the entry's key.
    func touch(_ id: Int64?, key: CacheEntryKey) {
        // A read-only store records no access.
        guard !database.isReadOnly else { return }
        let now = clock().timeIntervalSince1970
        let flush = touched.withLock { t -> [Used: Double]? in
            t[id.map(Used.id) ?? .key(key)] = now
            guard t.count >= 256 else { return nil }
            let pending = t
            t = [:]
            return pending
        }
        // Committed behind, as rows are (reads wait for it): committed here, every 256th hit
        // waited for a commit.
        if let flush {
            let ticket = database.enqueueWrite(changes: []) { db in try Self.persistAccess(flush, db) }
            behind.withLock { $0.newestTicket = max($0.newestTicket, ticket) }
            committer.async { [database] in try? database.waitForCommit(ticket) }
        }
    }

    /// The URL of a stored body file.
    func fileURL(_ name: String) -> URL? { folder?.appendingPathComponent(name) }

    /// A caller-owned file with the bytes of a stored body file: a hard link under a new name,
    /// so that the caller may keep, move or delete it whatever happens to the entry.
    func linkedCopy(of name: String) throws -> URL {
        guard let source = fileURL(name) else { throw CocoaError(.fileNoSuchFile) }
        // A read-only store's folder gains nothing: the copy goes to a private temporary folder.
        let target = database.isReadOnly ? try Self.privateTemporaryName() : try newTemporaryName()
        if database.isReadOnly || link(source.path, target.path) != 0 {
            // Read-only, another file system or no hard links: copy instead.
            try FileManager.default.copyItem(at: source, to: target)
        }
        return target
    }

    /// A new name in this process's private temporary folder (`wkstore-cache-PID`, 0700), for
    /// bodies of a store that has no cache folder to write (non-persistent or read-only).
    static func privateTemporaryName() throws -> URL {
        let folder = privateTemporaryFolder
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = removePrivateTemporaryFolderAtExit
        return folder.appendingPathComponent(UUID().uuidString.lowercased())
    }

    /// This process's private temporary folder.
    static var privateTemporaryFolder: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("wkstore-cache-\(getpid())")
    }

    /// Removes the private temporary folder at exit when it is empty: each process makes a folder
    /// of its own, and one left behind by every process would fill the temporary directory. A
    /// file still in it is a caller's, so a folder that holds one stays.
    private static let removePrivateTemporaryFolderAtExit: Void = {
        atexit { _ = rmdir(HTTPDiskCache.privateTemporaryFolder.path) }
    }()

    /// Whether the cache may write bodies to its folder (a store directory opened writable).
    var writesFiles: Bool { folder != nil && !database.isReadOnly }

    /// A new, empty, owner-only file in the cache folder for a body being received.
    func makeTemporaryFile() throws -> URL {
        let url = try newTemporaryName()
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        return url
    }

    private func newTemporaryName() throws -> URL {
        try existingFolder().appendingPathComponent("tmp-" + UUID().uuidString.lowercased())
    }

    // MARK: - Writing

    /// Stores (or replaces) an entry. The body is written first (inline, or as a new file: a
    /// hard link to a file body, or the bytes of a large in-memory body), then the row; the
    /// replaced entry's and evicted entries' files are deleted after the commit.
    ///
    /// - Returns: the stored entry, or `nil` when it is larger than a quarter of the limit.
    @discardableResult
    func store(key: CacheEntryKey, policy: CachePolicy, site: String, body: CacheBody, maxSize: Int64) throws
        -> CacheEntry?
    {
        guard isEnabled else { return nil }
        try database.checkWritable()
        let now = clock()
        let bodySize = body.byteCount
        let headerText = policy.headers.serialized
        guard Int64(key.url.utf8.count + policy.headers.byteCount) + bodySize <= maxSize / 4 else { return nil }
        let stored: StoredBody
        var newFile: URL?
        switch body {
        case .data(let data) where data.count <= Self.inlineLimit:
            stored = .inline(data)
        case .file(let url) where bodySize <= Int64(Self.inlineLimit):
            stored = .inline(try Data(contentsOf: url))
        // A PostgreSQL store has no folder: its large bodies are chunks, written after the row.
        case _ where database.engine == .postgreSQL:
            stored = .chunks(entry: 0, size: bodySize)
        case .data(let data):
            let name = UUID().uuidString.lowercased()
            let target = try existingFolder().appendingPathComponent(name)
            guard
                FileManager.default.createFile(
                    atPath: target.path, contents: data, attributes: [.posixPermissions: 0o600])
            else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
            }
            newFile = target
            stored = .file(name: name, size: bodySize)
        case .file(let url):
            let name = UUID().uuidString.lowercased()
            let target = try existingFolder().appendingPathComponent(name)
            if link(url.path, target.path) != 0 { try FileManager.default.copyItem(at: url, to: target) }
            chmod(target.path, 0o600)
            newFile = target
            stored = .file(name: name, size: bodySize)
        }
        var entry = CacheEntry(key: key, policy: policy, site: site, body: stored, modified: now)
        let size = entry.size
        let pending = takeTouched()
        let doomed = Locked<[String]>([])
        let rowID = Locked<Int64?>(nil)
        let write: @Sendable (DatabaseConnection) throws -> [ChangeLogEntry] = { db in
            try Self.persistAccess(pending, db)
            // The entry this one replaces, and the variants of the URL that varied on other fields.
            var files: [String] = []
            let existing = try db.rows(
                "SELECT id, variant, body_file FROM http_cache WHERE partition_key = ? AND method = ? AND url = ?",
                [.text(key.partition), .text(key.method), .text(key.url)]
            ) {
                ($0.int(0), $0.string(1), $0.optionalString(2))
            }
            for (id, variant, file) in existing where key.supersedes(variant: variant) {
                try db.execute("DELETE FROM http_cache WHERE id = ?", [.integer(id)])
                if let file { files.append(file) }
            }
            let inline: DatabaseValue
            let fileName: DatabaseValue
            switch stored {
            case .inline(let data):
                inline = .blob(Array(data))
                fileName = .null
            case .file(let name, _):
                inline = .null
                fileName = .text(name)
            case .chunks:
                inline = .null
                fileName = .null
            }
            let t = DatabaseValue.real(now.timeIntervalSince1970)
            let id = try db.insert(
                """
                INSERT INTO http_cache (site, partition_key, method, url, variant, status, headers, request_time,
                    response_time, body, body_file, body_size, size, created, modified, last_access)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(site), .text(key.partition), .text(key.method), .text(key.url), .text(key.variant),
                    .integer(Int64(policy.status)), .text(headerText),
                    .real(policy.requestTime.timeIntervalSince1970),
                    .real(policy.responseTime.timeIntervalSince1970),
                    inline, fileName, .integer(bodySize), .integer(size), t, t, t,
                ], returning: "id")
            rowID.withLock { $0 = id }
            // The key is always returned; were it not, the chunks' reference to it would fail.
            if case .chunks = stored { try Self.writeChunks(of: body, entry: id ?? -1, db) }
            let evicted = try Self.evict(maxSize: try CacheSettings.maxSize(db), db)
            doomed.withLock { $0 = files + evicted.files }
            // Every site whose entries went is told, not only the writer's.
            return evicted.sites.map { ChangeLogEntry(.diskCache, site: $0, cause: .eviction) }
        }
        let changes = [ChangeLogEntry(.diskCache, site: site, cause: .write)]
        if case .inline = stored {
            // Written behind, as browsers write their caches: the row is committed after the
            // response went back, with the rows of the responses stored meanwhile. One commit
            // per response (the row, five indexes, the change log) cost four times the request
            // itself. The row is one transaction's, so a crash loses it whole or keeps it whole;
            // this object's own reads wait for it (`waitForWritesBehind`).
            let ticket = database.enqueueLoggingWrite(changes: changes, write)
            writeBehind(Queued(ticket: ticket, resource: key.resource, doomed: doomed, touched: pending))
            return entry
        }
        do {
            try database.loggingWrite(changes: changes, write)
        } catch {
            if let newFile { try? FileManager.default.removeItem(at: newFile) }
            restoreTouched(pending)
            throw HTTPCookieStore.storeError(error)
        }
        deleteFiles(doomed.withLock { $0 })
        let id = rowID.withLock { $0 }
        entry.diskID = id
        if case .chunks(_, let size) = stored, let id { entry.body = .chunks(entry: id, size: size) }
        return entry
    }

    /// Responses stored by this object whose rows are not committed yet.
    struct WriteBehind {
        /// How many rows of each resource are waiting.
        var resources: [CacheResourceKey: Int] = [:]
        /// The newest write's ticket in the store's commit queue.
        var newestTicket: UInt64 = 0
        /// The rows queued since the last flush, oldest first.
        var queued: [Queued] = []
        /// Whether a flush is scheduled for `queued`.
        var flushScheduled = false
    }

    /// A row written behind: its write's ticket, and what to do once it is committed.
    struct Queued {
        let ticket: UInt64
        let resource: CacheResourceKey
        /// Body files of the entries its write replaced or evicted, deleted after the commit.
        let doomed: Locked<[String]>
        /// The uses its write persists, given back if it fails.
        let touched: [Used: Double]
    }

    /// How long a row written behind may wait for others to share its commit.
    static let writeBehindDelay: DispatchTimeInterval = .milliseconds(20)
    /// How many rows written behind are committed at once without waiting for the delay.
    static let writeBehindBatch = 256

    /// Queues the bookkeeping of a row written behind and makes sure a flush will commit it:
    /// `writeBehindDelay` after the first row queued since the last flush, or at once when
    /// `writeBehindBatch` rows are waiting. Why: committed as each row came, a commit held one or
    /// two rows, woke the writer queue for each, and wrote the same pages of the table's indexes
    /// again for every row; rows that wait share one commit, which writes each page once.
    private func writeBehind(_ row: Queued) {
        enum Flush { case scheduled, now, afterTheDelay }
        let flush = behind.withLock { b -> Flush in
            b.resources[row.resource, default: 0] += 1
            b.newestTicket = max(b.newestTicket, row.ticket)
            b.queued.append(row)
            if b.queued.count == Self.writeBehindBatch { return .now }
            if b.flushScheduled { return .scheduled }
            b.flushScheduled = true
            return .afterTheDelay
        }
        switch flush {
        case .scheduled: return
        case .now: committer.async { [self] in flushWritesBehind() }
        case .afterTheDelay:
            committer.asyncAfter(deadline: .now() + Self.writeBehindDelay) { [self] in flushWritesBehind() }
        }
    }

    /// Commits the rows queued so far (leading the commit unless another writer already did),
    /// then deletes their doomed files and forgets them; a failed row's uses are kept for the
    /// next write.
    private func flushWritesBehind() {
        let rows = behind.withLock { b in
            let rows = b.queued
            b.queued = []
            b.flushScheduled = false
            return rows
        }
        for row in rows {
            // The first wait commits every row; the others find theirs committed and take its error.
            do { try database.waitForCommit(row.ticket) } catch { restoreTouched(row.touched) }
            deleteFiles(row.doomed.withLock { $0 })
        }
        behind.withLock { b in
            for row in rows {
                b.resources[row.resource, default: 1] -= 1
                if b.resources[row.resource] == 0 { b.resources[row.resource] = nil }
            }
        }
    }

    /// Waits until every row this object wrote behind is committed (leading the commit when
    /// no other writer is): reads of the disk cache see the responses stored before them.
    func waitForWritesBehind() {
        let newest = behind.withLock { $0.newestTicket }
        guard newest > database.committedThrough else { return }
        try? database.waitForCommit(newest)
    }

    // MARK: - Chunked bodies (PostgreSQL)

    /// Writes `body` as the chunks of entry `entry`, in the caller's transaction: a file is read
    /// `chunkSize` bytes at a time.
    static func writeChunks(of body: CacheBody, entry: Int64, _ db: DatabaseConnection) throws {
        try writeChunks(entry: entry, db) { append in
            switch body {
            case .data(let data): try append(data)
            case .file(let url):
                let handle = try FileHandle(forReadingFrom: url)
                defer { try? handle.close() }
                while let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty { try append(chunk) }
            }
        }
    }

    /// Reads bytes `range` of entry `entry`'s chunks, handing each piece to `sink` in order; one
    /// chunk at a time is in memory.
    ///
    /// - Throws: `CocoaError(.fileReadCorruptFile)` when a chunk is missing (the entry was
    ///   removed meanwhile), or the database's error.
    func readChunks(entry: Int64, range: Range<Int64>, into sink: (Data) throws -> Void) throws {
        guard !range.isEmpty else { return }
        let size = Int64(Self.chunkSize)
        for n in (range.lowerBound / size)...((range.upperBound - 1) / size) {
            let chunk = try database.read { db in
                try db.rows(
                    "SELECT bytes FROM http_cache_chunks WHERE entry_id = ? AND n = ?", [.integer(entry), .integer(n)]
                ) { Data($0.blob(0)) }.first
            }
            guard let chunk, chunk.count == Self.chunkSize || Int64(chunk.count) >= range.upperBound - n * size else {
                throw CocoaError(.fileReadCorruptFile)
            }
            let start = max(range.lowerBound - n * size, 0)
            let end = min(range.upperBound - n * size, Int64(chunk.count))
            try sink(chunk.subdata(in: Int(start)..<Int(end)))
        }
    }

    /// A caller-owned file in the process's private temporary folder with the bytes of entry
    /// `entry`'s chunks, written a chunk at a time.
    func chunksCopy(entry: Int64, size: Int64) throws -> URL {
        let target = try Self.privateTemporaryName()
        guard FileManager.default.createFile(atPath: target.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: target)
            defer { try? handle.close() }
            try readChunks(entry: entry, range: 0..<size) { try handle.write(contentsOf: $0) }
        } catch {
            try? FileManager.default.removeItem(at: target)
            throw error
        }
        return target
    }

    /// Replaces a stored entry's header fields and times after a `304` or `HEAD` validation.
    ///
    /// - Parameters:
    ///   - id: the row, or `nil` for an entry written behind (found by its key).
    func update(_ id: Int64?, key: CacheEntryKey, policy: CachePolicy, site: String, bodySize: Int64) throws {
        guard isEnabled else { return }
        waitForWritesBehind()
        let url = key.url
        let (condition, keyValues) = Self.rowCondition(id, key)
        let now = clock().timeIntervalSince1970
        let size = Int64(url.utf8.count + policy.headers.byteCount) + bodySize
        let headerText = policy.headers.serialized
        try database.write(changes: [ChangeLogEntry(.diskCache, site: site, cause: .write)]) { db in
            try db.execute(
                """
                UPDATE http_cache SET headers = ?, status = ?, request_time = ?, response_time = ?, size = ?,
                    modified = ?, last_access = ? WHERE
                """ + condition,
                [
                    .text(headerText), .integer(Int64(policy.status)), .real(policy.requestTime.timeIntervalSince1970),
                    .real(policy.responseTime.timeIntervalSince1970), .integer(size), .real(now), .real(now),
                ] + keyValues)
        }
    }

    /// The condition selecting one entry's row: by id, or by key for an entry written behind.
    private static func rowCondition(_ id: Int64?, _ key: CacheEntryKey?) -> (String, [DatabaseValue]) {
        guard let key, id == nil else { return (" id = ?", [.integer(id ?? -1)]) }
        return (
            " partition_key = ? AND method = ? AND url = ? AND variant = ?",
            [.text(key.partition), .text(key.method), .text(key.url), .text(key.variant)]
        )
    }

    /// Deletes one entry written behind (no id known), by its key.
    func delete(key: CacheEntryKey, site: String) throws {
        guard isEnabled else { return }
        waitForWritesBehind()
        let (condition, values) = Self.rowCondition(nil, key)
        let files = Locked<[String]>([])
        try database.write(changes: [ChangeLogEntry(.diskCache, site: site, cause: .removal)]) { db in
            let names = try db.rows("DELETE FROM http_cache WHERE" + condition + " RETURNING body_file", values) {
                $0.optionalString(0)
            }
            files.withLock { $0 = names.compactMap { $0 } }
        }
        deleteFiles(files.withLock { $0 })
    }

    /// Deletes entries by id.
    func delete(ids: [Int64], sites: Set<String>) throws {
        guard isEnabled, !ids.isEmpty else { return }
        waitForWritesBehind()
        let files = Locked<[String]>([])
        try database.write(changes: sites.map { ChangeLogEntry(.diskCache, site: $0, cause: .removal) }) { db in
            var names: [String] = []
            for id in ids {
                names += try db.rows("DELETE FROM http_cache WHERE id = ? RETURNING body_file", [.integer(id)]) {
                    $0.optionalString(0)
                }
                .compactMap { $0 }
            }
            files.withLock { $0 = names }
        }
        deleteFiles(files.withLock { $0 })
    }

    /// Deletes every stored response for `url` (RFC 9111 §4.4 invalidation), in every partition.
    func invalidate(url: String) throws {
        guard isEnabled else { return }
        waitForWritesBehind()
        let sites = try database.read { db in
            try db.rows("SELECT DISTINCT site FROM http_cache WHERE url = ?", [.text(url)]) { $0.string(0) }
        }
        guard !sites.isEmpty else { return }
        let files = Locked<[String]>([])
        try database.write(changes: sites.map { ChangeLogEntry(.diskCache, site: $0, cause: .removal) }) { db in
            let names = try db.rows("DELETE FROM http_cache WHERE url = ? RETURNING body_file", [.text(url)]) {
                $0.optionalString(0)
            }
            let kept = names.compactMap { $0 }
            files.withLock { $0 = kept }
        }
        deleteFiles(files.withLock { $0 })
    }

    /// Bytes held (the `http_cache_usage` counter).
    func byteCount() throws -> Int64 {
        guard isEnabled else { return 0 }
        waitForWritesBehind()
        return try database.read { try $0.scalar("SELECT bytes FROM http_cache_usage WHERE id = 1")?.int64 ?? 0 }
    }

    /// Evicts the least recently used entries until the cache holds at most `maxSize` bytes.
    /// Returns the body files of the evicted entries and their sites, each once, in the order
    /// their first entry went.
    static func evict(maxSize: Int64, _ db: DatabaseConnection) throws -> (files: [String], sites: [String]) {
        var files: [String] = []
        var sites: [String] = []
        var seen = Set<String>()
        while let usage = try db.scalar("SELECT bytes FROM http_cache_usage WHERE id = 1")?.int64, usage > maxSize {
            let victims = try db.rows(
                "SELECT id, body_file, size, site FROM http_cache ORDER BY last_access, id LIMIT 64"
            ) {
                ($0.int(0), $0.optionalString(1), $0.int(2), $0.string(3))
            }
            if victims.isEmpty { break }
            var freed: Int64 = 0
            for (id, file, size, site) in victims where usage - freed > maxSize {
                try db.execute("DELETE FROM http_cache WHERE id = ?", [.integer(id)])
                if let file { files.append(file) }
                if seen.insert(site).inserted { sites.append(site) }
                freed += size
            }
        }
        return (files, sites)
    }

    static func persistAccess(_ times: [Used: Double], _ db: DatabaseConnection) throws {
        for (used, time) in times {
            let (condition, values): (String, [DatabaseValue])
            switch used {
            case .id(let id): (condition, values) = rowCondition(id, nil)
            case .key(let key): (condition, values) = rowCondition(nil, key)
            }
            try db.execute(
                "UPDATE http_cache SET last_access = \(db.engine.greatest)(last_access, ?) WHERE" + condition,
                [.real(time)] + values)
        }
    }

    private func takeTouched() -> [Used: Double] {
        touched.withLock { t in
            let pending = t
            t = [:]
            return pending
        }
    }

    private func restoreTouched(_ pending: [Used: Double]) {
        touched.withLock { t in t.merge(pending) { max($0, $1) } }
    }

    func deleteFiles(_ names: [String]) {
        guard let folder else { return }
        for name in names { unlink(folder.appendingPathComponent(name).path) }
    }

    /// Deletes files of the cache folder that no row names (left by a crash between writing a
    /// body and its row, or caller-owned copies never removed), once older than the grace period.
    func deleteOrphans() throws {
        guard let folder else { return }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        guard !names.isEmpty else { return }
        let referenced = Set(
            try database.read { db in
                try db.rows("SELECT body_file FROM http_cache WHERE body_file IS NOT NULL") { $0.string(0) }
            })
        let cutoff = Date().addingTimeInterval(-Self.orphanGracePeriod)
        for name in names where !referenced.contains(name) {
            let url = folder.appendingPathComponent(name)
            let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
            if let modified, modified < cutoff { unlink(url.path) }
        }
    }
}

extension HTTPDiskCache: WebsiteDataComponent {
    static func open(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws -> Self {
        try Self(database: database, clock: clock)
    }

    var dataType: WebsiteDataType { .diskCache }

    func siteSizes() throws -> [String: Int64] {
        guard isEnabled else { return [:] }
        waitForWritesBehind()
        return Dictionary(
            try database.read { db in
                try db.rows("SELECT site, sum(size) FROM http_cache GROUP BY site") { ($0.string(0), $0.int(1)) }
            }, uniquingKeysWith: +)
    }

    /// Removes the matching entries (rows first, in one transaction, then their body files).
    func removeData(matching filter: RemovalFilter, dryRun: Bool) throws -> [String: Int] {
        guard isEnabled else { return [:] }
        waitForWritesBehind()
        var conditions: [String] = []
        var values: [DatabaseValue] = []
        if let since = filter.modifiedSince {
            conditions.append("modified >= ?")
            values.append(.real(since.timeIntervalSince1970))
        }
        if let sites = filter.sites {
            guard !sites.isEmpty else { return [:] }
            conditions.append("site IN (" + sites.map { _ in "?" }.joined(separator: ", ") + ")")
            values += sites.sorted().map { .text($0) }
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        if dryRun {
            return try database.read { db in
                Dictionary(
                    uniqueKeysWithValues: try db.rows(
                        "SELECT site, count(*) FROM http_cache" + whereClause + " GROUP BY site", values
                    ) { ($0.string(0), Int($0.int(1))) })
            }
        }
        let log =
            filter.sites.map { $0.sorted().map { ChangeLogEntry(.diskCache, site: $0, cause: .removal) } } ?? [
                ChangeLogEntry(.diskCache, site: "*", cause: .removal)
            ]
        let rows = try database.writeNow(changes: log) { db in
            try db.rows("DELETE FROM http_cache" + whereClause + " RETURNING site, body_file", values) {
                ($0.string(0), $0.optionalString(1))
            }
        }
        deleteFiles(rows.compactMap(\.1))
        return rows.reduce(into: [:]) { counts, row in counts[row.0, default: 0] += 1 }
    }
}
