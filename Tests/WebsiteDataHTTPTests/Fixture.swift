import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData
@testable import WebsiteDataHTTP

/// A temporary directory of a test's own, removed when the value goes away.
final class TestDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("wkstore-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

extension LoopbackServer {
    /// The requests the server has seen, oldest first (not counting requests for the log itself),
    /// asked of the server with `client`.
    func requestLog(using client: HTTPClient, host: String = "127.0.0.1", scheme: String = "http") async throws
        -> [[String: Any]]
    {
        let response = try await client.send(HTTPRequest(url: URL(string: "\(scheme)://\(host):\(port)/_log")!))
        return try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]] ?? []
    }
}

/// The request the server echoed in a response body (`/r`, `/gzip`).
struct Echo {
    let fields: [String: Any]

    init(_ response: HTTPResponse) throws {
        fields = try JSONSerialization.jsonObject(with: response.body) as? [String: Any] ?? [:]
    }

    var method: String? { fields["method"] as? String }
    var cookie: String? { fields["cookie"] as? String }
    var body: String? { fields["body"] as? String }
    /// The server's number for the request (1 for its first).
    var seq: Int? { fields["seq"] as? Int }
    subscript(_ key: String) -> String? { fields[key] as? String }

    /// The names of the cookies the request carried.
    var cookieNames: Set<String> {
        Set(
            (cookie ?? "").split(separator: ";").map {
                String($0.split(separator: "=").first ?? "").trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty })
    }
}

/// A test's directory, a plain-HTTP loopback server in it, and a fresh in-memory store.
struct Fixture {
    let directory: TestDirectory
    let server: LoopbackServer
    let store = WebsiteDataStore.nonPersistent()
    /// Host names resolved to the server.
    static let hosts = [
        "a.example", "b.example", "c.example", "localhost", "plain.example.org", "secure.example.org",
        "www.example.org", "other.example.net",
    ]

    init() throws {
        directory = try TestDirectory()
        server = try LoopbackServer(in: directory.url)
    }

    /// A client of `store` that resolves the test hosts to the server and ignores proxy variables.
    func client(_ configure: (inout HTTPClientConfiguration) -> Void = { _ in }) throws -> HTTPClient {
        var configuration = HTTPClientConfiguration(proxy: "", resolve: server.resolve(Self.hosts))
        configure(&configuration)
        return try HTTPClient(store: store, configuration: configuration)
    }

    /// `http://a.example:PORT`.
    var base: String { "http://a.example:\(server.port)" }

    /// `http://HOST:PORT`.
    func origin(_ host: String) -> String { "http://\(host):\(server.port)" }
}
