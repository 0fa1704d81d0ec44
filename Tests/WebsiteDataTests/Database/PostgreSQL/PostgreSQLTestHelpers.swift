import Foundation
import Synchronization
import WebsiteData
import WebsiteDataTestSupport

/// Runs `count` bodies on threads of their own, released together, and returns their results
/// in index order once all are done; the first error any of them threw is rethrown.
func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
    let results = Mutex<[Int: Result<T, any Error>]>([:])
    let start = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for index in 0..<count {
        done.enter()
        let thread = Thread {
            start.wait()
            let result = Result { try body(index) }
            results.withLock { $0[index] = result }
            done.leave()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    done.wait()
    return try results.withLock { all in try (0..<count).map { try all[$0]!.get() } }
}

/// A connection to a fresh database of the test server; the database lives as long as `database`.
struct PostgreSQLTestContext {
    let database: PostgreSQLTestDatabase
    let connection: PostgreSQLConnection

    init() throws {
        database = try PostgreSQLTestServer.freshDatabase()
        connection = try PostgreSQLConnection(database.connectionString)
    }

    /// Another connection to the same database.
    func connect() throws -> PostgreSQLConnection { try PostgreSQLConnection(database.connectionString) }
}
