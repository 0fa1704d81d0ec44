import CSQLite
import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

@Suite(.ownThreads, .bothEngines) struct StoreTests {
    let dir = TemporaryDirectory()

    // MARK: Persistence

    @Test func cookiesSurviveReopen() throws {
        let clock = TestClock()
        do {
            let store = try WebsiteDataStore.testing(dir.url, clock: clock)
            try store.httpCookieStore.set("https://example.com/", "persistent=1; Max-Age=3600", "session=1")
        }
        let reopened = try WebsiteDataStore.testing(dir.url, clock: clock)
        #expect(try reopened.httpCookieStore.header("https://example.com/") == "persistent=1; session=1")
    }

    @Test func sessionCookiesLastUntilTheSessionEnds() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        try store.httpCookieStore.set("https://example.com/", "persistent=1; Max-Age=3600", "session=1")
        let removed = try store.endSession()
        #expect(removed.map(\.name) == ["session"])
        let reopened = try WebsiteDataStore.testing(dir.url)
        #expect(try reopened.httpCookieStore.header("https://example.com/") == "persistent=1")
    }

    @Test(.sqliteOnly) func expiredCookiesArePurgedOnOpen() throws {
        let clock = TestClock()
        do {
            let store = try WebsiteDataStore.testing(dir.url, clock: clock)
            try store.httpCookieStore.set("https://example.com/", "short=1; Max-Age=10", "long=1; Max-Age=1000")
        }
        clock.advance(60)
        _ = try WebsiteDataStore.testing(dir.url, clock: clock)
        #expect(try storedCookieNames() == ["long"])
        // Both were logged when set; the open logged the deletion of the expired one.
        #expect(
            try rows("SELECT name || ' ' || op FROM change_log WHERE op IS NOT NULL ORDER BY seq") == [
                "short 1", "long 1", "short 2",
            ])
    }

    /// The purge at open deletes a cookie whose latest change expired, not a table row the log
    /// has replaced since: the longer-lived cookie set after the fold outlives the purge, the
    /// next fold and every reopen.
    @Test func aCookieSetAgainAfterAFoldOutlivesThePurgeOfItsExpiredRow() throws {
        let clock = TestClock()
        do {
            let store = try WebsiteDataStore.testing(dir.url, clock: clock)
            try store.httpCookieStore.set("https://example.com/", "a=1; Max-Age=10")
            _ = try store.vacuum()
            try store.httpCookieStore.set("https://example.com/", "a=2; Max-Age=1000")
        }
        clock.advance(60)
        let reopened = try WebsiteDataStore.testing(dir.url, clock: clock)
        #expect(try reopened.httpCookieStore.header("https://example.com/") == "a=2")
        _ = try reopened.vacuum()
        let again = try WebsiteDataStore.testing(dir.url, clock: clock)
        #expect(try again.httpCookieStore.header("https://example.com/") == "a=2")
        let table = try sideConnection(to: dir.url).rows("SELECT name || '=' || value FROM cookies", []) {
            $0.string(0)
        }
        #expect(table == ["a=2"])
    }

    @Test(.sqliteOnly) func storeDirectoryAndFilesAreOwnerOnly() throws {
        let store = try WebsiteDataStore.testing(dir.path("store"))
        try store.httpCookieStore.set("https://example.com/", "a=1")
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.path("store").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        // Every file below the store is 0600 and every folder (cache bodies, WebSQL files) 0700.
        let enumerator = FileManager.default.enumerator(atPath: dir.path("store").path)!
        while let name = enumerator.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: dir.path("store/\(name)").path)
            let folder = attributes[.type] as? FileAttributeType == .typeDirectory
            #expect(attributes[.posixPermissions] as? Int == (folder ? 0o700 : 0o600), "\(name)")
        }
    }

    @Test func aNonPersistentStoreWritesNoFiles() throws {
        let home = dir.path("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let child = try ChildProcess(
            "wkstore-stress", ["nonpersistent", "--batches", "50"],
            environment: ["HOME": home.path, "XDG_DATA_HOME": home.path, "TMPDIR": home.path])
        child.process.currentDirectoryURL = home
        #expect(child.readLine() == "cookies 50")
        #expect(child.wait() == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty)
        let store = WebsiteDataStore.nonPersistent()
        #expect(!store.isPersistent && store.directory == nil)
    }

    // MARK: Records and removal

    @Test func recordsAreGroupedByDisplayNameAndSorted() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let cookies = store.httpCookieStore
        try cookies.set("https://www.example.co.uk/", "a=1")
        try cookies.set("https://shop.example.co.uk/", "b=1")
        try cookies.set("http://127.0.0.1:8080/", "c=1")
        try cookies.set("http://[::1]:8080/", "d=1")
        try cookies.set("http://localhost/", "e=1")
        try cookies.set("https://alpha.example/", "f=1")
        let records = try await store.dataRecords(ofTypes: .all)
        #expect(records.map(\.displayName) == ["127.0.0.1", "::1", "alpha.example", "example.co.uk", "localhost"])
        #expect(records.allSatisfy { $0.dataTypes == [.cookies] && $0.totalSize > 0 })
        #expect(try await store.dataRecords(ofTypes: [.diskCache]).isEmpty)
    }

    @Test func displayNamesFollowWebKitRules() {
        #expect(Site.displayName(for: URL(string: "https://a.b.example.co.uk/x")!) == "example.co.uk")
        #expect(Site.displayName(for: URL(string: "http://192.168.1.20/")!) == "192.168.1.20")
        #expect(Site.displayName(for: URL(string: "http://[2001:db8::1]:80/")!) == "2001:db8::1")
        #expect(Site.displayName(for: URL(string: "http://localhost:3000/")!) == "localhost")
        #expect(Site.displayName(for: URL(string: "file:///tmp/a.html")!) == Site.localFilesDisplayName)
        #expect(Site.displayName(for: URL(string: "file:///home/b.html")!) == Site.localFilesDisplayName)
        #expect(Site.displayName(for: URL(string: "https://github.io/")!) == "github.io")
        #expect(Site.displayName(for: URL(string: "https://me.github.io/")!) == "me.github.io")
        #expect(Site.displayName(for: URL(string: "https://WWW.Example.COM/")!) == "example.com")
    }

    @Test(.sqliteOnly) func removalByDateTakesExactlyWhatWasModifiedSince() async throws {
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        try store.httpCookieStore.set("https://old.example/", "a=1")
        try store.httpCookieStore.set("https://both.example/", "old=1")
        clock.advance(100)
        let cut = clock.now
        try store.httpCookieStore.set("https://both.example/", "new=1")
        try store.httpCookieStore.set("https://new.example/", "b=1")
        clock.advance(100)
        _ = try store.httpCookieStore.header("https://old.example/") // reading changes nothing
        let removed = try await store.removeData(ofTypes: [.cookies], modifiedSince: cut)
        #expect(removed.map(\.displayName) == ["both.example", "new.example"])
        #expect(Set(try store.httpCookieStore.allCookies().map(\.name)) == ["a", "old"])
        #expect(try storedCookieNames() == ["a", "old"])
    }

    @Test func removalForRecordsTakesEverythingOfThoseSites() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        try store.httpCookieStore.set("https://www.a.example/", "x=1", "y=2")
        try store.httpCookieStore.set("https://b.example/", "z=1")
        let records = try await store.dataRecords(ofTypes: [.cookies]).filter { $0.displayName == "a.example" }
        try await store.removeData(ofTypes: [.cookies], for: records)
        #expect(try store.httpCookieStore.allCookies().map(\.name) == ["z"])
    }

    @Test func dryRunRemovesNothing() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        try store.httpCookieStore.set("https://a.example/", "x=1")
        let wouldRemove = try store.removeData(ofTypes: [.cookies], matching: RemovalFilter(), dryRun: true)
        #expect(wouldRemove.map(\.displayName) == ["a.example"])
        #expect(try store.httpCookieStore.allCookies().count == 1)
    }

    @Test func removalOfOtherTypesLeavesCookies() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        try store.httpCookieStore.set("https://a.example/", "x=1")
        let removed = try await store.removeData(ofTypes: [.diskCache, .localStorage], modifiedSince: .distantPast)
        #expect(removed.isEmpty)
        #expect(try store.httpCookieStore.allCookies().count == 1)
    }

    // MARK: Settings

    @Test func settingsPersistAndAreShared() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        try store.set(.cookiesMaxTotal, to: "1000000")
        let other = try WebsiteDataStore.testing(dir.url)
        #expect(try other.settings()[.cookiesMaxTotal] == "1000000")
        #expect(try other.settings()[.cookiesMaxPerSite] == "180")
        #expect(throws: StoreError.self) { try store.set(.cookiesMaxPerSite, to: "-4") }
        #expect(throws: StoreError.self) { try store.set(.cookiesMaxPerSite, to: "lots") }
    }

    // MARK: Identified stores

    @Test func typesHaveWebKitAndShortNames() throws {
        #expect(WebsiteDataType.cookies.rawValue == "WKWebsiteDataTypeCookies")
        #expect(WebsiteDataType.offlineWebApplicationCache.cliName == "appcache")
        #expect(try WebsiteDataType.parseList("cookies,diskcache") == [.cookies, .diskCache])
        #expect(try WebsiteDataType.parseList("all") == WebsiteDataType.all)
        #expect(try WebsiteDataType.parseList("WKWebsiteDataTypeLocalStorage") == [.localStorage])
        #expect(throws: WebsiteDataTypeError(name: "cookie")) { try WebsiteDataType.parseList("cookies,cookie") }
        #expect(WebsiteDataTypeError(name: "x").description.contains("indexeddb"))
    }

    // MARK: Helpers

    func rows(_ sql: String) throws -> [String] {
        let db = try SQLiteConnection(location: .file(dir.url.appendingPathComponent(StoreDatabase.fileName)))
        return try db.rows(sql) { $0.string(0) }
    }

    /// The names of the cookies the store's file holds (its cookies table and the cookie
    /// changes logged after the last fold), read with a connection of its own.
    func storedCookieNames() throws -> [String] {
        let db = try SQLiteConnection(location: .file(dir.url.appendingPathComponent(StoreDatabase.fileName)))
        let jar = try db.transaction(write: false) { try CookiePersistence.loadAll(db, limits: CookieLimits()) }
        return jar.all.map(\.name).sorted()
    }
}

extension StoreTests {
    @Test func looserPermissionsOnAnExistingStoreAreReported() throws {
        let path = dir.path("loose")
        do {
            let store = try WebsiteDataStore(directory: path)
            #expect(store.permissionWarnings.isEmpty)
        }
        chmod(path.path, 0o755)
        chmod(path.appendingPathComponent(StoreDatabase.fileName).path, 0o644)
        let reopened = try WebsiteDataStore(directory: path)
        // The directory and the database (SQLite gives its -wal and -shm files the database's mode).
        #expect(reopened.permissionWarnings.contains { $0.hasPrefix(path.path + " is mode 755") })
        #expect(
            reopened.permissionWarnings.contains {
                $0.hasPrefix(path.appendingPathComponent(StoreDatabase.fileName).path + " is mode 644")
            })
        #expect(reopened.permissionWarnings.allSatisfy { $0.contains("readable or writable by others") })
    }
}

/// `default()` and `dataStore(forIdentifier:)` hand out one object per store while it is in use.
@Suite struct SharedStoreTests {
    let dir = TemporaryDirectory()

    @Test func aStoreInUseIsHandedOutAgainAndAReleasedOneReopens() throws {
        let directory = dir.url.appendingPathComponent("default")
        let first = try WebsiteDataStore.shared(
            directory: directory, identifier: nil, readOnly: false)
        let again = try WebsiteDataStore.shared(directory: directory, identifier: nil, readOnly: false)
        #expect(first === again)
        // A read-only open is an object of its own.
        let reading = try WebsiteDataStore.shared(directory: directory, identifier: nil, readOnly: true)
        #expect(reading !== again)
        let other = try WebsiteDataStore.shared(
            directory: dir.url.appendingPathComponent("other"), identifier: nil, readOnly: false)
        #expect(other !== again && other !== first)
    }

    /// `default()` and `dataStore(forIdentifier:)` themselves, called twice while the first
    /// object is held, give that object again. In a process of their own: their stores live
    /// under XDG_DATA_HOME, which a test must not change in the test process.
    @Test func defaultAndAnIdentifiersStoreAreTheSameObjectWhileHeld() throws {
        let home = dir.path("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let child = try ChildProcess(
            "wkstore-stress", ["shared"], environment: ["HOME": home.path, "XDG_DATA_HOME": home.path])
        var lines: [String] = []
        while let line = child.readLine() { lines.append(line) }
        #expect(child.wait() == 0)
        #expect(lines == ["default same", "identifier same", "default and identifier different"])
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("wkstore/default").path))
    }

    @Test func aReleasedStoreIsOpenedAfresh() throws {
        let directory = dir.url.appendingPathComponent("default")
        weak var released: WebsiteDataStore?
        do {
            let store = try WebsiteDataStore.shared(directory: directory, identifier: nil, readOnly: false)
            try store.httpCookieStore.set("https://example.com/", "a=1")
            released = store
        }
        #expect(released == nil, "nothing else holds the store")
        let reopened = try WebsiteDataStore.shared(directory: directory, identifier: nil, readOnly: false)
        #expect(try reopened.httpCookieStore.header("https://example.com/") == "a=1")
    }
}
