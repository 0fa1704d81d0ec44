import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Real processes on one store: coherence, and nothing acknowledged lost to SIGKILL. On SQLite
/// another process's commit is seen at the next lookup (the shared change counter); on
/// PostgreSQL once its notification has arrived, or the change log's periodic read came round.
@Suite(.ownThreads, .bothEngines) struct ProcessTests {
    let dir = TemporaryDirectory()

    /// `lookup`'s answer once it equals `expected`: at once on SQLite; on PostgreSQL it may take
    /// a notification's trip (the limit is far above that, for a loaded machine).
    static func seen<T: Equatable>(_ expected: T, _ lookup: () throws -> T) throws -> T {
        var value = try lookup()
        guard TestEngine.current == .postgreSQL else { return value }
        let deadline = Date().addingTimeInterval(60)
        while value != expected && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            value = try lookup()
        }
        return value
    }

    @Test func anotherProcessesWritesAreSeenOnTheNextLookup() throws {
        let store = try TestEngine.openStore(for: dir.url)
        #expect(try store.httpCookieStore.allCookies().isEmpty)
        let child = try ChildProcess(
            "wkstore-stress",
            ["cookies"] + TestEngine.storeArguments(for: dir.url) + ["--batches", "3", "--per-batch", "2"])
        #expect(child.wait() == 0)
        // No reopen: the same store object sees the other process's cookies.
        #expect(try Self.seen(6) { try store.httpCookieStore.allCookies().count } == 6)
        #expect(try store.httpCookieStore.header("https://site0.example/") == "c0_0=v0; c0_1=v0")
    }

    @Test func aClearByAnotherProcessIsSeenOnTheNextLookup() throws {
        let store = try TestEngine.openStore(for: dir.url)
        try store.httpCookieStore.set("https://example.com/", "a=1", "b=2")
        #expect(try store.httpCookieStore.header("https://example.com/") == "a=1; b=2")
        let child = try ChildProcess("wkstore-stress", ["clear"] + TestEngine.storeArguments(for: dir.url))
        #expect(child.readLine() == "cleared 1")
        #expect(child.wait() == 0)
        #expect(try Self.seen(nil) { try store.httpCookieStore.header("https://example.com/") } == nil)
        // And this process's next write is seen by a fresh reader.
        try store.httpCookieStore.set("https://example.com/", "c=3")
        #expect(try TestEngine.openStore(for: dir.url).httpCookieStore.header("https://example.com/") == "c=3")
    }

    /// The shared change counter is a hint: a commit that never bumped it (a writer killed
    /// between its commit and the bump; here, a cookie change logged with SQLite directly) is
    /// still seen, once the change log's periodic read comes round (1 s).
    @Test(.sqliteOnly) func aCommitThatDidNotBumpTheCounterIsSeenWithinASecond() throws {
        let store = try WebsiteDataStore(directory: dir.url)
        try store.httpCookieStore.set("https://example.com/", "a=1")
        #expect(try store.httpCookieStore.header("https://example.com/") == "a=1")
        let counter = dir.url.appendingPathComponent(ChangeCounter.fileName)
        let mode = try FileManager.default.attributesOfItem(atPath: counter.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let before = try Data(contentsOf: counter)
        do {
            let db = try SQLiteConnection(location: .file(dir.url.appendingPathComponent(StoreDatabase.fileName)))
            try db.execute(
                """
                INSERT INTO change_log (type, site, cause, time, op, \(CookiePersistence.columns))
                SELECT type, site, cause, time, op, name, '2', domain, path, host_only, secure, http_only, same_site, partition_key,
                       expires, created, last_access, modified
                FROM change_log WHERE op = 1 AND name = 'a'
                """)
            #expect(db.changes == 1)
        }
        #expect(try Data(contentsOf: counter) == before, "the direct write did not bump the counter")
        // The store rereads the log within a second; the limit is far above that, for a loaded machine.
        let deadline = Date().addingTimeInterval(60)
        var seen: String?
        repeat {
            seen = try store.httpCookieStore.header("https://example.com/")
            if seen == "a=2" { break }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        #expect(seen == "a=2")
    }

    /// Every object on a store directory holds its in-use lock while it lives, in this process
    /// or another; a process killed by SIGKILL lets go of it.
    @Test(.sqliteOnly) func storeObjectsHoldTheInUseLockUntilTheyGoOrTheirProcessDies() throws {
        do {
            let store = try WebsiteDataStore(directory: dir.url)
            #expect(StoreUseLock.exclusive(dir.url) == nil)
            try store.httpCookieStore.set("https://example.com/", "a=1")
        }
        do {
            let readOnly = try WebsiteDataStore(directory: dir.url, configuration: .init(readOnly: true))
            #expect(StoreUseLock.exclusive(dir.url) == nil, "a read-only object holds it too")
            #expect(try readOnly.httpCookieStore.header("https://example.com/") == "a=1")
        }
        // A store's threads (its change watcher) may hold it a moment after its last user.
        let deadline = Date().addingTimeInterval(60)
        while StoreUseLock.exclusive(dir.url) == nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(StoreUseLock.exclusive(dir.url) != nil)

        let child = try ChildProcess(
            "wkstore-stress", ["cookies", "--store", dir.url.path, "--batches", "100000", "--per-batch", "1"])
        #expect(child.readLine() == "committed 0")
        #expect(StoreUseLock.exclusive(dir.url) == nil)
        child.kill()
        _ = child.wait()
        #expect(StoreUseLock.exclusive(dir.url) != nil)
    }

    @Test func twoStoreObjectsInOneProcessStayCoherent() throws {
        let a = try TestEngine.openStore(for: dir.url)
        let b = try TestEngine.openStore(for: dir.url)
        try a.httpCookieStore.set("https://example.com/", "x=1")
        #expect(try b.httpCookieStore.header("https://example.com/") == "x=1")
        try b.httpCookieStore.set("https://example.com/", "x=2")
        #expect(try a.httpCookieStore.header("https://example.com/") == "x=2")
        try b.set(.cookiesPolicy, to: "disallow")
        #expect(try a.httpCookieStore.header("https://example.com/") == nil)
    }

    /// Kills a cookie writer after a random number of acknowledged batches, 20 times on SQLite
    /// and 8 on PostgreSQL (each round there is a schema made and migrated).
    @Test func killedRightAfterACommitLosesNothing() throws {
        var acknowledgedTotal = 0
        let rounds = TestEngine.current == .postgreSQL ? 8 : 20
        for round in 0..<rounds {
            let store = dir.path("kill-\(round)")
            let child = try ChildProcess(
                "wkstore-stress",
                ["cookies"] + TestEngine.storeArguments(for: store) + [
                    "--batches", "100000", "--per-batch", "3", "--prefix", "r\(round)_",
                ])
            var acknowledged = -1
            let stopAfter = Int.random(in: 1...40)
            while let line = child.readLine(), line.hasPrefix("committed ") {
                acknowledged = Int(line.dropFirst("committed ".count))!
                if acknowledged >= stopAfter { break }
            }
            child.kill()
            #expect(acknowledged >= stopAfter)
            let reopened = try TestEngine.openStore(for: store)
            let names = Set(try reopened.httpCookieStore.allCookies().map(\.name))
            for batch in 0...acknowledged {
                for i in 0..<3 {
                    #expect(
                        names.contains("r\(round)_\(batch)_\(i)"), "round \(round): batch \(batch) was acknowledged")
                }
            }
            // Nothing half-written: every batch present is present whole.
            let batches = Dictionary(
                grouping: names, by: { $0.split(separator: "_").dropLast().joined(separator: "_") })
            #expect(batches.values.allSatisfy { $0.count == 3 })
            acknowledgedTotal += acknowledged + 1
        }
        print(
            "kill safety, \(TestEngine.current): \(rounds) kills, \(acknowledgedTotal) acknowledged batches, none lost")
    }
}
