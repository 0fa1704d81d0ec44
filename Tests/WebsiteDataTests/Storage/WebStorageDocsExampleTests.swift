import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// The example at the top of Docs/storage.md, run as written.
@Suite(.ownThreads) struct WebStorageDocsExampleTests {
    let dir = TemporaryDirectory()

    @Test func theDocumentedExampleRuns() async throws {
        let storeDirectory = dir.url
        // --- Docs/storage.md ---
        let store = try WebsiteDataStore(directory: storeDirectory)
        let origin = SecurityOrigin(url: URL(string: "https://www.example.com/app/")!)! // https://www.example.com

        try store.localStorage.setItem("theme", "dark", origin: origin)
        let theme = try store.localStorage.getItem("theme", origin: origin) // "dark"

        let tab = store.sessionStorage.makeNamespace() // one per top-level browsing context
        try store.sessionStorage.setItem("step", "2", origin: origin, namespace: tab)

        let db = try store.webSQLDatabases.open(
            origin: origin, name: "notes", version: "1.0",
            displayName: "Notes", estimatedSize: 1 << 20)
        try db.transaction { tx in
            try tx.executeSql("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT)")
            try tx.executeSql("INSERT INTO notes (text) VALUES (?)", ["hello"])
        }
        let rows = try db.readTransaction { tx in try tx.executeSql("SELECT text FROM notes").rows }
        let text = rows[0]["text"] // .text("hello")

        try store.applicationCache.replaceGroup(
            manifestURL: URL(string: "https://www.example.com/app.appcache")!,
            manifest: Data("CACHE MANIFEST\n/app.js\n".utf8),
            entries: [
                ApplicationCacheEntry(
                    url: URL(string: "https://www.example.com/app.js")!,
                    headers: [HTTPHeaderField("Content-Type", "text/javascript")],
                    body: Data("run()".utf8))
            ])

        let records = try await store.dataRecords(ofTypes: [
            .localStorage, .sessionStorage,
            .webSQLDatabases, .offlineWebApplicationCache,
        ])
        // --- end ---
        #expect(origin.description == "https://www.example.com")
        #expect(theme == "dark" && text == .text("hello"))
        #expect(records.map(\.displayName) == ["example.com"])
        let sizes = try #require(records.first?.sizes)
        #expect(sizes[.localStorage] == Int64(18) && sizes[.sessionStorage] == Int64(10))
        let fileBytes = try db.size()
        #expect(sizes[.webSQLDatabases] == fileBytes)
        // The manifest (23 bytes), the entry's URL (30), header name and value (12 + 15) and body (5).
        let appcacheBytes: Int64 = 23 + 30 + 12 + 15 + 5
        #expect(sizes[.offlineWebApplicationCache] == appcacheBytes)
    }
}
