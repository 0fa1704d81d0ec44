import Foundation
import WebsiteDataTestSupport

@testable import WebsiteData

/// A temporary directory removed when the value is released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() {
        url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("wkstore-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current: Locked<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Locked(start) }
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
    var function: @Sendable () -> Date { { self.now } }
}

extension WebsiteDataStore {
    /// A store for tests, with a test clock: in memory without `directory`; else in `directory` on
    /// SQLite, or on PostgreSQL (`TestEngine.current`) in a schema standing for `directory`.
    static func testing(_ directory: URL? = nil, clock: TestClock = TestClock()) throws -> WebsiteDataStore {
        guard TestEngine.current == .postgreSQL, directory != nil else {
            return try WebsiteDataStore(directory: directory, identifier: nil, clock: clock.function)
        }
        return try WebsiteDataStore(
            directory: nil, identifier: nil, clock: clock.function,
            postgreSQL: try TestEngine.postgreSQLLocation(for: directory))
    }
}

/// A connection of its own to the store that stands for `directory` on this task's engine (its
/// database file, or its PostgreSQL schema), for tests that look at or change rows behind the
/// store's back.
func sideConnection(to directory: URL) throws -> any DatabaseConnection {
    switch TestEngine.current {
    case .sqlite: try SQLiteConnection(location: .file(directory.appendingPathComponent(StoreDatabase.fileName)))
    case .postgreSQL: PostgreSQLStoreConnection(try TestEngine.postgreSQLLocation(for: directory).connect())
    }
}

extension HTTPCookieStore {
    /// Sets cookies from `Set-Cookie` strings for a URL string (tests' shorthand).
    @discardableResult
    func set(
        _ url: String, _ headers: String..., context: CookieRequestContext = .topLevelNavigation,
        api: CookieAPI = .http
    ) throws -> CookieWriteSummary {
        try setCookies(fromSetCookieHeaders: headers, for: URL(string: url)!, context: context, api: api)
    }

    /// The `Cookie` header for a URL string (tests' shorthand).
    func header(_ url: String, context: CookieRequestContext = .topLevelNavigation) throws -> String? {
        try cookieHeader(for: URL(string: url)!, context: context)
    }
}

/// The directory holding the built products (the test bundle's own directory).
let productsDirectory: URL = {
    let exe = URL(fileURLWithPath: try! FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    var dir = exe.deletingLastPathComponent()
    while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("wkstore-stress").path)
    {
        dir = dir.deletingLastPathComponent()
    }
    return dir
}()

/// A child process with its standard output readable line by line.
final class ChildProcess: @unchecked Sendable {
    let process = Subprocess()
    private let output = Pipe()
    private var buffer = Data()

    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = productsDirectory.appendingPathComponent(executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = output
        // Inherited: a child's own report (an error, a sanitizer's) shows in the test's output.
        process.standardError = FileHandle.standardError
        try process.run()
    }

    /// The next line of output, or nil at end of file (or when the pipe cannot be read).
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = (try? output.fileHandleForReading.readSome()) ?? Data()
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension SiteCookies {
    /// `withMatches` for request facts (their bytes), as the tests build requests.
    mutating func withMatches<R>(
        _ request: CanonicalCookie.RequestFacts, url: URL, context: CookieRequestContext, api: CookieAPI,
        now: Date, touched: inout [Cookie], _ body: (Matches) -> R
    ) -> R {
        request.withBytes { withMatches($0, url: url, context: context, api: api, now: now, touched: &touched, body) }
    }
}

extension HostSiteTable {
    /// `slot(forHost:in:)` for a host given as a string.
    func slot(forHost host: String, in sites: SiteTable) -> Int? {
        var host = host
        var linesAsked = false
        return host.withUTF8 { slot(forHost: $0, in: sites, linesAsked: &linesAsked) }
    }
}
