import CSQLite
import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

@Suite(.ownThreads) struct MigrationTests {
    let dir = TemporaryDirectory()
    var file: URL { dir.url.appendingPathComponent(StoreDatabase.fileName) }

    @Test func aFreshStoreRecordsEveryMigration() throws {
        _ = try WebsiteDataStore.testing(dir.url)
        let db = try SQLiteConnection(location: .file(file))
        let versions = try db.rows("SELECT version FROM wkstore_schema ORDER BY version") { Int($0.int(0)) }
        #expect(versions == embeddedMigrations.map(\.version))
        #expect(versions.first == 1)
        #expect(try db.scalar("PRAGMA journal_mode")?.text == "wal")
        #expect(try db.scalar("PRAGMA application_id")?.int64 == 2_004_578_163)
    }

    @Test func reopeningAppliesNothingTwice() throws {
        _ = try WebsiteDataStore.testing(dir.url)
        _ = try WebsiteDataStore.testing(dir.url)
        let db = try SQLiteConnection(location: .file(file))
        #expect(try db.scalar("SELECT count(*) FROM wkstore_schema")?.int64 == Int64(embeddedMigrations.count))
    }

    /// A store written by a binary that knew schema 4 (rowid cookies, AUTOINCREMENT change log)
    /// opens with its cookies and its change-log numbering, and rows filed under a site libpsl no
    /// longer gives their domain are refiled under the right one.
    @Test func aSchema4StoreMovesToSiteOrderedCookiesKeepingEverything() async throws {
        do {
            let db = try SQLiteConnection(location: .file(file))
            try Migrator(migrations: embeddedMigrations.filter { $0.version <= 4 }).migrate(db, path: file.path)
            let columns =
                "site, name, value, domain, path, host_only, secure, http_only, same_site, partition_key, expires, created, last_access, modified"
            try db.execute(
                "INSERT INTO cookies (\(columns)) VALUES ('example.com', 'a', '1', 'www.example.com', '/', 1, 1, 0, 'lax', '', NULL, 100, 100, 100)"
            )
            try db.execute(
                "INSERT INTO cookies (\(columns)) VALUES ('example.com', 'b', '2', 'example.com', '/x', 0, 0, 1, 'unspecified', '', 4102444800, 200, 200, 200)"
            )
            // Filed under a site that is not its domain's (as after a public suffix list update).
            try db.execute(
                "INSERT INTO cookies (\(columns)) VALUES ('old-site.example', 'c', '3', 'other.example.org', '/', 1, 0, 0, 'strict', '', NULL, 300, 300, 300)"
            )
            for _ in 0..<3 {
                try db.execute("INSERT INTO change_log (data_type, site) VALUES ('cookies', 'example.com')")
            }
            try db.execute("DELETE FROM change_log")
        }
        let store = try WebsiteDataStore.testing(dir.url)
        let cookies = try store.httpCookieStore.allCookies()
        #expect(cookies.map(\.name).sorted() == ["a", "b", "c"])
        #expect(try store.httpCookieStore.header("https://www.example.com/x") == "b=2; a=1")
        #expect(try await store.dataRecords(ofTypes: [.cookies]).map(\.displayName) == ["example.com", "example.org"])
        try store.httpCookieStore.deleteCookies(named: "c", domain: "other.example.org")
        // The deletion, logged, reaches the table when the log is folded: under the site the
        // row was refiled to.
        try store.database.foldChangeLog()
        let db = try SQLiteConnection(location: .file(file))
        #expect(
            try db.rows("SELECT site, name FROM cookies ORDER BY name") { "\($0.string(0)) \($0.string(1))" }
                == ["example.com a", "example.com b"])
        #expect(
            try db.scalar(
                "SELECT count(*) FROM sqlite_master WHERE name = 'cookies_site' OR name = 'cookies_modified'")?.int64
                == 0)
        // Numbering continues past the emptied AUTOINCREMENT log's high-water mark.
        #expect(try db.scalar("SELECT max(seq) FROM change_log")?.int64 ?? 0 > 3)
    }

    /// Every released schema is a starting point: a store left at schema N (with a cookie, a
    /// change-log entry and a setting) opens with this binary, migrated, keeping all three.
    @Test(arguments: 1...6)
    func aStoreAtAnEarlierSchemaUpgradesKeepingItsData(version: Int) throws {
        let directory = dir.path("schema-\(version)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent(StoreDatabase.fileName)
        do {
            let db = try SQLiteConnection(location: .file(file))
            try db.execute("PRAGMA journal_mode = WAL")
            try Migrator(migrations: embeddedMigrations.filter { $0.version <= version }).migrate(db, path: file.path)
            try db.execute(
                """
                INSERT INTO cookies (site, name, value, domain, path, host_only, secure, http_only, same_site,
                                     partition_key, expires, created, last_access, modified)
                VALUES ('example.com', 'kept', 'v\(version)', 'example.com', '/', 1, 0, 0, 'lax', '', NULL, 100, 100, 100)
                """)
            try db.execute("INSERT INTO change_log (data_type, site) VALUES ('cookies', 'example.com')")
            try db.execute("INSERT INTO settings (key, value) VALUES ('cookies.max-per-site', '50')")
        }
        let store = try WebsiteDataStore.testing(directory)
        #expect(try store.httpCookieStore.header("https://example.com/") == "kept=v\(version)")
        #expect(try store.settings()[.cookiesMaxPerSite] == "50")
        let db = try SQLiteConnection(location: .file(file))
        #expect(
            try db.rows("SELECT version FROM wkstore_schema ORDER BY version") { Int($0.int(0)) }
                == embeddedMigrations.map(\.version))
        #expect(try db.scalar("SELECT count(*) FROM change_log")?.int64 ?? 0 >= 1)
    }

    @Test func migrationsRunInOrderAndOnce() throws {
        let db = try SQLiteConnection(location: .memory)
        let migrator = Migrator(migrations: [
            EmbeddedMigration(version: 2, name: "0002_b", sql: "INSERT INTO log VALUES ('b')"),
            EmbeddedMigration(
                version: 1, name: "0001_a", sql: "CREATE TABLE log (name TEXT); INSERT INTO log VALUES ('a')"),
        ])
        try migrator.migrate(db, path: ":memory:")
        try migrator.migrate(db, path: ":memory:")
        #expect(try db.rows("SELECT name FROM log") { $0.string(0) } == ["a", "b"])
    }

    @Test func aFailingMigrationLeavesNothingBehind() throws {
        let db = try SQLiteConnection(location: .memory)
        let migrator = Migrator(migrations: [
            EmbeddedMigration(version: 1, name: "0001_a", sql: "CREATE TABLE t (x); INSERT INTO nowhere VALUES (1)")
        ])
        #expect(throws: DatabaseError.self) { try migrator.migrate(db, path: ":memory:") }
        #expect(try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 't'")?.int64 == 0)
        #expect(try db.scalar("SELECT count(*) FROM wkstore_schema")?.int64 == 0)
    }

    @Test func aNewerSchemaIsRefusedAndLeftByteForByteUntouched() throws {
        do {
            let store = try WebsiteDataStore.testing(dir.url)
            try store.httpCookieStore.set("https://example.com/", "a=1")
        }
        do {
            let db = try SQLiteConnection(location: .file(file))
            try db.execute("INSERT INTO wkstore_schema VALUES (999, '0999_future', 0)")
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let before = try Data(contentsOf: file)
        let listing = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
        #expect(throws: StoreError.newerSchema(path: file.path, found: 999, supported: Migrator().latestVersion)) {
            _ = try WebsiteDataStore.testing(dir.url)
        }
        #expect(try Data(contentsOf: file) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == listing)
    }

    @Test func aCorruptFileIsRefusedUntouched() throws {
        var random = SystemRandomNumberGenerator()
        let bytes = Data((0..<65536).map { _ in UInt8.random(in: 0...255, using: &random) })
        try bytes.write(to: file)
        #expect {
            _ = try WebsiteDataStore.testing(dir.url)
        } throws: { error in
            guard case StoreError.corrupt(let path, _)? = error as? StoreError else { return false }
            return path == file.path
        }
        #expect(try Data(contentsOf: file) == bytes)
    }

    @Test func aTruncatedStoreIsRefusedUntouched() throws {
        do {
            let store = try WebsiteDataStore.testing(dir.url)
            for i in 0..<200 {
                try store.httpCookieStore.set("https://s\(i).example/", "a=\(String(repeating: "x", count: 500))")
            }
        }
        let full = try Data(contentsOf: file)
        let truncated = full.prefix(full.count / 2 + 100)
        try truncated.write(to: file)
        #expect(throws: StoreError.self) {
            let store = try WebsiteDataStore.testing(dir.url)
            _ = try store.httpCookieStore.allCookies()
        }
        #expect(try Data(contentsOf: file) == truncated)
    }

    @Test func anotherProgramsDatabaseIsRefusedUntouched() throws {
        do {
            let db = try SQLiteConnection(location: .file(file))
            try db.execute("CREATE TABLE moz_cookies (id INTEGER PRIMARY KEY, name TEXT)")
        }
        let before = try Data(contentsOf: file)
        #expect(throws: StoreError.self) { _ = try WebsiteDataStore.testing(dir.url) }
        #expect(try Data(contentsOf: file) == before)
    }
}
