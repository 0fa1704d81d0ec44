import CSQLite
import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Hostile conditions around a store: damaged side files, a read-only store used by an
/// unprivileged user, a full disk, `--since` at the edges of time, and imports far larger than
/// memory. Each ends in a clear error or correct behaviour, never a crash, and nothing
/// acknowledged is lost. `--since`, hostile cookie domains and large imports run on both
/// engines; what concerns a store directory's files is SQLite's alone.
@Suite(.ownThreads, .bothEngines) struct HardeningInputTests {
    let dir = TemporaryDirectory()

    /// A store with `batches` whole cookie batches written by a process killed right after the
    /// last acknowledgement, so its write-ahead log still holds the latest commits.
    func killedWriterStore(_ name: String, batches: Int) async throws -> (store: URL, acknowledged: Int) {
        let store = dir.path(name)
        let child = try LineChild(
            "wkstore-stress", ["cookies", "--store", store.path, "--batches", "1000000", "--per-batch", "3"])
        var acknowledged = -1
        while acknowledged < batches - 1, let line = await child.nextLine(), line.hasPrefix("committed ") {
            acknowledged = Int(line.dropFirst("committed ".count))!
        }
        child.kill()
        while let line = await child.nextLine() {
            if line.hasPrefix("committed ") { acknowledged = Int(line.dropFirst("committed ".count))! }
        }
        return (store, acknowledged)
    }

    /// The batches whose cookies a store holds, each checked whole.
    func batches(in store: URL) throws -> [Int] {
        let names = try WebsiteDataStore(directory: store).httpCookieStore.allCookies().map(\.name)
        let grouped = Dictionary(grouping: names) { Int($0.dropFirst().split(separator: "_")[0])! }
        for (batch, members) in grouped { #expect(members.count == 3, "batch \(batch) is half there") }
        return grouped.keys.sorted()
    }

    // MARK: - Damaged WAL and SHM side files

    @Test(.sqliteOnly) func aWriteAheadLogOverwrittenWithRandomBytesIsIgnoredNotTrusted() async throws {
        let (store, acknowledged) = try await killedWriterStore("wal-random", batches: 40)
        let wal = store.appendingPathComponent("store.sqlite-wal")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int)
        try #require(size > 32, "the killed writer left a write-ahead log")
        var random = SystemRandomNumberGenerator()
        try Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: wal)
        // Random bytes are not a valid log (no magic, no checksums): SQLite ignores them, so the
        // store opens with what its main file holds, whole batches only, an unbroken prefix.
        #expect(try StoreFiles.integrityCheck(store.appendingPathComponent(StoreDatabase.fileName)) == "ok")
        let present = try batches(in: store)
        #expect(present == Array(0..<present.count), "a prefix of the batches: \(present)")
        // Batches 0...acknowledged were acknowledged; the one being written when the kill came
        // may have committed without saying so.
        #expect(present.count <= acknowledged + 2)
        print("random WAL: \(acknowledged + 1) acknowledged batches, \(present.count) in the main file")
    }

    @Test(.sqliteOnly) func aTruncatedWriteAheadLogKeepsWholeTransactionsOnly() async throws {
        let (store, acknowledged) = try await killedWriterStore("wal-truncated", batches: 60)
        let wal = store.appendingPathComponent("store.sqlite-wal")
        let full = try Data(contentsOf: wal)
        try #require(full.count > 4096)
        // Cut the log in the middle of a frame.
        try full.prefix(full.count / 2 + 77).write(to: wal)
        #expect(try StoreFiles.integrityCheck(store.appendingPathComponent(StoreDatabase.fileName)) == "ok")
        let present = try batches(in: store)
        #expect(present == Array(0..<present.count), "a prefix of the batches: \(present)")
        // Batches 0...acknowledged were acknowledged; the one being written when the kill came
        // may have committed without saying so.
        #expect(present.count <= acknowledged + 2)
        print("truncated WAL: \(acknowledged + 1) acknowledged batches, \(present.count) kept")
    }

    @Test(.sqliteOnly) func aSharedMemoryFileOfRandomBytesIsRebuilt() async throws {
        let (store, acknowledged) = try await killedWriterStore("shm-random", batches: 30)
        let shm = store.appendingPathComponent("store.sqlite-shm")
        let size = max(32768, (try? FileManager.default.attributesOfItem(atPath: shm.path)[.size] as? Int) ?? 0)
        var random = SystemRandomNumberGenerator()
        try Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: shm)
        // The shared-memory index is rebuilt from the log: nothing acknowledged is lost.
        #expect(try StoreFiles.integrityCheck(store.appendingPathComponent(StoreDatabase.fileName)) == "ok")
        // (Batches after the last one read as acknowledged may have committed before the kill
        // landed: a loaded machine reads the writer's lines late.)
        let present = try batches(in: store)
        #expect(
            present == Array(0..<present.count) && present.count > acknowledged,
            "acknowledged through \(acknowledged): \(present)")
    }

    @Test(.sqliteOnly) func aTruncatedMainFileBesideItsLogIsRefusedWithoutChangingIt() async throws {
        let (store, _) = try await killedWriterStore("main-truncated", batches: 50)
        let file = store.appendingPathComponent(StoreDatabase.fileName)
        do {
            // Put everything in the main file so that truncating it loses pages.
            let db = try SQLiteConnection(location: .file(file))
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let full = try Data(contentsOf: file)
        try full.prefix(full.count / 3).write(to: file)
        let damaged = try Data(contentsOf: file)
        #expect {
            let reopened = try WebsiteDataStore(directory: store)
            _ = try reopened.httpCookieStore.allCookies()
            _ = try reopened.removeData(ofTypes: .all, matching: RemovalFilter())
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            print("truncated main file: \(error)")
            return error.description.contains(file.path)
        }
        #expect(try Data(contentsOf: file) == damaged)
    }

    @Test(.sqliteOnly) func sideFilesThatAreNotFilesAreAClearError() async throws {
        let store = dir.path("side-dirs")
        do { try WebsiteDataStore(directory: store).httpCookieStore.set("https://example.com/", "a=1") }
        // Something else sits where the log must go.
        try FileManager.default.createDirectory(
            at: store.appendingPathComponent("store.sqlite-wal"), withIntermediateDirectories: false)
        #expect {
            _ = try WebsiteDataStore(directory: store).httpCookieStore.allCookies()
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            print("a directory in place of the WAL: \(error)")
            return error.description.contains(store.path)
        }
    }

    // MARK: - A read-only store, used by an unprivileged user

    /// A store with data, handed to `nobody` and made read-only (directory 0500, files 0400).
    func readOnlyStore() throws -> URL {
        let root = dir.path("readonly")
        let store = root.appendingPathComponent("store")
        do {
            let writer = try WebsiteDataStore(directory: store)
            try writer.httpCookieStore.set("https://example.com/", "a=1; Max-Age=3600", "b=2; Max-Age=3600")
            try writer.localStorage.setItem("k", "v", origin: SecurityOrigin(string: "https://example.com")!)
        }
        chmod(root.path, 0o755)
        StoreFiles.chown(store, to: Command.nobody)
        for entry in StoreFiles.modes(under: store) {
            let url = entry.path.isEmpty ? store : store.appendingPathComponent(entry.path)
            chmod(url.path, entry.isDirectory ? 0o500 : 0o400)
        }
        return store
    }

    @Test(.sqliteOnly, .enabled(if: getuid() == 0, "setpriv needs root to change user"))
    func aReadOnlyStoreReadsOrFailsClearlyAndWritesChangeNothing() async throws {
        let store = try readOnlyStore()
        let before = StoreFiles.fingerprint(store)
        let sandbox = dir.path("readonly")

        // Reading works: read commands open the store read-only.
        let list = try await Command.wkstore(
            ["--store", store.path, "cookies", "list"], sandbox: sandbox, asUser: Command.nobody)
        #expect(list.status == 0, "\(list)")
        #expect(list.lines.count == 2 && list.stdout.contains("a=1") && list.stdout.contains("b=2"), "\(list)")
        let header = try await Command.wkstore(
            ["--store", store.path, "cookies", "header", "https://example.com/"], sandbox: sandbox,
            asUser: Command.nobody)
        #expect(header.status == 0 && header.stdout == "a=1; b=2\n", "\(header)")
        let records = try await Command.wkstore(
            ["--store", store.path, "records"], sandbox: sandbox, asUser: Command.nobody)
        #expect(records.status == 0 && records.stdout.hasPrefix("example.com"), "\(records)")
        let export = try await Command.wkstore(
            ["--store", store.path, "export"], sandbox: sandbox, asUser: Command.nobody)
        #expect(export.status == 0 && export.stdout.contains("\ta\t1") && export.stdout.contains("\tb\t2"), "\(export)")
        let dryRun = try await Command.wkstore(
            ["--store", store.path, "clear", "--types", "all", "--dry-run"], sandbox: sandbox, asUser: Command.nobody)
        #expect(dryRun.status == 0 && dryRun.stdout.contains("example.com"), "\(dryRun)")

        // Writing fails with one clear line, through the command and through the library.
        let set = try await Command.wkstore(
            ["--store", store.path, "cookies", "set", "--url", "https://example.com/", "c=3"],
            sandbox: sandbox, asUser: Command.nobody)
        #expect(set.status == 1 && set.isOneLineMessage(), "\(set)")
        #expect(set.stderr.contains(store.path) || set.stderr.lowercased().contains("read"), "\(set)")
        let clear = try await Command.wkstore(
            ["--store", store.path, "clear", "--types", "all"], sandbox: sandbox, asUser: Command.nobody)
        #expect(clear.status == 1 && clear.isOneLineMessage(), "\(clear)")
        let library = try await Command.run(
            Command.product("wkstore-stress"), ["cookies", "--store", store.path, "--batches", "1"],
            asUser: Command.nobody)
        #expect(library.status == 2 && library.isOneLineMessage("wkstore-stress: "), "\(library)")
        print(
            "read-only store as nobody: list exit \(list.status) \(list.stderr.isEmpty ? "" : list.stderr)"
                + "set exit \(set.status): \(set.stderr)library: \(library.stderr)", terminator: "")

        // A read-only open through the library reads and exports everything, and refuses every change.
        let read = try await readAsNobody(store, sandbox: sandbox)
        #expect(read.status == 0, "\(read)")
        #expect(read.lines.contains("cookie a=1") && read.lines.contains("cookie b=2"), "\(read)")
        #expect(read.lines.contains("header https://example.com/ a=1; b=2"), "\(read)")
        #expect(read.lines.contains("local k=v") && read.lines.contains("exported 2"), "\(read)")
        #expect(read.lines.contains("backed-up 2"), "\(read)")
        #expect(read.lines.contains { $0.hasPrefix("record example.com ") && $0.contains("cookies") }, "\(read)")
        #expect(!read.stdout.contains("changed ") && !read.stdout.contains("error "), "\(read)")
        #expect(read.lines.filter { $0.hasPrefix("refused ") }.count == 7, "\(read)")
        #expect(read.lines.contains { $0.hasPrefix("refused set-cookie: ") && $0.contains(store.path) }, "\(read)")

        // Nothing changed, not a byte, no file added.
        #expect(StoreFiles.fingerprint(store) == before)
    }

    /// Runs `wkstore-stress read` on `store` as `nobody` (or `user`), exporting and backing up
    /// into a folder of that user's own under `sandbox`.
    func readAsNobody(_ store: URL, sandbox: URL, user: UInt32 = Command.nobody) async throws -> CommandResult {
        let out = sandbox.appendingPathComponent("out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        chmod(sandbox.path, 0o755)
        Foundation.chown(out.path, user, user)
        return try await Command.run(
            Command.product("wkstore-stress"),
            [
                "read", "--store", store.path, "--url", "https://example.com/", "--origin", "https://example.com",
                "--export", out.appendingPathComponent("cookies.txt").path,
                "--backup", out.appendingPathComponent("backup").path, "--try-writes", "yes",
            ], asUser: user)
    }

    @Test(.sqliteOnly, .enabled(if: getuid() == 0, "setpriv needs root to change user"))
    func anotherUsersLiveStoreIsReadOnlyWithItsLogAndChangesNothing() async throws {
        // A writer killed after its commits: the log and its index hold them, as while a crawler runs.
        let (store, acknowledged) = try await killedWriterStore("live-readonly", batches: 20)
        let files = try FileManager.default.contentsOfDirectory(atPath: store.path)
        try #require(files.contains("store.sqlite-wal") && files.contains("store.sqlite-shm"), "\(files)")
        let root = store.deletingLastPathComponent()
        chmod(root.path, 0o755)
        StoreFiles.chown(store, to: Command.nobody)
        for entry in StoreFiles.modes(under: store) {
            let url = entry.path.isEmpty ? store : store.appendingPathComponent(entry.path)
            chmod(url.path, entry.isDirectory ? 0o500 : 0o400)
        }
        // Owned by nobody, so root is "another user" too, and reads without writing.
        let before = StoreFiles.fingerprint(store)
        let read = try await readAsNobody(store, sandbox: dir.path("live-out"))
        #expect(read.status == 0, "\(read)")
        // Every acknowledged batch of 3 is there; the batch in flight at the kill may be too, whole.
        let readCookies = read.lines.filter { $0.hasPrefix("cookie ") }.count
        #expect([(acknowledged + 1) * 3, (acknowledged + 2) * 3].contains(readCookies), "\(read.stderr)")
        #expect(read.lines.filter { $0.hasPrefix("refused ") }.count == 7, "\(read)")
        let asRoot = try WebsiteDataStore(directory: store, configuration: .init(readOnly: true))
        #expect(try asRoot.httpCookieStore.allCookies().count == readCookies)
        #expect(StoreFiles.fingerprint(store) == before)

        // A directory the user cannot read is a clear error naming it.
        let hidden = dir.path("hidden")
        do { try WebsiteDataStore(directory: hidden).httpCookieStore.set("https://example.com/", "a=1") }
        chmod(hidden.path, 0o700)
        let refused = try await Command.run(
            Command.product("wkstore-stress"), ["read", "--store", hidden.path], asUser: Command.nobody)
        #expect(refused.status == 2 && refused.isOneLineMessage("wkstore-stress: "), "\(refused)")
        #expect(refused.stderr.contains(hidden.path) && refused.stderr.contains("cannot be read"), "\(refused)")
    }

    @Test(.sqliteOnly, .enabled(if: getuid() == 0, "mounting a file system needs root"))
    func aStoreOnAReadOnlyMountIsReadAndChangesNothing() async throws {
        let mount = dir.path("ro-mount")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        let mounted = try await Command.run(
            URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=8m,mode=0755", "tmpfs", mount.path])
        try #require(mounted.status == 0, "\(mounted)")
        defer { Command.unmount(mount) }
        let store = mount.appendingPathComponent("store")
        do {
            let writer = try WebsiteDataStore(directory: store)
            try writer.httpCookieStore.set("https://example.com/", "a=1; Max-Age=3600", "b=2; Max-Age=3600")
            try writer.localStorage.setItem("k", "v", origin: SecurityOrigin(string: "https://example.com")!)
        }
        let remounted = try await Command.run(URL(fileURLWithPath: "/bin/mount"), ["-o", "remount,ro", mount.path])
        try #require(remounted.status == 0, "\(remounted)")
        let before = StoreFiles.fingerprint(store)

        // Root ignores file modes, not a read-only file system: this is what backup media look like.
        let store2 = try WebsiteDataStore(directory: store, configuration: .init(readOnly: true))
        #expect(try store2.httpCookieStore.header("https://example.com/") == "a=1; b=2")
        #expect(throws: StoreError.readOnly(path: store.path)) {
            try store2.httpCookieStore.set("https://example.com/", "c=3")
        }
        // (As root: the store is its own, 0700.)
        let read = try await readAsNobody(store, sandbox: dir.path("ro-mount-out"), user: 0)
        #expect(read.status == 0, "\(read)")
        #expect(read.lines.contains("exported 2") && read.lines.contains("backed-up 2"), "\(read)")
        #expect(read.lines.filter { $0.hasPrefix("refused ") }.count == 7, "\(read)")
        // A writable open fails clearly, and a missing store on the mount is not created.
        #expect(throws: StoreError.self) { _ = try WebsiteDataStore(directory: mount.appendingPathComponent("new")) }
        #expect {
            _ = try WebsiteDataStore(
                directory: mount.appendingPathComponent("new"), configuration: .init(readOnly: true))
        } throws: { error in
            (error as? StoreError)?.description.contains("no such directory") == true
        }
        #expect(StoreFiles.fingerprint(store) == before)
    }

    // MARK: - A full disk

    @Test(.sqliteOnly) func aFullDatabaseIsAClearErrorAndLosesNothingAcknowledged() async throws {
        let directory = dir.path("full")
        let store = try WebsiteDataStore(directory: directory)
        let cookies = store.httpCookieStore
        try store.set(.cookiesMaxTotal, to: "1000000")
        try store.set(.cookiesMaxPerSite, to: "1000000")
        let origin = SecurityOrigin(string: "https://full.example")!
        let idb = try store.indexedDB.open(origin: origin, name: "db", version: 1) { tx, _ in
            _ = try tx.createObjectStore("s")
        }
        // The disk is "full" a few pages from here: SQLite's page limit on the store's writer connection.
        let pages = try #require(try store.database.writer.withLock { try $0.scalar("PRAGMA page_count")?.int64 })
        try store.database.writer.withLock { _ = try $0.scalar("PRAGMA max_page_count = \(pages + 40)") }

        var acknowledged = 0
        var failure: Error?
        let value = String(repeating: "x", count: 3000)
        while failure == nil {
            do {
                try cookies.set("https://site\(acknowledged % 20).example/", "c\(acknowledged)=\(value); Max-Age=3600")
                acknowledged += 1
            } catch {
                failure = error
            }
        }
        let error = try #require(failure as? StoreError, "\(String(describing: failure))")
        print("full database: \(acknowledged) cookies acknowledged, then: \(error)")
        #expect(error.description.lowercased().contains("full"), "\(error)")
        // The refused cookie is not visible in this process either.
        #expect(try cookies.header("https://site\(acknowledged % 20).example/")?.contains("c\(acknowledged)=") != true)

        // Every data type fails clearly while the disk is full, and keeps what it had.
        try #require(
            try store.database.writer.withLock { try $0.scalar("PRAGMA page_count")?.int64 }.map { $0 >= pages + 39 }
                == true)
        #expect(throws: (any Error).self) { try store.localStorage.setItem("k", value + value, origin: origin) }
        #expect(throws: (any Error).self) {
            try idb.transaction("s", mode: .readwrite) { tx in
                _ = try tx.objectStore("s").put(.string(value + value), key: "k")
            }
        }
        let body = Data(repeating: 7, count: 20_000)
        let response = try await store.httpCache.send(CacheRequest(url: URL(string: "https://full.example/a")!)) { _ in
            OriginResponse(status: 200, headers: ["Cache-Control": "max-age=600"], body: .data(body))
        }
        #expect(response.status == 200, "a response is returned even when it cannot be stored")
        #expect(try response.body.data() == body)

        // Space again: the same objects work on.
        try store.database.writer.withLock { _ = try $0.scalar("PRAGMA max_page_count = 1073741823") }
        try cookies.set("https://after.example/", "after=1")
        try store.localStorage.setItem("k", "v", origin: origin)

        // Reopened: intact, every acknowledged cookie there.
        let file = directory.appendingPathComponent(StoreDatabase.fileName)
        #expect(try StoreFiles.integrityCheck(file) == "ok")
        let names = Set(try WebsiteDataStore(directory: directory).httpCookieStore.allCookies().map(\.name))
        #expect(names.isSuperset(of: (0..<acknowledged).map { "c\($0)" }))
        #expect(names.contains("after") && !names.contains("c\(acknowledged)"))
    }

    @Test(.sqliteOnly, .enabled(if: getuid() == 0, "mounting a file system needs root"))
    func aFullFileSystemIsAClearErrorAndTheStoreStillOpens() async throws {
        let mount = dir.path("tmpfs")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        let mounted = try await Command.run(
            URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", mount.path])
        try #require(mounted.status == 0, "\(mounted)")
        defer { Command.unmount(mount) }
        let store = mount.appendingPathComponent("store")
        // Another program's file, deleted later to make room.
        let ballast = mount.appendingPathComponent("ballast")
        try Data(repeating: 0, count: 512 << 10).write(to: ballast)

        // A writer fills the file system until a write fails.
        let fill = try await Command.run(
            Command.product("wkstore-stress"), ["fill", "--store", store.path, "--per-batch", "5"])
        #expect(fill.status == 0, "\(fill)")
        let acknowledged = fill.lines.filter { $0.hasPrefix("committed ") }.count
        let error = try #require(fill.lines.first { $0.hasPrefix("error ") }, "\(fill)")
        print("full file system (2 MB tmpfs): \(acknowledged) batches acknowledged, then: \(error)")
        #expect(error.hasPrefix("error StoreError: ") && error.lowercased().contains("full"), "\(error)")
        #expect(fill.lines.contains("visible-after-error 0"), "the failed batch stayed visible in the writer")
        #expect(acknowledged > 10)

        // The disk is still full: the store opens, is intact, and holds every acknowledged batch.
        #expect(try StoreFiles.integrityCheck(store.appendingPathComponent(StoreDatabase.fileName)) == "ok")
        let reopened = try WebsiteDataStore(directory: store)
        let names = Set(try reopened.httpCookieStore.allCookies().map(\.name))
        for batch in 0..<acknowledged {
            #expect((0..<5).allSatisfy { names.contains("c\(batch)_\($0)") }, "batch \(batch) was acknowledged")
        }
        // A large cache body cannot be written: the response still comes back, nothing half-written stays.
        let body = Data(repeating: 1, count: 3 << 20)
        let response = try await reopened.httpCache.send(CacheRequest(url: URL(string: "https://big.example/file")!)) {
            _ in
            OriginResponse(status: 200, headers: ["Cache-Control": "max-age=600"], body: .data(body))
        }
        #expect(response.status == 200)
        #expect(try response.body.data().count == body.count)
        let cached = try await reopened.httpCache.send(
            CacheRequest(url: URL(string: "https://big.example/file")!), mode: .onlyIfCached
        ) { _ in
            throw CancellationError()
        }
        #expect(cached.status == 504)
        let leftovers =
            (try? FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("cache").path)) ?? []
        #expect(leftovers.isEmpty, "files left in cache/: \(leftovers)")
        // Writing fails clearly while the disk is full, and works again, in the same store object,
        // once another program's file is deleted. (A small write may still succeed: the log file
        // is reused in place after a checkpoint and needs no new blocks. A write of 2.5 MB, more
        // than the whole file system, cannot.)
        let big = (0..<640).map { i in
            Cookie(name: "big", value: String(repeating: "v", count: 4000), domain: "big\(i).example", isSecure: true)
        }
        #expect(throws: StoreError.self) { try reopened.httpCookieStore.setCookies(big) }
        #expect(
            try reopened.httpCookieStore.cookies(forSite: "big0.example").isEmpty, "nothing of the failed write is kept"
        )
        try FileManager.default.removeItem(at: ballast)
        try reopened.httpCookieStore.set("https://after.example/", "after=1")
        try reopened.removeData(
            ofTypes: [.cookies], matching: RemovalFilter(sites: ["fill0.example", "fill1.example", "fill2.example"]))
        #expect(try WebsiteDataStore(directory: store).httpCookieStore.header("https://after.example/") == "after=1")
        #expect(try StoreFiles.integrityCheck(store.appendingPathComponent(StoreDatabase.fileName)) == "ok")
    }

    // MARK: - --since at the edges of time (through the command)

    @Test func sinceFarInTheFutureRemovesNothingAndSaysSo() async throws {
        let sandbox = dir.path("since-future")
        let store = try TestEngine.storeArguments(for: sandbox.appendingPathComponent("store"))
        let set = try await Command.wkstore(
            store + ["cookies", "set", "--url", "https://example.com/", "a=1; Max-Age=3600"],
            sandbox: sandbox)
        #expect(set.status == 0, "\(set)")
        for when in ["2999-01-01", "99999999999", "9999-12-31T23:59:59Z"] {
            let clear = try await Command.wkstore(
                store + ["clear", "--types", "all", "--since", when], sandbox: sandbox)
            #expect(clear.status == 0, "\(clear)")
            #expect(
                clear.stdout.hasPrefix("nothing to remove: --since ") && clear.stdout.contains("is in the future"),
                "\(clear)")
            let json = try await Command.wkstore(
                store + ["clear", "--types", "all", "--since", when, "--json"], sandbox: sandbox)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
            #expect(object["sinceIsInFuture"] as? Bool == true)
            #expect((object["removed"] as? [Any])?.isEmpty == true)
        }
        let list = try await Command.wkstore(store + ["cookies", "list"], sandbox: sandbox)
        #expect(list.stdout.contains("a=1"))
    }

    @Test func sinceBefore1970RemovesEverything() async throws {
        let sandbox = dir.path("since-past")
        let store = try TestEngine.storeArguments(for: sandbox.appendingPathComponent("store"))
        for (when, expected) in [
            ("1969-07-20T20:17:40Z", "1969-07-20T20:17:40.000Z"), ("1900-01-01", "1900-01-01T00:00:00.000Z"),
            ("0001-01-01T00:00Z", "0001-01-01T00:00:00.000Z"), ("30000d", nil),
        ] {
            let set = try await Command.wkstore(
                store + ["cookies", "set", "--url", "https://example.com/", "a=1; Max-Age=3600"],
                sandbox: sandbox)
            #expect(set.status == 0, "\(set)")
            let dry = try await Command.wkstore(
                store + ["clear", "--types", "cookies", "--since", when, "--dry-run", "--json"],
                sandbox: sandbox)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any], "\(when): \(dry)")
            if let expected { #expect(object["since"] as? String == expected, "\(when)") }
            #expect(object["sinceIsInFuture"] as? Bool == false)
            let clear = try await Command.wkstore(
                store + ["clear", "--types", "cookies", "--since", when], sandbox: sandbox)
            #expect(clear.status == 0 && clear.stdout == "removed cookies for example.com\n", "\(when): \(clear)")
            let list = try await Command.wkstore(store + ["cookies", "list"], sandbox: sandbox)
            #expect(list.stdout.isEmpty, "\(when): \(list)")
        }
        // Beyond what a date holds: a usage error, not a crash.
        for when in ["99999999999999999999", "9999999999999999d", "-1"] {
            let clear = try await Command.wkstore(
                store + ["clear", "--types", "cookies", "--since", when], sandbox: sandbox)
            #expect(clear.status == 2 && clear.isOneLineMessage(), "\(when): \(clear)")
        }
    }

    // MARK: - Cookie domains no URL can have

    /// A cookie domain that cannot be a host (`.#example.com`: a domain cookie of `#example.com`,
    /// which no request can match and no export would write) is refused, by imports and by
    /// `Set-Cookie` alike (the netscape fuzz target's input is in `fuzz-regressions/netscape/`).
    @Test func cookieDomainsThatCannotBeHostsAreRefusedByImportsAndSetCookie() async throws {
        let store = try TestEngine.openStore(for: dir.path("store"))
        let cookies = store.httpCookieStore
        let expires = Int(Date().timeIntervalSince1970) + 3600
        for domain in [
            "#example.com", "exa mple.com", "example.com/x", "a@example.com", "ex%41mple.com", "example.com?",
            "a|b.example", "a\\b.example",
        ] {
            let file = dir.path("cookies.txt")
            try Data(
                "www.example.com\tFALSE\t/\tFALSE\t\(expires)\tok\t1\n.\(domain)\tTRUE\t/\tFALSE\t\(expires)\tbad\t1\n"
                    .utf8
            ).write(to: file)
            #expect(throws: CookieImportError.self, "\(domain)") {
                try CookieInterchange.importCookies(from: file, into: cookies, options: .strict)
            }
            // Lenient (the default), the good line is imported and the bad one listed, line 2.
            let lenient = try CookieInterchange.importCookies(from: file, into: cookies)
            #expect(lenient.imported == 1 && lenient.refusals.map(\.line) == [2], "\(domain): \(lenient)")
            _ = try cookies.deleteCookies(named: "ok", domain: "www.example.com")
            let state = dir.path("state.json")
            let json =
                "{\"cookies\": [{\"name\": \"bad\", \"value\": \"1\", \"domain\": \(String(decoding: try JSONEncoder().encode(domain), as: UTF8.self))}]}"
            try Data(json.utf8).write(to: state)
            #expect(throws: CookieImportError.self, "\(domain)") {
                try CookieInterchange.importCookies(from: state, into: cookies, options: .strict)
            }
            #expect(try CookieInterchange.importCookies(from: state, into: cookies).refused == 1, "\(domain)")
            #expect(throws: CookieRejection.self, "\(domain)") {
                try cookies.setCookie(Cookie(name: "bad", value: "1", domain: domain))
            }
        }
        #expect(try cookies.allCookies().isEmpty)
        // Hosts that are hosts still work: IPv6, underscores, IDN.
        try cookies.setCookie(Cookie(name: "v6", value: "1", domain: "::1"))
        try cookies.setCookie(Cookie(name: "u", value: "1", domain: "my_host.example"))
        try cookies.setCookie(Cookie(name: "idn", value: "1", domain: "bücher.example"))
        #expect(try cookies.allCookies().count == 3)
        #expect(try cookies.header("http://[::1]/") == "v6=1")
    }

    // MARK: - Imports far larger than memory

    /// Writes a `cookies.txt` of about `bytes` bytes: lines of about 4 KB (the most a cookie holds).
    static func writeLargeNetscape(_ url: URL, bytes: Int) throws -> (size: Int, count: Int) {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let expires = Int(Date().timeIntervalSince1970) + 30 * 86_400
        let padding = String(repeating: "0123456789abcdef", count: 240)
        var chunk = "# Netscape HTTP Cookie File\n"
        var size = 0
        var count = 0
        while size + chunk.utf8.count < bytes {
            chunk += ".site\(count % 4000).test\tTRUE\t/\tFALSE\t\(expires)\tc\(count)\t\(padding)\(count)\n"
            count += 1
            if chunk.utf8.count > 4 << 20 {
                size += chunk.utf8.count
                try handle.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        size += chunk.utf8.count
        try handle.write(contentsOf: Data(chunk.utf8))
        return (size, count)
    }

    func importInChildProcess(megabytes: Int) async throws {
        let file = dir.path("large-\(megabytes).txt")
        let (size, count) = try await offPool { try Self.writeLargeNetscape(file, bytes: megabytes << 20) }
        defer { try? FileManager.default.removeItem(at: file) }
        let started = Date()
        let result = try await Command.run(
            Command.product("wkstore-stress"),
            ["import"] + (try TestEngine.storeArguments(for: dir.path("import-\(megabytes)"))) + ["--file", file.path])
        let seconds = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result)")
        var fields: [String: Int] = [:]
        for line in result.lines {
            let parts = line.split(separator: " ")
            if parts.count == 2, let n = Int(parts[1]) { fields[String(parts[0])] = n }
        }
        let growth = try #require(fields["peak-growth-kb"]) * 1024
        print(
            "import of \(size) bytes (\(count) cookies): \(String(format: "%.1f", seconds)) s, kept \(fields["kept"] ?? -1), peak RSS growth \(growth >> 10) kB"
        )
        #expect(fields["read"] == count && fields["imported"] == count)
        #expect((fields["kept"] ?? 0) > 0 && (fields["kept"] ?? .max) <= 3000)
        // Bounded memory: the store's 3000 cookies of 4 KB and a chunk, whatever the file's size.
        #expect(growth < 64 << 20, "peak RSS grew by \(growth >> 20) MB for a \(size >> 20) MB file")
    }

    @Test func aHundredMegabyteImportStreamsInBoundedMemory() async throws {
        try await importInChildProcess(megabytes: 100)
    }

    @Test(
        .enabled(if: ProcessInfo.processInfo.environment["WKSTORE_LONG_TESTS"] == "1", "WKSTORE_LONG_TESTS=1 runs it"))
    func aOneGigabyteImportStreamsInBoundedMemory() async throws {
        try await importInChildProcess(megabytes: 1024)
    }
}
