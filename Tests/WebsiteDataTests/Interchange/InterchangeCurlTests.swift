import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Interoperation with the real `curl` command-line tool and a loopback Python server.
@Suite("InterchangeCurl", .ownThreads)
struct InterchangeCurlTests {
    /// Serves `/set` (six Set-Cookie headers) and then echoes the `Cookie` header of one more
    /// request; stops after two requests, or after 30 s without one.
    static let server = """
        import email.utils, http.server, time
        COOKIES = [
            "host=1; Path=/",
            "dom=2; Domain=example.test; Path=/",
            "ho=3; Path=/; HttpOnly",
            "exp=4; Path=/; Max-Age=3600",
            "sess=5; Path=/app",
            "dated=6; Path=/; Expires=" + email.utils.formatdate(time.time() + 2 * 86400, usegmt=True),
        ]
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                if self.path == "/set":
                    for cookie in COOKIES:
                        self.send_header("Set-Cookie", cookie)
                    body = b"set"
                else:
                    body = (self.headers.get("Cookie") or "").encode()
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        server.timeout = 300
        print(server.server_address[1], flush=True)
        for _ in range(2):
            server.handle_request()
        server.server_close()
        """

    @Test func cookiesWrittenByCurlImportAndCurlReadsOurExport() throws {
        let dir = try InterchangeTemporaryDirectory()
        let script = try dir.write("server.py", Self.server)
        let (server, port) = try startScriptServer(script)
        defer {
            if server.isRunning { server.terminate() }
            server.waitUntilExit()
        }
        let resolve = "www.example.test:\(port):127.0.0.1"

        let jar = dir.file("curl-cookies.txt")
        let before = Date()
        let set = try interchangeRun(
            "/usr/bin/env", ["curl", "-s", "-c", jar.path, "--resolve", resolve, "http://www.example.test:\(port)/set"])
        let after = Date()
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "set")
        let written = try String(contentsOf: jar, encoding: .utf8)
        #expect(written.hasPrefix("# Netscape HTTP Cookie File"))

        let store = try dir.store()
        let summary = try CookieInterchange.importCookies(from: jar, into: store.httpCookieStore)
        #expect(summary.read == 6)
        #expect(summary.imported == 6)

        let byName = Dictionary(uniqueKeysWithValues: try store.httpCookieStore.allCookies().map { ($0.name, $0) })
        #expect(byName.count == 6)
        func check(_ name: String, _ expected: InterchangeFields) {
            var actual = byName[name].map(InterchangeFields.netscape)
            actual?.expires = nil
            #expect(actual == expected, "\(name) in\n\(written)")
        }
        check(
            "host",
            .init(
                name: "host", value: "1", domain: "www.example.test", path: "/", hostOnly: true, secure: false,
                httpOnly: false))
        check(
            "dom",
            .init(
                name: "dom", value: "2", domain: "example.test", path: "/", hostOnly: false, secure: false,
                httpOnly: false))
        check(
            "ho",
            .init(
                name: "ho", value: "3", domain: "www.example.test", path: "/", hostOnly: true, secure: false,
                httpOnly: true))
        check(
            "exp",
            .init(
                name: "exp", value: "4", domain: "www.example.test", path: "/", hostOnly: true, secure: false,
                httpOnly: false))
        check(
            "sess",
            .init(
                name: "sess", value: "5", domain: "www.example.test", path: "/app", hostOnly: true, secure: false,
                httpOnly: false))
        check(
            "dated",
            .init(
                name: "dated", value: "6", domain: "www.example.test", path: "/", hostOnly: true, secure: false,
                httpOnly: false))
        for name in ["host", "dom", "ho", "sess"] { #expect(byName[name]?.isSession == true, "\(name)") }
        // curl writes whole seconds: Max-Age=3600 lands within a second of the request.
        let exp = try #require(byName["exp"]?.expires)
        #expect(exp.timeIntervalSince(before) >= 3600 - 1 && exp.timeIntervalSince(after) <= 3600 + 1)
        let dated = try #require(byName["dated"]?.expires)
        #expect(dated.timeIntervalSince(before) >= 2 * 86400 - 2 && dated.timeIntervalSince(after) <= 2 * 86400 + 1)

        // The store sends them as a browser would: the domain cookie to a sibling host, HttpOnly not to script.
        #expect(try store.httpCookieStore.cookieHeader(for: URL(string: "http://api.example.test/")!) == "dom=2")
        let scriptVisible = try store.httpCookieStore.cookies(
            for: URL(string: "http://www.example.test/")!, api: .nonHTTP
        ).map(\.name)
        #expect(!scriptVisible.contains("ho"))

        // curl reads what we export and sends every cookie back.
        let ours = dir.file("ours.txt")
        #expect(
            try CookieInterchange.exportCookies(from: store.httpCookieStore, format: .netscape, to: ours).written == 6)
        let echo = try interchangeRun(
            "/usr/bin/env",
            ["curl", "-s", "-b", ours.path, "--resolve", resolve, "http://www.example.test:\(port)/app/echo"])
        #expect(echo.status == 0, "\(echo.stderr)")
        let sent = Set(echo.stdout.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(sent == ["host=1", "dom=2", "ho=3", "exp=4", "sess=5", "dated=6"])
    }
}
