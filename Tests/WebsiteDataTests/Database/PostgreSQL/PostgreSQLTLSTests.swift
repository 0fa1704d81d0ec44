import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// TLS as libpq does it, on a cluster of its own that accepts TLS with a certificate for
/// `localhost` signed by an authority the test made: `sslmode=verify-full` with that authority
/// as `sslrootcert` connects encrypted, and one that cannot verify the server is refused.
@Suite(.ownThreads) struct PostgreSQLTLSTests {
    @Test func verifyFullConnectsWithTheServersAuthorityAndRefusesWhatItCannotVerify() async throws {
        let cluster = try PostgreSQLTestCluster()
        defer { try? cluster.stop(immediate: false) }
        let authority = try cluster.enableTLS()
        func uri(_ query: String) -> String {
            "postgresql://\(cluster.user)@localhost:\(cluster.port)/postgres?connect_timeout=60&\(query)"
        }
        let verified = uri("hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert=\(authority.path)")

        let store = try WebsiteDataStore(url: URL(string: verified)!)
        try store.httpCookieStore.set("https://www.example.com/", "session=1; Max-Age=600")
        let encrypted = try store.database.read { db in
            try db.scalar("SELECT ssl::int FROM pg_catalog.pg_stat_ssl WHERE pid = pg_catalog.pg_backend_pid()")?.int64
        }
        #expect(encrypted == 1)
        #expect(
            try WebsiteDataStore(url: URL(string: verified)!).httpCookieStore.header("https://www.example.com/")
                == "session=1")

        // The certificate names localhost, not the address: verify-full refuses it.
        let mismatch = #expect(throws: PostgreSQLError.self) {
            _ = try WebsiteDataStore(
                url: URL(
                    string:
                        "postgresql://\(cluster.user)@127.0.0.1:\(cluster.port)/postgres?sslmode=verify-full&sslrootcert=\(authority.path)"
                )!)
        }
        #expect(mismatch?.reason == .connectionFailed)
        #expect(mismatch?.message.contains("does not match host name") == true, "\(String(describing: mismatch))")
        // Without the authority there is nothing to verify the server with.
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("wkstore-tls-\(UUID().uuidString)")
        let noAuthority = #expect(throws: PostgreSQLError.self) {
            _ = try WebsiteDataStore(
                url: URL(string: uri("hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert=\(home.path)/root.crt"))!)
        }
        #expect(noAuthority?.reason == .connectionFailed)
        #expect(noAuthority?.message.contains("root certificate file") == true, "\(String(describing: noAuthority))")

        // The CLI passes the URI's TLS settings to libpq as they are.
        let wkstore = Command.product("wkstore")
        let header = try await Command.run(
            wkstore, ["--store", verified, "cookies", "header", "https://www.example.com/"])
        #expect(header.status == 0 && header.stdout == "session=1\n", "\(header)")
        let refused = try await Command.run(
            wkstore,
            [
                "--store",
                "postgresql://\(cluster.user)@127.0.0.1:\(cluster.port)/postgres?sslmode=verify-full&sslrootcert=\(authority.path)",
                "cookies", "list",
            ])
        #expect(refused.status == 1 && refused.stderr.contains("does not match host name"), "\(refused)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "one line: \(refused.stderr)")
    }
}
