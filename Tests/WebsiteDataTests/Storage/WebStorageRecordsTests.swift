import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Records and removal across localStorage, sessionStorage, WebSQL and application caches.
@Suite(.ownThreads, .bothEngines) struct WebStorageRecordsTests {
    let dir = TemporaryDirectory()
    let types: Set<WebsiteDataType> = [.localStorage, .sessionStorage, .webSQLDatabases, .offlineWebApplicationCache]

    /// Data of every type for `origin`, set at the clock's current time.
    private func fill(_ store: WebsiteDataStore, _ origin: SecurityOrigin, tab: SessionStorageNamespace, tag: String)
        throws
    {
        try store.localStorage.setItem("local-\(tag)", "value", origin: origin)
        try store.sessionStorage.setItem("session-\(tag)", "value", origin: origin, namespace: tab)
        let db = try store.webSQLDatabases.open(origin: origin, name: "db-\(tag)")
        try db.transaction { try $0.executeSql("CREATE TABLE t (x)") }
        try store.applicationCache.replaceGroup(
            manifestURL: origin.url.appendingPathComponent("\(tag).appcache"), manifest: Data("CACHE MANIFEST".utf8),
            entries: [ApplicationCacheEntry(url: origin.url.appendingPathComponent("\(tag).js"), body: Data("js".utf8))]
        )
    }

    /// What is left, per type, as `type:tag` strings.
    private func remaining(_ store: WebsiteDataStore, _ origins: [SecurityOrigin], tab: SessionStorageNamespace) throws
        -> Set<String>
    {
        var left = Set<String>()
        for origin in origins {
            for key in try store.localStorage.keys(origin: origin) { left.insert("\(origin.site) \(key)") }
            for key in try store.sessionStorage.keys(origin: origin, namespace: tab) {
                left.insert("\(origin.site) \(key)")
            }
        }
        for info in try store.webSQLDatabases.databases() { left.insert("\(info.site) \(info.name)") }
        for group in try store.applicationCache.groups() {
            left.insert("\(group.site) \(group.manifestURL.lastPathComponent)")
        }
        return left
    }

    @Test func recordsListEveryTypeBySiteWithSizes() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let tab = store.sessionStorage.makeNamespace()
        try fill(store, WebStorageOrigins.example, tab: tab, tag: "a")
        try fill(store, WebStorageOrigins.exampleHTTP, tab: tab, tag: "b")
        try fill(store, WebStorageOrigins.other, tab: tab, tag: "c")
        try store.httpCookieStore.set("https://third.net/", "a=1")

        let records = try await store.dataRecords(ofTypes: types)
        #expect(records.map(\.displayName) == ["example.com", "other.org"])
        let example = try #require(records.first)
        #expect(example.dataTypes == types)
        // Two origins of one site: ("local-a" + "value") and ("local-b" + "value") in UTF-16.
        #expect(example.sizes[.localStorage] == 2 * 2 * Int64("local-a".count + "value".count))
        #expect(example.sizes[.sessionStorage] == 2 * 2 * Int64("session-a".count + "value".count))
        let files = try store.webSQLDatabases.databases().filter { $0.site == "example.com" }.map(\.size).reduce(0, +)
        #expect(example.sizes[.webSQLDatabases] == files && files > 0)
        let groups = try store.applicationCache.groups().filter { $0.site == "example.com" }
        #expect(example.sizes[.offlineWebApplicationCache] == groups.map(\.size).reduce(0, +))
        #expect(groups.first.map { $0.size > Int64("CACHE MANIFEST".count + 2) } == true)

        let all = try await store.dataRecords(ofTypes: .all)
        #expect(all.map(\.displayName) == ["example.com", "other.org", "third.net"])
    }

    @Test func removalByDateTakesExactlyWhatWasModifiedAtOrAfterIt() throws {
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        let tab = store.sessionStorage.makeNamespace()
        let origins = [WebStorageOrigins.example, WebStorageOrigins.other]
        try fill(store, WebStorageOrigins.example, tab: tab, tag: "early")
        clock.advance(100)
        let cut = clock.now
        try fill(store, WebStorageOrigins.example, tab: tab, tag: "atcut")
        clock.advance(1)
        try fill(store, WebStorageOrigins.other, tab: tab, tag: "late")
        let before = try remaining(store, origins, tab: tab)
        #expect(before.count == 12)

        let removed = try store.removeData(ofTypes: types, matching: RemovalFilter(modifiedSince: cut))
        #expect(removed.map(\.displayName) == ["example.com", "other.org"])
        #expect(removed.allSatisfy { $0.dataTypes == types })
        #expect(
            try remaining(store, origins, tab: tab) == [
                "example.com local-early", "example.com session-early", "example.com db-early",
                "example.com early.appcache",
            ])
    }

    @Test func aWriteTransactionMakesAnOldDatabaseNew() throws {
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        let db = try store.webSQLDatabases.open(origin: WebStorageOrigins.example, name: "old")
        try db.transaction { try $0.executeSql("CREATE TABLE t (x)") }
        clock.advance(100)
        let cut = clock.now
        #expect(try store.removeData(ofTypes: [.webSQLDatabases], matching: RemovalFilter(modifiedSince: cut)).isEmpty)
        try db.transaction { try $0.executeSql("INSERT INTO t VALUES (1)") }
        #expect(
            try store.removeData(ofTypes: [.webSQLDatabases], matching: RemovalFilter(modifiedSince: cut)).count == 1)
        #expect(try store.webSQLDatabases.databases().isEmpty)
    }

    @Test func removalBySiteAndByRecordTakesAllOfThatSite() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let tab = store.sessionStorage.makeNamespace()
        let origins = [WebStorageOrigins.example, WebStorageOrigins.exampleHTTP, WebStorageOrigins.other]
        try fill(store, WebStorageOrigins.example, tab: tab, tag: "a")
        try fill(store, WebStorageOrigins.exampleHTTP, tab: tab, tag: "b")
        try fill(store, WebStorageOrigins.other, tab: tab, tag: "c")

        let dryRun = try store.removeData(ofTypes: types, matching: RemovalFilter(sites: ["other.org"]), dryRun: true)
        #expect(dryRun.map(\.displayName) == ["other.org"] && dryRun.first?.dataTypes == types)
        #expect(try remaining(store, origins, tab: tab).count == 12)

        let bySite = try store.removeData(ofTypes: types, matching: RemovalFilter(sites: ["other.org"]))
        #expect(bySite.map(\.displayName) == ["other.org"])
        #expect(try remaining(store, origins, tab: tab).allSatisfy { $0.hasPrefix("example.com ") })
        #expect(try remaining(store, origins, tab: tab).count == 8)

        // One type of a record: the other types of the site stay.
        let record = try #require(try await store.dataRecords(ofTypes: types).first)
        try await store.removeData(ofTypes: [.localStorage, .offlineWebApplicationCache], for: [record])
        #expect(
            try remaining(store, origins, tab: tab) == [
                "example.com session-a", "example.com session-b", "example.com db-a", "example.com db-b",
            ])
        try await store.removeData(ofTypes: types, for: [record])
        #expect(try remaining(store, origins, tab: tab).isEmpty)
        #expect(try await store.dataRecords(ofTypes: types).isEmpty)
    }

    @Test func aNonPersistentStoreListsAndRemovesEveryType() async throws {
        let store = try WebsiteDataStore.testing(nil)
        let tab = store.sessionStorage.makeNamespace()
        try fill(store, WebStorageOrigins.example, tab: tab, tag: "a")
        let records = try await store.dataRecords(ofTypes: types)
        #expect(records.map(\.displayName) == ["example.com"] && records.first?.dataTypes == types)
        try await store.removeData(ofTypes: types, modifiedSince: .distantPast)
        #expect(try remaining(store, [WebStorageOrigins.example], tab: tab).isEmpty)
    }
}
