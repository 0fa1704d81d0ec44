import Foundation
import Synchronization
import Testing
import WebsiteData

/// The engine the stores of a test are on: the library tests' `WebsiteDataStore.testing` and the
/// CLI tests' `Sandbox` open their stores there.
public enum TestEngine: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Stores in directories, on SQLite.
    case sqlite
    /// Stores in schemas of a database of the PostgreSQL test server.
    case postgreSQL

    /// The engine of the test running on this task (SQLite unless `bothEngines` says otherwise).
    @TaskLocal public static var current: TestEngine = .sqlite

    /// The engine's name.
    public var description: String { rawValue }

    /// The database the PostgreSQL runs keep their stores in: one per test process, each store
    /// a schema of its own.
    private static let database = Mutex<PostgreSQLTestDatabase?>(nil)
    /// The schema (by identifier) standing for each directory a test named, so that a test that
    /// opens a directory again opens the same store.
    private static let identifiers = Mutex<[String: UUID]>([:])

    /// The PostgreSQL store standing for `directory` (a new one for `nil`): a libpq keyword
    /// string of the test database, and the identifier whose schema holds the store.
    ///
    /// - Parameter directory: the directory the store stands for.
    /// - Returns: the connection string and the identifier.
    /// - Throws: when the test server cannot be started or refuses `CREATE DATABASE`.
    public static func postgreSQLStore(for directory: URL?) throws -> (connectionString: String, identifier: UUID) {
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
        return (connection, identifier)
    }

    /// The arguments by which a child process (`wkstore`, `wkstore-stress`) opens the store that
    /// stands for `directory` on this task's engine: `--store DIR`, or `--store URI --identifier UUID`.
    ///
    /// - Parameter directory: the store's directory (on PostgreSQL, the directory it stands for).
    /// - Returns: the arguments.
    /// - Throws: as `postgreSQLStore(for:)`.
    public static func storeArguments(for directory: URL) throws -> [String] {
        switch current {
        case .sqlite: return ["--store", directory.path]
        case .postgreSQL:
            let store = try postgreSQLStore(for: directory)
            return [
                "--store", PostgreSQLTestServer.uri(store.connectionString), "--identifier",
                store.identifier.uuidString,
            ]
        }
    }

    /// Opens, through the public API, the store that stands for `directory` on this task's
    /// engine: the one `storeArguments(for:)` names.
    ///
    /// - Parameter directory: the store's directory (on PostgreSQL, the directory it stands for).
    /// - Returns: the store, created when it does not exist.
    /// - Throws: what opening the store throws.
    public static func openStore(for directory: URL) throws -> WebsiteDataStore {
        switch current {
        case .sqlite: return try WebsiteDataStore(directory: directory)
        case .postgreSQL:
            let store = try postgreSQLStore(for: directory)
            let uri = PostgreSQLTestServer.uri(store.connectionString)
            guard let url = URL(string: uri) else { throw PostgreSQLTestClusterError(message: "not a URL: \(uri)") }
            return try WebsiteDataStore(url: url, identifier: store.identifier)
        }
    }
}

/// Runs each test of a suite twice: with its stores on SQLite, then on PostgreSQL (the test
/// server's private cluster, or the server `WKSTORE_TEST_POSTGRES` names). The tests open
/// their stores through `TestEngine`, which follows `TestEngine.current`; a failure in the
/// second run is reported with the engine's name.
public struct BothEnginesTrait: SuiteTrait, TestTrait, TestScoping {
    /// The trait applies to every test of a suite it is given to.
    public var isRecursive: Bool { true }

    /// Runs the test once on each engine (on SQLite alone for a test marked `sqliteOnly`).
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else { return try await function() }
        let engines: [TestEngine] = test.traits.contains { $0 is SQLiteOnlyTrait } ? [.sqlite] : Self.chosen
        for engine in engines {
            let gated = engine == .postgreSQL
            if gated { await Self.postgreSQLRuns.enter() }
            defer { if gated { Self.postgreSQLRuns.leave() } }
            do {
                try await TestEngine.$current.withValue(engine) { try await function() }
            } catch {
                throw EngineFailure(engine: engine, error: error)
            }
        }
    }

    /// The engines `WKSTORE_TEST_ENGINES` names (`sqlite`, `postgreSQL`, comma-separated), or
    /// both. CI's AddressSanitizer pass runs these suites on SQLite alone: the PostgreSQL
    /// engine's own suites still call libpq there, and the code both engines share runs once.
    private static let chosen: [TestEngine] = {
        guard let names = ProcessInfo.processInfo.environment["WKSTORE_TEST_ENGINES"] else {
            return TestEngine.allCases
        }
        let chosen = TestEngine.allCases.filter { names.split(separator: ",").contains(Substring($0.rawValue)) }
        precondition(!chosen.isEmpty, "WKSTORE_TEST_ENGINES names no engine: \(names)")
        return chosen
    }()

    /// The PostgreSQL runs that may be under way at once. Every store holds connections (a
    /// writer, a reader, a listener) and some tests open several stores or start processes that
    /// open their own; the tests run side by side on threads of their own, so without a bound
    /// the connections of whichever tests happen to overlap can pass the test server's
    /// `max_connections` and a test fails for a reason it does not test.
    private static let postgreSQLRuns = AsyncGate(limit: 12)

    /// An error of a test's run on one engine, naming the engine.
    public struct EngineFailure: Error, CustomStringConvertible {
        /// The engine the test ran on.
        public let engine: TestEngine
        /// What the test threw.
        public let error: any Error
        /// The error, after the engine's name.
        public var description: String { "on \(engine): \(error)" }
    }
}

extension Trait where Self == BothEnginesTrait {
    /// Run each test on SQLite and again on PostgreSQL.
    public static var bothEngines: Self { BothEnginesTrait() }
}

/// Marks a test of a `bothEngines` suite that checks what only a SQLite store has (its files).
public struct SQLiteOnlyTrait: TestTrait {}

extension Trait where Self == SQLiteOnlyTrait {
    /// Run on SQLite only: the test checks the files of a store directory.
    public static var sqliteOnly: Self { SQLiteOnlyTrait() }
}

/// Lets at most `limit` tasks in at once; the others wait, in the order they came, without
/// holding a thread.
final class AsyncGate: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    /// A gate that lets `limit` tasks in at once.
    init(limit: Int) { state = Mutex(State(free: limit)) }

    /// Waits until there is room, and takes it.
    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    /// Gives the room back: to the task that has waited longest, if any.
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
