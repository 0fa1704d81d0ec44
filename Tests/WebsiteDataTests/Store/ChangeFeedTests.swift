import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// `WebsiteDataStore.changes(ofTypes:since:)`: every change, whoever made it, in commit order,
/// with its cause; resumed from a position; `.reload` where changes cannot be told one by one.
@Suite(.ownThreads, .bothEngines) struct ChangeFeedTests {
    let dir = TemporaryDirectory()
    static let example = SecurityOrigin(string: "https://example.net")!

    /// "type site cause [cookie name] [removed]", or "reload POSITION".
    static func describe(_ event: WebsiteDataChangeEvent) -> String {
        switch event {
        case .reload(let position): return "reload \(position)"
        case .change(let change):
            var text = "\(change.type.cliName) \(change.site) \(change.cause.rawValue)"
            if let cookie = change.cookie { text += " \(cookie.name)" }
            if change.cookieRemoved { text += " removed" }
            return text
        }
    }

    /// The first `count` events of `feed`, calling `then` after each. The limit only keeps a
    /// broken feed from hanging the run; a loaded machine delivers in well under a second.
    static func first(
        _ count: Int, of feed: AsyncThrowingStream<WebsiteDataChangeEvent, any Error>,
        then: @escaping @Sendable (WebsiteDataChangeEvent) throws -> Void = { _ in }
    ) async throws -> [WebsiteDataChangeEvent] {
        try await withThrowingTaskGroup(of: [WebsiteDataChangeEvent]?.self) { group in
            group.addTask {
                var events: [WebsiteDataChangeEvent] = []
                for try await event in feed {
                    events.append(event)
                    try then(event)
                    if events.count == count { break }
                }
                return events
            }
            group.addTask {
                try await Task.sleep(for: .seconds(120))
                return nil
            }
            let events = try await group.next() ?? nil
            group.cancelAll()
            return try #require(events, "the feed delivered fewer than \(count) events")
        }
    }

    @Test func thisObjectsChangesArriveInOrderWithTheirCauses() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let feed = try store.changes()
        try store.httpCookieStore.set("https://example.com/", "a=1", "b=2")
        try store.localStorage.setItem("k", "v", origin: Self.example)
        try store.set(.cookiesMaxPerSite, to: "50")
        try store.removeData(ofTypes: [.cookies], matching: RemovalFilter(sites: ["example.com"]))
        let events = try await Self.first(5, of: feed)
        #expect(
            events.map(Self.describe) == [
                "cookies example.com write a", "cookies example.com write b", "localstorage example.net write",
                "cookies example.com removal a removed", "cookies example.com removal b removed",
            ])
        let positions = events.compactMap { if case .change(let c) = $0 { c.position.value } else { nil } }
        #expect(positions == positions.sorted() && Set(positions).count == 5)
    }

    /// Every cause reaches the feed, not only the log: writes, an expired cookie purged from the
    /// site written to, an eviction to stay within the per-site limit, an import, the end of
    /// the session and a removal.
    @Test func everyCauseReachesTheFeed() async throws {
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        try store.set(.cookiesMaxPerSite, to: "3")
        let feed = try store.changes()
        try store.httpCookieStore.set("https://example.com/", "a=1", "b=1; Max-Age=10")
        clock.advance(20)
        try store.httpCookieStore.set("https://example.com/", "c=1")
        clock.advance(1)
        try store.httpCookieStore.set("https://example.com/", "d=1", "e=1")
        var imported = [Cookie(name: "i", value: "1", domain: "example.org")]
        _ = try store.httpCookieStore.importCookies { imported.popLast().map { ($0, 1) } }
        try store.endSession()
        try store.localStorage.setItem("k", "v", origin: Self.example)
        try store.removeData(ofTypes: [.localStorage], matching: RemovalFilter(sites: ["example.net"]))
        let events = try await Self.first(14, of: feed)
        #expect(
            Set(events.map(Self.describe)) == [
                "cookies example.com write a", "cookies example.com write b", "cookies example.com write c",
                "cookies example.com expiry b removed", "cookies example.com write d", "cookies example.com write e",
                "cookies example.com eviction a removed", "cookies example.org import i",
                "cookies example.com endSession c removed", "cookies example.com endSession d removed",
                "cookies example.com endSession e removed", "cookies example.org endSession i removed",
                "localstorage example.net write", "localstorage example.net removal",
            ])
        let causes = events.compactMap { if case .change(let change) = $0 { change.cause } else { nil } }
        #expect(Set(causes) == Set(WebsiteDataChangeCause.allCases))
    }

    /// The subscriber makes no call of its own; another process (the `wkstore` command) writes
    /// and clears.
    @Test(.sqliteOnly) func anIdleProcessHearsAnotherProcesssChanges() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        try store.httpCookieStore.set("https://example.com/", "old=1")
        let feed = try store.changes(ofTypes: [.cookies])
        for arguments in [
            ["cookies", "set", "--store", dir.url.path, "--url", "https://example.org/", "new=1"],
            ["clear", "--store", dir.url.path, "--types", "cookies", "--site", "example.com"],
        ] {
            let child = try ChildProcess("wkstore", arguments)
            while child.readLine() != nil {}
            #expect(child.wait() == 0)
        }
        let events = try await Self.first(2, of: feed)
        #expect(
            events.map(Self.describe) == ["cookies example.org write new", "cookies example.com removal old removed"])
    }

    /// A cookie that expired while no store object was open is purged by the next open: a feed
    /// listening meanwhile hears it, with its site and cause, although the open purged it from
    /// the cookies table (where a fold had put it), not from the change log.
    @Test func anExpiryPurgedWhenAStoreOpensIsHeard() async throws {
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(dir.url, clock: clock)
        try store.httpCookieStore.set("https://example.com/", "short=1; Max-Age=10", "long=1; Max-Age=1000")
        _ = try store.vacuum()
        let feed = try store.changes(ofTypes: [.cookies, .localStorage])
        clock.advance(60)
        let later = try WebsiteDataStore.testing(dir.url, clock: clock)
        // Two changes after the purge: a purge that logged nothing makes them the first two events.
        try later.localStorage.setItem("k", "v", origin: Self.example)
        try later.localStorage.setItem("k", "w", origin: Self.example)
        let events = try await Self.first(2, of: feed)
        #expect(
            events.map(Self.describe) == [
                "cookies example.com expiry short removed", "localstorage example.net write",
            ])
    }

    /// The end of a session is reported for the session cookies it removed; sessionStorage,
    /// in this process's memory only, ends without a change, and only its removals through the
    /// store (which other processes apply) are reported.
    @Test func theEndOfASessionIsReportedForItsCookiesAndNotForSessionStorage() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let tab = store.sessionStorage.makeNamespace()
        try store.sessionStorage.setItem("k", "v", origin: Self.example, namespace: tab)
        try store.httpCookieStore.set("https://example.com/", "session=1", "kept=1; Max-Age=3600")
        let feed = try store.changes(ofTypes: [.cookies, .sessionStorage])
        try store.endSession()
        #expect(store.sessionStorage.namespaces.isEmpty)
        try store.removeData(ofTypes: [.sessionStorage], matching: RemovalFilter(sites: ["example.net"]))
        let events = try await Self.first(2, of: feed)
        #expect(
            events.map(Self.describe) == [
                "cookies example.com endSession session removed", "sessionstorage example.net removal",
            ])
    }

    @Test func aFeedResumesAfterAPositionAndFiltersByType() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        try store.httpCookieStore.set("https://example.com/", "a=1")
        let kept = try store.changePosition()
        try store.localStorage.setItem("k", "v", origin: Self.example)
        try store.httpCookieStore.set("https://example.com/", "b=1")
        try store.localStorage.removeItem("k", origin: Self.example)
        // A process started later resumes from the position it kept.
        let later = try WebsiteDataStore.testing(dir.url)
        let all = try await Self.first(3, of: try later.changes(since: kept))
        #expect(
            all.map(Self.describe) == [
                "localstorage example.net write", "cookies example.com write b", "localstorage example.net removal",
            ])
        let storage = try await Self.first(2, of: try later.changes(ofTypes: [.localStorage], since: kept))
        #expect(storage.map(Self.describe) == ["localstorage example.net write", "localstorage example.net removal"])
    }

    /// A position the log no longer reaches back to is answered with `.reload`, then the
    /// changes after it.
    @Test func aPositionOlderThanTheLogGetsAReload() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        try store.set(.changesKeepEntries, to: "10")
        let kept = try store.changePosition()
        for index in 0..<1100 { try store.localStorage.setItem("k\(index)", "v", origin: Self.example) }
        // On PostgreSQL the trim runs beside the writes, on the maintainer's thread.
        store.database.waitForMaintenance()
        let newest = try store.changePosition()
        // Written once the reload is delivered: a change made before it is covered by it.
        let events = try await Self.first(2, of: try store.changes(since: kept)) { event in
            if case .reload = event { try store.localStorage.setItem("after", "v", origin: Self.example) }
        }
        guard case .reload(let position) = events[0] else {
            Issue.record("the first event is \(events[0]), not a reload")
            return
        }
        #expect(position >= newest)
        #expect(Self.describe(events[1]) == "localstorage example.net write")
    }

    /// A subscriber that does not keep up gets `.reload` once there is room, never a gap without
    /// one (a feed with a buffer of 5, stepped by hand).
    @Test func aSubscriberThatFallsBehindIsToldToReload() async throws {
        let store = try WebsiteDataStore.testing(dir.url)
        let start = try store.changePosition().value
        for index in 0..<20 { try store.localStorage.setItem("k\(index)", "v", origin: Self.example) }
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: WebsiteDataChangeEvent.self, bufferingPolicy: .bufferingOldest(5))
        let feed = ChangeFeed(database: store.database, types: WebsiteDataType.all)
        var progress = ChangeFeed.Progress(position: start)
        #expect(try feed.step(&progress, continuation))
        #expect(progress.owesReload)
        // Nothing is delivered while the reload is owed and there is no room.
        #expect(try feed.step(&progress, continuation))
        #expect(progress.owesReload)
        var reader = stream.makeAsyncIterator()
        for _ in 0..<5 {
            guard case .change = try await reader.next() else {
                Issue.record("expected one of the first five changes")
                return
            }
        }
        try store.localStorage.setItem("later", "v", origin: Self.example)
        #expect(try feed.step(&progress, continuation))
        #expect(!progress.owesReload)
        continuation.finish()
        var rest: [String] = []
        while let event = try await reader.next() { rest.append(Self.describe(event)) }
        // The reload names the newest position; the changes it covers are not delivered.
        #expect(rest == ["reload \(try store.changePosition().value)"])
    }
}
