import Foundation
import Testing
import WebsiteDataTestSupport

/// A page server and real headless browsers, for the tests that import browser profiles.
///
/// The server (Python 3 on 127.0.0.1, port 0) serves `/quiet`, a page that only reports (below)
/// what it was sent; `/top`, for `http://www.site.localhost:PORT`, which sets a Domain cookie
/// (`Domain=site.localhost`) and a host-only one, reports to `/top-report`, and embeds a
/// cross-site frame, `/frame` from `http://embed.localhost:PORT`, which sets a `Partitioned`
/// cookie and an unpartitioned third-party one (both Secure, SameSite=None; browsers treat
/// `*.localhost` as a secure context and resolve it to loopback) and reports to
/// `/frame-report`; and `/page` (any other path is a 404), which sets cookies of several
/// shapes with `Set-Cookie` and from script, sets localStorage items (non-ASCII ones included),
/// and then reports, with synchronous requests so they finish before the page's load ends, what
/// it saw: `POST /report` (its body `document.cookie` and the localStorage items as JSON) and
/// `POST /sub/report`. The server logs each report with the `Cookie` header the browser sent, so
/// a test compares the store's view with what the browser really sent. It stops when its
/// standard input closes, or by itself after ten minutes.
final class BrowserPageServer {
    /// The port it listens on.
    let port: Int
    private let directory: URL
    private let process = Subprocess()
    private let input = Pipe()

    /// The cookies `/page` sets with `Set-Cookie`, one header each.
    static let setCookies = [
        "hostonly=1; Path=/",
        "deep=2; Path=/sub",
        "http=3; HttpOnly; Path=/",
        "strict=4; SameSite=Strict; Max-Age=3600",
        "lax=5; SameSite=Lax; Max-Age=7200",
        "nonesec=6; SameSite=None; Secure; Path=/",
        "sess=7",
        "persist=8; Expires=Wed, 01 Jan 2031 00:00:00 GMT",
        "quoted=\"a b\"; Path=/",
    ]

    /// The localStorage items `/page` sets: non-ASCII keys and values, an empty value, and a
    /// long repetitive one (which Firefox stores Snappy-compressed).
    static let storageItems = [
        "greeting": "héllo wörld", "emoji": "😀 ✓", "ascii": "plain", "clé": "valeur", "empty": "",
        "long": String(repeating: "compressible ", count: 100), "latin": "naïve façade",
    ]

    static let script = #"""
        import http.server, json, os, sys, threading
        root, cookies, items = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
        PAGE = """<!doctype html><html><head><meta charset="utf-8"></head><body><pre id="out"></pre><script>
        var items = %s;
        for (var k in items) localStorage.setItem(k, items[k]);
        document.cookie = "script=from-js; path=/";
        document.cookie = "scriptlax=1; SameSite=Lax; max-age=86400";
        function report(path) {
          var x = new XMLHttpRequest();
          x.open("POST", path, false);
          x.send(JSON.stringify({cookie: document.cookie, storage: Object.assign({}, localStorage)}));
        }
        report("/report");
        report("/sub/report");
        document.getElementById("out").textContent = "reported";
        </script></body></html>""" % items
        def reporting(path, before=""):
            """A page whose script reports document.cookie to `path`, after `before`."""
            return """<!doctype html><html><body>%s<script>
        var x = new XMLHttpRequest();
        x.open("POST", "%s", false);
        x.send(JSON.stringify({cookie: document.cookie, storage: {}}));
        </script></body></html>""" % (before, path)
        def routes(port):
            """Each path's page and Set-Cookie headers."""
            return {
                "/page": (PAGE, cookies),
                "/quiet": (reporting("/report"), []),
                "/top": (
                    reporting("/top-report", '<iframe src="http://embed.localhost:%d/frame"></iframe>' % port),
                    ["dom=1; Domain=site.localhost; Path=/; Max-Age=86400", "hostdom=2; Path=/; Max-Age=86400"]),
                "/frame": (
                    reporting("/frame-report"),
                    ["part=3; Secure; SameSite=None; Partitioned; Path=/; Max-Age=86400",
                     "unpart=4; Secure; SameSite=None; Path=/; Max-Age=86400"]),
            }
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args): pass
            def do_GET(self):
                route = routes(self.server.server_address[1]).get(self.path)
                if route is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = route[0].encode("utf-8")
                self.send_response(200)
                for c in route[1]: self.send_header("Set-Cookie", c)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def do_POST(self):
                data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                # http.server reads header bytes as Latin-1; a cookie's bytes are UTF-8.
                header = self.headers.get("Cookie")
                if header is not None: header = header.encode("iso-8859-1").decode("utf-8", "replace")
                entry = {"path": self.path, "header": header, "body": json.loads(data)}
                with open(os.path.join(root, "reports.jsonl"), "a") as f:
                    f.write(json.dumps(entry) + "\n")
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        def stop_when_stdin_closes():
            sys.stdin.read()
            os._exit(0)
        threading.Thread(target=stop_when_stdin_closes, daemon=True).start()
        threading.Timer(600, lambda: os._exit(0)).start()
        server.serve_forever()
        """#

    /// Starts the server, writing its script and reports into `directory`.
    init(directory: URL) throws {
        self.directory = directory
        let file = directory.appendingPathComponent("page-server.py")
        try Self.script.write(to: file, atomically: true, encoding: .utf8)
        let cookies = String(decoding: try JSONSerialization.data(withJSONObject: Self.setCookies), as: UTF8.self)
        let items = String(decoding: try JSONSerialization.data(withJSONObject: Self.storageItems), as: UTF8.self)
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", file.path, directory.path, cookies, items]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(10) {
            let chunk = try output.fileHandleForReading.readSome()
            if chunk.isEmpty { break }
            line += chunk
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            throw BrowserFailure(description: "the page server did not start")
        }
        self.port = port
    }

    /// One report the page made.
    struct Report {
        /// The `Cookie` header the browser sent with it, `""` when none.
        let header: String
        /// `document.cookie` as the page saw it.
        let documentCookie: String
        /// localStorage as the page saw it.
        let storage: [String: String]
    }

    /// The last report made to `path` (`/report`, `/sub/report`), waiting for it for at most two
    /// minutes: a browser left running on a page (`RunningBrowser`) may have written the page's
    /// cookies before its script has reported.
    func report(_ path: String) throws -> Report {
        for _ in 0..<240 {
            if let report = try lastReport(path) { return report }
            Thread.sleep(forTimeInterval: 0.5)
        }
        throw BrowserFailure(description: "the page made no report to \(path)")
    }

    private func lastReport(_ path: String) throws -> Report? {
        let file = directory.appendingPathComponent("reports.jsonl")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        var lines = text.split(separator: "\n")
        // A line still being written (no newline yet) is left for the next look.
        if !text.hasSuffix("\n") && !lines.isEmpty { lines.removeLast() }
        for line in lines.reversed() {
            let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard entry["path"] as? String == path, let body = entry["body"] as? [String: Any] else { continue }
            return Report(
                header: entry["header"] as? String ?? "", documentCookie: body["cookie"] as? String ?? "",
                storage: body["storage"] as? [String: String] ?? [:])
        }
        return nil
    }

    /// Stops the server.
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { if process.isRunning { process.terminate() } }
}

/// A headless browser left running on one page, for tests that read its profile while it
/// runs, as a user's running browser would be read.
///
/// Chromium keeps session cookies on disk only when it restores the last session
/// (`--restore-last-session`), and it deletes them from the file when its last window closes
/// (unless it is quitting), which with `--dump-dom` races with the quit. Left running, it
/// writes every cookie of a page to its file in one batch, 30 seconds after the first change
/// of the batch. Firefox writes its cookies to `cookies.sqlite`'s write-ahead log within a
/// second or so, and holds the database in exclusive locking mode, so that no other process
/// can open it: it is read from a copy, as the import reads it. `waitForCookies` waits for
/// either write.
final class RunningBrowser {
    private let process = Subprocess()
    private let cookieFile: URL
    private let cookieTable: String
    private let directory: URL
    private let log: FileHandle

    /// Starts Chromium on `url` with `userDataDir` (which must not hold a profile yet: a second
    /// run restoring the first one's tabs would not load `url`).
    static func chromium(_ url: String, userDataDir: URL) throws -> RunningBrowser {
        try RunningBrowser(
            [
                "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--password-store=basic",
                "--restore-last-session", "--user-data-dir=\(userDataDir.path)", url,
            ], cookieFile: userDataDir.appendingPathComponent("Default/Cookies"), table: "cookies",
            in: userDataDir.deletingLastPathComponent())
    }

    /// Starts Firefox ESR on `url` with a profile folder of its own.
    static func firefox(_ url: String, profile: URL) throws -> RunningBrowser {
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        return try RunningBrowser(
            ["firefox-esr", "--headless", "--no-remote", "--profile", profile.path, url],
            cookieFile: profile.appendingPathComponent("cookies.sqlite"), table: "moz_cookies",
            in: profile.deletingLastPathComponent())
    }

    /// Runs `command` in `directory` (the folder that holds the profile), with a home there.
    private init(_ command: [String], cookieFile: URL, table: String, in directory: URL) throws {
        self.cookieFile = cookieFile
        self.cookieTable = table
        self.directory = directory
        let logFile = directory.appendingPathComponent("\(command[0]).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        log = try FileHandle(forWritingTo: logFile)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // `timeout` bounds a run the test never stops (a failed expectation before `stop()`),
        // and leads the browser's process group, which `stop()` ends.
        process.arguments = ["timeout", "-k", "10", "600"] + command
        process.environment = try HeadlessBrowser.environment(in: directory)
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    /// Waits until the profile's cookie database holds `count` cookies, for at most four
    /// minutes (Chromium's write comes after about 30 seconds, later on a loaded machine).
    func waitForCookies(_ count: Int) throws {
        let copy = directory.appendingPathComponent("cookie-count")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        let copied = copy.appendingPathComponent("cookies.sqlite")
        var rows = 0
        for _ in 0..<480 {
            // The database and its write-ahead log, copied; a copy taken in the middle of a
            // write may not open, and is taken again.
            for suffix in ["", "-wal"] {
                let target = URL(fileURLWithPath: copied.path + suffix)
                try? FileManager.default.removeItem(at: target)
                try? FileManager.default.copyItem(at: URL(fileURLWithPath: cookieFile.path + suffix), to: target)
            }
            if FileManager.default.fileExists(atPath: copied.path) {
                let counted = try runTool(
                    ["sqlite3", copied.path, "SELECT count(*) FROM \(cookieTable)"], in: directory)
                rows = Int(counted.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                if rows >= count { return }
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.5)
        }
        throw BrowserFailure(description: "the browser wrote \(rows) of \(count) cookies to its file (see its log)")
    }

    /// Stops the browser at once, every process of it, and waits for it to end: its files stay
    /// as they were, with the cookies it wrote.
    func stop() {
        if process.isRunning { kill(-process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? log.close()
    }

    deinit { stop() }
}

/// A browser that did not start or did not load the page, with the end of what it printed.
struct BrowserFailure: Error, CustomStringConvertible {
    let description: String
}

/// Headless browsers from Debian, each run bounded by `timeout` (a generous limit: the machine
/// may be loaded), which kills the browser if it overstays.
enum HeadlessBrowser {
    /// Loads `url` in headless Chromium with a user-data-dir of its own and cookies kept in the
    /// basic (`v10`) store, and exits once the page has loaded (`--dump-dom`). Session cookies
    /// stay in memory: `RunningBrowser.chromium` is the run that keeps them on disk.
    static func chromium(_ url: String, userDataDir: URL) throws {
        try run(
            [
                "timeout", "-k", "10", "240", "chromium", "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--password-store=basic", "--user-data-dir=\(userDataDir.path)", "--dump-dom", url,
            ], name: "chromium", in: userDataDir.deletingLastPathComponent())
    }

    /// Loads `url` in headless Firefox ESR with a profile folder of its own; it exits once the
    /// page has loaded and its screenshot is written.
    static func firefox(_ url: String, profile: URL) throws {
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        try run(
            [
                "timeout", "-k", "10", "240", "firefox-esr", "--headless", "--no-remote", "--profile", profile.path,
                "--screenshot", profile.deletingLastPathComponent().appendingPathComponent("firefox.png").path, url,
            ], name: "firefox-esr", in: profile.deletingLastPathComponent())
    }

    /// The environment a browser runs in: this process's, with a home of its own beside
    /// `directory`'s files so that nothing is written to the user's.
    static func environment(in directory: URL) throws -> [String: String] {
        let home = directory.appendingPathComponent("browser-home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent(".cache").path
        return environment
    }

    /// Runs a browser command to completion, with a home of its own beside `directory`'s files
    /// so that nothing is written to the user's.
    static func run(_ arguments: [String], name: String, in directory: URL) throws {
        let (status, output) = try runToolCapturingBytes(
            arguments, in: directory, environment: try environment(in: directory))
        guard status == 0 else {
            let tail = String(decoding: output, as: UTF8.self).split(separator: "\n").suffix(12).joined(separator: "\n")
            throw BrowserFailure(
                description: "\(name) failed (exit \(status)); install Debian's \(name). Output:\n\(tail)")
        }
    }
}
