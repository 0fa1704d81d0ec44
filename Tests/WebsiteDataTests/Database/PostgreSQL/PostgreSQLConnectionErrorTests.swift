import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// What a connection that cannot be made reports: a reason a program can act on, and a message
/// that never holds the password it was given.
@Suite(.ownThreads) struct PostgreSQLConnectionErrorTests {
    static let password = PostgreSQLTestCluster.rolePassword

    /// The private cluster asks `passwordRole` for its password over TCP; a server named by
    /// `WKSTORE_TEST_POSTGRES` may not, so this test needs the private one.
    @Test(.enabled(if: PostgreSQLTestServer.startsItsOwnCluster))
    func aWrongPasswordIsAnAuthenticationFailureWithoutThePassword() throws {
        let cluster = try #require(try PostgreSQLTestServer.privateCluster())
        try cluster.makePasswordRole()
        let role = PostgreSQLTestCluster.passwordRole
        let right = try PostgreSQLConnection(cluster.tcpConnectionString(user: role, password: Self.password))
        #expect(try right.execute("SELECT current_user").scalar?.text == role)

        let wrong = "Wr0ng-\(Self.password)"
        let attempts = [
            cluster.tcpConnectionString(user: role, password: wrong),
            "postgresql://\(role):\(wrong.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)@127.0.0.1:\(cluster.port)/postgres",
        ]
        for attempt in attempts {
            let error = #expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(attempt) }
            #expect(error?.reason == .authenticationFailed)
            #expect(error?.message.contains("password authentication failed") == true)
            for shown in [error?.message ?? "", error?.description ?? "", String(describing: error)] {
                #expect(!shown.contains(wrong))
                #expect(!shown.contains(Self.password))
                #expect(!shown.contains("Corr3ct"))
            }
        }
        // No password at all, where one is required.
        let missing = #expect(throws: PostgreSQLError.self) {
            try PostgreSQLConnection(cluster.tcpConnectionString(user: role) + " passfile=/nonexistent")
        }
        #expect(missing?.reason == .authenticationFailed)
    }

    @Test func anUnknownRoleOrDatabaseIsNamedWithoutThePassword() throws {
        let database = try PostgreSQLTestServer.freshDatabase()
        let base = database.connectionString
        let role = #expect(throws: PostgreSQLError.self) {
            try PostgreSQLConnection(base + " user=nobody_here password='s3cret-role-pw'")
        }
        #expect(role?.reason == .authenticationFailed)
        #expect(role?.message.contains("nobody_here") == true)
        #expect(role?.description.contains("s3cret-role-pw") == false)
        let missing = #expect(throws: PostgreSQLError.self) {
            try PostgreSQLConnection(base + " dbname=no_such_database password='s3cret-db-pw'")
        }
        #expect(missing?.reason == .databaseMissing)
        #expect(missing?.message.contains("no_such_database") == true)
        #expect(missing?.description.contains("s3cret-db-pw") == false)
    }

    /// A server being stopped may reset a connection it has not accepted yet: that is the
    /// server being unavailable (try again later), not a connection that cannot be made.
    @Test func aConnectionResetWhileConnectingIsAnUnavailableServer() throws {
        let resetting = PostgreSQLTestCluster.ResettingPort()
        let error = #expect(throws: PostgreSQLError.self) {
            try PostgreSQLConnection("host=127.0.0.1 port=\(resetting.port) user=wk connect_timeout=30")
        }
        #expect(error?.reason == .serverUnavailable, "\(String(describing: error))")
        withExtendedLifetime(resetting) {}
        // What libpq said when a cluster's socket reset a connection as the server stopped.
        let socketReset = """
            connection to server on socket "/tmp/wkstore-pg/.s.PGSQL.34789" failed: Connection reset by peer
            \tIs the server running locally and accepting connections on that socket?
            """
        #expect(PostgreSQLConnection.connectFailureReason(socketReset) == .serverUnavailable)
        #expect(PostgreSQLConnection.connectFailureReason("invalid connection option \"hots\"") == .connectionFailed)
    }

    @Test func aServerThatDoesNotAnswerIsUnavailable() throws {
        // A port nothing listens on, and a socket folder with no server.
        let refusing = PostgreSQLTestCluster.RefusingPort()
        let port = refusing.port
        let attempts = [
            "host=127.0.0.1 port=\(port) user=wk password=unreachable-pw connect_timeout=30",
            "postgresql://wk:unreachable-pw@127.0.0.1:\(port)/postgres",
            "host=/nonexistent-wkstore-socket-folder user=wk password=unreachable-pw",
        ]
        for attempt in attempts {
            let error = #expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(attempt) }
            #expect(error?.reason == .serverUnavailable, "\(String(describing: error))")
            #expect(error?.description.contains("unreachable-pw") == false)
        }
        withExtendedLifetime(refusing) {}
        let malformed = #expect(throws: PostgreSQLError.self) {
            try PostgreSQLConnection("host=db password='never-closed")
        }
        #expect(malformed?.reason == .connectionFailed)
        #expect(malformed?.description.contains("never-closed") == false)
    }
}
