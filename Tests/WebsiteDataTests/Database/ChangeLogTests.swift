import CSQLite
import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// The change log names each change by a stable type code and a cause, keeps positions across
/// upgrades, and keeps entries within the retention settings.
@Suite(.ownThreads, .bothEngines) struct ChangeLogTests {
    let dir = TemporaryDirectory()
    var file: URL { dir.url.appendingPathComponent(StoreDatabase.fileName) }

    /// The entries after `seq` as "type site cause" (cookie entries add the cookie's name).
    func entries(_ store: WebsiteDataStore, after seq: Int64) throws -> [String] {
        try store.database.read { db in
            try db.rows("SELECT type, site, cause, name FROM change_log WHERE seq > ? ORDER BY seq", [.integer(seq)]) {
                let name = $0.isNull(3) ? "" : " \($0.string(3))"
                return "\($0.int(0)) \($0.string(1)) \($0.int(2))\(name)"
            }
        }
    }

    /// Codes: type 1 cookies, 6 localStorage, 9 settings; cause 1 write, 2 removal, 3 import,
    /// 4 end of session, 5 expiry, 6 eviction.
    @Test func eachChangeIsLoggedWithItsTypeAndCause() async throws {
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        var before = try store.database.newestSequence()
        try store.set(.cookiesMaxPerSite, to: "3")
        try store.httpCookieStore.set("https://example.com/", "a=1", "b=1; Max-Age=10")
        #expect(try entries(store, after: before) == ["9 * 1", "1 example.com 1 a", "1 example.com 1 b"])

        before = try store.database.newestSequence()
        clock.advance(20)
        try store.httpCookieStore.set("https://example.com/", "c=1")
        // c is stored; b, expired, is purged from the site written to.
        #expect(Set(try entries(store, after: before)) == ["1 example.com 1 c", "1 example.com 5 b"])

        before = try store.database.newestSequence()
        clock.advance(1)
        try store.httpCookieStore.set("https://example.com/", "d=1", "e=1")
        // The fourth cookie of the site evicts the least recently used (a).
        #expect(
            Set(try entries(store, after: before)) == ["1 example.com 1 d", "1 example.com 1 e", "1 example.com 6 a"])

        before = try store.database.newestSequence()
        var imported = [Cookie(name: "i", value: "1", domain: "example.org")]
        _ = try store.httpCookieStore.importCookies { imported.popLast().map { ($0, 1) } }
        #expect(try entries(store, after: before) == ["1 example.org 3 i"])

        before = try store.database.newestSequence()
        _ = try store.endSession()
        #expect(
            try entries(store, after: before).filter { $0.hasPrefix("1 ") }.sorted() == [
                "1 example.com 4 c", "1 example.com 4 d", "1 example.com 4 e", "1 example.org 4 i",
            ])

        before = try store.database.newestSequence()
        try store.localStorage.setItem("k", "v", origin: SecurityOrigin(string: "https://example.net")!)
        try store.removeData(ofTypes: [.localStorage], matching: RemovalFilter(sites: ["example.net"]))
        #expect(try entries(store, after: before) == ["6 example.net 1", "6 example.net 2"])
    }

    /// A store at schema 6 (the log naming types by the CLI's spelling) keeps its entries at
    /// their positions, now by code, and its numbering continues after its newest.
    @Test(.sqliteOnly) func aSchema6LogKeepsItsEntriesAndPositions() throws {
        do {
            let db = try SQLiteConnection(location: .file(file))
            try Migrator(migrations: embeddedMigrations.filter { $0.version <= 6 }).migrate(db, path: file.path)
            for type in ["cookies", "localstorage", "indexeddb", "diskcache"] {
                try db.execute("INSERT INTO change_log (data_type, site) VALUES (?, 'example.com')", [.text(type)])
            }
            // A trimmed entry's position stays a gap.
            try db.execute("DELETE FROM change_log WHERE data_type = 'indexeddb'")
        }
        let store = try WebsiteDataStore.testing(dir.url)
        #expect(
            try entries(store, after: 0) == ["1 example.com 1", "6 example.com 1", "2 example.com 1"])
        try store.localStorage.setItem("k", "v", origin: SecurityOrigin(string: "https://example.com")!)
        let positions = try store.database.read { db in
            try db.rows("SELECT seq FROM change_log ORDER BY seq") { $0.int(0) }
        }
        #expect(positions == [1, 2, 4, 5])
    }

    /// `changes.keep-entries` bounds the log by count: older entries go (the point trimmed to is
    /// recorded), the newest stays, and cookie changes not yet folded into the cookie table stay.
    /// Every other process reads the change log when the shared counter moves: a commit that
    /// logged nothing (a store opening with no expired cookie to purge) leaves it alone, and one
    /// that logged something moves it.
    @Test(.sqliteOnly) func onlyACommitThatLoggedMovesTheSharedCounter() throws {
        let clock = TestClock()
        let first = try WebsiteDataStore.testing(dir.url, clock: clock)
        try first.httpCookieStore.set("https://a.example/", "kept=1; Max-Age=86400")
        let counter = try #require(first.database.changeCounter)
        let before = counter.value
        let second = try WebsiteDataStore.testing(dir.url, clock: clock)
        #expect(counter.value == before, "opening a store with nothing to purge moved the counter")
        try second.httpCookieStore.set("https://a.example/", "other=1")
        #expect(counter.value > before)
    }

    @Test func theLogKeepsAtMostKeepEntries() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        try store.set(.changesKeepEntries, to: "100")
        try store.httpCookieStore.set("https://example.com/", "kept=1")
        let origin = SecurityOrigin(string: "https://example.net")!
        for index in 0..<1100 { try store.localStorage.setItem("k\(index)", "v", origin: origin) }
        // On PostgreSQL the trim runs beside the writes, on the maintainer's thread.
        store.database.waitForMaintenance()
        let (count, cookieEntries, trimmed) = try store.database.read { db in
            (
                try db.scalar("SELECT count(*) FROM change_log WHERE type = 6")?.int64 ?? -1,
                try db.scalar("SELECT count(*) FROM change_log WHERE type = 1")?.int64 ?? -1,
                try SettingsTable.number(StoreDatabase.trimmedThroughKey, db)
            )
        }
        // Maintenance runs every 512 positions, so up to 511 more than the limit may wait.
        #expect(count >= 100 && count < 100 + 512)
        #expect(cookieEntries == 1)
        #expect(trimmed > 500)
        // A fresh process still sees the cookie and every key.
        let reopened = try WebsiteDataStore.testing(dir.url)
        #expect(try reopened.httpCookieStore.header("https://example.com/") == "kept=1")
        #expect(try reopened.localStorage.keys(origin: origin).count == 1100)
    }

    /// `changes.keep-seconds` bounds the log by age, and the log's newest entry always stays (it
    /// holds the position).
    @Test func theLogDropsEntriesOlderThanKeepSeconds() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        try store.set(.changesKeepSeconds, to: "3600")
        let origin = SecurityOrigin(string: "https://example.net")!
        for index in 0..<10 { try store.localStorage.setItem("old\(index)", "v", origin: origin) }
        let newest = try store.database.newestSequence()
        do {
            let db = try sideConnection(to: dir.url)
            try db.execute("UPDATE change_log SET time = time - 7200")
        }
        try store.database.foldChangeLog()
        #expect(try entries(store, after: 0) == ["6 example.net 1"])
        #expect(try store.database.newestSequence() == newest)

        for index in 0..<3 { try store.localStorage.setItem("new\(index)", "v", origin: origin) }
        try store.database.foldChangeLog()
        // Young entries stay; the old one that held the position goes once it is not the newest.
        #expect(try entries(store, after: 0).count == 3)
        #expect(try entries(store, after: newest).count == 3)
    }

    /// Retention settings are positive whole numbers.
    @Test func retentionSettingsRefuseWhatIsNotACount() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        for value in ["0", "-5", "soon"] {
            #expect(throws: (any Error).self) { try store.set(.changesKeepSeconds, to: value) }
        }
        #expect(try store.settings()[.changesKeepSeconds] == "86400")
        #expect(try store.settings()[.changesKeepEntries] == "100000")
    }
}
