import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

@Suite(.ownThreads) struct MaintenanceTests {
    let dir = TemporaryDirectory()

    @Test func backupOfALiveStoreOpensAndPassesIntegrityCheck() throws {
        let source = dir.path("source")
        let store = try WebsiteDataStore(directory: source)
        try store.httpCookieStore.set("https://example.com/", "before=1; Max-Age=3600")
        // Another process writes while the backup runs.
        let writer = try ChildProcess("wkstore-stress", ["cookies", "--store", source.path, "--batches", "400"])
        #expect(writer.readLine()?.hasPrefix("committed") == true)
        try store.backup(to: dir.path("copy"))
        #expect(writer.wait() == 0)
        let copy = try WebsiteDataStore(directory: dir.path("copy"))
        #expect(try copy.httpCookieStore.header("https://example.com/") == "before=1")
        let db = try SQLiteConnection(location: .file(dir.path("copy/\(StoreDatabase.fileName)")))
        #expect(try db.scalar("PRAGMA integrity_check")?.text == "ok")
        // Whole batches only: the copy is one snapshot.
        let names = try copy.httpCookieStore.allCookies().map(\.name).filter { $0 != "before" }
        let batches = Dictionary(grouping: names) { $0.split(separator: "_").first! }
        #expect(batches.values.allSatisfy { $0.count == 5 })
        #expect(throws: StoreError.self) { try store.backup(to: dir.path("copy")) }
    }

    @Test func vacuumGivesBackTheSpaceOfALargeClear() throws {
        let store = try WebsiteDataStore(directory: dir.url)
        try store.set(.cookiesMaxTotal, to: "100000")
        for site in 0..<2000 {
            try store.httpCookieStore.set(
                "https://s\(site).example/", "a=\(String(repeating: "x", count: 1000))",
                "b=\(String(repeating: "y", count: 1000))")
        }
        try store.removeData(ofTypes: [.cookies], matching: RemovalFilter())
        let result = try store.vacuum()
        #expect(result.bytesAfter < result.bytesBefore / 4)
        #expect(try store.httpCookieStore.allCookies().isEmpty)
        try store.httpCookieStore.set("https://example.com/", "after=1")
        #expect(try WebsiteDataStore(directory: dir.url).httpCookieStore.header("https://example.com/") == "after=1")
    }
}
