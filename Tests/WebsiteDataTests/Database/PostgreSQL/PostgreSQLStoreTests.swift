import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// A store in a PostgreSQL database, opened as a user opens it (`WebsiteDataStore(url:)`, the
/// CLI's `--store URI`), shared by store objects and processes that share nothing but the URI.
@Suite(.ownThreads) struct PostgreSQLStoreTests {
    let database: PostgreSQLTestDatabase
    let uri: String

    init() throws {
        database = try PostgreSQLTestServer.freshDatabase()
        uri = PostgreSQLTestServer.uri(database.connectionString)
    }

    @Test func storeObjectsOnOneURIShareCookiesAndIdentifiersKeepStoresApart() throws {
        let url = URL(string: uri)!
        let first = try WebsiteDataStore(url: url)
        let second = try WebsiteDataStore(url: url)
        #expect(first.isPersistent && first.directory == nil)
        try first.httpCookieStore.set("https://www.example.com/", "login=yes; Max-Age=3600")
        // The other object of this process sees the commit at its next call.
        #expect(try second.httpCookieStore.header("https://www.example.com/") == "login=yes")

        let identifier = UUID()
        let other = try WebsiteDataStore(url: url, identifier: identifier)
        #expect(try other.httpCookieStore.header("https://www.example.com/") == nil)
        try other.httpCookieStore.set("https://www.example.com/", "crawler=2")
        #expect(try first.httpCookieStore.header("https://www.example.com/") == "login=yes")

        // Reopened, the store is still there.
        let reopened = try WebsiteDataStore(url: url, identifier: identifier)
        #expect(try reopened.httpCookieStore.header("https://www.example.com/") == "crawler=2")
    }

    @Test func serverOptionsOfTheURIAreKeptBesideTheStoresSchema() throws {
        let store = try WebsiteDataStore(url: URL(string: uri + "&options=-c%20statement_timeout%3D4321")!)
        let (timeout, path) = try store.database.read { db in
            (try db.scalar("SHOW statement_timeout")?.text, try db.scalar("SHOW search_path")?.text)
        }
        #expect(timeout == "4321ms")
        #expect(path == "wkstore")
    }

    @Test func storesOfIdentifiersAreListedAndRemoved() async throws {
        let url = URL(string: uri)!
        let identifier = UUID()
        do {
            let store = try WebsiteDataStore(url: url, identifier: identifier)
            try store.httpCookieStore.set("https://www.example.com/", "a=1")
            _ = try WebsiteDataStore(url: url)
        }
        #expect(try WebsiteDataStore.allDataStoreIdentifiers(in: url) == [identifier])
        let wkstore = Command.product("wkstore")
        let listed = try await Command.run(wkstore, ["--store", uri, "stores", "list"])
        #expect(listed.lines == [identifier.uuidString.lowercased()], "\(listed)")
        let removed = try await Command.run(wkstore, ["--store", uri, "stores", "remove", identifier.uuidString])
        #expect(removed.status == 0, "\(removed)")
        #expect(try WebsiteDataStore.allDataStoreIdentifiers(in: url).isEmpty)
        #expect(throws: StoreError.noSuchStore(identifier: identifier)) {
            try WebsiteDataStore.removeDataStore(forIdentifier: identifier, in: url)
        }
        // A new store of that identifier starts empty.
        let again = try WebsiteDataStore(url: url, identifier: identifier)
        #expect(try again.httpCookieStore.header("https://www.example.com/") == nil)
    }

    /// A store object's pipelined commits learn their positions only once their rows are
    /// visible to others; the rows carry the object's writer number, by which its reads know them
    /// as its own. A row with its number is never applied again; another writer's row is.
    @Test func changeLogRowsMarkedWithAStoreObjectsWriterNumberAreItsOwn() throws {
        let store = try WebsiteDataStore(
            url: URL(string: uri)!, identifier: nil, configuration: .init(strictCoherence: true))
        try store.httpCookieStore.set("https://www.example.com/", "a=1; Max-Age=3600")
        let side = try PostgreSQLConnection(database.connectionString)
        try side.execute("SET search_path = wkstore")
        func append(_ name: String, writer: Int64) throws {
            let now = Date().timeIntervalSince1970
            try side.execute(
                """
                INSERT INTO change_log (seq, type, site, cause, time, op, name, value, domain, path, host_only,
                    secure, http_only, same_site, partition_key, expires, created, last_access, modified, writer)
                SELECT position + 1, 1, 'example.com', 1, $1, 1, $2, '1', 'www.example.com', '/', true, false,
                    false, 'lax', '', $1 + 3600, $1, $1, $1, $3 FROM change_log_head WHERE id = 1
                """, [.double(now), .text(name), .int64(writer)])
        }
        try append("mine", writer: store.database.writerNumber)
        #expect(
            try store.httpCookieStore.header("https://www.example.com/") == "a=1", "its own row is not applied again")
        try append("theirs", writer: store.database.writerNumber &+ 1)
        #expect(try store.httpCookieStore.header("https://www.example.com/") == "a=1; theirs=1")
        // A store object opened afresh reads both rows.
        let fresh = try WebsiteDataStore(url: URL(string: uri)!)
        #expect(try fresh.httpCookieStore.header("https://www.example.com/") == "a=1; mine=1; theirs=1")
    }

    /// A store an older wkstore migrated: a read-only open refuses it unchanged with the error a
    /// SQLite store of an older schema gets; the CLI's reading commands and a writable open
    /// upgrade it.
    @Test func aStoreOfAnOlderSchemaIsRefusedByAReadOnlyOpenAndUpgradedByAWritableOne() async throws {
        let url = URL(string: uri)!
        let identifier = UUID()
        let location = PostgreSQLStoreLocation(connectionString: database.connectionString, identifier: identifier)
        let older = PostgreSQLMigrator(
            migrations: Array(embeddedPostgreSQLMigrations.sorted { $0.version < $1.version }.dropLast()))
        let latest = PostgreSQLMigrator().latestVersion
        do {
            let connection = try PostgreSQLConnection(database.connectionString)
            try connection.execute("CREATE SCHEMA \(location.schema)")
            try connection.execute("SET search_path = \(location.schema)")
            try older.migrate(connection)
            // Changes the older schema logged, numbered from the log's head as its writers did.
            for site in ["a.example", "b.example"] {
                try connection.execute(
                    "INSERT INTO change_log (seq, type, site, cause, time) SELECT position + 1, 6, $1, 1, 0 FROM change_log_head WHERE id = 1",
                    [.text(site)])
            }
        }
        func versions() throws -> [Int] {
            let connection = try location.connect()
            return try PostgreSQLMigrator().appliedVersions(connection)
        }
        #expect(try versions() == Array(1..<latest))
        let error = #expect(throws: StoreError.self) {
            _ = try WebsiteDataStore(url: url, identifier: identifier, configuration: .init(readOnly: true))
        }
        guard case .olderSchema(let path, let found, let supported) = error else {
            Issue.record("expected .olderSchema, got \(String(describing: error))")
            return
        }
        #expect(found == latest - 1 && supported == latest)
        #expect(path.contains("schema=\(location.schema)") && !path.contains("password"))
        #expect(try versions() == Array(1..<latest), "the read-only open changed nothing")

        // The CLI reads it as it reads an older SQLite store: upgraded by its writable open.
        let listed = try await Command.run(
            Command.product("wkstore"), ["--store", uri, "--identifier", identifier.uuidString, "cookies", "list"])
        #expect(listed.status == 0, "\(listed)")
        #expect(try versions() == Array(1...latest))
        _ = try WebsiteDataStore(url: url, identifier: identifier, configuration: .init(readOnly: true))

        // The upgraded log goes on from the older schema's last position.
        try WebsiteDataStore(url: url, identifier: identifier).httpCookieStore.set("https://example.com/", "a=1")
        let positions = try location.connect().execute("SELECT seq FROM change_log ORDER BY seq").rows.map {
            $0[0].int64
        }
        #expect(positions == [1, 2, 3])
    }

    /// A store an object holds open is not removed unless forced; forced, the object's next
    /// call says the store was removed; released, it is removed plainly.
    @Test func aStoreHeldOpenIsRemovedOnlyByForceAndItsObjectsSaySo() throws {
        let url = URL(string: uri)!
        let identifier = UUID()
        var held: WebsiteDataStore? = try WebsiteDataStore(url: url, identifier: identifier)
        try held?.httpCookieStore.set("https://example.com/", "a=1")
        #expect(throws: StoreError.storeInUse(identifier: identifier)) {
            try WebsiteDataStore.removeDataStore(forIdentifier: identifier, in: url)
        }
        #expect(try WebsiteDataStore.allDataStoreIdentifiers(in: url) == [identifier])
        try WebsiteDataStore.removeDataStore(forIdentifier: identifier, in: url, force: true)
        #expect(try WebsiteDataStore.allDataStoreIdentifiers(in: url) == [])
        let error = #expect(throws: StoreError.self) { try held?.httpCookieStore.set("https://example.com/", "b=2") }
        guard case .storeRemoved(let path)? = error else {
            Issue.record("expected .storeRemoved, got \(String(describing: error))")
            return
        }
        #expect(path.contains(PostgreSQLStoreLocation.schema(for: identifier)))
        held = nil

        // Made again and released: nothing holds it.
        do { try WebsiteDataStore(url: url, identifier: identifier).httpCookieStore.set("https://example.com/", "c=3") }
        try WebsiteDataStore.removeDataStore(forIdentifier: identifier, in: url)
        #expect(try WebsiteDataStore.allDataStoreIdentifiers(in: url) == [])
    }

    /// Another process's commit, whose notification has not reached this process: a store
    /// object with strict coherence sees it at its next call; one without sees it once the
    /// notification arrives (or the log's once-a-second reading comes round).
    @Test func strictCoherenceSeesAnotherProcesssCommitBeforeItsNotification() throws {
        let url = URL(string: uri)!
        let strict = try WebsiteDataStore(url: url, identifier: nil, configuration: .init(strictCoherence: true))
        let notified = try WebsiteDataStore(url: url)
        let site = "https://fleet.example/"
        #expect(try strict.httpCookieStore.header(site) == nil)
        #expect(try notified.httpCookieStore.header(site) == nil)
        let listener = try #require(notified.database.listener)
        #expect(listener === strict.database.listener)
        listener.holdNotifications(true)
        defer { listener.holdNotifications(false) }

        let started = Date()
        let child = try ChildProcess("wkstore", ["--store", uri, "cookies", "set", "--url", site, "login=yes"])
        while child.readLine() != nil {}
        #expect(child.wait() == 0)
        // Read first, then told whether the once-a-second reading of the log could have come.
        let seenWithoutStrictness = try notified.httpCookieStore.header(site)
        let withinRecheck = Date().timeIntervalSince(started) < 0.9
        #expect(try strict.httpCookieStore.header(site) == "login=yes")
        if withinRecheck { #expect(seenWithoutStrictness == nil, "the held notification was not held") }

        // Released, the notification (held, or still on its way) reaches the other object.
        listener.holdNotifications(false)
        let deadline = Date().addingTimeInterval(60)
        while try notified.httpCookieStore.header(site) == nil && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(try notified.httpCookieStore.header(site) == "login=yes")
    }

    /// The change log's rows go to the server as arrays: values holding what an array literal
    /// treats specially (quotes, backslashes, braces, commas, the word NULL) come back as they were.
    @Test func valuesThatLookLikeArrayLiteralsSurviveTheLog() throws {
        let url = URL(string: uri)!
        let values = [#"a"b"#, #"a\b"#, #"\""#, "{x,y}", "NULL", "null", "a,b", "é ü", #"}\{"#, ""]
        let store = try WebsiteDataStore(url: url)
        let summary = try store.httpCookieStore.setCookies(
            fromSetCookieHeaders: values.enumerated().map { "c\($0.offset)=\($0.element)" },
            for: URL(string: "https://array.example/")!)
        #expect(summary.stored == values.count, "\(summary)")
        // A store opened afresh reads them from the log on the server.
        let reopened = try WebsiteDataStore(url: url).httpCookieStore.allCookies()
        let stored = Dictionary(uniqueKeysWithValues: reopened.map { ($0.name, $0.value) })
        #expect(stored == Dictionary(uniqueKeysWithValues: values.enumerated().map { ("c\($0.offset)", $0.element) }))
        #expect(PostgreSQLStoreConnection.arrayLiteral([.text(#"a"b\"#), .null, .integer(3)]) == #"{"a\"b\\",NULL,3}"#)
    }

    @Test func anotherSchemeIsRefused() throws {
        let error = #expect(throws: StoreError.self) { try WebsiteDataStore(url: URL(string: "mysql://db/x")!) }
        #expect(error?.description.contains("postgresql://") == true)
    }

    @Test func aWrongPasswordIsReportedWithoutIt() throws {
        let secret = "hunter2-\(UUID().uuidString.prefix(6))"
        let url = URL(string: "postgresql://\(PostgreSQLTestCluster.passwordRole):\(secret)@127.0.0.1:1/wkstore")!
        let error = #expect(throws: PostgreSQLError.self) { try WebsiteDataStore(url: url) }
        #expect(error != nil)
        #expect(error?.description.contains(secret) == false)
    }

    /// The CLI in another process writes and clears the store; this process's store object,
    /// making no calls of its own meanwhile, hears both through the server's notifications.
    @Test func anotherProcessWritesAndClearsAndAnIdleObjectHearsIt() async throws {
        let store = try WebsiteDataStore(url: URL(string: uri)!)
        try store.httpCookieStore.set("https://www.example.com/", "mine=1; Max-Age=3600")
        let wkstore = Command.product("wkstore")

        let set = try await Command.run(
            wkstore, ["--store", uri, "cookies", "set", "--url", "https://www.example.com/", "theirs=2; Max-Age=3600"])
        #expect(set.status == 0, "\(set.stderr)")
        let header = try await Command.run(wkstore, ["--store", uri, "cookies", "header", "https://www.example.com/"])
        #expect(header.status == 0, "\(header.stderr)")
        #expect(header.stdout.contains("mine=1") && header.stdout.contains("theirs=2"))
        #expect(try store.httpCookieStore.header("https://www.example.com/")?.contains("theirs=2") == true)

        let changes = try store.changes(ofTypes: [.cookies])
        let clear = try await Command.run(wkstore, ["--store", uri, "clear", "--types", "cookies"])
        #expect(clear.status == 0, "\(clear.stderr)")
        var heard: [WebsiteDataChange] = []
        for try await event in changes {
            if case .change(let change) = event {
                heard.append(change)
                if change.cause == .removal { break }
            }
        }
        #expect(heard.contains { $0.cause == .removal })
        #expect(try store.httpCookieStore.header("https://www.example.com/") == nil)
    }
}
