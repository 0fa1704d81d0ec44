import Foundation
import WebsiteData

/// A Python 3 `http.server` on 127.0.0.1 for the tests of every suite, written into the test's
/// directory and started by the test.
///
/// It listens on port 0 and prints its port; it logs every request (but `/_log`) as a JSON line
/// to `logFile` and keeps them for `/_log`; it stops when its standard input closes (the test
/// ends, or the test process dies) or after ten minutes, whichever comes first. With a
/// certificate it serves HTTPS. Its paths: `/r` (and any path not named below) a scripted
/// response whose body is the request as JSON; `/c` a cacheable resource; `/bytes`, `/loop`,
/// `/slow`, `/gzip`, `/login`, `/cacheable`, `/trickle`; `/cookie-parser` for the http-state
/// manifest.
public final class LoopbackServer {
    /// The port it listens on.
    public let port: Int
    /// Where it logs requests, one JSON object a line.
    public let logFile: URL
    private let process: Subprocess
    private let input: Pipe

    /// Starts a server.
    ///
    /// - Parameters:
    ///   - directory: the test's directory, where the script, its log and its error output go.
    ///   - tls: a certificate and key to serve HTTPS with.
    ///   - manifest: the http-state manifest, for `/cookie-parser`.
    /// - Throws: `ServerError` when the server does not start.
    public init(in directory: URL, tls: TestCertificate? = nil, manifest: URL? = nil) throws {
        let name = "server-\(UUID().uuidString.prefix(8).lowercased())"
        let script = directory.appendingPathComponent(name + ".py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        logFile = directory.appendingPathComponent(name + ".log")
        let errors = directory.appendingPathComponent(name + ".stderr")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        var arguments = ["python3", "-u", script.path, "--log", logFile.path, "--limit", "600"]
        if let tls { arguments += ["--tls", tls.certificate.path, tls.key.path] }
        if let manifest { arguments += ["--manifest", manifest.path] }
        process = Subprocess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        var line = Data()
        while true {
            let byte = try output.fileHandleForReading.readSome(limit: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw ServerError(message: "the loopback server did not start: \(log)")
        }
        self.port = port
    }

    /// Why the server or its certificate could not be made, or its log read.
    public struct ServerError: Error, CustomStringConvertible {
        /// What went wrong.
        public let message: String
        /// The message.
        public var description: String { message }
    }

    /// Closes the server's standard input, which stops it, and waits for it.
    public func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { stop() }

    /// `http://HOST:PORT` (or another scheme).
    ///
    /// - Parameters:
    ///   - host: the host name; 127.0.0.1 by default.
    ///   - scheme: `http` by default.
    /// - Returns: the URL's text, without a path.
    public func base(_ host: String = "127.0.0.1", scheme: String = "http") -> String {
        "\(scheme)://\(host):\(port)"
    }

    /// `HOST:PORT:127.0.0.1` for each name, for libcurl's `resolve` option.
    ///
    /// - Parameter hosts: the names to resolve to the server.
    /// - Returns: one entry a name.
    public func resolve(_ hosts: [String]) -> [String] {
        hosts.map { "\($0):\(port):127.0.0.1" }
    }

    /// `--resolve HOST:PORT:127.0.0.1` for each name, as command-line arguments.
    ///
    /// - Parameter hosts: the names to resolve to the server.
    /// - Returns: two arguments a name.
    public func resolveArguments(_ hosts: [String]) -> [String] {
        resolve(hosts).flatMap { ["--resolve", $0] }
    }

    /// The requests the server has answered so far, oldest first (not counting `/_log`).
    ///
    /// - Returns: one JSON object a request.
    /// - Throws: when the log cannot be read or a line is not a JSON object.
    public func requests() throws -> [[String: Any]] {
        let data = try Data(contentsOf: logFile)
        return try data.split(separator: UInt8(ascii: "\n")).map {
            guard let entry = try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] else {
                throw ServerError(message: "a line of \(logFile.path) is not a JSON object")
            }
            return entry
        }
    }

    /// The requests for one path, oldest first.
    ///
    /// - Parameter path: the request path, without the query.
    /// - Returns: one JSON object a request.
    /// - Throws: when the log cannot be read.
    public func requests(path: String) throws -> [[String: Any]] {
        try requests().filter { $0["path"] as? String == path }
    }

    /// The entries of a request log for one path.
    ///
    /// - Parameters:
    ///   - log: the log, as `/_log` or `requests()` gives it.
    ///   - path: the request path, without the query.
    /// - Returns: the entries for that path, in order.
    public static func entries(_ log: [[String: Any]], path: String) -> [[String: Any]] {
        log.filter { ($0["path"] as? String) == path }
    }

    /// The server, in Python 3: one program for every suite.
    static let script = #"""
        import base64, email.utils, gzip, json, os, ssl, sys, threading, time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import urlsplit, parse_qs, unquote

        args = sys.argv[1:]
        limit = 600.0
        tls = None
        log_path = None
        manifest = {}
        while args:
            a = args.pop(0)
            if a == "--limit": limit = float(args.pop(0))
            elif a == "--tls": tls = (args.pop(0), args.pop(0))
            elif a == "--log": log_path = args.pop(0)
            elif a == "--manifest":
                with open(args.pop(0), encoding="utf-8") as f:
                    manifest = {t["id"]: t for t in json.load(f)}

        log = []
        log_lock = threading.Lock()
        counts = {}

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
                    "x_test": self.headers.get("X-Test"),
                    "body": body.decode("utf-8", "replace"),
                }
                count = 0
                if path != "/_log":
                    with log_lock:
                        log.append(entry)
                        entry["seq"] = len(log)
                        counts[path] = counts.get(path, 0) + 1
                        count = counts[path]
                        if log_path:
                            with open(log_path, "a") as f:
                                f.write(json.dumps(entry) + "\n")
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
                if path == "/login":
                    return self.raw(302, [("Location", "/welcome"), ("Set-Cookie", "sid=abc123; Path=/; HttpOnly"),
                                          ("Set-Cookie", "hop=redirect; Path=/")])
                if path == "/cacheable":
                    if self.headers.get("If-None-Match") == '"v1"':
                        return self.raw(304, [("Cache-Control", "max-age=3600"), ("ETag", '"v1"')])
                    return self.raw(200, [("Cache-Control", "max-age=3600"), ("ETag", '"v1"'), ("Content-Type", "text/plain")],
                                    b"cacheable body, served %d times by the server\n" % count)
                if path == "/trickle":
                    # n bytes over s seconds, in ten pieces, for a progress line.
                    params = parse_qs(query)
                    n, s = int(params["n"][0]), float(params["s"][0])
                    self.wfile.write(b"HTTP/1.1 200 X\r\nContent-Length: %d\r\n\r\n" % n)
                    for i in range(10):
                        self.wfile.write(b"x" * (n // 10 + (n % 10 if i == 9 else 0)))
                        self.wfile.flush()
                        time.sleep(s / 10)
                    return
                echo = json.dumps(entry).encode()
                if path == "/gzip":
                    if "gzip" in (self.headers.get("Accept-Encoding") or ""):
                        return self.raw(200, [("Content-Encoding", "gzip"), ("X-Was-Compressed", "1")], gzip.compress(echo))
                    return self.raw(200, [("X-Was-Compressed", "0")], echo)
                # /r and any other path: a scripted response: status, location, set (Set-Cookie,
                # repeatable), csd (Clear-Site-Data), header (NAME:VALUE, repeatable); the body is the request as JSON.
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

/// A self-signed certificate made with `openssl` for `localhost`, the test hosts and
/// 127.0.0.1; its own file is the certificate authority a client must be given to trust it.
public struct TestCertificate: Sendable {
    /// The certificate (PEM).
    public let certificate: URL
    /// Its private key (PEM).
    public let key: URL

    /// The host names it is valid for (and 127.0.0.1).
    public static let hosts = [
        "localhost", "secure.example.org", "www.example.org", "other.example.net", "secure.example.test",
    ]

    /// Makes a certificate and its key in a directory.
    ///
    /// - Parameter directory: where `cert.pem` and `key.pem` go.
    /// - Throws: `LoopbackServer.ServerError` when `openssl` fails.
    public init(in directory: URL) throws {
        certificate = directory.appendingPathComponent("cert.pem")
        key = directory.appendingPathComponent("key.pem")
        let process = Subprocess()
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
///
/// - Parameter value: the value.
/// - Returns: the encoded value.
public func q(_ value: String) -> String {
    value.addingPercentEncoding(
        withAllowedCharacters: CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? value
}
