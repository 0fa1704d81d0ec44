import Foundation
import Synchronization
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// The engine the stores of a test are on: `WebsiteDataStore.testing` opens its stores there.
enum TestEngine: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite
    case postgreSQL

    /// The engine of the test running on this task (SQLite unless `bothEngines` says otherwise).
    @TaskLocal static var current: TestEngine = .sqlite

    var description: String { rawValue }

    /// The database the PostgreSQL runs keep their stores in: one per test process, each store
    /// a schema of its own.
    private static let database = Mutex<PostgreSQLTestDatabase?>(nil)
    /// The schema (by identifier) standing for each directory a test named, so that a test that
    /// opens a directory again opens the same store.
    private static let identifiers = Mutex<[String: UUID]>([:])

    /// The PostgreSQL store standing for `directory` (a new one for `nil`).
    static func postgreSQLLocation(for directory: URL?) throws -> PostgreSQLStoreLocation {
        let connection = try database.withLock { database in
            if let database { return database.connectionString }
            let fresh = try PostgreSQLTestServer.freshDatabase()
            database = fresh
            return fresh.connectionString
        }
        let identifier = identifiers.withLock { identifiers in
            guard let directory else { return UUID() }
            let key = directory.standardizedFileURL.path
            if let known = identifiers[key] { return known }
            let made = UUID()
            identifiers[key] = made
            return made
        }
        return PostgreSQLStoreLocation(connectionString: connection, identifier: identifier)
    }
}

extension TestEngine {
    /// The arguments by which a child process (`wkstore`, `wkstore-stress`) opens the store that
    /// `WebsiteDataStore.testing(directory)` opens on this task's engine: `--store DIR`, or
    /// `--store URI --identifier UUID`.
    static func storeArguments(for directory: URL) throws -> [String] {
        switch current {
        case .sqlite: return ["--store", directory.path]
        case .postgreSQL:
            let location = try postgreSQLLocation(for: directory)
            return [
                "--store", PostgreSQLTestServer.uri(location.connectionString), "--identifier",
                location.identifier!.uuidString,
            ]
        }
    }
}

/// Runs each test of a suite twice: with its stores on SQLite, then on PostgreSQL (the test
/// server's private cluster, or the server `WKSTORE_TEST_POSTGRES` names). The tests open
/// their stores through `WebsiteDataStore.testing`, which follows `TestEngine.current`; a
/// failure in the second run is reported with the engine's name.
struct BothEnginesTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else { return try await function() }
        let engines: [TestEngine] = test.traits.contains { $0 is SQLiteOnlyTrait } ? [.sqlite] : TestEngine.allCases
        for engine in engines {
            do {
                try await TestEngine.$current.withValue(engine) { try await function() }
            } catch {
                throw EngineFailure(engine: engine, error: error)
            }
        }
    }

    /// An error of a test's run on one engine, naming the engine.
    struct EngineFailure: Error, CustomStringConvertible {
        let engine: TestEngine
        let error: any Error
        var description: String { "on \(engine): \(error)" }
    }
}

extension Trait where Self == BothEnginesTrait {
    /// Run each test on SQLite and again on PostgreSQL.
    static var bothEngines: Self { BothEnginesTrait() }
}

/// Marks a test of a `bothEngines` suite that checks what only a SQLite store has (its files).
struct SQLiteOnlyTrait: TestTrait {}

extension Trait where Self == SQLiteOnlyTrait {
    /// Run on SQLite only: the test checks the files of a store directory.
    static var sqliteOnly: Self { SQLiteOnlyTrait() }
}
