import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

/// The tool on PostgreSQL stores for what only a server has: the stores of identifiers in one
/// database, copies between a directory and a database, and the one-line messages of a server
/// that cannot be used. Every other command runs on PostgreSQL in the `bothEngines` suites.
@Suite(.ownThreads) struct PostgreSQLTests {
    @Test func storesListAndRemoveInADatabase() throws {
        let sandbox = try Sandbox()
        let database = try PostgreSQLTestServer.freshDatabase()
        let uri = PostgreSQLTestServer.uri(database.connectionString)
        #expect(try sandbox.run(["--store", uri, "stores", "list"]).stdout.isEmpty)
        #expect(try sandbox.run(["--store", uri, "stores", "list", "--json"]).json() as? [String] == [])
        let first = "9B2F0C4E-1D7A-4E55-8C1B-3A6F2E9D0B71"
        let second = "1C3E5A7B-9D2F-4B6A-8E0C-2F4A6B8D0E13"
        for identifier in [first, second] {
            let set = try sandbox.run([
                "--store", uri, "--identifier", identifier, "cookies", "set", "--url", "https://example.com/",
                "a=\(identifier.prefix(4))",
            ])
            #expect(set.status == 0, "\(set.stderr)")
        }
        #expect(
            try sandbox.run(["--store", uri, "--identifier", first, "cookies", "header", "https://example.com/"])
                .stdout == "a=9B2F\n")
        let listed = try sandbox.run(["--store", uri, "stores", "list"]).lines
        #expect(listed == [second.lowercased(), first.lowercased()])
        #expect(try sandbox.run(["--store", uri, "stores", "list", "--json"]).json() as? [String] == listed)

        let removed = try sandbox.run(["--store", uri, "stores", "remove", first])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "removed store \(first.lowercased())\n")
        #expect(try sandbox.run(["--store", uri, "stores", "list"]).lines == [second.lowercased()])
        let again = try sandbox.run(["--store", uri, "stores", "remove", first])
        #expect(again.status == 1)
        #expect(again.isOneLineMessage)
        #expect(again.stderr.contains("no store has the identifier"))
        // A store removed reads as one never made: empty, and nothing is made by reading it.
        let gone = try sandbox.run(["--store", uri, "--identifier", first, "records"])
        #expect(gone.status == 0 && gone.stdout.isEmpty, "\(gone.stderr)")
        #expect(try sandbox.run(["--store", uri, "stores", "list"]).lines == [second.lowercased()])
        let json = try sandbox.run(["--store", uri, "stores", "remove", second, "--json"]).object()
        #expect(json["removed"] as? String == second.lowercased())
        #expect(try sandbox.run(["--store", uri, "stores", "list"]).stdout.isEmpty)
    }

    @Test func copyFromADirectoryIntoADatabaseAndBack() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://www.example.com/", "sid=1; Max-Age=600", "theme=dark"])
        try sandbox.succeed(["storage", "set", "--origin", "https://app.example.org", "k", "v"])
        try sandbox.succeed(["config", "set", "cookies.max-total", "5000"])
        let database = try PostgreSQLTestServer.freshDatabase()
        let uri = PostgreSQLTestServer.uri(database.connectionString)
        let identifier = UUID().uuidString

        let copied = try sandbox.run([
            "copy", sandbox.store.path, uri, "--destination-identifier", identifier, "--json",
        ])
        #expect(copied.status == 0, "\(copied.stderr)")
        let counts = try copied.object()
        #expect(counts["cookies"] as? Int == 2)
        #expect(counts["localStorageItems"] as? Int == 1)
        #expect(counts["settings"] as? Int == 1)
        let inDatabase = ["--store", uri, "--identifier", identifier]
        #expect(
            try sandbox.run(inDatabase + ["cookies", "header", "https://www.example.com/"]).stdout
                == "sid=1; theme=dark\n")
        #expect(try sandbox.run(inDatabase + ["config", "get", "cookies.max-total"]).stdout == "5000\n")
        #expect(try sandbox.run(inDatabase + ["records"]).stdout == (try sandbox.succeed(["records"]).stdout))

        // A destination that holds data is refused and left as it was.
        let onto = try sandbox.run(["copy", sandbox.store.path, uri, "--destination-identifier", identifier])
        #expect(onto.status == 1)
        #expect(onto.isOneLineMessage, "\(onto.stderr)")
        #expect(try sandbox.run(inDatabase + ["cookies", "list"]).lines.count == 2)

        let back = sandbox.root.appendingPathComponent("back")
        let returned = try sandbox.run(["copy", uri, back.path, "--source-identifier", identifier])
        #expect(returned.status == 0, "\(returned.stderr)")
        #expect(returned.lines.contains { $0.hasPrefix("cookies") && $0.hasSuffix(" 2") }, "\(returned.stdout)")
        #expect(
            try sandbox.run(["--store", back.path, "storage", "get", "--origin", "https://app.example.org", "k"])
                .stdout == "v\n")
        #expect(
            try sandbox.run(["--store", back.path, "export"]).stdout == (try sandbox.succeed(["export"]).stdout))
    }

    /// A PostgreSQL store has no files to copy: `backup` says what to use instead, and makes nothing.
    @Test func backupOfADatabaseStoreIsRefusedAndMakesNothing() throws {
        let sandbox = try TestEngine.$current.withValue(.postgreSQL) { try Sandbox() }
        let arguments = try TestEngine.$current.withValue(.postgreSQL) { try sandbox.storeArguments() }
        #expect(
            try sandbox.run(arguments + ["cookies", "set", "--url", "https://example.com/", "a=1"]).status == 0)
        let destination = sandbox.root.appendingPathComponent("backup")
        let refused = try sandbox.run(arguments + ["backup", destination.path])
        #expect(refused.status == 2)
        #expect(refused.isOneLineMessage, "\(refused.stderr)")
        #expect(refused.stderr.contains("wkstore copy"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    /// The private cluster asks `passwordRole` for its password over TCP; a server named by
    /// `WKSTORE_TEST_POSTGRES` may not, so this test needs the private one.
    @Test(.enabled(if: PostgreSQLTestServer.startsItsOwnCluster))
    func aRefusedPasswordOrAServerThatDoesNotAnswerIsOneLineWithoutThePassword() throws {
        let sandbox = try Sandbox()
        let cluster = try #require(try PostgreSQLTestServer.privateCluster())
        try cluster.makePasswordRole()
        let database = try PostgreSQLTestServer.freshDatabase()
        let role = PostgreSQLTestCluster.passwordRole
        try PostgreSQLConnection(database.connectionString).execute(
            "GRANT CREATE ON DATABASE \"\(database.name)\" TO \(role)")
        let right = PostgreSQLTestCluster.rolePassword
        let wrong = "Wr0ng-pw-" + right
        func uri(_ password: String, port: Int) -> String {
            let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            return "postgresql://\(role):\(encoded)@127.0.0.1:\(port)/\(database.name)?connect_timeout=30"
        }
        func showsNoPassword(_ result: RunResult, _ context: String) {
            for secret in [
                right, wrong, "Corr3ct", right.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
            ] {
                #expect(!result.stdout.contains(secret), "\(context): \(result.stdout)")
                #expect(!result.stderr.contains(secret), "\(context): \(result.stderr)")
            }
        }
        let commands: [[String]] = [
            ["records"], ["--json", "records"], ["cookies", "set", "--url", "https://example.com/", "a=1"],
            ["--json", "cookies", "list"], ["stores", "list"], ["--json", "config", "list"],
        ]
        let refused = uri(wrong, port: cluster.port)
        let refusing = PostgreSQLTestCluster.RefusingPort()
        let unreachable = uri(wrong, port: refusing.port)
        for (store, cause) in [(refused, "password authentication failed"), (unreachable, "Connection refused")] {
            for command in commands {
                let result = try sandbox.run(["--store", store] + command)
                #expect(result.status == 1, "\(command)")
                #expect(result.isOneLineMessage, "\(command): \(result.stderr)")
                #expect(result.stderr.contains(cause), "\(command): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(command): \(result.stdout)")
                showsNoPassword(result, "\(command)")
            }
        }
        withExtendedLifetime(refusing) {}
        // With the right password, no output shows it either.
        let accepted = uri(right, port: cluster.port)
        for command in commands + [["--json", "cookies", "header", "https://example.com/"], ["export"]] {
            let result = try sandbox.run(["--store", accepted] + command)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            showsNoPassword(result, "\(command)")
        }
        #expect(try sandbox.run(["--store", accepted, "cookies", "header", "https://example.com/"]).stdout == "a=1\n")
    }

    @Test func aSchemaNewerThanTheToolIsRefusedInOneLineAndLeftUnchanged() throws {
        let sandbox = try Sandbox()
        let database = try PostgreSQLTestServer.freshDatabase()
        let uri = PostgreSQLTestServer.uri(database.connectionString)
        let identifier = UUID()
        let store = ["--store", uri, "--identifier", identifier.uuidString]
        #expect(try sandbox.run(store + ["cookies", "set", "--url", "https://example.com/", "a=1"]).status == 0)
        let schema = "wkstore_" + identifier.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgreSQLConnection(database.connectionString)
        try admin.execute(
            "INSERT INTO \(schema).wkstore_schema (version, name, applied_at) SELECT max(version) + 1, 'from the future', 0 FROM \(schema).wkstore_schema"
        )
        let newest = try #require(try admin.execute("SELECT max(version) FROM \(schema).wkstore_schema").scalar?.int64)
        let snapshot = "SELECT count(*) FROM \(schema).cookies"
        let before = try admin.execute(snapshot).scalar?.int64
        for command in [
            ["records"], ["cookies", "set", "--url", "https://example.com/", "b=2"], ["clear", "--types", "all"],
            ["--json", "cookies", "list"], ["config", "set", "cookies.max-total", "10"],
        ] {
            let result = try sandbox.run(store + command)
            #expect(result.status == 1, "\(command)")
            #expect(result.isOneLineMessage, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("schema version \(newest), newer than this wkstore"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(try admin.execute(snapshot).scalar?.int64 == before)
        #expect(try admin.execute("SELECT max(version) FROM \(schema).wkstore_schema").scalar?.int64 == newest)
    }

    @Test func aDatabaseOfAnotherProgramIsRefusedInOneLineAndLeftUnchanged() throws {
        let sandbox = try Sandbox()
        let database = try PostgreSQLTestServer.freshDatabase()
        let admin = try PostgreSQLConnection(database.connectionString)
        // The default store's schema, holding another program's table.
        try admin.execute("CREATE SCHEMA wkstore")
        try admin.execute("CREATE TABLE wkstore.orders (id integer)")
        try admin.execute("INSERT INTO wkstore.orders VALUES (1), (2)")
        let uri = PostgreSQLTestServer.uri(database.connectionString)
        for command in [
            ["records"], ["cookies", "set", "--url", "https://example.com/", "a=1"], ["clear", "--types", "all"],
            ["--json", "cookies", "list"], ["import", "-"],
        ] {
            let result = try sandbox.run(["--store", uri] + command, stdin: Data())
            #expect(result.status == 1, "\(command)")
            #expect(result.isOneLineMessage, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("belongs to another program"), "\(command): \(result.stderr)")
        }
        let tables = try admin.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'wkstore'").rows
        #expect(tables.map { $0[0].text } == ["orders"])
        #expect(try admin.execute("SELECT count(*) FROM wkstore.orders").scalar?.int64 == 2)
    }
}
