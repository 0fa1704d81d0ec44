import Foundation

/// The WebSQL-style databases of a website data store: per origin, named SQLite databases that
/// their user opens and runs SQL on, each with a version string and an estimated size.
///
/// In a store directory each database is a SQLite file of its own, `websql/<random id>.sqlite`
/// (directory 0700, files 0600), named by a random identifier and never by the origin or the
/// name, so no name can lead outside the directory. A PostgreSQL store keeps each database as
/// the image of a SQLite database in its catalog row, run in memory (`WebSQLStorage+Image`). A
/// non-persistent store keeps them in memory and creates no file. The store's main database
/// catalogues them with their origin, name, site and modification time; they are listed and
/// removed as `.webSQLDatabases`, and removal deletes their files or rows. All methods are
/// thread-safe.
public final class WebSQLStorage: Sendable {
    let database: StoreDatabase
    let clock: @Sendable () -> Date
    /// `<store>/websql`, or `nil` for a non-persistent store.
    let directory: URL?
    /// The connections this process has open, by catalog id. In memory they hold the data.
    private let connections = Locked<[Int64: WebSQLConnection]>([:])

    /// The name of the folder of database files inside a store directory.
    static let folderName = "websql"

    /// One row of the catalog.
    struct CatalogEntry: Sendable, Hashable {
        var id: Int64
        var origin: SecurityOrigin
        var name: String
        var file: String
        var version: String
        var displayName: String
        var estimatedSize: Int64
        var site: String
        var created: Date
        var modified: Date
    }

    init(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws {
        self.database = database
        self.clock = clock
        self.directory = database.directory?.appendingPathComponent(Self.folderName)
        // A read-only store deletes nothing, orphans included.
        if !database.isReadOnly { try removeOrphanFiles() }
    }

    // MARK: - Opening and listing

    /// Opens a database of an origin, creating it when it does not exist, as `openDatabase`.
    ///
    /// - Parameters:
    ///   - origin: the origin it belongs to.
    ///   - name: its name; any string (it never becomes a file name).
    ///   - version: the version expected; an existing database of another version is refused.
    ///     Empty accepts any version. A new database gets this version.
    ///   - displayName: a name to show users, kept from creation.
    ///   - estimatedSize: the size in bytes the page expects, kept from creation.
    /// - Returns: the database.
    /// - Throws: `WebSQLError` `.version` when it exists with another version; `StoreError` when
    ///   its file or the catalog cannot be created or opened; `PostgreSQLError` when a PostgreSQL
    ///   store cannot be reached.
    public func open(
        origin: SecurityOrigin, name: String, version: String = "", displayName: String = "",
        estimatedSize: Int64 = 0
    ) throws -> WebSQLDatabase {
        var entry = try catalogEntry(origin: origin, name: name)
        if entry == nil {
            let now = clock().timeIntervalSince1970
            // A PostgreSQL store keeps the database in its row (`image`), not in a file.
            let file: DatabaseValue =
                database.engine == .postgreSQL ? .null : .text(UUID().uuidString.lowercased() + ".sqlite")
            let values: [DatabaseValue] = [
                .text(origin.description), .text(name), file, .text(version), .text(displayName),
                .integer(max(0, estimatedSize)), .text(origin.site), .real(now), .real(now),
            ]
            do {
                try database.write(changes: [ChangeLogEntry(.webSQLDatabases, site: origin.site, cause: .write)]) {
                    db in
                    // DO NOTHING: another process may have created it since we looked.
                    try db.execute(
                        """
                        INSERT INTO websql_databases
                            (origin, name, file, version, display_name, estimated_size, site, created, modified)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (origin, name) DO NOTHING
                        """, values)
                }
            } catch {
                throw StorageRemoval.storeError(error)
            }
            entry = try catalogEntry(origin: origin, name: name)
        } else if let existing = entry, !version.isEmpty, existing.version != version {
            throw WebSQLError(
                .version, "the database '\(name)' of \(origin) has version '\(existing.version)', not '\(version)'")
        }
        guard let entry else {
            throw WebSQLError(.database, "the database '\(name)' of \(origin) was removed while it was opened")
        }
        if !version.isEmpty && entry.version != version {
            throw WebSQLError(
                .version, "the database '\(name)' of \(origin) has version '\(entry.version)', not '\(version)'")
        }
        return WebSQLDatabase(storage: self, entry: entry, connection: try connection(for: entry))
    }

    /// The databases of an origin, or of every origin, sorted by origin and name.
    ///
    /// - Parameter origin: the origin, or `nil` for all.
    /// - Returns: each database's catalog entry and actual size.
    /// - Throws: `StoreError.database` when the store cannot be read.
    public func databases(origin: SecurityOrigin? = nil) throws -> [WebSQLDatabaseInfo] {
        let entries = try catalog(origin.map { ("origin = ?", [.text($0.description)]) } ?? ("1 = 1", []))
        return try entries.map { entry in
            WebSQLDatabaseInfo(
                origin: entry.origin, name: entry.name, displayName: entry.displayName, version: entry.version,
                estimatedSize: entry.estimatedSize, size: try size(of: entry),
                created: entry.created, modified: entry.modified)
        }.sorted { ($0.origin, $0.name) < ($1.origin, $1.name) }
    }

    /// Deletes a database and its file, as a browser's "delete this database" does.
    ///
    /// - Parameters:
    ///   - origin: the origin it belongs to.
    ///   - name: its name.
    /// - Returns: whether there was such a database.
    /// - Throws: `StoreError.database` when the catalog cannot be written.
    @discardableResult
    public func deleteDatabase(origin: SecurityOrigin, name: String) throws -> Bool {
        let removed = try remove(
            changes: [ChangeLogEntry(.webSQLDatabases, site: origin.site, cause: .removal)],
            conditions: [("origin = ? AND name = ?", [.text(origin.description), .text(name)])])
        return !removed.isEmpty
    }

    // MARK: - Catalog

    static let columns = "id, origin, name, file, version, display_name, estimated_size, site, created, modified"

    private static func entry(_ row: Row) -> CatalogEntry? {
        guard let origin = SecurityOrigin(string: row.string(1)) else { return nil }
        return CatalogEntry(
            id: row.int(0), origin: origin, name: row.string(2), file: row.string(3), version: row.string(4),
            displayName: row.string(5), estimatedSize: row.int(6), site: row.string(7),
            created: Date(timeIntervalSince1970: row.double(8)),
            modified: Date(timeIntervalSince1970: row.double(9)))
    }

    private func catalog(_ condition: (String, [DatabaseValue])) throws -> [CatalogEntry] {
        do {
            return try database.read { db in
                try db.rows(
                    "SELECT \(Self.columns) FROM websql_databases WHERE \(condition.0)", condition.1, Self.entry)
            }.compactMap { $0 }
        } catch {
            throw StorageRemoval.storeError(error)
        }
    }

    private func catalogEntry(origin: SecurityOrigin, name: String) throws -> CatalogEntry? {
        try catalog(("origin = ? AND name = ?", [.text(origin.description), .text(name)])).first
    }

    /// The catalog's current row for an entry, or `nil` once the database was removed. A
    /// PostgreSQL store's rows have no file (`file` is NULL, read as "").
    func catalogEntry(_ entry: CatalogEntry) throws -> CatalogEntry? {
        try catalog(("id = ? AND coalesce(file, '') = ?", [.integer(entry.id), .text(entry.file)])).first
    }

    /// Throws when the database was removed (here or by another process) since it was opened.
    func checkPresent(_ entry: CatalogEntry, _ connection: WebSQLConnection) throws {
        if !connection.removed.load(ordering: .acquiring), try catalogEntry(entry) != nil { return }
        throw removedError(entry, connection)
    }

    /// Marks a connection's database as removed and gives the error its handles throw.
    func removedError(_ entry: CatalogEntry, _ connection: WebSQLConnection) -> WebSQLError {
        forget(entry, connection)
        return WebSQLError(.database, "the database '\(entry.name)' of \(entry.origin) was removed")
    }

    /// Marks a connection as one of a removed database, so its handles stop using it.
    func forget(_ entry: CatalogEntry, _ connection: WebSQLConnection) {
        connection.removed.store(true, ordering: .releasing)
        connections.withLock { open in
            if open[entry.id] === connection { open[entry.id] = nil }
        }
    }

    /// Records that a write transaction committed: the database's modification time.
    func touch(_ entry: CatalogEntry) throws {
        let now = clock().timeIntervalSince1970
        let id = entry.id
        let file = entry.file
        do {
            try database.write(changes: [ChangeLogEntry(.webSQLDatabases, site: entry.site, cause: .write)]) { db in
                try db.execute(
                    "UPDATE websql_databases SET modified = ? WHERE id = ? AND file = ?",
                    [.real(now), .integer(id), .text(file)])
            }
        } catch {
            throw StorageRemoval.storeError(error)
        }
    }

    /// Sets a database's version (and its modification time).
    func setVersion(_ version: String, of entry: CatalogEntry) throws {
        let now = clock().timeIntervalSince1970
        let id = entry.id
        let file = entry.file
        do {
            try database.write(changes: [ChangeLogEntry(.webSQLDatabases, site: entry.site, cause: .write)]) { db in
                try db.execute(
                    "UPDATE websql_databases SET version = ?, modified = ? WHERE id = ? AND file = ?",
                    [.text(version), .real(now), .integer(id), .text(file)])
            }
        } catch {
            throw StorageRemoval.storeError(error)
        }
    }

    // MARK: - Files and connections

    /// Whether a catalogued file name is one this layer made (`<uuid>.sqlite`), so that a damaged
    /// or hostile catalog can never name a path outside the directory.
    static func isValidFileName(_ name: String) -> Bool {
        guard name.hasSuffix(".sqlite") else { return false }
        let stem = name.dropLast(".sqlite".count)
        return stem.count == 36 && UUID(uuidString: String(stem)) != nil && stem == stem.lowercased()
    }

    private func fileURL(_ entry: CatalogEntry) throws -> URL? {
        guard let directory else { return nil }
        guard Self.isValidFileName(entry.file) else {
            throw StoreError.corrupt(
                path: database.file?.path ?? "", detail: "the WebSQL catalog names an invalid file '\(entry.file)'")
        }
        return directory.appendingPathComponent(entry.file)
    }

    private func connection(for entry: CatalogEntry) throws -> WebSQLConnection {
        if let open = connections.withLock({ $0[entry.id] }),
            (open.file?.lastPathComponent ?? entry.file) == entry.file,
            !open.removed.load(ordering: .acquiring)
        {
            return open
        }
        let made = try makeConnection(entry)
        return connections.withLock { open in
            // Another thread may have opened it meanwhile: keep one connection per database.
            if let existing = open[entry.id], !existing.removed.load(ordering: .acquiring),
                (existing.file?.lastPathComponent ?? entry.file) == entry.file
            {
                return existing
            }
            open[entry.id] = made
            return made
        }
    }

    private func makeConnection(_ entry: CatalogEntry) throws -> WebSQLConnection {
        if database.engine == .postgreSQL { return try makeImageConnection() }
        guard let url = try fileURL(entry), let directory else {
            do {
                let db = try SQLiteConnection(location: .memory)
                WebSQLAuthorizer.forbidAttaching(on: db)
                return WebSQLConnection(locked: LockedConnection(db), file: nil)
            } catch {
                throw StorageRemoval.storeError(error)
            }
        }
        if database.isReadOnly {
            // Read as the store is, creating nothing: a database whose file is missing is empty.
            guard FileManager.default.fileExists(atPath: url.path) else { throw database.readOnlyError }
            do {
                let db = try StoreDatabase.readOnlyConnection(file: url)
                WebSQLAuthorizer.forbidAttaching(on: db)
                return WebSQLConnection(locked: LockedConnection(db), file: url)
            } catch let error as DatabaseError {
                throw StoreError.cannotOpen(path: url.path, detail: error.messageWithCode)
            }
        }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError.cannotOpen(
                path: directory.path, detail: "cannot create the directory (\(FileErrorReason.text(error)))")
        }
        // Create the file 0600 before SQLite opens it: SQLite gives its journal and WAL the same mode.
        let fd = Foundation.open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StoreError.cannotOpen(path: url.path, detail: String(cString: strerror(errno)))
        }
        close(fd)
        do {
            let db = try SQLiteConnection(location: .file(url))
            if try db.scalar("PRAGMA journal_mode")?.text != "wal" { try db.execute("PRAGMA journal_mode = WAL") }
            try db.execute("PRAGMA synchronous = NORMAL")
            WebSQLAuthorizer.forbidAttaching(on: db)
            return WebSQLConnection(locked: LockedConnection(db), file: url)
        } catch {
            throw StoreError.cannotOpen(path: url.path, detail: (error as? DatabaseError)?.message ?? "\(error)")
        }
    }

    /// The bytes a database takes: its file and write-ahead log, its pages in memory, or on
    /// PostgreSQL its image in the row.
    func size(of entry: CatalogEntry) throws -> Int64 {
        if database.engine == .postgreSQL { return try storedImageSize(entry) }
        if let open = connections.withLock({ $0[entry.id] }), (open.file?.lastPathComponent ?? entry.file) == entry.file
        {
            return try open.size()
        }
        guard let url = try fileURL(entry) else { return 0 }
        return WebSQLConnection.sizeOnDisk(url)
    }

    /// Deletes a database's files: the database, its write-ahead log and shared memory, its journal.
    private func deleteFiles(_ entry: CatalogEntry) {
        guard let url = try? fileURL(entry) else { return }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            unlink(url.path + suffix)
        }
    }

    /// Deletes files in the folder that no catalog row names (left by a removal that stopped
    /// between its commit and its unlinking). The folder is listed before the catalog is read, and
    /// a database's row is committed before its file is created, so no live file is taken.
    private func removeOrphanFiles() throws {
        guard let directory else { return }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        guard !names.isEmpty else { return }
        let catalogued = Set(try catalog(("1 = 1", [])).map(\.file))
        for name in names {
            var stem = name
            for suffix in ["-wal", "-shm", "-journal"] where stem.hasSuffix(suffix) { stem.removeLast(suffix.count) }
            if Self.isValidFileName(stem) && !catalogued.contains(stem) {
                unlink(directory.appendingPathComponent(name).path)
            }
        }
    }

    /// Removes the catalogued databases matching any of the conditions, then their files.
    private func remove(changes: [ChangeLogEntry], conditions: [(sql: String, arguments: [DatabaseValue])]) throws
        -> [CatalogEntry]
    {
        let removed: [CatalogEntry]
        do {
            removed = try database.writeNow(changes: changes) { db in
                var removed: [CatalogEntry] = []
                for condition in conditions {
                    removed += try db.rows(
                        "SELECT \(Self.columns) FROM websql_databases WHERE \(condition.sql)",
                        condition.arguments, Self.entry
                    ).compactMap { $0 }
                    try db.execute("DELETE FROM websql_databases WHERE \(condition.sql)", condition.arguments)
                }
                return removed
            }
        } catch {
            throw StorageRemoval.storeError(error)
        }
        for entry in removed {
            if let open = connections.withLock({ $0.removeValue(forKey: entry.id) }) {
                open.removed.store(true, ordering: .releasing)
            }
            deleteFiles(entry)
        }
        return removed
    }
}

extension WebSQLStorage: WebsiteDataComponent {
    static func open(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws -> Self {
        try Self(database: database, clock: clock)
    }

    var dataType: WebsiteDataType { .webSQLDatabases }

    func siteSizes() throws -> [String: Int64] {
        var sizes: [String: Int64] = [:]
        for entry in try catalog(("1 = 1", [])) {
            sizes[entry.site, default: 0] += try size(of: entry)
        }
        return sizes
    }

    func removeData(matching filter: RemovalFilter, dryRun: Bool) throws -> [String: Int] {
        let conditions = StorageRemoval.conditions(filter)
        guard !conditions.isEmpty else { return [:] }
        if dryRun {
            do {
                return try database.read { try StorageRemoval.matchingCounts(in: "websql_databases", filter, $0) }
            } catch {
                throw StorageRemoval.storeError(error)
            }
        }
        return try remove(changes: StorageRemoval.changes(.webSQLDatabases, filter), conditions: conditions)
            .reduce(into: [:]) { counts, database in counts[database.site, default: 0] += 1 }
    }
}
