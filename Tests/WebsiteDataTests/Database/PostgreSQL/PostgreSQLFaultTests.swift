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
