import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// A temporary directory for one test, removed when the test ends.
final class InterchangeTemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("wkstore-interchange-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A path inside the directory.
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes `text` to a file in the directory.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> URL {
        let file = file(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    /// Opens (creating) a persistent store in a subdirectory.
    func store(_ name: String = "store") throws -> WebsiteDataStore {
        try WebsiteDataStore(directory: url.appendingPathComponent(name))
    }
}

/// What a cookie file format carries of a cookie, to compare round trips.
struct InterchangeFields: Hashable, CustomStringConvertible {
    var name: String
    var value: String
    var domain: String
    var path: String
    var hostOnly: Bool
    var secure: Bool
    var httpOnly: Bool
    /// `nil` when the format has no SameSite (Netscape).
    var sameSite: CookieSameSite?
    /// `nil` when the format has no partition.
    var partitionKey: String?
    /// Unix seconds, whole for Netscape; `nil` for a session cookie.
    var expires: Double?

    /// The fields `cookies.txt` carries.
    static func netscape(_ c: Cookie) -> InterchangeFields {
        InterchangeFields(
            name: c.name, value: c.value, domain: c.domain, path: c.path, hostOnly: c.isHostOnly,
            secure: c.isSecure, httpOnly: c.isHTTPOnly, sameSite: nil, partitionKey: nil,
            expires: c.expires.map { $0.timeIntervalSince1970.rounded(.down) })
    }

    /// The fields storage-state JSON carries.
    static func storageState(_ c: Cookie) -> InterchangeFields {
        InterchangeFields(
            name: c.name, value: c.value, domain: c.domain, path: c.path, hostOnly: c.isHostOnly,
            secure: c.isSecure, httpOnly: c.isHTTPOnly, sameSite: c.sameSite, partitionKey: c.partitionKey,
            expires: c.expires.map { $0.timeIntervalSince1970 })
    }

    var description: String {
        "\(name)=\(value) \(hostOnly ? "" : ".")\(domain)\(path) secure:\(secure) httpOnly:\(httpOnly) sameSite:\(sameSite.map(\.rawValue) ?? "-") partition:\(partitionKey ?? "-") expires:\(expires.map { String($0) } ?? "session")"
    }
}

/// Everything about a cookie, times to the microsecond (the store keeps them as SQLite reals),
/// to check a store is unchanged.
struct InterchangeSnapshot: Hashable {
    var fields: InterchangeFields
    var expires: Int64?
    var created: Int64
    var lastAccess: Int64
    var modified: Int64

    init(_ c: Cookie) {
        fields = .storageState(c)
        fields.expires = nil
        func micro(_ d: Date) -> Int64 { Int64((d.timeIntervalSince1970 * 1_000_000).rounded()) }
        expires = c.expires.map(micro)
        created = micro(c.created)
        lastAccess = micro(c.lastAccess)
        modified = micro(c.modified)
    }

    static func of(_ store: WebsiteDataStore) throws -> Set<InterchangeSnapshot> {
        Set(try store.httpCookieStore.allCookies().map(InterchangeSnapshot.init))
    }
}

/// Runs a program to its end; returns its exit status, standard output and standard error.
@discardableResult
func interchangeRun(_ executable: String, _ arguments: [String]) throws -> (
    status: Int32, stdout: String, stderr: String
) {
    let process = Subprocess()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = try out.fileHandleForReading.readToEndOfFile()
    let errData = try err.fileHandleForReading.readToEndOfFile()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self)
    )
}

/// Starts a Python script that serves on 127.0.0.1 and prints its port on its first line; the
/// caller stops it.
///
/// - Returns: the process and the port.
func startScriptServer(_ script: URL) throws -> (process: Subprocess, port: Int) {
    let server = Subprocess()
    server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    server.arguments = ["python3", script.path]
    let output = Pipe()
    server.standardOutput = output
    try server.run()
    var portLine = Data()
    while !portLine.contains(0x0A) {
        let chunk = try output.fileHandleForReading.readSome()
        if chunk.isEmpty { break }
        portLine += chunk
    }
    guard let port = Int(String(decoding: portLine, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    else {
        server.terminate()
        server.waitUntilExit()
        throw ScriptServerError(script: script.lastPathComponent)
    }
    return (server, port)
}

/// A test server script that did not print its port.
struct ScriptServerError: Error, CustomStringConvertible {
    let script: String
    var description: String { "\(script) did not print its port" }
}
