import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Cookie changes are appended to the change log and folded into the cookies table in bulk:
/// whatever the point a fold happened at, the store, a fresh open and the folded table agree
/// with every change applied in order.
@Suite(.ownThreads, .bothEngines) struct CookieLogTests {
    let dir = TemporaryDirectory()

    /// The cookies the file's cookies table holds (name=value), after folding the whole log.
    func foldedTable(_ store: WebsiteDataStore) throws -> [String: String] {
        try store.database.foldChangeLog()
        let db = try sideConnection(to: dir.url)
        return Dictionary(
            uniqueKeysWithValues: try db.rows("SELECT name, value FROM cookies") { ($0.string(0), $0.string(1)) })
    }

    func view(_ store: WebsiteDataStore) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try store.httpCookieStore.allCookies().map { ($0.name, $0.value) })
    }

    @Test func setsDeletesAndAccessesFoldedAtAnyPointAgreeWithTheirOrder() throws {
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        var model: [String: String] = [:]
        var random = SystemRandomNumberGenerator()
        var folds = 0
        for step in 0..<2000 {
            let name = "c\(Int.random(in: 0..<30, using: &random))"
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                try store.httpCookieStore.set("https://example.com/", "\(name)=\(step); Max-Age=86400")
                model[name] = "\(step)"
            case 5..<7:
                try store.httpCookieStore.set("https://example.com/", "\(name)=; Max-Age=0")
                model[name] = nil
            default:
                // A lookup: the last-access times it moves on are logged with the next write.
                _ = try store.httpCookieStore.header("https://example.com/")
            }
            clock.advance(Double.random(in: 0...120, using: &random))
            // Folds at steps of irregular spacing, a dozen of them, whatever the random draws.
            if step % 150 == Int(step / 150 * 37 % 150) {
                try store.database.foldChangeLog()
                folds += 1
            }
        }
        #expect(folds > 3)
        #expect(try view(store) == model)
        let reopened = try WebsiteDataStore.testing(dir.url, clock: clock)
        #expect(try view(reopened) == model)
        #expect(try foldedTable(reopened) == model)
        #expect(try view(WebsiteDataStore.testing(dir.url, clock: clock)) == model)
    }

    /// Another store object on the same directory applies many logged changes to a large site
    /// at once (through an index of the site's cookies) and ends where the writer is.
    @Test func manyChangesToALargeSiteReachAnotherStoreObject() throws {
        let clock = TestClock()
        let writer = try WebsiteDataStore.testing(dir.url, clock: clock)
        try writer.set(.cookiesMaxPerSite, to: "5000")
        let reader = try WebsiteDataStore.testing(dir.url, clock: clock)
        try writer.httpCookieStore.setCookies(
            (0..<1500).map {
                Cookie(
                    name: "c\($0)", value: "0", domain: "example.com", path: "/",
                    expires: clock.now.addingTimeInterval(86400))
            })
        #expect(try view(reader).count == 1500)
        var random = SystemRandomNumberGenerator()
        for step in 1...300 {
            let name = "c\(Int.random(in: 0..<1600, using: &random))"
            if step % 3 == 0 {
                try writer.httpCookieStore.set("https://example.com/", "\(name)=; Max-Age=0")
            } else {
                try writer.httpCookieStore.set("https://example.com/", "\(name)=\(step); Max-Age=86400")
            }
        }
        #expect(try view(reader) == view(writer))
    }

    /// Every cookie as opening shows it: key, value and times.
    func snapshot(_ store: WebsiteDataStore) throws -> [String] {
        try store.httpCookieStore.allCookies().map {
            "\($0.domain) \($0.path) \($0.name)=\($0.value) created \($0.created.timeIntervalSince1970) access \($0.lastAccess.timeIntervalSince1970)"
        }.sorted()
    }

    /// Opening applies the changes logged after the last fold to each site as its rows are
    /// read: sets over table rows and new ones, deletes (down to a whole site), access times,
    /// sites the table does not hold yet, and a site of 300 cookies changed 100 times (applied
    /// through an index). A fresh open shows exactly what the writing store object shows.
    @Test func openingAppliesTheLogToEachSiteAsItsRowsAreRead() throws {
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        try store.set(.cookiesMaxPerSite, to: "1000")
        var random = SystemRandomNumberGenerator()
        for site in 0..<40 {
            for n in 0..<(site == 0 ? 300 : 8) {
                try store.httpCookieStore.set("https://www.site\(site).example/", "c\(n)=\(site); Max-Age=86400")
            }
        }
        try store.database.foldChangeLog()
        clock.advance(60)
        for step in 0..<600 {
            let site = step < 100 ? 0 : Int.random(in: 0..<50, using: &random)
            let url = "https://www.site\(site).example/"
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                try store.httpCookieStore.set(url, "c\(Int.random(in: 0..<12, using: &random))=\(step); Max-Age=86400")
            case 6..<8: try store.httpCookieStore.set(url, "c\(Int.random(in: 0..<12, using: &random))=; Max-Age=0")
            default: _ = try store.httpCookieStore.header(url)
            }
            // Past the minute after which a lookup's access time is worth writing.
            clock.advance(61)
        }
        for n in 0..<12 { try store.httpCookieStore.set("https://www.site39.example/", "c\(n)=; Max-Age=0") }
        // The accesses of the last lookups are logged with a write.
        try store.httpCookieStore.set("https://www.site1.example/", "last=1; Max-Age=86400")
        let expected = try snapshot(store)
        #expect(!expected.contains { $0.hasPrefix("www.site39.example ") })
        #expect(expected.contains { $0.hasPrefix("www.site45.example ") })
        #expect(try snapshot(WebsiteDataStore.testing(dir.url, clock: clock)) == expected)
    }

    /// Rows filed under a site that is no longer their domain's (after a public suffix list
    /// update) come later in the table than their site's other rows, after another site's: the changes logged since
    /// the fold, already applied to the site, are not undone by them.
    @Test func rowsFiledUnderAnotherSiteDoNotUndoTheLog() throws {
        let clock = TestClock()
        do {
            let store = try WebsiteDataStore.testing(dir.url, clock: clock)
            for name in ["p", "c", "d"] {
                try store.httpCookieStore.set("https://other.example.org/", "\(name)=1; Max-Age=86400")
            }
            // A site whose rows come between example.org's and those filed under zzz-old.example.
            try store.httpCookieStore.set("https://www.mid.example/", "m=1; Max-Age=86400")
            try store.database.foldChangeLog()
            try store.httpCookieStore.set("https://other.example.org/", "c=4; Max-Age=86400")
            try store.httpCookieStore.set("https://other.example.org/", "d=; Max-Age=0")
        }
        let db = try sideConnection(to: dir.url)
        try db.execute("UPDATE cookies SET site = 'zzz-old.example' WHERE name IN ('c', 'd')")
        let reopened = try WebsiteDataStore.testing(dir.url, clock: clock)
        #expect(try view(reopened) == ["p": "1", "c": "4", "m": "1"])
        #expect(try foldedTable(reopened) == ["p": "1", "c": "4", "m": "1"])
    }

    /// Two store objects on one directory (two processes, as far as the store can tell) write
    /// the same cookie at once, round after round. Each applies the other's logged changes in
    /// log order, its own included: when its write commits after the other's, the other's
    /// older value must not end on top of it. After every round both objects show the value
    /// the store holds, and at the end so does a fresh open.
    @Test func concurrentWritersOfOneCookieAgreeWithTheStore() throws {
        let first = try TestEngine.openStore(for: dir.url)
        let second = try TestEngine.openStore(for: dir.url)
        let failures = Locked<[String]>([])
        var disagreements = 0
        for round in 0..<300 {
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                do {
                    try (side == 0 ? first : second).httpCookieStore.set(
                        "https://example.com/", "x=\(side)-\(round); Max-Age=86400")
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            if try view(first)["x"] != view(second)["x"] { disagreements += 1 }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(disagreements == 0, "rounds after which the two store objects showed different values")
        let table = try foldedTable(TestEngine.openStore(for: dir.url))
        #expect(try view(first) == table)
        #expect(try view(second) == table)
    }

    /// The last access a lookup records reaches the table through a fold, and a later set of
    /// the same cookie is not undone by an older access.
    @Test func accessTimesAreFoldedWithoutUndoingLaterWrites() throws {
        let clock = TestClock()
        let start = clock.now
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        try store.httpCookieStore.set("https://example.com/", "a=1; Max-Age=86400", "b=1; Max-Age=86400")
        try store.database.foldChangeLog()
        clock.advance(3600)
        #expect(try store.httpCookieStore.header("https://example.com/") == "a=1; b=1")
        try store.httpCookieStore.set("https://example.com/", "b=2; Max-Age=86400")
        #expect(try foldedTable(store) == ["a": "1", "b": "2"])
        let db = try sideConnection(to: dir.url)
        let access = Dictionary(
            uniqueKeysWithValues: try db.rows("SELECT name, last_access FROM cookies") { ($0.string(0), $0.double(1)) })
        #expect(access["a"] == start.timeIntervalSince1970 + 3600)
        #expect(access["b"] == start.timeIntervalSince1970 + 3600)
    }

    /// A long run of writes folds on its own once the log holds more than
    /// `StoreTuning.cookieLogFoldEntries` entries past the last fold, and trims what it folded.
    @Test func aLongRunFoldsOnItsOwnAndKeepsTheLogShort() throws {
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        try store.set(.cookiesMaxTotal, to: "100000")
        let perBatch = 1000
        let batches = Int(StoreTuning.cookieLogFoldEntries) / perBatch + 2
        var expected: [String: String] = [:]
        for batch in 0..<batches {
            let cookies = (0..<perBatch).map { i in
                // Every other batch overwrites the previous batch's cookies.
                let name = "n\(batch / 2)-\(i)"
                expected[name] = "v\(batch)"
                return Cookie(
                    name: name, value: "v\(batch)", domain: "s\(i % 200).example", path: "/", isHostOnly: true,
                    expires: clock.now.addingTimeInterval(86400))
            }
            let summary = try store.httpCookieStore.setCookies(cookies)
            #expect(summary.stored == perBatch)
        }
        // On PostgreSQL the fold runs beside the writes, on the maintainer's thread.
        store.database.waitForMaintenance()
        let db = try sideConnection(to: dir.url)
        let folded = try CookiePersistence.foldedThrough(db)
        #expect(folded > StoreTuning.cookieLogFoldEntries)
        #expect(try db.scalar("SELECT count(*) FROM cookies")?.int64 ?? 0 > 10_000)
        // Entries folded into the table keep no cookie, beyond the newest few.
        #expect(
            try db.scalar("SELECT count(*) FROM change_log WHERE op IS NOT NULL")?.int64 ?? 0
                < StoreTuning.cookieLogFoldEntries)
        let reopened = try WebsiteDataStore.testing(dir.url, clock: clock)
        #expect(try view(reopened) == expected)
    }
}
