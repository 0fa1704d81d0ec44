import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Real helpers for the document-start script tests: temporary directories, child processes
/// (`node`, `chromium`, `python3`) and a loopback HTTP server the test starts and stops.
enum DocumentStartScriptFixture {
    /// A failure of a helper process, with what it printed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A fresh directory under the system's temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("wkstore-document-start-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The result of a finished child process.
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs `executable` (searched on `PATH` via `/usr/bin/env`) to completion.
    static func run(_ executable: String, _ arguments: [String], in directory: URL) throws -> Output {
        let process = Subprocess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        process.currentDirectoryURL = directory
        let errorFile = directory.appendingPathComponent("stderr-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        defer { try? errorHandle.close() }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = errorHandle
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw Failure(description: "\(executable) could not be started: \(error)")
        }
        let data = try pipe.fileHandleForReading.readToEndOfFile()
        process.waitUntilExit()
        let stderr = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return Output(status: process.terminationStatus, stdout: String(decoding: data, as: UTF8.self), stderr: stderr)
    }

    /// Loads `url` in headless Chromium and returns the serialized DOM after the page's scripts ran.
    ///
    /// Every host resolves to 127.0.0.1, so `http://www.example.test:PORT/` reaches the test server.
    /// A profile directory of its own keeps each load's cookies apart. Throws (so the test fails)
    /// when Chromium cannot start or prints no document.
    static func chromiumDOM(_ url: String, profile: URL) throws -> String {
        let output = try run(
            "timeout",
            [
                "120", "chromium", "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-extensions", "--disable-background-networking",
                "--user-data-dir=\(profile.path)", "--dump-dom", "--virtual-time-budget=5000",
                "--host-resolver-rules=MAP * 127.0.0.1", url,
            ],
            in: profile.deletingLastPathComponent())
        guard output.status == 0, output.stdout.contains("<html") else {
            let tail = output.stderr.split(separator: "\n").suffix(15).joined(separator: "\n")
            throw Failure(
                description:
                    "chromium could not start or load \(url) (exit \(output.status)); install Debian's chromium (CI does). stderr:\n\(tail)"
            )
        }
        return output.stdout
    }

    /// The text of `<pre id="ID">` in a dumped DOM, which the page filled with `encodeURIComponent(…)`.
    static func preText(_ id: String, in dom: String) -> String? {
        guard let start = dom.range(of: "<pre id=\"\(id)\">"),
            let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
        else { return nil }
        return String(dom[start.upperBound..<end.lowerBound]).removingPercentEncoding
    }

    /// A Python 3 HTTP server on 127.0.0.1 (port 0) serving `NAME.html` from a directory for any
    /// path ending in `/NAME`, and appending each `POST /report` body to `reports.jsonl`.
    ///
    /// It stops when the test closes its standard input, and by itself after ten minutes.
    final class LoopbackServer {
        let port: Int
        let directory: URL
        private let process = Subprocess()
        private let input = Pipe()

        static let script = #"""
            import http.server, os, sys, threading
            root = sys.argv[1]
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    name = self.path.split("?")[0].rsplit("/", 1)[-1]
                    file = os.path.join(root, name + ".html")
                    if name and os.path.isfile(file):
                        body, code = open(file, "rb").read(), 200
                    else:
                        body, code = b"not found", 404
                    self.send_response(code)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Cache-Control", "no-store")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def do_POST(self):
                    length = int(self.headers.get("Content-Length", "0"))
                    data = self.rfile.read(length)
                    if self.path == "/report":
                        with open(os.path.join(root, "reports.jsonl"), "ab") as f:
                            f.write(data.replace(b"\n", b" ") + b"\n")
                    self.send_response(204)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                def log_message(self, *args):
                    pass
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            print(server.server_address[1], flush=True)
            def stop_when_stdin_closes():
                sys.stdin.read()
                server.shutdown()
            threading.Thread(target=stop_when_stdin_closes, daemon=True).start()
            timer = threading.Timer(600, server.shutdown)
            timer.daemon = True
            timer.start()
            server.serve_forever()
            """#

        init(directory: URL) throws {
            self.directory = directory
            let scriptFile = directory.appendingPathComponent("server.py")
            try Self.script.write(to: scriptFile, atomically: true, encoding: .utf8)
            let output = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", scriptFile.path, directory.path]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            var line = Data()
            while true {
                let chunk = try output.fileHandleForReading.readSome()
                if chunk.isEmpty { break }
                line += chunk
                if line.contains(10) { break }
            }
            guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            else {
                process.terminate()
                throw Failure(
                    description:
                        "the loopback server did not start (python3 printed \(String(decoding: line, as: UTF8.self).debugDescription))"
                )
            }
            self.port = port
        }

        /// The `POST /report` bodies received so far, one JSON text each.
        func reports() -> [String] {
            let file = directory.appendingPathComponent("reports.jsonl")
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
            return text.split(separator: "\n").map(String.init)
        }

        /// Stops the server and waits for it to exit.
        func stop() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }

        deinit {
            if process.isRunning { process.terminate() }
        }
    }
}
