import Foundation
import Testing

/// A Python 3 HTTP server on 127.0.0.1 for the `wkstore fetch` tests, written into the test's
/// sandbox and started by the test: it listens on port 0 and prints its port, logs every request
/// as a JSON line to a file the test reads, and stops when its standard input closes (the test
/// ends, or dies) or after ten minutes, whichever comes first. With a certificate it serves HTTPS.
final class LoopbackServer {
    /// The port it listens on.
    let port: Int
    /// Where it logs requests, one JSON object a line.
    let logFile: URL
    private let process: Process
    private let input: Pipe

    /// Starts a server.
    ///
    /// - Parameters:
    ///   - directory: where the script, its log and its error output go.
    ///   - tls: a certificate and key (PEM) to serve HTTPS with.
    init(in directory: URL, tls: TestCertificate? = nil) throws {
        let name = "server-\(UUID().uuidString.prefix(8).lowercased())"
        let script = directory.appendingPathComponent(name + ".py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        logFile = directory.appendingPathComponent(name + ".log")
        let errors = directory.appendingPathComponent(name + ".stderr")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        var arguments = ["python3", "-u", script.path, "--log", logFile.path, "--limit", "600"]
        if let tls { arguments += ["--tls", tls.certificate.path, tls.key.path] }
        process = Process()
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
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw ServerError(message: "the loopback server did not start: \(log)")
        }
        self.port = port
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    struct ServerError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// `http://127.0.0.1:PORT` (or `https://`).
    func base(_ host: String = "127.0.0.1", scheme: String = "http") -> String { "\(scheme)://\(host):\(port)" }

    /// `--resolve HOST:PORT:127.0.0.1` for each host.
    func resolve(_ hosts: [String]) -> [String] {
        hosts.flatMap { ["--resolve", "\($0):\(port):127.0.0.1"] }
    }

    /// The requests the server has answered so far, oldest first.
    func requests() throws -> [[String: Any]] {
        let data = try Data(contentsOf: logFile)
        return try data.split(separator: UInt8(ascii: "\n")).map {
            try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
        }
    }

    /// The requests for one path.
    func requests(path: String) throws -> [[String: Any]] {
        try requests().filter { $0["path"] as? String == path }
    }

    static let script = #"""
        import json, os, ssl, sys, threading, time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import urlsplit, parse_qs

        args = sys.argv[1:]
        limit, tls, log_path = 600.0, None, None
        while args:
            a = args.pop(0)
            if a == "--limit": limit = float(args.pop(0))
            elif a == "--tls": tls = (args.pop(0), args.pop(0))
            elif a == "--log": log_path = args.pop(0)
        lock = threading.Lock()
        counts = {}

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def send(self, status, headers, body=b""):
                self.send_response_only(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)
                self.wfile.flush()

            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                split = urlsplit(self.path)
                path, params = split.path, parse_qs(split.query, keep_blank_values=True)
                entry = {
                    "method": self.command, "path": path, "query": split.query, "host": self.headers.get("Host"),
                    "cookie": self.headers.get("Cookie"), "content_type": self.headers.get("Content-Type"),
                    "user_agent": self.headers.get("User-Agent"), "authorization": self.headers.get("Authorization"),
                    "x_test": self.headers.get("X-Test"), "if_none_match": self.headers.get("If-None-Match"), "body": body.decode("utf-8", "replace"),
                }
                with lock:
                    counts[path] = counts.get(path, 0) + 1
                    count = counts[path]
                    with open(log_path, "a") as log:
                        log.write(json.dumps(entry) + "\n")
                echo = json.dumps(entry).encode()
                if path == "/login":
                    return self.send(302, [("Location", "/welcome"), ("Set-Cookie", "sid=abc123; Path=/; HttpOnly"),
                                           ("Set-Cookie", "hop=redirect; Path=/")])
                if path == "/cacheable":
                    if self.headers.get("If-None-Match") == '"v1"':
                        return self.send(304, [("Cache-Control", "max-age=3600"), ("ETag", '"v1"')])
                    return self.send(200, [("Cache-Control", "max-age=3600"), ("ETag", '"v1"'), ("Content-Type", "text/plain")],
                                     b"cacheable body, served %d times by the server\n" % count)
                if path == "/bytes":
                    n = int(params["n"][0])
                    pattern = bytes(i % 251 for i in range(251))
                    return self.send(200, [("Content-Type", "application/octet-stream")], (pattern * (n // 251 + 1))[:n])
                if path == "/trickle":
                    # n bytes over s seconds, in ten pieces, for the progress line.
                    n, s = int(params["n"][0]), float(params["s"][0])
                    self.send_response_only(200)
                    self.send_header("Content-Length", str(n))
                    self.end_headers()
                    for i in range(10):
                        self.wfile.write(b"x" * (n // 10 + (n % 10 if i == 9 else 0)))
                        self.wfile.flush()
                        time.sleep(s / 10)
                    return
                # Anything else: a scripted response (status, location, set: Set-Cookie, header: NAME:VALUE),
                # whose body is the request as JSON.
                headers = [("Set-Cookie", v) for v in params.get("set", [])]
                for value in params.get("header", []):
                    name, _, v = value.partition(":")
                    headers.append((name.strip(), v.strip()))
                if "location" in params: headers.append(("Location", params["location"][0]))
                headers.append(("Content-Type", "application/json"))
                return self.send(int(params.get("status", ["200"])[0]), headers, echo)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = handle_any

        class Server(ThreadingHTTPServer):
            daemon_threads = True

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

/// A self-signed certificate made with `openssl` for `localhost`, `secure.example.test` and
/// 127.0.0.1; its own file is the certificate authority a client must be given to trust it.
struct TestCertificate {
    let certificate: URL
    let key: URL

    init(in directory: URL) throws {
        certificate = directory.appendingPathComponent("cert.pem")
        key = directory.appendingPathComponent("key.pem")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,DNS:secure.example.test,IP:127.0.0.1",
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

/// Percent-encodes a query value (everything but unreserved characters).
func q(_ value: String) -> String {
    value.addingPercentEncoding(
        withAllowedCharacters: CharacterSet(
            charactersIn:
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? value
}

/// Runs a program found on the PATH with arguments, and returns its exit status and output.
@discardableResult
func runTool(_ arguments: [String], in directory: URL) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let file = directory.appendingPathComponent("tool-\(UUID().uuidString.prefix(8)).out")
    _ = FileManager.default.createFile(atPath: file.path, contents: nil)
    let handle = try FileHandle(forWritingTo: file)
    defer { try? handle.close() }
    process.standardOutput = handle
    process.standardError = handle
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: try Data(contentsOf: file), as: UTF8.self))
}
