import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

@Suite(.ownThreads, .bothEngines) struct WebStorageWebSQLTests {
    let dir = TemporaryDirectory()
    let origin = WebStorageOrigins.example

    /// The database as stored: its file's image, or on PostgreSQL the image in its row.
    private func storedImage(_ store: WebsiteDataStore, _ db: WebSQLDatabase) throws -> [UInt8] {
        if let file = db.fileURL { return try WebSQLStorage.image(ofFile: file) }
        let id = db.entry.id
        return try store.database.read { connection in
            try connection.rows("SELECT image FROM websql_databases WHERE id = ?", [.integer(id)]) { $0.blob(0) }
        }.first ?? []
    }

    /// The titles of the notes, read in a read transaction.
    private func titles(_ db: WebSQLDatabase) throws -> [String] {
        try db.readTransaction { try $0.executeSql("SELECT title FROM notes ORDER BY id") }.rows.map {
            $0["title"]?.string ?? ""
        }
    }

    private func notes(_ store: WebsiteDataStore, name: String = "notes") throws -> WebSQLDatabase {
        let db = try store.webSQLDatabases.open(
            origin: origin, name: name, version: "1.0", displayName: "Notes",
            estimatedSize: 1 << 20)
        try db.transaction { tx in
            try tx.executeSql(
                "CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, title TEXT UNIQUE, body BLOB, score REAL)")
        }
        return db
    }

    @Test func createsQueriesAndBindsParameters() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let db = try notes(store)
        let inserted = try db.transaction { tx in
            try tx.executeSql(
                "INSERT INTO notes (title, body, score) VALUES (?, ?, ?)", ["a\u{0}b", .blob([0, 1, 2]), 1.5])
        }
        #expect(inserted.insertId == 1 && inserted.rowsAffected == 1)
        try db.transaction { tx in
            try tx.executeSql(
                "INSERT INTO notes (title, body, score) VALUES (?, ?, ?)", ["'); DROP TABLE notes; --", nil, 2])
        }
        let updated = try db.transaction { tx in try tx.executeSql("UPDATE notes SET score = score + 1") }
        #expect(updated.rowsAffected == 2 && updated.insertId == nil)

        let result = try db.readTransaction { tx in
            try tx.executeSql("SELECT id, title, body, score AS points FROM notes WHERE score > ? ORDER BY id", [0])
        }
        #expect(result.rows.count == 2)
        #expect(result.rows[0].columns == ["id", "title", "body", "points"])
        #expect(result.rows[0]["title"] == .text("a\u{0}b"))
        #expect(result.rows[0]["body"] == .blob([0, 1, 2]))
        #expect(result.rows[0]["points"] == .real(2.5))
        #expect(result.rows[1]["title"]?.string == "'); DROP TABLE notes; --")
        #expect(result.rows[1]["body"] == .null)
        #expect(result.rows[1][3].double == 3)
        #expect(result.rowsAffected == 0 && result.insertId == nil)
    }

    @Test func aTransactionThatThrowsIsRolledBack() throws {
        struct Abort: Error {}
        let db = try notes(try WebsiteDataStore.testing(dir.url))
        #expect(throws: Abort.self) {
            try db.transaction { tx in
                try tx.executeSql("INSERT INTO notes (title) VALUES (?)", ["lost"])
                try tx.executeSql("CREATE TABLE lost (x)")
                throw Abort()
            }
        }
        // A failed statement does not end the transaction unless its error is let out.
        try db.transaction { tx in
            try tx.executeSql("INSERT INTO notes (title) VALUES (?)", ["kept"])
            #expect(throws: WebSQLError.self) { try tx.executeSql("INSERT INTO notes (title) VALUES (?)", ["kept"]) }
        }
        let rows = try db.readTransaction { tx in try tx.executeSql("SELECT title FROM notes").rows }
        #expect(rows.map { $0["title"] } == [.text("kept")])
        #expect(throws: WebSQLError.self) { try db.readTransaction { tx in try tx.executeSql("SELECT * FROM lost") } }
    }

    @Test func errorsCarryWebSQLCodes() throws {
        let db = try notes(try WebsiteDataStore.testing(dir.url))
        func code(_ sql: String, _ arguments: [WebSQLValue] = [], readOnly: Bool = false) -> WebSQLError.Code? {
            do {
                if readOnly {
                    _ = try db.readTransaction { try $0.executeSql(sql, arguments) }
                } else {
                    _ = try db.transaction { try $0.executeSql(sql, arguments) }
                }
                return nil
            } catch let error as WebSQLError {
                return error.code
            } catch {
                return .unknown
            }
        }
        try db.transaction { try $0.executeSql("INSERT INTO notes (title) VALUES ('a')") }
        #expect(code("INSERT INTO notes (title) VALUES ('a')") == .constraint)
        #expect(code("SELEKT 1") == .syntax)
        #expect(code("SELECT * FROM missing") == .syntax)
        #expect(code("SELECT ?, ?", [1]) == .syntax)
        #expect(code("   ") == .syntax)
        #expect(code("INSERT INTO notes (title) VALUES ('b')", readOnly: true) == .database)
        #expect(code("SELECT count(*) FROM notes", readOnly: true) == nil)
    }

    @Test func sqlCannotReachOutsideItsDatabase() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let db = try notes(store)
        let outside = dir.path("outside.sqlite").path
        let storeFile = dir.path("store.sqlite").path
        for sql in [
            "ATTACH DATABASE '\(outside)' AS x", "ATTACH DATABASE '\(storeFile)' AS s",
            "PRAGMA journal_mode = DELETE", "PRAGMA writable_schema = 1",
            "BEGIN", "COMMIT", "SAVEPOINT s", "SELECT load_extension('libm.so.6')",
            "CREATE VIRTUAL TABLE v USING fts3_tokenizer",
        ] {
            let error = #expect(throws: WebSQLError.self, "\(sql)") { try db.transaction { try $0.executeSql(sql) } }
            #expect(error?.code == .syntax, "\(sql): \(String(describing: error))")
        }
        // VACUUM cannot run in a transaction, and every statement runs in one.
        for sql in ["VACUUM INTO '\(outside)'", "VACUUM"] {
            #expect(throws: WebSQLError.self, "\(sql)") { try db.transaction { try $0.executeSql(sql) } }
        }
        // Full-text search works.
        try db.transaction { tx in
            try tx.executeSql("CREATE VIRTUAL TABLE search USING fts5(text)")
            try tx.executeSql("INSERT INTO search (text) VALUES ('offline web storage')")
        }
        #expect(
            try db.readTransaction { try $0.executeSql("SELECT text FROM search WHERE search MATCH 'web'") }.rows.count
                == 1)
        #expect(!FileManager.default.fileExists(atPath: outside))
        // Reading pragmas that describe the database are allowed.
        let info = try db.readTransaction { try $0.executeSql("PRAGMA table_info(notes)") }
        #expect(info.rows.map { $0["name"] } == [.text("id"), .text("title"), .text("body"), .text("score")])
        // And transactions still work afterwards.
        try db.transaction { try $0.executeSql("INSERT INTO notes (title) VALUES ('after')") }
    }

    @Test func versionsAreCheckedAndChanged() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let db = try notes(store)
        #expect(try db.version == "1.0")
        #expect(throws: WebSQLError.self) {
            try store.webSQLDatabases.open(origin: origin, name: "notes", version: "2.0")
        }
        #expect(try store.webSQLDatabases.open(origin: origin, name: "notes").estimatedSize == 1 << 20)

        #expect(throws: WebSQLError(.version, "the database's version is '1.0', not '0.9'")) {
            try db.changeVersion(from: "0.9", to: "2.0")
        }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try db.changeVersion(from: "1.0", to: "2.0") { tx in
                try tx.executeSql("ALTER TABLE notes ADD COLUMN tag TEXT")
                throw Abort()
            }
        }
        #expect(try db.version == "1.0")
        try db.changeVersion(from: "1.0", to: "2.0") { tx in try tx.executeSql("ALTER TABLE notes ADD COLUMN tag TEXT")
        }
        #expect(try db.version == "2.0")
        let reopened = try WebsiteDataStore.testing(dir.url).webSQLDatabases.open(
            origin: origin, name: "notes", version: "2.0")
        try reopened.transaction { try $0.executeSql("INSERT INTO notes (title, tag) VALUES ('t', 'x')") }
    }

    @Test(.sqliteOnly) func eachDatabaseIsAPrivateFileNamedByARandomIdentifier() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let hostile = try store.webSQLDatabases.open(origin: origin, name: "../../../etc/passwd\u{0}x")
        try hostile.transaction { try $0.executeSql("CREATE TABLE t (x)") }
        let folder = dir.path("websql")
        let file = try #require(hostile.fileURL)
        #expect(file.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path)
        #expect(WebSQLStorage.isValidFileName(file.lastPathComponent))
        #expect(try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int == 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            #expect(
                try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[
                    .posixPermissions] as? Int
                    == 0o600, "\(name)")
            #expect(!name.contains("example") && !name.contains("passwd"))
        }
        // The data persists in that file across reopening the store.
        try hostile.transaction { try $0.executeSql("INSERT INTO t VALUES (42)") }
        let reopened = try WebsiteDataStore.testing(dir.url).webSQLDatabases.open(
            origin: origin, name: "../../../etc/passwd\u{0}x")
        #expect(reopened.fileURL == file)
        #expect(try reopened.readTransaction { try $0.executeSql("SELECT x FROM t") }.rows.first?[0] == .integer(42))
    }

    @Test(.sqliteOnly) func sizesAreTheEstimateAndTheActualFile() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let db = try notes(store)
        let file = try #require(db.fileURL)
        let before = try db.size()
        let onDisk = {
            (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int).map { Int64($0) } ?? 0
        }
        let wal = {
            (try? FileManager.default.attributesOfItem(atPath: file.path + "-wal")[.size] as? Int).map { Int64($0) }
                ?? 0
        }
        #expect(before == onDisk() + wal())
        try db.transaction {
            try $0.executeSql("INSERT INTO notes (body) VALUES (?)", [.blob([UInt8](repeating: 7, count: 200_000))])
        }
        #expect(try db.size() >= before + 200_000)
        #expect(try db.size() == onDisk() + wal())
        let info = try #require(try store.webSQLDatabases.databases(origin: origin).first)
        #expect(info.name == "notes" && info.displayName == "Notes" && info.version == "1.0")
        let size = try db.size()
        #expect(info.estimatedSize == 1 << 20 && info.size == size)
    }

    @Test func aNonPersistentStoreKeepsDatabasesInMemory() async throws {
        let store = try WebsiteDataStore.testing(nil)
        let db = try notes(store)
        #expect(db.fileURL == nil)
        try db.transaction { try $0.executeSql("INSERT INTO notes (title) VALUES ('m')") }
        // A second handle shares the same in-memory data.
        let again = try store.webSQLDatabases.open(origin: origin, name: "notes")
        #expect(
            try again.readTransaction { try $0.executeSql("SELECT title FROM notes") }.rows.first?["title"]
                == .text("m"))
        #expect(try db.size() > 0)
        let size = try db.size()
        #expect(try await store.dataRecords(ofTypes: [.webSQLDatabases]).first?.sizes[.webSQLDatabases] == size)
        // Another non-persistent store does not see it.
        #expect(try WebsiteDataStore.testing(nil).webSQLDatabases.databases().isEmpty)
        try store.removeData(ofTypes: [.webSQLDatabases], matching: RemovalFilter())
        #expect(throws: WebSQLError.self) { try db.readTransaction { try $0.executeSql("SELECT 1") } }
        #expect(try store.webSQLDatabases.databases().isEmpty)
    }

    @Test(.sqliteOnly) func removalDeletesTheFilesAndEndsOpenHandles() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let db = try notes(store)
        let kept = try store.webSQLDatabases.open(origin: WebStorageOrigins.other, name: "kept")
        try kept.transaction { try $0.executeSql("CREATE TABLE t (x)") }
        let file = try #require(db.fileURL)
        #expect(FileManager.default.fileExists(atPath: file.path))

        let record = try #require(
            try await store.dataRecords(ofTypes: [.webSQLDatabases]).first { $0.displayName == "example.com" })
        try await store.removeData(ofTypes: [.webSQLDatabases], for: [record])
        for suffix in ["", "-wal", "-shm", "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: file.path + suffix))
        }
        #expect(throws: WebSQLError.self) {
            try db.transaction { try $0.executeSql("INSERT INTO notes (title) VALUES ('x')") }
        }
        #expect(try store.webSQLDatabases.databases().map(\.name) == ["kept"])
        #expect(FileManager.default.fileExists(atPath: try #require(kept.fileURL).path))

        // Opening it again starts a new, empty database in a new file.
        let fresh = try store.webSQLDatabases.open(origin: origin, name: "notes")
        #expect(fresh.fileURL != file)
        #expect(throws: WebSQLError.self) { try fresh.readTransaction { try $0.executeSql("SELECT * FROM notes") } }
        #expect(try store.webSQLDatabases.deleteDatabase(origin: origin, name: "notes"))
        #expect(try !store.webSQLDatabases.deleteDatabase(origin: origin, name: "notes"))
    }

    @Test func aRemovalByAnotherProcessEndsThisProcessHandles() throws {
        let crawler = try WebsiteDataStore.testing(dir.url)
        let operator_ = try WebsiteDataStore.testing(dir.url)
        let db = try notes(crawler)
        try operator_.removeData(ofTypes: [.webSQLDatabases], matching: RemovalFilter(sites: ["example.com"]))
        #expect(throws: WebSQLError.self) { try db.transaction { try $0.executeSql("SELECT 1") } }
        #expect(throws: WebSQLError.self) { try db.readTransaction { try $0.executeSql("SELECT 1") } }
        if TestEngine.current == .sqlite {
            #expect(!FileManager.default.fileExists(atPath: try #require(db.fileURL).path))
        }
    }

    @Test func writeTransactionsSetTheModificationTime() throws {
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        let start = clock.now
        let db = try notes(store)
        clock.advance(30)
        _ = try db.readTransaction { try $0.executeSql("SELECT * FROM notes") }
        #expect(try store.webSQLDatabases.databases().first?.modified == start)
        try db.transaction { try $0.executeSql("INSERT INTO notes (title) VALUES ('x')") }
        #expect(try store.webSQLDatabases.databases().first?.modified == start + 30)
        #expect(try store.webSQLDatabases.databases().first?.created == start)
    }

    @Test(.sqliteOnly) func orphanFilesAreRemovedWhenTheStoreOpens() throws {
        do { _ = try WebsiteDataStore.testing(dir.url) }
        let folder = dir.path("websql")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let orphan = folder.appendingPathComponent(UUID().uuidString.lowercased() + ".sqlite")
        let unrelated = folder.appendingPathComponent("README")
        try Data("x".utf8).write(to: orphan)
        try Data("x".utf8).write(to: unrelated)
        let store = try WebsiteDataStore.testing(dir.url)
        let db = try notes(store)
        _ = try WebsiteDataStore.testing(dir.url)
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        #expect(FileManager.default.fileExists(atPath: unrelated.path))
        #expect(FileManager.default.fileExists(atPath: try #require(db.fileURL).path))
    }

    @Test func sizesAreTheEstimateAndWhatTheDatabaseTakes() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let db = try notes(store)
        let before = try db.size()
        #expect(before > 0)
        try db.transaction {
            try $0.executeSql("INSERT INTO notes (body) VALUES (?)", [.blob([UInt8](repeating: 7, count: 200_000))])
        }
        // The blob's pages, some of which were already there (a table's first page holds its start).
        let size = try db.size()
        #expect(size > before && size >= 200_000)
        let info = try #require(try store.webSQLDatabases.databases(origin: origin).first)
        #expect(info.estimatedSize == 1 << 20 && info.size == size)
        #expect(try await store.dataRecords(ofTypes: [.webSQLDatabases]).first?.sizes[.webSQLDatabases] == size)
        // Another store object (another process) counts the same bytes.
        #expect(try WebsiteDataStore.testing(dir.url).webSQLDatabases.databases().first?.size == size)
    }

    @Test func removalEndsOpenHandlesAndKeepsOtherDatabases() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let db = try notes(store)
        try db.transaction { try $0.executeSql("INSERT INTO notes (title) VALUES ('gone')") }
        let kept = try store.webSQLDatabases.open(origin: WebStorageOrigins.other, name: "kept")
        try kept.transaction { try $0.executeSql("CREATE TABLE t (x)") }
        let record = try #require(
            try await store.dataRecords(ofTypes: [.webSQLDatabases]).first { $0.displayName == "example.com" })
        try await store.removeData(ofTypes: [.webSQLDatabases], for: [record])
        #expect(throws: WebSQLError.self) {
            try db.transaction { try $0.executeSql("INSERT INTO notes (title) VALUES ('x')") }
        }
        #expect(throws: WebSQLError.self) { try titles(db) }
        #expect(try store.webSQLDatabases.databases().map(\.name) == ["kept"])
        let other = try WebsiteDataStore.testing(dir.url).webSQLDatabases.open(
            origin: WebStorageOrigins.other, name: "kept")
        #expect(try other.readTransaction { try $0.executeSql("SELECT count(*) FROM t") }.rows.first?[0] == .integer(0))
        // Opening it again starts a new, empty database.
        let fresh = try store.webSQLDatabases.open(origin: origin, name: "notes")
        #expect(throws: WebSQLError.self) { try titles(fresh) }
        #expect(try store.webSQLDatabases.deleteDatabase(origin: origin, name: "notes"))
        #expect(try !store.webSQLDatabases.deleteDatabase(origin: origin, name: "notes"))
    }

    @Test func twoStoreObjectsWritingOneDatabaseKeepEveryWrite() throws {
        let first = try WebsiteDataStore.testing(dir.url)
        let second = try WebsiteDataStore.testing(dir.url)
        let a = try notes(first)
        try a.transaction { tx in
            try tx.executeSql("CREATE TABLE counter (n INTEGER NOT NULL)")
            try tx.executeSql("INSERT INTO counter VALUES (0)")
        }
        let b = try second.webSQLDatabases.open(origin: origin, name: "notes")
        // b reads the database before a writes again: its own write must start from a's.
        #expect(try titles(b).isEmpty)
        try a.transaction { try $0.executeSql("INSERT INTO notes (title) VALUES ('from a')") }
        try b.transaction { try $0.executeSql("INSERT INTO notes (title) VALUES ('from b')") }
        #expect(try titles(a) == ["from a", "from b"])
        #expect(try titles(b) == ["from a", "from b"])

        // At once, from both: each transaction reads the counter and writes it back one higher.
        let handles = [a, b, a, b]
        let perWriter = 12
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: handles.count) { index in
            for step in 0..<perWriter {
                do {
                    try handles[index].transaction { tx in
                        let n = try tx.executeSql("SELECT n FROM counter").rows.first?[0].int64 ?? -1
                        try tx.executeSql("UPDATE counter SET n = ?", [.integer(n + 1)])
                        try tx.executeSql("INSERT INTO notes (title) VALUES (?)", [.text("\(index)-\(step)")])
                    }
                } catch {
                    failures.withLock { $0.append("\(index)-\(step): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let total = handles.count * perWriter
        for db in [a, b, try WebsiteDataStore.testing(dir.url).webSQLDatabases.open(origin: origin, name: "notes")] {
            #expect(
                try db.readTransaction { try $0.executeSql("SELECT n FROM counter") }.rows.first?[0]
                    == .integer(Int64(total)))
            #expect(try titles(db).count == 2 + total)
        }
    }

    @Test func aFailedWriteTransactionLeavesTheStoredDatabaseUnchanged() throws {
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        let db = try notes(store)
        try db.transaction { try $0.executeSql("INSERT INTO notes (title) VALUES ('kept')") }
        let image = try storedImage(store, db)
        #expect(!image.isEmpty)
        let modified = try store.webSQLDatabases.databases().first?.modified
        clock.advance(60)

        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try db.transaction { tx in
                try tx.executeSql("INSERT INTO notes (title) VALUES ('lost')")
                throw Abort()
            }
        }
        // A statement the authorizer refuses, and a constraint that fails, let out of the closure.
        for refused in ["ATTACH DATABASE ':memory:' AS x", "INSERT INTO notes (title) VALUES ('kept')"] {
            #expect(throws: WebSQLError.self, "\(refused)") {
                try db.transaction { tx in
                    try tx.executeSql("INSERT INTO notes (title) VALUES ('lost')")
                    try tx.executeSql("CREATE TABLE lost (x)")
                    try tx.executeSql(refused)
                }
            }
        }
        // A version change whose check fails runs nothing.
        #expect(throws: WebSQLError.self) {
            try db.changeVersion(from: "0.9", to: "2.0") { try $0.executeSql("DROP TABLE notes") }
        }

        #expect(try storedImage(store, db) == image)
        #expect(try store.webSQLDatabases.databases().first?.modified == modified)
        #expect(try db.version == "1.0")
        // Neither this handle nor another store object's sees what was rolled back.
        let other = try WebsiteDataStore.testing(dir.url).webSQLDatabases.open(origin: origin, name: "notes")
        for handle in [db, other] {
            #expect(try titles(handle) == ["kept"])
            #expect(throws: WebSQLError.self) { try handle.readTransaction { try $0.executeSql("SELECT * FROM lost") } }
        }
        // And the next write commits from the stored database.
        try db.transaction { try $0.executeSql("INSERT INTO notes (title) VALUES ('next')") }
        #expect(try titles(other) == ["kept", "next"])
        #expect(try storedImage(store, db) != image)
    }
}
