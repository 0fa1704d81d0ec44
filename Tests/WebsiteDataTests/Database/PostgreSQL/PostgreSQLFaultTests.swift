import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// A server that goes away and comes back, on a cluster of the test's own.
@Suite(.ownThreads) struct PostgreSQLFaultTests {
    @Test func aConnectionReconnectsAfterTheServerRestarts() throws {
        let cluster = try PostgreSQLTestCluster()
        defer { try? cluster.stop(immediate: false) }
        let db = try PostgreSQLConnection(cluster.socketConnectionString())
        try db.execute("CREATE TABLE t (k text)")
        try db.execute("INSERT INTO t VALUES ('committed before the crash')")
        try db.listen("after restart")
        #expect(db.isConnected)

        try cluster.stop(immediate: true)
        let lost = #expect(throws: PostgreSQLError.self) { try db.execute("SELECT count(*) FROM t") }
        #expect(lost?.reason == .connectionLost, "\(String(describing: lost))")
        #expect(!db.isConnected)
        let down = #expect(throws: PostgreSQLError.self) { try db.reconnect() }
        #expect(down?.reason == .serverUnavailable)

        try cluster.start()
        try db.reconnect()
        #expect(db.isConnected)
        #expect(try db.execute("SELECT k FROM t").rows.map { $0[0].text } == ["committed before the crash"])
        // The channel is listened to again.
        let sender = try PostgreSQLConnection(cluster.socketConnectionString())
        try sender.notify("after restart", payload: "heard")
        var received: [PostgreSQLNotification] = []
        let deadline = ContinuousClock.now + .seconds(120)
        while received.isEmpty, ContinuousClock.now < deadline {
            received = try db.notifications(timeout: .seconds(30))
        }
        #expect(received.map(\.payload) == ["heard"])
    }
}

extension PostgreSQLFaultTests {
    /// A write that fails because the server is gone leaves nothing of it in memory, though
    /// memory cannot be read again from the database until the server is back: the first lookup
    /// after it returns answers from the database's cookies, and another store's change made
    /// meanwhile is seen.
    @Test func aCookieWriteThatFailedInAnOutageIsNotServedAfterIt() throws {
        let cluster = try PostgreSQLTestCluster()
        defer { try? cluster.stop(immediate: false) }
        let uri = URL(string: PostgreSQLTestServer.uri(cluster.socketConnectionString()))!
        let store = try WebsiteDataStore(url: uri)
        let url = URL(string: "https://outage.example/")!
        try store.httpCookieStore.setCookies(fromSetCookieHeaders: ["kept=1; Max-Age=600"], for: url)

        try cluster.stop(immediate: true)
        let failed = #expect(throws: (any Error).self) {
            try store.httpCookieStore.setCookies(fromSetCookieHeaders: ["lost=1; Max-Age=600"], for: url)
        }
        let reason = (failed as? PostgreSQLError)?.reason
        #expect(reason == .connectionLost || reason == .serverUnavailable, "\(String(describing: failed))")
        try cluster.start()

        let other = try WebsiteDataStore(url: uri)
        try other.httpCookieStore.setCookies(fromSetCookieHeaders: ["other=1; Max-Age=600"], for: url)
        #expect(try other.httpCookieStore.cookieHeader(for: url) == "kept=1; other=1")
        #expect(try store.httpCookieStore.cookieHeader(for: url) == "kept=1; other=1")
    }
}
