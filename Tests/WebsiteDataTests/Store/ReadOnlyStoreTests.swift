import CSQLite
import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Read-only opens (`WebsiteDataStore.Configuration.readOnly`): a store is listed, read,
/// exported and backed up without a byte of its directory changing, whether its write-ahead log
/// exists or not; every change is refused with `StoreError.readOnly`; a path that holds no
/// store is a clear error and gains nothing. Other users and read-only mounts are in
/// `HardeningInputTests`.
@Suite(.ownThreads) struct ReadOnlyStoreTests {
    let dir = TemporaryDirectory()
    static let origin = SecurityOrigin(string: "https://example.com")!
    static let manifest = URL(string: "https://example.com/manifest")!

    /// A store holding every persistent type of data, a cookie that has expired since it was
    /// set, a cache body file and an old orphan file in `cache/` (which a writable open deletes).
    func populatedStore(_ name: String) async throws -> URL {
        let directory = dir.path(name)
        do {
            let past = TestClock(Date().addingTimeInterval(-7200))
            let old = try WebsiteDataStore.testing(directory, clock: past)
            try old.httpCookieStore.set("https://example.com/", "expired=1; Max-Age=60")
        }
        let store = try WebsiteDataStore(directory: directory)
        try store.httpCookieStore.set("https://example.com/", "a=1; Max-Age=3600", "b=2; Max-Age=3600")
        try store.httpCookieStore.set("https://other.example/", "session=s")
        try store.localStorage.setItem("k", "v", origin: Self.origin)
        let idb = try store.indexedDB.open(origin: Self.origin, name: "db", version: 1) { tx, _ in
            _ = try tx.createObjectStore("s")
        }
        try idb.transaction("s", mode: .readwrite) { tx in _ = try tx.objectStore("s").put(.string("r"), key: "k") }
        let web = try store.webSQLDatabases.open(origin: Self.origin, name: "w", version: "1")
        try web.transaction { tx in
            _ = try tx.executeSql("CREATE TABLE t (x)")
            _ = try tx.executeSql("INSERT INTO t VALUES (42)")
        }
        _ = try store.applicationCache.replaceGroup(
            manifestURL: Self.manifest, manifest: Data("CACHE MANIFEST".utf8), entries: [])
        let big = Data(repeating: 1, count: 200_000)
        _ = try await store.httpCache.send(CacheRequest(url: URL(string: "https://example.com/big")!)) { _ in
            OriginResponse(status: 200, headers: ["Cache-Control": "max-age=600"], body: .data(big))
        }
        let orphan = directory.appendingPathComponent("cache/0123456789abcdef")
        try Data("orphan".utf8).write(to: orphan)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: orphan.path)
        return directory
    }

    /// Every path under `root` with its content fingerprint and modification time.
    static func snapshot(_ root: URL) -> [String] {
        let times = StoreFiles.modes(under: root).map { entry in
            let url = entry.path.isEmpty ? root : root.appendingPathComponent(entry.path)
            var info = stat()
            _ = stat(url.path, &info)
            return "\(entry.path) mtime \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        return StoreFiles.fingerprint(root) + times
    }

    /// Reads everything through a read-only store, exports and backs it up, tries every kind of
    /// change; returns nothing to check but what `#expect`s.
    func readEverythingAndTryWrites(
        _ directory: URL, expectedCookies: Set<String>, header: String = "a=1; b=2"
    ) async throws {
        let store = try WebsiteDataStore(directory: directory, configuration: .init(readOnly: true))
        #expect(store.isReadOnly && store.isPersistent)
        let cookies = store.httpCookieStore
        #expect(Set(try cookies.allCookies().map { "\($0.name)=\($0.value)" }) == expectedCookies)
        #expect(try cookies.header("https://example.com/") == header)
        let records = try await store.dataRecords(ofTypes: .all)
        let example = try #require(records.first { $0.displayName == "example.com" })
        #expect(
            example.dataTypes.isSuperset(of: [
                .cookies, .localStorage, .indexedDBDatabases, .webSQLDatabases, .diskCache,
            ]), "\(example.dataTypes)")
        #expect(records.contains { $0.displayName == "other.example" })
        #expect(try store.localStorage.getItem("k", origin: Self.origin) == "v")
        let cached = try await store.httpCache.send(
            CacheRequest(url: URL(string: "https://example.com/big")!), mode: .onlyIfCached
        ) { _ in throw CancellationError() }
        #expect(try cached.status == 200 && cached.body.data().count == 200_000)
        let web = try store.webSQLDatabases.open(origin: Self.origin, name: "w", version: "1")
        let rows = try web.readTransaction { tx in try tx.executeSql("SELECT x FROM t").rows.count }
        #expect(rows == 1)

        let idb = try store.indexedDB.open(origin: Self.origin, name: "db", version: 1)
        #expect(try idb.transaction("s") { tx in try tx.objectStore("s").get("k") } == .string("r"))
        #expect(try store.applicationCache.groups().count == 1)

        // Exports and backups are written elsewhere, from the store as it is.
        let export = dir.path("export-\(UUID().uuidString).txt")
        let summary = try CookieInterchange.exportCookies(from: cookies, format: .netscape, to: export)
        #expect(summary.written == expectedCookies.count)
        #expect(try String(contentsOf: export, encoding: .utf8).contains("\ta\t1"))
        let backup = dir.path("backup-\(UUID().uuidString)")
        try store.backup(to: backup)
        #expect(try WebsiteDataStore(directory: backup).httpCookieStore.header("https://example.com/") == header)

        // Every change is refused with the typed error naming the store, and leaves memory as it was.
        let refused = StoreError.readOnly(path: directory.path)
        #expect(throws: refused) { try cookies.set("https://example.com/", "c=3") }
        #expect(throws: refused) { try cookies.setCookies([Cookie(name: "d", value: "4", domain: "example.com")]) }
        #expect(throws: refused) { _ = try cookies.deleteCookies(named: "a", domain: "example.com") }
        #expect(throws: refused) { _ = try store.endSession() }
        #expect(throws: refused) { _ = try store.removeData(ofTypes: .all, matching: RemovalFilter()) }
        await #expect(throws: refused) {
            _ = try await store.removeData(ofTypes: [.cookies], modifiedSince: .distantPast)
        }
        #expect(throws: refused) { try store.set(.cookiesMaxTotal, to: "1") }
        #expect(throws: refused) { try store.localStorage.setItem("k2", "v2", origin: Self.origin) }
        #expect(throws: refused) { _ = try store.vacuum() }
        #expect(throws: refused) {
            _ = try store.webSQLDatabases.open(origin: Self.origin, name: "new", version: "1")
        }
        #expect(throws: (any Error).self) {
            try web.transaction { tx in _ = try tx.executeSql("INSERT INTO t VALUES (1)") }
        }
        #expect(throws: refused) {
            try idb.transaction("s", mode: .readwrite) { tx in _ = try tx.objectStore("s").put(.string("x"), key: "k2")
            }
        }
        #expect(throws: refused) {
            _ = try store.indexedDB.open(origin: Self.origin, name: "db", version: 2) { tx, _ in
                _ = try tx.createObjectStore("t")
            }
        }
        #expect(throws: refused) { _ = try store.applicationCache.deleteGroup(manifestURL: Self.manifest) }
        // A response fetched through the cache is returned, and not stored.
        let fetched = try await store.httpCache.send(CacheRequest(url: URL(string: "https://example.com/new")!)) { _ in
            OriginResponse(status: 200, headers: ["Cache-Control": "max-age=600"], body: .data(Data(count: 100_000)))
        }
        #expect(try fetched.status == 200 && fetched.body.data().count == 100_000)
        let netscape = dir.path("import-\(UUID().uuidString).txt")
        try Data("example.com\tFALSE\t/\tFALSE\t0\timported\t1\n".utf8).write(to: netscape)
        #expect(throws: refused) { _ = try CookieInterchange.importCookies(from: netscape, into: cookies) }
        #expect(Set(try cookies.allCookies().map { "\($0.name)=\($0.value)" }) == expectedCookies)
        #expect(try store.localStorage.getItem("k2", origin: Self.origin) == nil)

        // A dry run lists what a removal would take.
        let wouldGo = try store.removeData(ofTypes: .all, matching: RemovalFilter(), dryRun: true)
        #expect(wouldGo.map(\.displayName).contains("example.com"))
        #expect(try cookies.allCookies().count == expectedCookies.count)
    }

    static let liveCookies: Set<String> = ["a=1", "b=2", "session=s"]

    @Test func aClosedStoreIsReadWithoutChangingAByte() async throws {
        let directory = try await populatedStore("closed")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!files.contains("store.sqlite-wal"), "closed cleanly: \(files)")
        let before = Self.snapshot(directory)
        try await readEverythingAndTryWrites(directory, expectedCookies: Self.liveCookies)
        let child = try await Command.run(
            Command.product("wkstore-stress"), ["read", "--store", directory.path, "--try-writes", "yes"])
        #expect(child.status == 0 && child.lines.filter { $0.hasPrefix("refused ") }.count == 7, "\(child)")
        #expect(Self.snapshot(directory) == before)
        // The expired cookie and the orphan are still there for a writable open to remove.
        let writable = try WebsiteDataStore(directory: directory)
        #expect(
            !FileManager.default.fileExists(atPath: directory.appendingPathComponent("cache/0123456789abcdef").path))
        _ = writable
    }

    @Test func aStoreOpenInAWriterIsReadWithoutChangingAByte() async throws {
        let directory = try await populatedStore("live")
        // A writer holds the store open: its log and index exist and hold the latest commit.
        let writer = try WebsiteDataStore(directory: directory)
        try writer.httpCookieStore.set("https://example.com/", "late=1; Max-Age=3600")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.contains("store.sqlite-wal") && files.contains("store.sqlite-shm"), "\(files)")
        // In this process, SQLite shares the writer's mapping of the index with every connection
        // to the file, so the reader's read marks land in it; another process maps it read-only.
        func withoutIndex(_ lines: [String]) -> [String] { lines.filter { !$0.hasPrefix("store.sqlite-shm ") } }
        let before = Self.snapshot(directory)
        try await readEverythingAndTryWrites(
            directory, expectedCookies: Self.liveCookies.union(["late=1"]), header: "a=1; b=2; late=1")
        #expect(withoutIndex(Self.snapshot(directory)) == withoutIndex(before))
        let beforeChild = Self.snapshot(directory)
        let child = try await Command.run(
            Command.product("wkstore-stress"),
            ["read", "--store", directory.path, "--url", "https://example.com/", "--try-writes", "yes"])
        #expect(child.status == 0 && child.lines.contains("header https://example.com/ a=1; b=2; late=1"), "\(child)")
        #expect(child.lines.filter { $0.hasPrefix("refused ") }.count == 7, "\(child)")
        #expect(Self.snapshot(directory) == beforeChild, "another process's read-only open changes not a byte")
        // The reader sees the writer's later commits.
        let reader = try WebsiteDataStore(directory: directory, configuration: .init(readOnly: true))
        try writer.httpCookieStore.set("https://example.com/", "later=1; Max-Age=3600")
        #expect(try reader.httpCookieStore.header("https://example.com/")?.contains("later=1") == true)
    }

    /// The last writer to close deletes the log and its index; a read-only open that looked at
    /// them just before opens the files again as they are then. A writer that opens creates
    /// them anew; a read meeting the index before it is built waits for it.
    @Test func aStoreOpenedReadOnlyWhileItsWriterClosesIsRead() async throws {
        let directory = dir.path("closing")
        try WebsiteDataStore(directory: directory).httpCookieStore.set("https://example.com/", "a=1; Max-Age=3600")
        // Another process opens the store, commits to its log and closes it, deleting both, over
        // and over, while this one opens the store read-only over and over.
        let rounds = TestScale.rounds(600, sanitized: 100)
        let writer = try LineChild(
            "wkstore-stress",
            ["cookies", "--store", directory.path, "--batches", "\(rounds)", "--per-batch", "1", "--reopen", "yes"])
        var opens = 0
        var failures: [String] = []
        while writer.process.isRunning || opens == 0 {
            do {
                let reader = try WebsiteDataStore(directory: directory, configuration: .init(readOnly: true))
                #expect(try reader.httpCookieStore.header("https://example.com/") == "a=1")
            } catch {
                failures.append("\(error)")
            }
            opens += 1
        }
        let status = writer.wait()
        #expect(status == 0, "\(writer.standardError)")
        #expect(failures.isEmpty, "\(failures.count) of \(opens) opens failed, first: \(failures.first ?? "")")
        print("read-only opens while a writer opened and closed the store \(rounds) times: \(opens)")
    }

    @Test func aLogWithoutItsIndexIsAClearErrorAndStaysAsItIs() async throws {
        let directory = dir.path("log-only")
        let child = try await Command.run(
            Command.product("wkstore-stress"), ["cookies", "--store", directory.path, "--batches", "3"])
        #expect(child.status == 0, "\(child)")
        // A log with commits in it, but no index: as a copy that took only the log would be.
        let file = directory.appendingPathComponent(StoreDatabase.fileName)
        let keep = try WebsiteDataStore(directory: directory)
        try keep.httpCookieStore.set("https://example.com/", "inlog=1; Max-Age=3600")
        let copy = dir.path("log-only-copy")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(
                atPath: file.path + suffix, toPath: copy.appendingPathComponent(StoreDatabase.fileName + suffix).path)
        }
        let before = Self.snapshot(copy)
        #expect {
            _ = try WebsiteDataStore(directory: copy, configuration: .init(readOnly: true))
        } throws: { error in
            guard case .cannotOpen(let path, let detail) = error as? StoreError else { return false }
            print("log without index: \(error)")
            return path.hasPrefix(copy.path) && detail.contains("writable")
        }
        #expect(Self.snapshot(copy) == before)
        _ = keep
    }

    @Test func aPathThatHoldsNoStoreIsAClearErrorAndGainsNothing() async throws {
        let missing = dir.path("no/such/store")
        let file = dir.path("a-file")
        try Data("not a store".utf8).write(to: file)
        let empty = dir.path("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let foreign = dir.path("foreign")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        try Data("not sqlite".utf8).write(to: foreign.appendingPathComponent(StoreDatabase.fileName))
        for (path, words) in [
            (missing, "no such directory"), (file, "is a file"), (empty, "holds no store"), (foreign, "not a database"),
        ] {
            let before = Self.snapshot(dir.url)
            #expect {
                _ = try WebsiteDataStore(directory: path, configuration: .init(readOnly: true))
            } throws: { error in
                guard let error = error as? StoreError else { return false }
                print("read-only open of \(path.lastPathComponent): \(error)")
                return error.description.contains(path.path) && error.description.contains(words)
            }
            #expect(Self.snapshot(dir.url) == before)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path("no").path))
    }

    @Test func aStoreOfAnotherSchemaIsRefusedByAReadOnlyOpenUnchanged() async throws {
        let directory = dir.path("schemas")
        do { try WebsiteDataStore(directory: directory).httpCookieStore.set("https://example.com/", "a=1") }
        let file = directory.appendingPathComponent(StoreDatabase.fileName)
        let latest = Migrator().latestVersion
        func edit(_ sql: String) throws {
            let db = try SQLiteConnection(location: .file(file))
            try db.execute(sql)
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        // Older: as a store written before the newest migration (its record removed).
        try edit("DELETE FROM wkstore_schema WHERE version = \(latest)")
        var before = Self.snapshot(directory)
        #expect(throws: StoreError.olderSchema(path: file.path, found: latest - 1, supported: latest)) {
            _ = try WebsiteDataStore(directory: directory, configuration: .init(readOnly: true))
        }
        #expect(StoreError.olderSchema(path: file.path, found: 1, supported: 2).description.contains("writable"))
        #expect(Self.snapshot(directory) == before)
        // Newer: refused as a writable open refuses it.
        try edit("INSERT INTO wkstore_schema VALUES (\(latest), 'latest', 0), (999, '0999_future', 0)")
        before = Self.snapshot(directory)
        #expect(throws: StoreError.newerSchema(path: file.path, found: 999, supported: latest)) {
            _ = try WebsiteDataStore(directory: directory, configuration: .init(readOnly: true))
        }
        #expect(Self.snapshot(directory) == before)
    }
}
