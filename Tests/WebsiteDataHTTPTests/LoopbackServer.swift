import Foundation
import Testing

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

/// A Python 3 `http.server` on 127.0.0.1, written into the test's directory and started by the
/// test. It listens on port 0 and prints its port; it stops when its standard input closes
/// (the test ends, or the test process dies) or after a time limit, whichever comes first.
final class LoopbackServer {
    let port: Int
    private let process: Process
    private let input: Pipe
    let logFile: URL

    /// Starts the server.
    ///
    /// - Parameters:
    ///   - directory: the test's directory, where the script and its log go.
    ///   - tls: a certificate and key (PEM) to serve HTTPS with.
    ///   - manifest: the http-state manifest, for `/cookie-parser`.
    init(in directory: URL, tls: (certificate: URL, key: URL)? = nil, manifest: URL? = nil) throws {
        let script = directory.appendingPathComponent("server.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        logFile = directory.appendingPathComponent("server-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        var arguments = ["-u", script.path, "--limit", "600"]
        if let tls { arguments += ["--tls", tls.certificate.path, tls.key.path] }
        if let manifest { arguments += ["--manifest", manifest.path] }
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: logFile)
        try process.run()
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            throw ServerError(message: "the loopback server did not start: \(log)")
        }
        self.port = port
    }

    struct ServerError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// Closes the server's standard input, which stops it, and waits for it.
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { stop() }

    /// `HOST:PORT:127.0.0.1` for each name, for the client's `resolve` option.
    func resolve(_ hosts: [String]) -> [String] {
        hosts.map { "\($0):\(port):127.0.0.1" }
    }

    /// The requests the server has seen, oldest first (not counting requests for the log itself).
    func requestLog(using client: HTTPClient, host: String = "127.0.0.1", scheme: String = "http") async throws
        -> [[String: Any]]
    {
        let response = try await client.send(HTTPRequest(url: URL(string: "\(scheme)://\(host):\(port)/_log")!))
        return try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]] ?? []
    }

    /// The log entry fields the server records for each request.
    static func entries(_ log: [[String: Any]], path: String) -> [[String: Any]] {
        log.filter { ($0["path"] as? String) == path }
    }

    static let script = #"""
        import base64, email.utils, gzip, json, os, ssl, sys, threading, time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import urlsplit, parse_qs, unquote

        args = sys.argv[1:]
        limit = 600.0
        tls = None
        manifest = {}
        while args:
            a = args.pop(0)
            if a == "--limit": limit = float(args.pop(0))
            elif a == "--tls": tls = (args.pop(0), args.pop(0))
            elif a == "--manifest":
                with open(args.pop(0), encoding="utf-8") as f:
                    manifest = {t["id"]: t for t in json.load(f)}

        log = []
        log_lock = threading.Lock()

        def imf(ts):
            return email.utils.formatdate(ts, usegmt=True)

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def raw(self, status, headers, body=b""):
                out = [("HTTP/1.1 %d X\r\n" % status).encode()]
                for name, value in headers:
                    if isinstance(value, str): value = value.encode("utf-8")
                    out.append(name.encode() + b": " + value + b"\r\n")
                out.append(b"Content-Length: %d\r\n" % len(body))
                out.append(b"\r\n")
                self.wfile.write(b"".join(out))
                if self.command != "HEAD":
                    self.wfile.write(body)
                self.wfile.flush()

            def header_bytes(self, name):
                values = self.headers.get_all(name)
                if values is None: return None
                return ", ".join(values).encode("iso-8859-1")

            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                split = urlsplit(self.path)
                path, query = split.path, split.query
                cookie = self.header_bytes("Cookie")
                entry = {
                    "method": self.command, "target": self.path, "path": path, "query": query,
                    "host": self.headers.get("Host"), "client_port": self.client_address[1],
                    "cookie": cookie.decode("utf-8", "replace") if cookie is not None else None,
                    "authorization": self.headers.get("Authorization"),
                    "content_type": self.headers.get("Content-Type"),
                    "content_length": self.headers.get("Content-Length"),
                    "accept_encoding": self.headers.get("Accept-Encoding"),
                    "user_agent": self.headers.get("User-Agent"),
                    "expect": self.headers.get("Expect"),
                    "if_none_match": self.headers.get("If-None-Match"),
                    "if_modified_since": self.headers.get("If-Modified-Since"),
                    "accept_language": self.headers.get("Accept-Language"),
                    "cache_control": self.headers.get("Cache-Control"),
                    "pragma": self.headers.get("Pragma"),
                    "body": body.decode("utf-8", "replace"),
                }
                if path != "/_log":
                    with log_lock:
                        log.append(entry)
                        entry["seq"] = len(log)
                if path == "/_log":
                    with log_lock: data = json.dumps(log).encode()
                    return self.raw(200, [("Content-Type", "application/json")], data)
                if path == "/cookie-parser":
                    test = manifest[unquote(query)]
                    now = time.time()
                    headers = []
                    for value in test["set_cookie_rfc6265bis_template"]:
                        value = value.replace("=PAST", "=" + imf(now - 365 * 86400)).replace("=FUTURE", "=" + imf(now + 365 * 86400))
                        headers.append(("Set-Cookie", value))
                    location = None
                    for name, value in test["response_headers"]:
                        if name.lower() == "location":
                            location = value.replace(":8888", ":%d" % self.server.server_address[1])
                    headers.append(("Location", location or "/cookie-parser-result?" + query))
                    return self.raw(302, headers)
                if path.startswith("/cookie-parser-result"):
                    present = b"1" if cookie is not None else b"0"
                    return self.raw(200, [("X-Cookie-Present", present)], cookie or b"")
                if path == "/bytes":
                    n = int(parse_qs(query)["n"][0])
                    pattern = bytes(i % 251 for i in range(251))
                    data = (pattern * (n // 251 + 1))[:n]
                    return self.raw(200, [("Content-Type", "application/octet-stream")], data)
                if path == "/loop":
                    params = parse_qs(query)
                    n, stop = int(params["n"][0]), int(params.get("stop", ["1000000"])[0])
                    if n >= stop: return self.raw(200, [], b"end of loop")
                    return self.raw(302, [("Location", "/loop?n=%d&stop=%d" % (n + 1, stop))])
                if path == "/slow":
                    time.sleep(float(parse_qs(query)["s"][0]))
                    return self.raw(200, [], b"late")
                if path == "/c":
                    # A cacheable resource: header (repeatable), set (Set-Cookie), etag (304 when
                    # If-None-Match names it), status, n (a body of n pattern bytes instead of the echo).
                    params = parse_qs(query, keep_blank_values=True)
                    headers = []
                    for value in params.get("set", []): headers.append(("Set-Cookie", value))
                    for value in params.get("header", []):
                        name, _, v = value.partition(":")
                        headers.append((name.strip(), v.strip()))
                    etag = params.get("etag", [None])[0]
                    if etag is not None:
                        headers.append(("ETag", etag))
                        tags = [t.strip() for t in (self.headers.get("If-None-Match") or "").split(",")]
                        if etag in tags:
                            return self.raw(304, headers)
                    status = int(params.get("status", ["200"])[0])
                    if "n" in params:
                        n = int(params["n"][0])
                        pattern = bytes(i % 251 for i in range(251))
                        data = (pattern * (n // 251 + 1))[:n]
                        return self.raw(status, headers + [("Content-Type", "application/octet-stream")], data)
                    return self.raw(status, headers + [("Content-Type", "application/json")], json.dumps(entry).encode())
                echo = json.dumps(entry).encode()
                if path == "/gzip":
                    if "gzip" in (self.headers.get("Accept-Encoding") or ""):
                        return self.raw(200, [("Content-Encoding", "gzip"), ("X-Was-Compressed", "1")], gzip.compress(echo))
                    return self.raw(200, [("X-Was-Compressed", "0")], echo)
                # /r: a scripted response: status, location, set (Set-Cookie, repeatable), csd, header (repeatable).
                params = parse_qs(query, keep_blank_values=True)
                status = int(params.get("status", ["200"])[0])
                headers = []
                for value in params.get("set", []): headers.append(("Set-Cookie", value))
                for value in params.get("csd", []): headers.append(("Clear-Site-Data", value))
                for value in params.get("header", []):
                    name, _, v = value.partition(":")
                    headers.append((name.strip(), v.strip()))
                if "location" in params: headers.append(("Location", params["location"][0]))
                headers.append(("Content-Type", "application/json"))
                return self.raw(status, headers, echo)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = handle_any

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 128

        server = Server(("127.0.0.1", 0), Handler)
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(tls[0], tls[1])
            server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)

        def watch_stdin():
            while sys.stdin.buffer.read(1):
                pass
            os._exit(0)

        def watch_clock():
            time.sleep(limit)
            os._exit(0)

        threading.Thread(target=watch_stdin, daemon=True).start()
        threading.Thread(target=watch_clock, daemon=True).start()
        server.serve_forever()
        """#
}

/// A self-signed certificate for the test's HTTPS server, made with `openssl`, that names
/// `localhost`, a few test hosts and 127.0.0.1; its own file is the CA file clients trust.
struct TestCertificate {
    let certificate: URL
    let key: URL

    static let hosts = ["localhost", "secure.example.org", "www.example.org", "other.example.net"]

    init(in directory: URL) throws {
        certificate = directory.appendingPathComponent("cert.pem")
        key = directory.appendingPathComponent("key.pem")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=localhost",
            "-addext", "subjectAltName=" + (Self.hosts.map { "DNS:\($0)" } + ["IP:127.0.0.1"]).joined(separator: ","),
            "-keyout", key.path, "-out", certificate.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw LoopbackServer.ServerError(message: "openssl req failed with status \(process.terminationStatus)")
        }
    }
}

/// Percent-encodes a query parameter value (everything but unreserved characters).
func q(_ value: String) -> String {
    value.addingPercentEncoding(
        withAllowedCharacters: CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? value
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
