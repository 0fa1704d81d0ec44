import Foundation
import Synchronization
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

@Suite(.ownThreads) struct PostgreSQLMigratorTests {
    @Test func aNewDatabaseGetsEveryMigrationOnce() throws {
        let context = try PostgreSQLTestContext()
        let migrator = PostgreSQLMigrator()
        #expect(migrator.latestVersion == embeddedPostgreSQLMigrations.map(\.version).max())
        #expect(migrator.latestVersion >= 1)
        let missing = #expect(throws: PostgreSQLError.self) { try migrator.check(context.connection) }
        #expect(missing?.reason == .schemaMissing)
        #expect(try migrator.migrate(context.connection) == embeddedPostgreSQLMigrations.map(\.version).sorted())
        #expect(try migrator.migrate(context.connection) == [])
        try migrator.check(context.connection)
        #expect(
            try migrator.appliedVersions(context.connection) == embeddedPostgreSQLMigrations.map(\.version).sorted())
        let tables = try context.connection.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename"
        ).rows.compactMap { $0[0].text }
        for table in [
            "settings", "change_log", "cookies", "http_cache", "local_storage", "websql_databases",
            "appcache_groups", "appcache_entries", "idb_databases", "idb_records", "wkstore_schema",
        ] {
            #expect(tables.contains(table), "\(table)")
        }
    }

    @Test func connectionsThatStartAtOnceApplyEachMigrationOnce() throws {
        let context = try PostgreSQLTestContext()
        let applied = try onThreads(8) { _ in
            let db = try context.connect()
            return try PostgreSQLMigrator().migrate(db)
        }
        #expect(applied.flatMap { $0 }.sorted() == embeddedPostgreSQLMigrations.map(\.version).sorted())
        let recorded = try context.connection.execute(
            "SELECT version, count(*) FROM wkstore_schema GROUP BY version ORDER BY version"
        ).rows
        #expect(recorded.map { $0[0].int64 } == embeddedPostgreSQLMigrations.map { Int64($0.version) }.sorted())
        #expect(recorded.allSatisfy { $0[1].int64 == 1 })
    }

    @Test func aNewerSchemaIsRefusedAndLeftUnchanged() throws {
        let context = try PostgreSQLTestContext()
        let older = PostgreSQLMigrator(migrations: [])
        let migrator = PostgreSQLMigrator()
        try migrator.migrate(context.connection)
        try context.connection.execute(
            "INSERT INTO wkstore_schema (version, name, applied_at) VALUES ($1, 'from the future', 0)",
            [.int64(Int64(migrator.latestVersion + 1))])
        let tablesBefore = try context.connection.execute("SELECT count(*) FROM pg_tables").scalar?.int64
        for attempt in [migrator, older] {
            let error = #expect(throws: PostgreSQLError.self) { try attempt.migrate(context.connection) }
            #expect(error?.reason == .schemaNewer)
            #expect(error?.message.contains("version \(migrator.latestVersion + 1)") == true)
            let checked = #expect(throws: PostgreSQLError.self) { try attempt.check(context.connection) }
            #expect(checked?.reason == .schemaNewer)
        }
        #expect(try context.connection.execute("SELECT count(*) FROM pg_tables").scalar?.int64 == tablesBefore)
        #expect(!context.connection.isInTransaction)
    }

    @Test func anotherProgramsDatabaseIsRefused() throws {
        let context = try PostgreSQLTestContext()
        try context.connection.execute("CREATE TABLE orders (id integer)")
        let error = #expect(throws: PostgreSQLError.self) { try PostgreSQLMigrator().migrate(context.connection) }
        #expect(error?.reason == .notAStore)
        #expect(try context.connection.execute("SELECT to_regclass('wkstore_schema') IS NULL").scalar?.bool == true)
    }

    /// Appenders on many connections (the store's own write transactions and appends), some
    /// rolling back a savepoint or the whole transaction, some slow to commit: a reader that
    /// polls the log never sees a position before an earlier one has committed, and in the end
    /// the positions are 1...n with none skipped.
    @Test func changeLogPositionsFollowCommitOrder() throws {
        struct Abandoned: Error {}
        let context = try PostgreSQLTestContext()
        try PostgreSQLMigrator().migrate(context.connection)
        let listener = try context.connect()
        try listener.listen("wkstore_changes")
        let writers = 5
        let transactions = 12
        let finished = Atomic<Int>(0)
        let reader = Mutex<(positions: [Int64], gaps: [String])>(([], []))
        let expected = try onThreads(writers + 1) { index -> Int in
            if index == writers {
                // The reader: polls until every writer is done and it has read everything.
                let db = try context.connect()
                var last: Int64 = 0
                while true {
                    let done = finished.load(ordering: .acquiring) == writers
                    let rows = try db.execute("SELECT seq FROM change_log WHERE seq > $1 ORDER BY seq", [.int64(last)])
                    for row in rows.rows {
                        let seq = row[0].int64 ?? -1
                        if seq != last + 1 { reader.withLock { $0.gaps.append("after \(last) came \(seq)") } }
                        last = seq
                        reader.withLock { $0.positions.append(seq) }
                    }
                    if done && rows.rows.isEmpty { return 0 }
                }
            }
            let db = PostgreSQLStoreConnection(try context.connect())
            defer { finished.add(1, ordering: .releasing) }
            var committed = 0
            for round in 0..<transactions {
                let rows = 1 + (index + round) % 3
                let abandon = (index + round) % 5 == 0
                let entries = (0..<rows).map { _ in
                    ChangeLogEntry(.localStorage, site: "site\(index).example", cause: .write)
                }
                do {
                    try db.transaction(write: true) {
                        _ = try StoreDatabase.appendToLog(entries, db)
                        // An append undone by its savepoint leaves no gap for the next one.
                        _ = try? db.transaction(write: true) {
                            _ = try StoreDatabase.appendToLog(entries, db)
                            throw Abandoned()
                        }
                        _ = try StoreDatabase.appendToLog(entries, db)
                        // Holding the positions a while, so that others queue behind them.
                        try db.execute("SELECT pg_sleep(?)", [.real(Double((index * 7 + round) % 4) / 100)])
                        if abandon { throw Abandoned() }
                    }
                    committed += 2 * rows
                } catch is Abandoned {}
            }
            return committed
        }
        let total = expected.reduce(0, +)
        let seen = reader.withLock { $0 }
        #expect(seen.gaps.isEmpty, "\(seen.gaps.prefix(5))")
        #expect(seen.positions == (1...Int64(total)).map { $0 })
        let stored = try context.connection.execute("SELECT seq FROM change_log ORDER BY seq").rows.compactMap {
            $0[0].int64
        }
        #expect(stored == (1...Int64(total)).map { $0 })
        #expect(try context.connection.execute("SELECT position FROM change_log_head").scalar?.int64 == Int64(total))
        // Each appending commit was announced with the head position it left.
        let announced = try listener.notifications(timeout: .seconds(60)).compactMap {
            Int64($0.payload.split(separator: " ").last ?? "")
        }
        #expect(!announced.isEmpty)
        #expect(announced.allSatisfy { (1...Int64(total)).contains($0) })
    }

    /// The log's trigger refuses rows whose positions do not continue the head (a client that
    /// numbered them without the lock, or from a stale head), and the log stays as it was.
    @Test func positionsThatDoNotContinueTheHeadAreRefused() throws {
        let context = try PostgreSQLTestContext()
        try PostgreSQLMigrator().migrate(context.connection)
        let db = PostgreSQLStoreConnection(try context.connect())
        let entry = ChangeLogEntry(.localStorage, site: "example.com", cause: .write)
        #expect(try db.transaction(write: true) { try StoreDatabase.appendToLog([entry, entry], db) } == 1...2)
        func insert(_ positions: [Int64]) throws {
            let rows = positions.map { "(\($0), 6, 'example.com', 1, 0)" }.joined(separator: ", ")
            try context.connection.transaction {
                try context.connection.execute("INSERT INTO change_log (seq, type, site, cause, time) VALUES \(rows)")
            }
        }
        // A gap after the head, or inside the statement's rows: the trigger's check.
        let gaps: [[Int64]] = [[4], [3, 5], [5, 6]]
        for positions in gaps {
            let error = #expect(throws: PostgreSQLError.self) { try insert(positions) }
            #expect(error?.message.contains("do not continue the head 2") == true, "\(String(describing: error))")
        }
        // A position taken already: the key refuses it before the trigger.
        #expect(throws: PostgreSQLError.self) { try insert([2]) }
        #expect(try context.connection.execute("SELECT position FROM change_log_head").scalar?.int64 == 2)
        #expect(try context.connection.execute("SELECT count(*) FROM change_log").scalar?.int64 == 2)
        try insert([3])
        #expect(try context.connection.execute("SELECT position FROM change_log_head").scalar?.int64 == 3)
    }
}
