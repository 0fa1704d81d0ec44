import CSQLite
import Foundation
import Testing
@testable import WebsiteData

@Suite struct MigrationTests {
    let dir = TemporaryDirectory()
    var file: URL { dir.url.appendingPathComponent(StoreDatabase.fileName) }

    @Test func aFreshStoreRecordsEveryMigration() throws {
        _ = try WebsiteDataStore.testing(dir.url)
        let db = try DatabaseConnection(location: .file(file))
        let versions = try db.rows("SELECT version FROM wkstore_schema ORDER BY version") { Int($0.int(0)) }
        #expect(versions == embeddedMigrations.map(\.version))
        #expect(versions.first == 1)
        #expect(try db.scalar("PRAGMA journal_mode")?.text == "wal")
        #expect(try db.scalar("PRAGMA application_id")?.int64 == 2004578163)
    }

    @Test func reopeningAppliesNothingTwice() throws {
        _ = try WebsiteDataStore.testing(dir.url)
        _ = try WebsiteDataStore.testing(dir.url)
        let db = try DatabaseConnection(location: .file(file))
        #expect(try db.scalar("SELECT count(*) FROM wkstore_schema")?.int64 == Int64(embeddedMigrations.count))
    }

    @Test func migrationsRunInOrderAndOnce() throws {
        let db = try DatabaseConnection(location: .memory)
        let migrator = Migrator(migrations: [
            EmbeddedMigration(version: 2, name: "0002_b", sql: "INSERT INTO log VALUES ('b')"),
            EmbeddedMigration(version: 1, name: "0001_a", sql: "CREATE TABLE log (name TEXT); INSERT INTO log VALUES ('a')"),
        ])
        try migrator.migrate(db, path: ":memory:")
        try migrator.migrate(db, path: ":memory:")
        #expect(try db.rows("SELECT name FROM log") { $0.string(0) } == ["a", "b"])
    }

    @Test func aFailingMigrationLeavesNothingBehind() throws {
        let db = try DatabaseConnection(location: .memory)
        let migrator = Migrator(migrations: [
            EmbeddedMigration(version: 1, name: "0001_a", sql: "CREATE TABLE t (x); INSERT INTO nowhere VALUES (1)"),
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
            let db = try DatabaseConnection(location: .file(file))
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
            for i in 0..<200 { try store.httpCookieStore.set("https://s\(i).example/", "a=\(String(repeating: "x", count: 500))") }
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
            let db = try DatabaseConnection(location: .file(file))
            try db.execute("CREATE TABLE moz_cookies (id INTEGER PRIMARY KEY, name TEXT)")
        }
        let before = try Data(contentsOf: file)
        #expect(throws: StoreError.self) { _ = try WebsiteDataStore.testing(dir.url) }
        #expect(try Data(contentsOf: file) == before)
    }
}
