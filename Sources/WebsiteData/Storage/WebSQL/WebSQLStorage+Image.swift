import CSQLite
import Foundation

/// WebSQL-style databases of a PostgreSQL store: each is the image of a SQLite database in its
/// catalog row (`websql_databases.image`, NULL until the first write), and a page's SQL runs on
/// that image loaded into a private in-memory SQLite connection, under the same authorizer,
/// version rules and error codes as a database file.
///
/// A transaction first asks for the row's version stamp (its `xmin`, the PostgreSQL
/// transaction that wrote the row last, which every update changes) and loads the image again
/// when it is not the one loaded, so it sees every write committed before it began. A read
/// transaction then runs on the loaded image. A write transaction runs inside one PostgreSQL
/// write transaction: it takes the change log's lock (as every write transaction does), then
/// the database's own advisory lock, loads the image again if the row changed meanwhile, runs
/// the page's SQL, and writes the new image, the modification time and a change-log entry
/// before PostgreSQL commits. Writers of one database therefore run one after another across
/// processes and machines, each on the image its predecessor committed, and one that fails
/// commits nothing: the row keeps its image, and this process loads it again.
extension WebSQLStorage {
    /// The largest image a database may grow to: a `bytea` value holds at most 1 GB, and every
    /// write transaction sends the whole image, so a write past this fails with `.quota`.
    static let imageSizeLimit: Int64 = (1 << 30) - (1 << 20)

    /// The second number of a database's advisory lock, (`PostgreSQLConnection.lockNamespace`,
    /// this): 2 and up, since 0 is the migrations' lock and 1 the change log's. Two databases
    /// whose row ids are 2³¹ − 3 apart share a lock, which only makes their writers take turns.
    static func lockKey(id: Int64) -> Int32 {
        let first: Int64 = 2
        let count = Int64(Int32.max) - first + 1
        return Int32(first + ((id % count) + count) % count)
    }

    /// A new connection for a database kept as an image: an empty in-memory database that
    /// grows up to `imageSizeLimit`; the first transaction loads the row's image into it.
    func makeImageConnection() throws -> WebSQLConnection {
        do {
            let db = try SQLiteConnection(location: .memory)
            try Self.deserialize([], into: db)
            WebSQLAuthorizer.forbidAttaching(on: db)
            return WebSQLConnection(locked: LockedConnection(db), file: nil)
        } catch {
            throw StorageRemoval.storeError(error)
        }
    }

    /// Replaces a connection's main database with an image, in memory that SQLite owns and may
    /// grow (`SQLITE_DESERIALIZE_FREEONCLOSE | RESIZEABLE`), up to `imageSizeLimit`.
    ///
    /// - Parameters:
    ///   - image: the bytes of the database; empty for an empty database.
    ///   - db: the connection, outside a transaction.
    static func deserialize(_ image: [UInt8], into db: SQLiteConnection) throws(DatabaseError) {
        var memory: UnsafeMutablePointer<UInt8>?
        if !image.isEmpty {
            guard let allocated = sqlite3_malloc64(sqlite3_uint64(image.count)) else {
                throw DatabaseError(connection: db.handle, code: SQLITE_NOMEM)
            }
            let bytes = allocated.bindMemory(to: UInt8.self, capacity: image.count)
            bytes.update(from: image, count: image.count)
            // A WAL-mode file's image (header bytes 18 and 19 at 2) does not open from memory:
            // marked as a rollback-journal database it does.
            if image.count >= 20 {
                bytes[18] = 1
                bytes[19] = 1
            }
            memory = bytes
        }
        let size = sqlite3_int64(image.count)
        let flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE)
        // On failure SQLite frees the memory itself (FREEONCLOSE).
        let code = sqlite3_deserialize(db.handle, "main", memory, size, size, flags)
        guard code == SQLITE_OK else { throw DatabaseError(connection: db.handle, code: code) }
        var limit = sqlite3_int64(imageSizeLimit)
        _ = sqlite3_file_control(db.handle, "main", SQLITE_FCNTL_SIZE_LIMIT, &limit)
    }

    /// The image of a connection's main database (outside a transaction).
    static func serialize(_ db: SQLiteConnection) throws(DatabaseError) -> [UInt8] {
        var size: sqlite3_int64 = 0
        // An in-memory database lends its own memory (NOCOPY); copied once, into the array.
        if let bytes = sqlite3_serialize(db.handle, "main", &size, UInt32(SQLITE_SERIALIZE_NOCOPY)) {
            return Array(UnsafeBufferPointer(start: bytes, count: Int(size)))
        }
        guard let bytes = sqlite3_serialize(db.handle, "main", &size, 0) else {
            if size == 0 { return [] }
            throw DatabaseError(connection: db.handle, code: SQLITE_NOMEM)
        }
        defer { sqlite3_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(size)))
    }

    /// The row's version stamp, or `nil` when the database was removed.
    private static func stamp(of entry: CatalogEntry, _ db: DatabaseConnection) throws -> String? {
        try db.scalar("SELECT xmin::text FROM websql_databases WHERE id = ?", [.integer(entry.id)])?.text
    }

    /// Loads the row's image into the connection when the loaded one is not `stamp`'s.
    private func refresh(
        _ connection: WebSQLConnection, _ sqlite: SQLiteConnection, to stamp: String, _ entry: CatalogEntry,
        _ db: DatabaseConnection
    ) throws {
        guard connection.imageStamp.withLock({ $0 }) != stamp else { return }
        let rows = try db.rows(
            "SELECT xmin::text, image FROM websql_databases WHERE id = ?", [.integer(entry.id)]
        ) { row in (row.string(0), row.isNull(1) ? [] : row.blob(1)) }
        guard let (loaded, image) = rows.first else { throw removedError(entry, connection) }
        connection.imageStamp.withLock { $0 = nil }
        try Self.deserialize(image, into: sqlite)
        connection.imageStamp.withLock { $0 = loaded }
    }

    /// Runs a transaction of a database kept as an image (see the extension's rules).
    ///
    /// - Parameters:
    ///   - readOnly: a read transaction, on the loaded image.
    ///   - versionChange: for `changeVersion`, the version the database must have and the one it
    ///     gets, checked and set in the same PostgreSQL transaction.
    ///   - body: the page's statements.
    func runOnImage<T>(
        _ entry: CatalogEntry, _ connection: WebSQLConnection, readOnly: Bool,
        versionChange: (old: String, new: String)? = nil, _ body: (WebSQLTransaction) throws -> T
    ) throws -> T {
        if connection.removed.load(ordering: .acquiring) { throw removedError(entry, connection) }
        return try connection.locked.withLock { sqlite in
            if readOnly {
                let stamp: String?
                do { stamp = try database.read { try Self.stamp(of: entry, $0) } } catch {
                    throw StorageRemoval.storeError(error)
                }
                guard let stamp else { throw removedError(entry, connection) }
                do {
                    try database.read { try refresh(connection, sqlite, to: stamp, entry, $0) }
                } catch {
                    throw StorageRemoval.storeError(error)
                }
                return try Self.runSQLite(sqlite, readOnly: true, body)
            }
            return try write(entry, connection, sqlite, versionChange: versionChange, body)
        }
    }

    /// A write transaction on an image, in one PostgreSQL write transaction.
    private func write<T>(
        _ entry: CatalogEntry, _ connection: WebSQLConnection, _ sqlite: SQLiteConnection,
        versionChange: (old: String, new: String)?, _ body: (WebSQLTransaction) throws -> T
    ) throws -> T {
        let now = clock().timeIntervalSince1970
        var committed: String?
        let result: T
        do {
            result = try database.writeNow(changes: [ChangeLogEntry(.webSQLDatabases, site: entry.site, cause: .write)])
            { db in
                // After the change log's lock, which the transaction took first: every writer
                // takes the two in this order, so none holds what another waits for.
                try db.execute(
                    "SELECT pg_advisory_xact_lock(\(PostgreSQLConnection.lockNamespace), \(Self.lockKey(id: entry.id)))"
                )
                let current = try db.rows(
                    "SELECT xmin::text, version FROM websql_databases WHERE id = ?", [.integer(entry.id)]
                ) { row in (row.string(0), row.string(1)) }
                guard let (stamp, version) = current.first else { throw removedError(entry, connection) }
                if let versionChange, version != versionChange.old {
                    throw WebSQLError(.version, "the database's version is '\(version)', not '\(versionChange.old)'")
                }
                try refresh(connection, sqlite, to: stamp, entry, db)
                // From here the loaded image may differ from the row until PostgreSQL commits.
                connection.imageStamp.withLock { $0 = nil }
                let value = try Self.runSQLite(sqlite, readOnly: false, body)
                let image = try Self.serialize(sqlite)
                committed = try db.scalar(
                    """
                    UPDATE websql_databases SET image = ?, modified = ?, version = ?
                    WHERE id = ? RETURNING xmin::text
                    """,
                    [.blob(image), .real(now), .text(versionChange?.new ?? version), .integer(entry.id)])?.text
                return value
            }
        } catch {
            // The loaded image may hold what was not committed: the next transaction reloads it.
            connection.imageStamp.withLock { $0 = nil }
            throw StorageRemoval.storeError(error)
        }
        connection.imageStamp.withLock { $0 = committed }
        return result
    }

    /// Runs the page's statements in a SQLite transaction of the in-memory connection: it
    /// commits when `body` returns and rolls back when it throws.
    static func runSQLite<T>(_ db: SQLiteConnection, readOnly: Bool, _ body: (WebSQLTransaction) throws -> T)
        throws -> T
    {
        do { try db.execute(readOnly ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE") } catch { throw WebSQLError(error) }
        let transaction = WebSQLTransaction(connection: db, readOnly: readOnly)
        do {
            let result = try body(transaction)
            transaction.finish()
            do { try db.execute("COMMIT") } catch { throw WebSQLError(error) }
            return result
        } catch {
            transaction.finish()
            if db.isInTransaction { try? db.execute("ROLLBACK") }
            throw error
        }
    }

    /// The bytes a database kept as an image takes: its image in the row (0 before its first write).
    func storedImageSize(_ entry: CatalogEntry) throws -> Int64 {
        do {
            return try database.read { db in
                try db.scalar(
                    "SELECT coalesce(octet_length(image), 0) FROM websql_databases WHERE id = ?", [.integer(entry.id)]
                )?.int64 ?? 0
            }
        } catch {
            throw StorageRemoval.storeError(error)
        }
    }
}
