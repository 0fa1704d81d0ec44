import Foundation
import Synchronization
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

@Suite(.ownThreads) struct PostgreSQLConnectionTests {
    @Test func parametersRoundTripWithTheirTypes() throws {
        let context = try PostgreSQLTestContext()
        let row = try context.connection.execute(
            "SELECT $1::text, $2::bigint, $3::double precision, $4::boolean, $5::text IS NULL, $6::bytea, $7",
            [
                .text("héllo\t'quoted' \\ ✓"), .int64(.min), .double(-0.1), .bool(true), .null, .bytes([]),
                .text("untyped"),
            ]
        ).rows[0]
        #expect(row[0].text == "héllo\t'quoted' \\ ✓")
        #expect(row[1].int64 == .min)
        #expect(row[2].double == -0.1)
        #expect(row[3].bool == true)
        #expect(row[4].bool == true)
        #expect(row[5].bytes == [])
        #expect(row[6].text == "untyped")
        let special = try context.connection.execute(
            "SELECT $1::float8, $2::float8, NULL::text AS nothing", [.double(.infinity), .double(.nan)]
        ).rows[0]
        #expect(special[0].double == .infinity)
        #expect(special[1].double?.isNaN == true)
        #expect(special["nothing"]?.isNull == true)
        #expect(special["nothing"]?.text == nil)
    }

    @Test func aBlobOfMoreThanAMegabyteWithNULBytesRoundTrips() throws {
        let context = try PostgreSQLTestContext()
        var blob = (0..<(1_300_000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        blob.replaceSubrange(0..<4, with: [0, 0, 0, 0])
        blob.append(0)
        #expect(blob.filter { $0 == 0 }.count > 1000)
        try context.connection.execute("CREATE TABLE blobs (id integer PRIMARY KEY, data bytea NOT NULL)")
        let inserted = try context.connection.execute(
            "INSERT INTO blobs (id, data) VALUES ($1, $2)", [.int64(1), .bytes(blob)])
        #expect(inserted.affectedRows == 1)
        let back = try context.connection.execute("SELECT data, length(data) FROM blobs WHERE id = $1", [.int64(1)])
        #expect(back.rows[0][1].int64 == Int64(blob.count))
        #expect(back.rows[0][0].bytes == blob)
    }

    @Test func textHoldingNULIsRefusedBeforeItIsSent() throws {
        let context = try PostgreSQLTestContext()
        let error = #expect(throws: PostgreSQLError.self) {
            try context.connection.execute("SELECT $1::text", [.text("a\u{0}b")])
        }
        #expect(error?.reason == .misuse)
        #expect(try context.connection.execute("SELECT 1").scalar?.int64 == 1)
    }

    @Test func aRefusedStatementCarriesItsSQLState() throws {
        let context = try PostgreSQLTestContext()
        try context.connection.execute("CREATE TABLE t (k text PRIMARY KEY)")
        try context.connection.execute("INSERT INTO t VALUES ($1)", [.text("a")])
        let duplicate = #expect(throws: PostgreSQLError.self) {
            try context.connection.execute("INSERT INTO t VALUES ($1)", [.text("a")])
        }
        #expect(duplicate?.reason == .query)
        #expect(duplicate?.sqlState == "23505")
        let syntax = #expect(throws: PostgreSQLError.self) { try context.connection.execute("SELEC 1") }
        #expect(syntax?.sqlState == "42601")
        #expect(syntax?.description.contains("SELEC 1") == true)
    }

    @Test func aTransactionRollsBackWhenItsBodyThrows() throws {
        struct Planned: Error {}
        let context = try PostgreSQLTestContext()
        let db = context.connection
        try db.execute("CREATE TABLE t (k text PRIMARY KEY)")
        #expect(throws: Planned.self) {
            try db.transaction {
                try db.execute("INSERT INTO t VALUES ('rolled back')")
                throw Planned()
            }
        }
        #expect(!db.isInTransaction)
        let kept = try db.transaction { () throws -> Int in
            try db.execute("INSERT INTO t VALUES ('outer')")
            // An inner failure undoes only the inner work.
            try? db.transaction {
                try db.execute("INSERT INTO t VALUES ('inner')")
                throw Planned()
            }
            try db.transaction { try db.execute("INSERT INTO t VALUES ('inner kept')") }
            return 1
        }
        #expect(kept == 1)
        let keys = try db.execute("SELECT k FROM t ORDER BY k").rows.map { $0[0].text }
        #expect(keys == ["inner kept", "outer"])
        // A statement that failed inside, its error swallowed: the transaction cannot commit.
        let error = #expect(throws: PostgreSQLError.self) {
            try db.transaction {
                try db.execute("INSERT INTO t VALUES ('lost')")
                _ = try? db.execute("INSERT INTO t VALUES ('outer')")
            }
        }
        #expect(error?.sqlState == "25P02")
        #expect(try db.execute("SELECT count(*) FROM t").scalar?.int64 == 2)
        #expect(!db.isInTransaction)
    }

    @Test func copySendsMoreThanAMegabyteOfRows() throws {
        let context = try PostgreSQLTestContext()
        let db = context.connection
        try db.execute("CREATE TABLE rows (n bigint, label text, data bytea, ratio double precision, flag boolean)")
        let count = 20_000
        @Sendable func row(_ n: Int) -> [PostgreSQLValue] {
            let label: PostgreSQLValue = n % 97 == 0 ? .null : .text("row \(n)\twith\\tab\nand newline")
            let data: [UInt8] = [0, UInt8(n & 0xFF), 0x5C, 0x09]
            return [.int64(Int64(n)), label, .bytes(data), .double(Double(n) / 3), .bool(n % 2 == 0)]
        }
        let rows = (0..<count).lazy.map(row)
        let big = (0..<1_100_000).map { UInt8(truncatingIfNeeded: $0) }
        let copied = try db.copy("COPY rows (n, label, data, ratio, flag) FROM STDIN", rows: rows)
        #expect(copied == count)
        #expect(try db.copy("COPY rows (n, data) FROM STDIN", rows: [[.int64(-1), .bytes(big)]]) == 1)
        let sent = try db.execute("SELECT sum(octet_length(data)) + sum(coalesce(octet_length(label), 0)) FROM rows")
        #expect((sent.scalar?.int64 ?? 0) > 1_500_000)
        let sample = try db.execute("SELECT label, data, ratio, flag FROM rows WHERE n = 5").rows[0]
        #expect(sample[0].text == "row 5\twith\\tab\nand newline")
        #expect(sample[1].bytes == [0, 5, 0x5C, 0x09])
        #expect(sample[2].double == 5.0 / 3)
        #expect(sample[3].bool == false)
        #expect(
            try db.execute("SELECT count(*) FROM rows WHERE label IS NULL AND n >= 0").scalar?.int64
                == Int64((count + 96) / 97))
        #expect(try db.execute("SELECT data FROM rows WHERE n = -1").scalar?.bytes == big)
        // A row the server refuses stores nothing of the COPY, and the connection goes on.
        let refused = #expect(throws: PostgreSQLError.self) {
            try db.copy("COPY rows (n) FROM STDIN", rows: [[.int64(1)], [.text("not a number")]])
        }
        #expect(refused?.sqlState == "22P02")
        #expect(try db.execute("SELECT count(*) FROM rows").scalar?.int64 == Int64(count + 1))
    }

    @Test func notificationsReachAnotherConnection() throws {
        let context = try PostgreSQLTestContext()
        let listener = try context.connect()
        try listener.listen("wkstore test")
        #expect(try listener.notifications(timeout: .zero).isEmpty)
        let sender = context.connection
        let senderProcess = sender.backendProcessID
        // Sent in a transaction: delivered at its commit, not before; a rolled back one never.
        try? sender.transaction {
            try sender.notify("wkstore test", payload: "rolled back")
            throw CancellationError()
        }
        try sender.transaction { try sender.notify("wkstore test", payload: "first") }
        try sender.notify("wkstore test", payload: "second")
        var received: [PostgreSQLNotification] = []
        // Generous: the wait ends as soon as the notifications are in.
        let deadline = ContinuousClock.now + .seconds(120)
        while received.count < 2, ContinuousClock.now < deadline {
            received += try listener.notifications(timeout: .seconds(30))
        }
        #expect(received.map(\.payload) == ["first", "second"])
        #expect(received.allSatisfy { $0.channel == "wkstore test" && $0.senderProcessID == senderProcess })
        try listener.unlisten("wkstore test")
        try sender.notify("wkstore test", payload: "unheard")
        try sender.execute("SELECT 1")
        #expect(try listener.notifications(timeout: .milliseconds(200)).isEmpty)
    }

    @Test func anAdvisoryTransactionLockNeedsATransaction() throws {
        let context = try PostgreSQLTestContext()
        let error = #expect(throws: PostgreSQLError.self) { try context.connection.advisoryTransactionLock(7) }
        #expect(error?.reason == .misuse)
        try context.connection.transaction { try context.connection.advisoryTransactionLock(7) }
    }

    /// Connections that take the same advisory lock run their part after it one at a time: none
    /// sees another's counter value between its read and its write.
    @Test func anAdvisoryTransactionLockSerialisesTransactions() throws {
        let context = try PostgreSQLTestContext()
        try context.connection.execute("CREATE TABLE counter (value bigint NOT NULL)")
        try context.connection.execute("INSERT INTO counter VALUES (0)")
        let threads = 4
        let rounds = 25
        let seen = try onThreads(threads) { _ in
            let db = try context.connect()
            var values: [Int64] = []
            for _ in 0..<rounds {
                let value = try db.transaction { () throws -> Int64 in
                    try db.advisoryTransactionLock(namespace: PostgreSQLConnection.lockNamespace, key: 99)
                    let current = try db.execute("SELECT value FROM counter").scalar?.int64 ?? -1
                    try db.execute("UPDATE counter SET value = $1", [.int64(current + 1)])
                    return current + 1
                }
                values.append(value)
            }
            return values
        }
        #expect(seen.flatMap { $0 }.sorted() == (1...Int64(threads * rounds)).map { $0 })
    }
}

@Suite struct PostgreSQLConnectionStringTests {
    @Test func passwordsOfEveryFormAreRedacted() {
        let keyword = PostgreSQLConnectionString("host=db user=crawler password='s3cr\\'et \\\\x' dbname=crawl")
        #expect(keyword.summary == "host=db dbname=crawl user=crawler")
        #expect(keyword.redact("FATAL: s3cr'et \\x.") == "FATAL: [redacted].")
        let plain = PostgreSQLConnectionString("host=db password=hunter2 user=x")
        #expect(plain.redact("hunter2 and hunter2") == "[redacted] and [redacted]")
        let uri = PostgreSQLConnectionString(
            "postgresql://crawler:p%40ss%3Aword@db.internal:5433/crawl?sslmode=require")
        #expect(uri.summary == "host=db.internal port=5433 dbname=crawl user=crawler")
        #expect(uri.redact("p@ss:word / p%40ss%3Aword") == "[redacted] / [redacted]")
        let passphrase = PostgreSQLConnectionString("host=db sslcert=c.pem sslkey=k.pem sslpassword=key-phrase")
        #expect(passphrase.redact("bad key-phrase") == "bad [redacted]")
        let query = PostgreSQLConnectionString("postgresql:///crawl?host=/tmp&password=from-query")
        #expect(!query.redact("x from-query").contains("from-query"))
        // A string libpq cannot parse is never quoted, and its password is still known.
        let broken = PostgreSQLConnectionString("host=db password='unterminated")
        #expect(broken.summary == "the default server")
        #expect(!broken.redact("near 'unterminated").contains("unterminated"))
    }
}

/// A transaction sent whole, in one round trip (`pipelinedTransaction`).
@Suite(.ownThreads) struct PostgreSQLPipelineTests {
    @Test func aPipelinedTransactionCommitsEveryStatementAndReturnsEachOnesRows() throws {
        let context = try PostgreSQLTestContext()
        let db = context.connection
        try db.execute("CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL)")
        let insert = "INSERT INTO items (id, name) SELECT * FROM unnest($1::bigint[], $2::text[]) RETURNING id"
        for round in 0..<3 {
            let results = try db.pipelinedTransaction([
                (sql: "SELECT pg_advisory_xact_lock(7)", parameters: []),
                (sql: insert, parameters: [.text("{\(round * 2),\(round * 2 + 1)}"), .text("{a,b}")]),
                (sql: "SELECT count(*) FROM items", parameters: []),
            ])
            #expect(results.count == 3)
            #expect(results[1].rows.compactMap { $0[0].int64 } == [Int64(round * 2), Int64(round * 2 + 1)])
            #expect(results[2].scalar?.int64 == Int64(round * 2 + 2), "the statements see each other's rows")
            #expect(!db.isInTransaction, "the synchronisation point committed")
        }
        // Committed: another session sees every row, and the advisory lock was released with the commit.
        let other = try context.connect()
        #expect(try other.execute("SELECT count(*) FROM items").scalar?.int64 == 6)
        #expect(try other.execute("SELECT pg_try_advisory_lock(7)").scalar?.bool == true)
    }

    @Test func aFailingStatementRollsTheWholeTransactionBackAndTheConnectionGoesOn() throws {
        let context = try PostgreSQLTestContext()
        let db = context.connection
        try db.execute("CREATE TABLE items (id bigint PRIMARY KEY)")
        try db.execute("INSERT INTO items VALUES (1)")
        let failure = #expect(throws: PostgreSQLError.self) {
            try db.pipelinedTransaction([
                (sql: "INSERT INTO items VALUES ($1)", parameters: [.int64(2)]),
                (sql: "INSERT INTO items VALUES ($1)", parameters: [.int64(1)]),
                (sql: "INSERT INTO items VALUES ($1)", parameters: [.int64(3)]),
            ])
        }
        #expect(failure?.sqlState == "23505", "the duplicate key's error: \(String(describing: failure))")
        #expect(!db.isInTransaction)
        #expect(try db.execute("SELECT array_agg(id ORDER BY id)::text FROM items").scalar?.text == "{1}")
        // The statements stay prepared, and the next pipeline commits.
        _ = try db.pipelinedTransaction([(sql: "INSERT INTO items VALUES ($1)", parameters: [.int64(2)])])
        #expect(try db.execute("SELECT array_agg(id ORDER BY id)::text FROM items").scalar?.text == "{1,2}")
        // Inside a transaction it is refused, changing nothing.
        try db.execute("BEGIN")
        #expect(throws: PostgreSQLError.self) {
            try db.pipelinedTransaction([(sql: "INSERT INTO items VALUES ($1)", parameters: [.int64(9)])])
        }
        try db.execute("ROLLBACK")
        #expect(try db.execute("SELECT count(*) FROM items").scalar?.int64 == 2)
    }
}
