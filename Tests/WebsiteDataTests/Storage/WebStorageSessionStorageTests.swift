import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

@Suite(.ownThreads, .bothEngines) struct WebStorageSessionStorageTests {
    let dir = TemporaryDirectory()
    let origin = WebStorageOrigins.example
    let other = WebStorageOrigins.other

    @Test func namespacesAreIsolated() throws {
        let session = try WebsiteDataStore.testing(dir.url).sessionStorage
        let tab1 = session.makeNamespace()
        let tab2 = session.makeNamespace()
        try session.setItem("k", "tab1", origin: origin, namespace: tab1)
        try session.setItem("k", "tab2", origin: origin, namespace: tab2)
        try session.setItem("k", "other", origin: other, namespace: tab1)
        #expect(try session.getItem("k", origin: origin, namespace: tab1) == "tab1")
        #expect(try session.getItem("k", origin: origin, namespace: tab2) == "tab2")
        #expect(try session.getItem("k", origin: other, namespace: tab2) == nil)
        // Sorted: https://other.org < https://www.example.com.
        #expect(try session.origins(namespace: tab1) == [other, origin])
        try session.clear(origin: origin, namespace: tab1)
        #expect(try session.length(origin: origin, namespace: tab1) == 0)
        #expect(try session.length(origin: origin, namespace: tab2) == 1)
    }

    @Test func keysKeepTheOrderTheyWereFirstSet() throws {
        let session = try WebsiteDataStore.testing(dir.url).sessionStorage
        let tab = session.makeNamespace()
        for key in ["z", "a", "m"] { try session.setItem(key, "1", origin: origin, namespace: tab) }
        try session.setItem("z", "2", origin: origin, namespace: tab)
        try session.removeItem("a", origin: origin, namespace: tab)
        #expect(try session.keys(origin: origin, namespace: tab) == ["z", "m"])
        #expect(try session.key(at: 1, origin: origin, namespace: tab) == "m")
        #expect(try session.key(at: 2, origin: origin, namespace: tab) == nil)
    }

    @Test func aCloneCopiesAndThenGoesItsOwnWay() throws {
        let session = try WebsiteDataStore.testing(dir.url).sessionStorage
        let opener = session.makeNamespace()
        try session.setItem("shared", "before", origin: origin, namespace: opener)
        let opened = try session.cloneNamespace(opener)
        #expect(try session.getItem("shared", origin: origin, namespace: opened) == "before")
        try session.setItem("shared", "after", origin: origin, namespace: opener)
        try session.setItem("own", "1", origin: origin, namespace: opened)
        #expect(try session.getItem("shared", origin: origin, namespace: opened) == "before")
        #expect(try session.getItem("own", origin: origin, namespace: opener) == nil)
    }

    @Test func endingANamespaceRemovesItsData() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let session = store.sessionStorage
        let tab = session.makeNamespace()
        let kept = session.makeNamespace()
        try session.setItem("k", "v", origin: origin, namespace: tab)
        try session.setItem("k", "v", origin: origin, namespace: kept)
        session.endNamespace(tab)
        #expect(try session.getItem("k", origin: origin, namespace: tab) == nil)
        #expect(throws: SessionStorageError(namespace: tab)) {
            try session.setItem("k", "v", origin: origin, namespace: tab)
        }
        #expect(throws: SessionStorageError(namespace: tab)) { try session.cloneNamespace(tab) }
        #expect(session.namespaces == [kept])

        // Ending the store's session ends every namespace of this process.
        try store.endSession()
        #expect(session.namespaces.isEmpty)
        #expect(try session.getItem("k", origin: origin, namespace: kept) == nil)
        #expect(try await store.dataRecords(ofTypes: [.sessionStorage]).isEmpty)
    }

    @Test func theQuotaAppliesPerOriginAndNamespace() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        try store.set(.localStorageQuota, to: "8")
        let session = store.sessionStorage
        let tab = session.makeNamespace()
        try session.setItem("k", "abc", origin: origin, namespace: tab)
        // ("k" + "abc") and ("k2" + "") are 4 + 2 UTF-16 units: 12 bytes.
        #expect(throws: StorageQuotaError(origin: origin, quota: 8, required: 12)) {
            try session.setItem("k2", "", origin: origin, namespace: tab)
        }
        #expect(try session.keys(origin: origin, namespace: tab) == ["k"])
        try session.setItem("k2", "", origin: origin, namespace: session.makeNamespace())
        try session.setItem("k2", "", origin: other, namespace: tab)
    }

    @Test(.sqliteOnly) func valuesAreNeverWrittenToDisk() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let sessionValue = "session-value-\(UUID().uuidString)"
        let localValue = "local-value-\(UUID().uuidString)"
        let tab = store.sessionStorage.makeNamespace()
        try store.sessionStorage.setItem("key-\(sessionValue)", sessionValue, origin: origin, namespace: tab)
        try store.localStorage.setItem("k", localValue, origin: origin)
        // A removal is logged for other processes, but carries no value.
        try store.removeData(ofTypes: [.sessionStorage], matching: RemovalFilter(sites: ["nothing.example"]))
        #expect(try store.sessionStorage.getItem("key-\(sessionValue)", origin: origin, namespace: tab) == sessionValue)

        var bytes = Data()
        let files = FileManager.default.enumerator(at: dir.url, includingPropertiesForKeys: nil)!.compactMap {
            $0 as? URL
        }
        for file in files { bytes += (try? Data(contentsOf: file)) ?? Data() }
        #expect(files.contains { $0.lastPathComponent == "store.sqlite-wal" || $0.lastPathComponent == "store.sqlite" })
        // The localStorage value is found, so the search would find the session value if it were there.
        #expect(bytes.range(of: Data(localValue.utf8)) != nil)
        #expect(bytes.range(of: Data(sessionValue.utf8)) == nil)
        #expect(bytes.range(of: Data(sessionValue.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })) == nil)
    }

    @Test func aClearByAnotherProcessIsHonouredOnTheNextAccess() throws {
        let clock = TestClock()
        let crawler = try WebsiteDataStore.testing(dir.url, clock: clock)
        let operator_ = try WebsiteDataStore.testing(dir.url, clock: clock)
        let session = crawler.sessionStorage
        let tab = session.makeNamespace()
        try session.setItem("old", "1", origin: origin, namespace: tab)
        try session.setItem("k", "1", origin: other, namespace: tab)
        clock.advance(60)
        let since = clock.now
        try session.setItem("new", "1", origin: origin, namespace: tab)

        // By date: only what was modified at or after it.
        try operator_.removeData(ofTypes: [.sessionStorage], matching: RemovalFilter(modifiedSince: since))
        #expect(try session.keys(origin: origin, namespace: tab) == ["old"])
        #expect(try session.keys(origin: other, namespace: tab) == ["k"])

        // By site.
        try operator_.removeData(ofTypes: [.sessionStorage], matching: RemovalFilter(sites: ["other.org"]))
        #expect(try session.origins(namespace: tab) == [origin])

        // Everything; the namespace lives on and takes new items.
        try operator_.removeData(ofTypes: [.sessionStorage], matching: RemovalFilter())
        #expect(try session.origins(namespace: tab).isEmpty)
        try session.setItem("again", "1", origin: origin, namespace: tab)
        #expect(try session.keys(origin: origin, namespace: tab) == ["again"])
        // A clear of another type leaves sessionStorage alone.
        try operator_.removeData(ofTypes: [.localStorage], matching: RemovalFilter())
        #expect(try session.keys(origin: origin, namespace: tab) == ["again"])
    }

    @Test func aClearIsHonouredAfterTheChangeLogWasTrimmedPastThisProcess() throws {
        let crawler = try WebsiteDataStore.testing(dir.url)
        let operator_ = try WebsiteDataStore.testing(dir.url)
        let tab = crawler.sessionStorage.makeNamespace()
        try crawler.sessionStorage.setItem("k", "v", origin: origin, namespace: tab)
        try crawler.sessionStorage.setItem("k", "v", origin: other, namespace: tab)
        // Enough changes of another type that the change log, keeping 100, drops the entries the
        // crawler has not read.
        try operator_.set(.changesKeepEntries, to: "100")
        // Eight writers share commits, as a busy crawler's tasks do.
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { writer in
            for index in 0..<150 {
                do { try operator_.localStorage.setItem("key\(writer)-\(index)", "v", origin: other) } catch {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        // On PostgreSQL the trim runs beside the writes, on the maintainer's thread.
        operator_.database.waitForMaintenance()
        try operator_.removeData(ofTypes: [.sessionStorage], matching: RemovalFilter(sites: ["example.com"]))
        let trimmed = try crawler.database.read {
            try $0.scalar("SELECT value FROM settings WHERE key = 'change_log.trimmed_through'")
        }
        #expect((trimmed?.text).flatMap { Int($0) } ?? 0 > 2)
        #expect(try crawler.sessionStorage.origins(namespace: tab) == [other])
    }

    @Test(.sqliteOnly) func aClearByTheWkstoreCommandIsHonoured() throws {
        let tool = productsDirectory.appendingPathComponent("wkstore")
        try #require(
            FileManager.default.isExecutableFile(atPath: tool.path), "the wkstore executable is built with the tests")
        let store = try WebsiteDataStore.testing(dir.url)
        let tab = store.sessionStorage.makeNamespace()
        try store.sessionStorage.setItem("k", "v", origin: origin, namespace: tab)
        try store.sessionStorage.setItem("k", "v", origin: other, namespace: tab)
        let child = try ChildProcess(
            "wkstore", ["clear", "--store", dir.url.path, "--types", "sessionstorage", "--site", "example.com"])
        while child.readLine() != nil {}
        #expect(child.wait() == 0)
        #expect(try store.sessionStorage.origins(namespace: tab) == [other])
    }

    @Test func itemsAreListedAndRemovedByDateSiteAndRecord() async throws {
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        let session = store.sessionStorage
        let tab1 = session.makeNamespace()
        let tab2 = session.makeNamespace()
        try session.setItem("ab", "cd", origin: origin, namespace: tab1)
        try session.setItem("x", "y", origin: WebStorageOrigins.exampleHTTP, namespace: tab2)
        try session.setItem("k", "v", origin: other, namespace: tab2)
        let records = try await store.dataRecords(ofTypes: [.sessionStorage])
        #expect(records.map(\.displayName) == ["example.com", "other.org"])
        // ("ab" + "cd") and ("x" + "y"): 6 UTF-16 units, 12 bytes.
        #expect(records.first?.sizes[.sessionStorage] == Int64(12))

        clock.advance(5)
        try session.setItem("later", "1", origin: other, namespace: tab1)
        let byDate = try store.removeData(ofTypes: [.sessionStorage], matching: RemovalFilter(modifiedSince: clock.now))
        #expect(byDate.map(\.displayName) == ["other.org"])
        #expect(try session.keys(origin: other, namespace: tab1).isEmpty)
        #expect(try session.keys(origin: other, namespace: tab2) == ["k"])

        let dryRun = try store.removeData(
            ofTypes: [.sessionStorage], matching: RemovalFilter(sites: ["example.com"]), dryRun: true)
        #expect(dryRun.map(\.displayName) == ["example.com"])
        #expect(try session.length(origin: origin, namespace: tab1) == 1)

        let example = try #require(records.first)
        try await store.removeData(ofTypes: [.sessionStorage], for: [example])
        #expect(try session.length(origin: origin, namespace: tab1) == 0)
        #expect(try session.length(origin: WebStorageOrigins.exampleHTTP, namespace: tab2) == 0)
        #expect(try session.length(origin: other, namespace: tab2) == 1)
    }
}
