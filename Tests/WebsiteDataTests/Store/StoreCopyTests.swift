import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// `WebsiteDataStore.copyStore(from:to:)` and `wkstore copy`: a whole store moved between a
/// directory, a PostgreSQL store and the PostgreSQL store of an identifier, compared through what
/// a user of each store sees.
@Suite(.ownThreads) struct StoreCopyTests {
    let dir = TemporaryDirectory()
    let database: PostgreSQLTestDatabase
    let uri: String

    init() throws {
        database = try PostgreSQLTestServer.freshDatabase()
        uri = PostgreSQLTestServer.uri(database.connectionString)
    }

    static let example = SecurityOrigin(string: "https://www.example.com")!
    static let other = SecurityOrigin(string: "http://other.example:8080")!
    /// Over the inline limit, and three chunks of a PostgreSQL store.
    static let largeBody = Data((0..<2_500_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    private func postgreSQL(_ identifier: UUID? = nil) throws -> WebsiteDataStore {
        try WebsiteDataStore(url: URL(string: uri)!, identifier: identifier)
    }

    // MARK: - Filling and viewing

    /// A store with data of every persistent type.
    private func fill(_ store: WebsiteDataStore) async throws {
        let cookies = store.httpCookieStore
        try cookies.set("https://www.example.com/", "persistent=1; Max-Age=86400; Path=/; HttpOnly; SameSite=Lax")
        try cookies.set("https://www.example.com/shop", "session=s; Path=/shop")
        try cookies.set("https://api.other.example/", "host=é ✓; Secure; Max-Age=3600")
        let embedded = CookieRequestContext(topLevelSite: URL(string: "https://site-a.example/")!)
        try cookies.set(
            "https://widget.example/", "p=1; Partitioned; Secure; SameSite=None; Max-Age=3600", context: embedded)

        let small = CacheTestOrigin(headers: ["Cache-Control": "max-age=86400"], body: Data("small".utf8))
        let large = CacheTestOrigin(
            headers: ["Cache-Control": "max-age=86400", "ETag": "\"big\""], body: Self.largeBody)
        let varied = CacheTestOrigin(
            headers: ["Cache-Control": "max-age=86400", "Vary": "Accept-Language"], body: Data("bonjour".utf8))
        _ = try await store.httpCache.get("https://www.example.com/small", origin: small.origin)
        _ = try await store.httpCache.get("https://cdn.example.net/large.bin", origin: large.origin)
        _ = try await store.httpCache.get(
            "https://www.example.com/hello", headers: ["Accept-Language": "fr"], origin: varied.origin)

        try store.localStorage.setItem("theme", "dark", origin: Self.example)
        try store.localStorage.setItem("odd \u{0} key", "tab\tnewline\n😀 \u{0} end", origin: Self.example)
        try store.localStorage.setItem("k", "v", origin: Self.other)

        let idb = try store.indexedDB.open(origin: Self.example, name: "shop", version: 3) { tx, _ throws in
            let items = try tx.createObjectStore("items", keyPath: "id", autoIncrement: true)
            try items.createIndex("sku", keyPath: "sku", unique: true)
            try tx.createObjectStore("kv")
        }
        try idb.transaction(["items", "kv"], mode: .readwrite) { tx throws in
            try tx.objectStore("items").add(["sku": "A-1", "price": 9.99, "tags": ["red"]])
            try tx.objectStore("items").add(["sku": "B-2", "when": .date(Date(timeIntervalSince1970: 0))])
            try tx.objectStore("kv").put("first", key: -1.5)
            try tx.objectStore("kv").put(["bytes": .binary(Data([0, 1, 255]), kind: .uint8)], key: "b")
        }

        try store.applicationCache.replaceGroup(
            manifestURL: URL(string: "https://www.example.com/app.appcache")!,
            manifest: Data("CACHE MANIFEST\n/app.js\n".utf8),
            entries: [
                ApplicationCacheEntry(
                    url: URL(string: "https://www.example.com/app.js")!, kind: .explicit, statusCode: 200,
                    headers: [HTTPHeaderField("Content-Type", "text/javascript")], body: Data("run()".utf8))
            ])

        try store.set(.cookiesMaxTotal, to: "500")
        try store.set(.localStorageQuota, to: "10000000")
    }

    /// Adds a WebSQL-style database.
    private func fillWebSQL(_ store: WebsiteDataStore) throws {
        let db = try store.webSQLDatabases.open(
            origin: Self.example, name: "notes", version: "1.0", displayName: "Notes", estimatedSize: 1 << 20)
        try db.transaction { tx in
            try tx.executeSql("CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, body BLOB, score REAL)")
            try tx.executeSql(
                "INSERT INTO notes (title, body, score) VALUES (?, ?, ?)", ["a\u{0}b", .blob([0, 1]), 1.5])
            try tx.executeSql("INSERT INTO notes (title, body, score) VALUES (?, ?, ?)", ["second", nil, 2])
        }
    }

    /// What a user of the store sees, but cache bodies (serving one is a use, which moves its
    /// last-access time) and WebSQL databases (see `webSQLView`).
    struct View: Equatable {
        var cookies: [Cookie]
        var cacheEntries: [HTTPCache.StoredEntry]
        var localStorage: [[StorageItem]]
        var idbDatabases: [IDBDatabaseInfo]
        var idbRecords: [[IDBValue]]
        var idbIndexed: IDBValue?
        var appcacheGroups: [ApplicationCacheGroup]
        var appcacheEntries: [ApplicationCacheEntry]
        var settings: [StoreSetting: String]
        var records: [WebsiteDataRecord]
    }

    private func view(_ store: WebsiteDataStore) async throws -> View {
        let idb = try store.indexedDB.open(origin: Self.example, name: "shop")
        let (records, indexed) = try idb.transaction(["items", "kv"]) { tx throws in
            (
                [try tx.objectStore("items").getAll(), try tx.objectStore("kv").getAll()],
                try tx.objectStore("items").index("sku").get("B-2")
            )
        }
        let manifest = URL(string: "https://www.example.com/app.appcache")!
        // The memory cache and sessionStorage are this process's own, and are not copied.
        var sites = try await store.dataRecords(
            ofTypes: WebsiteDataType.all.subtracting([.memoryCache, .sessionStorage]))
        // A WebSQL database's size is its file's, which differs between copies of equal content.
        for index in sites.indices { sites[index].sizes[.webSQLDatabases] = nil }
        return View(
            cookies: try store.httpCookieStore.allCookies().sorted { "\($0.key)" < "\($1.key)" },
            cacheEntries: try store.httpCache.entries().sorted { $0.url.absoluteString < $1.url.absoluteString },
            localStorage: [
                try store.localStorage.items(origin: Self.example), try store.localStorage.items(origin: Self.other),
            ],
            idbDatabases: try store.indexedDB.databases(), idbRecords: records, idbIndexed: indexed,
            appcacheGroups: try store.applicationCache.groups(),
            appcacheEntries: try store.applicationCache.entries(manifestURL: manifest),
            settings: try store.settings(), records: sites)
    }

    /// Expects the store's view to be `expected`, naming each part that differs.
    private func same(
        _ store: WebsiteDataStore, _ expected: View, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let found = try await view(store)
        let parts = Mirror(reflecting: found).children.map { ($0.label!, $0.value as! AnyHashable) }
        let wanted = Mirror(reflecting: expected).children.map { $0.value as! AnyHashable }
        for (index, (label, value)) in parts.enumerated() {
            #expect(value == wanted[index], "\(label)", sourceLocation: sourceLocation)
        }
    }

    /// The bodies the store's cache serves, without going to the network.
    private func bodies(_ store: WebsiteDataStore) async throws -> [Data] {
        var bodies: [Data] = []
        for url in ["https://www.example.com/small", "https://cdn.example.net/large.bin"] {
            let response = try await store.httpCache.get(url, origin: unreachableOrigin)
            #expect(response.outcome == .hit, "\(url)")
            bodies.append(try response.bytes())
        }
        let varied = try await store.httpCache.get(
            "https://www.example.com/hello", headers: ["Accept-Language": "fr"], origin: unreachableOrigin)
        bodies.append(try varied.bytes())
        return bodies
    }

    private func webSQLView(_ store: WebsiteDataStore) throws -> ([WebSQLResultSet], [String]) {
        let db = try store.webSQLDatabases.open(origin: Self.example, name: "notes")
        let rows = try db.readTransaction { tx in [try tx.executeSql("SELECT * FROM notes ORDER BY id")] }
        let infos = try store.webSQLDatabases.databases().map {
            "\($0.origin) \($0.name) \($0.version) \($0.displayName) \($0.estimatedSize) \($0.created) \($0.modified)"
        }
        return (rows, infos)
    }

    // MARK: - Tests

    @Test func aStoreGoesFromADirectoryToPostgreSQLToAnIdentifierAndBack() async throws {
        let first = dir.url.appendingPathComponent("laptop")
        let source = try WebsiteDataStore(directory: first)
        try await fill(source)
        try fillWebSQL(source)
        // Seen by a store object of its own, whose memory cache is empty, as the copies' are.
        let expected = try await view(WebsiteDataStore(directory: first))
        #expect(expected.cookies.count == 4 && expected.cacheEntries.count == 3)
        #expect(
            expected.cookies.contains { $0.expires == nil } && expected.cookies.contains { !$0.partitionKey.isEmpty })
        let expectedBodies = try await bodies(source)
        #expect(expectedBodies[1] == Self.largeBody)
        let expectedWebSQL = try webSQLView(source)

        // A store object open on the destination before the copy sees it after.
        let fleet = try postgreSQL()
        #expect(try fleet.httpCookieStore.allCookies().isEmpty)
        let summary = try WebsiteDataStore.copyStore(from: source, to: fleet)
        var counts = StoreCopySummary()
        counts.cookies = 4
        counts.diskCacheEntries = 3
        counts.localStorageItems = 3
        counts.indexedDBDatabases = 1
        counts.indexedDBRecords = 4
        counts.webSQLDatabases = 1
        counts.applicationCacheGroups = 1
        counts.settings = 2
        #expect(summary == counts)
        // The large body is chunks of the PostgreSQL store, a chunk a row.
        let chunks = try fleet.database.read { try $0.scalar("SELECT count(*) FROM http_cache_chunks")?.int64 }
        #expect(chunks == 3)
        try await same(fleet, expected)
        try await same(postgreSQL(), expected)

        let identifier = UUID()
        let copy = try postgreSQL(identifier)
        #expect(try WebsiteDataStore.copyStore(from: fleet, to: copy) == counts)
        try await same(copy, expected)
        // A PostgreSQL store opens and runs the copied images.
        #expect(try webSQLView(fleet) == expectedWebSQL)
        #expect(try webSQLView(copy) == expectedWebSQL)

        let back = dir.url.appendingPathComponent("back")
        let returned = try WebsiteDataStore(directory: back)
        #expect(try WebsiteDataStore.copyStore(from: copy, to: returned) == counts)
        try await same(returned, expected)
        try await same(WebsiteDataStore(directory: back), expected)
        #expect(try webSQLView(returned) == expectedWebSQL)
        // The large body is a file of the cache folder again, owner-only.
        let cacheFiles = try FileManager.default.contentsOfDirectory(
            atPath: back.appendingPathComponent("cache").path)
        #expect(cacheFiles.count == 1)
        let mode =
            try FileManager.default.attributesOfItem(
                atPath: back.appendingPathComponent("cache/\(cacheFiles[0])").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        #expect(try await bodies(fleet) == expectedBodies)
        #expect(try await bodies(copy) == expectedBodies)
        #expect(try await bodies(returned) == expectedBodies)
        // The source was only read.
        #expect(try webSQLView(source) == expectedWebSQL)

        // The copy goes on as a store of its own: new rows take ids past the copied ones.
        try copy.localStorage.setItem("after", "copy", origin: Self.other)
        _ = try copy.indexedDB.open(origin: Self.example, name: "later", version: 1) { tx, _ throws in
            try tx.createObjectStore("s")
        }
        #expect(try copy.indexedDB.databases().map(\.name).sorted() == ["later", "shop"])
        #expect(try copy.localStorage.getItem("after", origin: Self.other) == "copy")
    }

    /// More rows than a page of the copy (100) in every table read in pages, keys of several
    /// columns and of every type included.
    @Test func manyRowsAreCopiedPageByPage() async throws {
        let source = try WebsiteDataStore(directory: dir.url.appendingPathComponent("many"))
        for site in 0..<5 {
            for n in 0..<50 {
                try source.httpCookieStore.set("https://www.site\(site).example/", "c\(n)=\(n); Max-Age=3600")
                try source.httpCookieStore.set("https://www.site\(site).example/", "h\(n)=\(n); Secure; Path=/p")
            }
        }
        for n in 0..<250 { try source.localStorage.setItem("key \(n)", "value \(n)", origin: Self.example) }
        let idb = try source.indexedDB.open(origin: Self.example, name: "many", version: 1) { tx, _ throws in
            let items = try tx.createObjectStore("items")
            try items.createIndex("byTag", keyPath: "tag")
        }
        try idb.transaction(["items"], mode: .readwrite) { tx throws in
            for n in 0..<250 { try tx.objectStore("items").put(["tag": .string("t\(n % 7)")], key: .number(Double(n))) }
        }
        let origin = CacheTestOrigin(headers: ["Cache-Control": "max-age=86400"], body: Data("x".utf8))
        for n in 0..<120 { _ = try await source.httpCache.get("https://www.example.com/\(n)", origin: origin.origin) }
        let items = try source.localStorage.items(origin: Self.example)

        let fleet = try postgreSQL(UUID())
        let summary = try WebsiteDataStore.copyStore(from: source, to: fleet)
        #expect(summary.cookies == 500 && summary.localStorageItems == 250 && summary.indexedDBRecords == 250)
        #expect(summary.diskCacheEntries == 120)
        let again = try postgreSQL(UUID())
        #expect(try WebsiteDataStore.copyStore(from: fleet, to: again) == summary)
        let back = try WebsiteDataStore(directory: dir.url.appendingPathComponent("many-back"))
        #expect(try WebsiteDataStore.copyStore(from: again, to: back) == summary)
        for store in [fleet, again, back] {
            #expect(try store.httpCookieStore.allCookies().count == 500)
            #expect(try store.localStorage.items(origin: Self.example) == items)
            let found = try store.indexedDB.open(origin: Self.example, name: "many").transaction(["items"]) {
                tx throws in
                (try tx.objectStore("items").count(), try tx.objectStore("items").index("byTag").count(.only("t3")))
            }
            #expect(found.0 == 250 && found.1 == 36)
            #expect(try store.httpCache.entries().count == 120)
        }
    }

    /// The check after the commit finds a row changed, a cache body changed and a row added.
    @Test func theCheckFindsWhatDiffers() async throws {
        let source = try WebsiteDataStore(directory: dir.url.appendingPathComponent("checked"))
        try await fill(source)
        for destination in [
            try postgreSQL(UUID()), try WebsiteDataStore(directory: dir.url.appendingPathComponent("d")),
        ] {
            let copier = StoreCopier(from: source, to: destination)
            try copier.copyAndCommit()
            try copier.check()
            try destination.database.writer.withLock { db in
                try db.execute("UPDATE idb_records SET value = key WHERE 1 = 1")
                try db.execute("UPDATE settings SET value = '501' WHERE key = 'cookies.max-total'")
            }
            let error = #expect(throws: StoreCopyError.self) { try copier.check() }
            #expect(error?.reason == .mismatch)
            #expect(error?.message.contains("idb_records") == true && error?.message.contains("settings") == true)
        }
        // A body changed in its chunks (PostgreSQL) or its file (a directory).
        let fleet = try postgreSQL(UUID())
        let copier = StoreCopier(from: source, to: fleet)
        try copier.copyAndCommit()
        try fleet.database.writer.withLock { db in
            try db.execute("UPDATE http_cache_chunks SET bytes = ? WHERE n = 1", [.blob([1, 2, 3])])
        }
        #expect(throws: StoreCopyError.self) { try copier.check() }
        let directory = try WebsiteDataStore(directory: dir.url.appendingPathComponent("e"))
        let second = StoreCopier(from: source, to: directory)
        try second.copyAndCommit()
        let cache = directory.directory!.appendingPathComponent("cache")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: cache.path).first)
        let handle = try FileHandle(forWritingTo: cache.appendingPathComponent(name))
        try handle.seek(toOffset: 1000)
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let changed = #expect(throws: StoreCopyError.self) { try second.check() }
        #expect(changed?.message.contains("http_cache") == true)
    }

    @Test func aDestinationWithDataIsRefusedAndLeftAsItWas() async throws {
        let source = try WebsiteDataStore(directory: dir.url.appendingPathComponent("source"))
        try await fill(source)
        let fleet = try postgreSQL()
        try fleet.localStorage.setItem("mine", "1", origin: Self.other)
        try fleet.set(.cookiesMaxTotal, to: "42")
        let before = try await fleet.dataRecords(ofTypes: WebsiteDataType.all)
        let error = #expect(throws: StoreCopyError.self) { try WebsiteDataStore.copyStore(from: source, to: fleet) }
        #expect(error?.reason == .destinationNotEmpty)
        #expect(error?.message.contains("local_storage") == true)
        #expect(try await fleet.dataRecords(ofTypes: WebsiteDataType.all) == before)
        #expect(try fleet.localStorage.items(origin: Self.other).map(\.key) == ["mine"])
        #expect(try fleet.settings()[.cookiesMaxTotal] == "42")
        #expect(try fleet.httpCookieStore.allCookies().isEmpty)

        // A directory destination whose only data is a cookie set then removed is empty.
        let target = try WebsiteDataStore(directory: dir.url.appendingPathComponent("target"))
        try target.httpCookieStore.set("https://www.example.com/", "gone=1")
        try target.httpCookieStore.set("https://www.example.com/", "gone=1; Max-Age=0")
        try target.httpCookieStore.set("https://www.example.com/", "kept=1")
        #expect(throws: StoreCopyError.self) { try WebsiteDataStore.copyStore(from: source, to: target) }
        #expect(try target.httpCookieStore.allCookies().map(\.name) == ["kept"])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: target.directory!.path).contains("cache") == false)

        #expect(throws: StoreCopyError.self) { try WebsiteDataStore.copyStore(from: source, to: source) }
        let memory = #expect(throws: StoreCopyError.self) {
            try WebsiteDataStore.copyStore(from: WebsiteDataStore.nonPersistent(), to: target)
        }
        #expect(memory?.reason == .notPersistent)
    }

    @Test func theCommandCopiesAndPrintsCounts() async throws {
        let source = dir.url.appendingPathComponent("crawl")
        try await fill(try WebsiteDataStore(directory: source))
        let identifier = UUID()
        let wkstore = Command.product("wkstore")
        let copied = try await Command.run(
            wkstore, ["copy", source.path, uri, "--destination-identifier", identifier.uuidString])
        #expect(copied.status == 0, "\(copied)")
        #expect(copied.lines.first == "cookies              4", "\(copied)")
        #expect(copied.lines.contains("disk cache entries   3"), "\(copied)")
        #expect(copied.lines.count == 8)
        #expect(try postgreSQL(identifier).localStorage.getItem("theme", origin: Self.example) == "dark")

        let back = dir.url.appendingPathComponent("back")
        let json = try await Command.run(
            wkstore, ["--json", "copy", uri, back.path, "--source-identifier", identifier.uuidString])
        #expect(json.status == 0, "\(json)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Int]
        #expect(object?["cookies"] == 4 && object?["localStorageItems"] == 3 && object?["settings"] == 2)

        // Again into the same destination: refused on one line, nothing changed.
        let again = try await Command.run(wkstore, ["copy", source.path, back.path])
        #expect(again.status == 1 && again.isOneLineMessage(), "\(again)")
        #expect(again.stderr.contains("holds website data"))

        let missing = try await Command.run(wkstore, ["copy", dir.url.appendingPathComponent("nope").path, uri])
        #expect(missing.status != 0 && missing.isOneLineMessage(), "\(missing)")
        let badIdentifier = try await Command.run(
            wkstore, ["copy", source.path, uri, "--destination-identifier", "x"])
        #expect(badIdentifier.status == 2 && badIdentifier.isOneLineMessage(), "\(badIdentifier)")

        // A password in a URI is never shown.
        let secret = "s3cret-\(UUID().uuidString.prefix(6))"
        let refused = try await Command.run(
            wkstore,
            ["copy", source.path, "postgresql://\(PostgreSQLTestCluster.passwordRole):\(secret)@127.0.0.1:1/db"])
        #expect(refused.status == 1 && refused.isOneLineMessage(), "\(refused)")
        #expect(!refused.stderr.contains(secret) && !refused.stdout.contains(secret))
    }
}
