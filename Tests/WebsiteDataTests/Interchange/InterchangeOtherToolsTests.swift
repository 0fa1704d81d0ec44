import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Files other tools write, imported as their users expect: Firefox and WebKit storage states
/// with `SameSite=None` on plain HTTP, wget jars with ports, browser-extension and
/// `chrome.cookies` JSON, and files with a bad line among good ones (lenient by default,
/// all or nothing when strict).
@Suite("InterchangeOtherTools", .ownThreads)
struct InterchangeOtherToolsTests {
    static let tomorrow = Int(Date().timeIntervalSince1970) + 86_400

    // MARK: - SameSite=None without Secure (Firefox, WebKit)

    /// What Playwright's `context.storageState({ path })` saves from Firefox after a login to a
    /// dev server on http://localhost:3000 (Firefox reports cookies set without SameSite as
    /// `"None"`, and keeps them without Secure on plain HTTP), plus one Secure cookie of an
    /// HTTPS site that keeps its SameSite=None.
    static let firefoxState = """
        {
          "cookies": [
            {
              "name": "connect.sid",
              "value": "s%3AqX1u7d.VQm4",
              "domain": "localhost",
              "path": "/",
              "expires": -1,
              "httpOnly": true,
              "secure": false,
              "sameSite": "None"
            },
            {
              "name": "theme",
              "value": "dark",
              "domain": "localhost",
              "path": "/",
              "expires": \(tomorrow),
              "httpOnly": false,
              "secure": false,
              "sameSite": "None"
            },
            {
              "name": "csrftoken",
              "value": "Yt7k",
              "domain": "localhost",
              "path": "/",
              "expires": \(tomorrow),
              "httpOnly": false,
              "secure": false,
              "sameSite": "Lax"
            },
            {
              "name": "widget",
              "value": "1",
              "domain": ".cdn.example.net",
              "path": "/",
              "expires": \(tomorrow),
              "httpOnly": false,
              "secure": true,
              "sameSite": "None"
            }
          ],
          "origins": [
            {
              "origin": "http://localhost:3000",
              "localStorage": [
                {
                  "name": "user",
                  "value": "{\\"id\\":7}"
                }
              ]
            }
          ]
        }

        """

    @Test func firefoxStorageStateWithSameSiteNoneOnPlainHTTPImports() throws {
        let dir = try InterchangeTemporaryDirectory()
        let file = try dir.write("firefox-state.json", Self.firefoxState)
        for options in [CookieImportOptions.lenient, .strict] {
            let store = try dir.store(options.isStrict ? "strict" : "lenient")
            let summary = try CookieInterchange.importCookies(from: file, into: store.httpCookieStore, options: options)
            #expect(summary.read == 4 && summary.imported == 4 && !summary.hasRefusals, "\(summary)")
            #expect(summary.sameSiteNoneWithoutSecure == 2)
            #expect(
                summary.description
                    == "read 4 cookies: imported 4; 2 SameSite=None cookies without Secure imported with no SameSite (sent on same-site requests and top-level navigations)"
            )
            let cookies = store.httpCookieStore
            // What the app's pages get, at any port of localhost.
            #expect(
                try cookies.cookieHeader(for: URL(string: "http://localhost:3000/dashboard")!)
                    == "connect.sid=s%3AqX1u7d.VQm4; theme=dark; csrftoken=Yt7k")
            #expect(try cookies.cookieHeader(for: URL(string: "http://localhost/")!)?.hasPrefix("connect.sid=") == true)
            let byName = Dictionary(uniqueKeysWithValues: try cookies.allCookies().map { ($0.name, $0) })
            #expect(byName["connect.sid"]?.sameSite == .unspecified && byName["connect.sid"]?.isSecure == false)
            #expect(byName["theme"]?.sameSite == .unspecified)
            #expect(byName["csrftoken"]?.sameSite == .lax)
            // A Secure SameSite=None cookie stays None and goes cross-site.
            #expect(byName["widget"]?.sameSite == CookieSameSite.none && byName["widget"]?.isSecure == true)
            let crossSite = CookieRequestContext(topLevelSite: URL(string: "https://news.example.org/")!)
            #expect(
                try cookies.cookieHeader(for: URL(string: "https://cdn.example.net/w.js")!, context: crossSite)
                    == "widget=1")
            // The mapped cookies are Lax by default: not sent with cross-site subresource requests.
            #expect(try cookies.cookieHeader(for: URL(string: "http://localhost:3000/api")!, context: crossSite) == nil)
        }

        // The whole storage state, origins too, maps the same way.
        let whole = try dir.store("whole")
        let summary = try StorageStateInterchange.importStorageState(from: file, into: whole)
        #expect(summary.cookies.imported == 4 && summary.cookies.sameSiteNoneWithoutSecure == 2)
        #expect(summary.localStorageItems == 1)
        #expect(
            try whole.httpCookieStore.cookieHeader(for: URL(string: "http://localhost:3000/")!)
                == "connect.sid=s%3AqX1u7d.VQm4; theme=dark; csrftoken=Yt7k")
    }

    // MARK: - wget jars with ports

    /// What `wget --save-cookies jar.txt --keep-session-cookies` writes after visiting servers on
    /// non-default ports: the port after the host in the domain field.
    static let wgetJar = """
        # HTTP Cookie File
        # Generated by Wget on 2026-12-02 19:35:05.
        # Edit at your own risk.

        .localhost\tTRUE\t/app\tFALSE\t0\tdom\t1
        127.0.0.1:8080\tFALSE\t/\tFALSE\t0\tsession\tabc123
        .example.com:8443\tTRUE\t/\tTRUE\t\(tomorrow)\tpref\tdark
        localhost:3000\tFALSE\t/app\tFALSE\t0\tcart\t3
        [::1]:8080\tFALSE\t/\tFALSE\t0\tv6\t1
        www.example.org\tFALSE\t/\tFALSE\t\(tomorrow)\tplain\t1

        """

    @Test func wgetJarWithPortsImportsTheHosts() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        let cookies = store.httpCookieStore
        let summary = try CookieInterchange.importCookies(from: try dir.write("jar.txt", Self.wgetJar), into: cookies)
        #expect(summary.description == "read 6 cookies: imported 5, refused 1")
        // wget keeps `Domain=localhost` as a domain cookie; `localhost` is a public suffix here,
        // so the line is refused (as `.com` is), and said so.
        #expect(
            summary.refusals.map(\.description) == ["line 5: cookie 'dom' refused: its Domain is a public suffix"])
        func header(_ url: String) throws -> String? { try cookies.cookieHeader(for: URL(string: url)!) }
        // Cookies are not port-specific: the host's cookies go to every port.
        #expect(try header("http://127.0.0.1:8080/") == "session=abc123")
        #expect(try header("http://127.0.0.1:9090/") == "session=abc123")
        #expect(try header("https://shop.example.com:8443/") == "pref=dark")
        #expect(try header("https://example.com/") == "pref=dark")
        #expect(try header("http://localhost:3000/app/cart") == "cart=3")
        #expect(try header("http://[::1]:8080/") == "v6=1")
        #expect(try header("http://www.example.org/") == "plain=1")
        #expect(
            Set(try cookies.allCookies().map(\.domain))
                == ["127.0.0.1", "example.com", "localhost", "::1", "www.example.org"])
    }

    /// Serves `/set` (two Set-Cookie headers), then echoes the `Cookie` header of one more
    /// request; stops after two requests, or after 300 s without one.
    static let wgetServer = """
        import http.server
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                if self.path == "/set":
                    self.send_header("Set-Cookie", "sid=abc; Path=/")
                    self.send_header("Set-Cookie", "pref=dark; Path=/; Max-Age=3600")
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

    /// The real wget (when installed) against a loopback server on a port of its own: its jar
    /// (`127.0.0.1:PORT`) imports, the store sends the cookies to that port, and wget reads the
    /// store's export and sends them back.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/wget")))
    func cookiesWrittenByWgetImportAndWgetReadsOurExport() throws {
        let dir = try InterchangeTemporaryDirectory()
        let script = try dir.write("server.py", Self.wgetServer)
        let (server, port) = try startScriptServer(script)
        defer {
            if server.isRunning { server.terminate() }
            server.waitUntilExit()
        }

        let jar = dir.file("wget-cookies.txt")
        let set = try interchangeRun(
            "/usr/bin/wget",
            ["-q", "-O", "-", "--save-cookies", jar.path, "--keep-session-cookies", "http://127.0.0.1:\(port)/set"])
        #expect(set.status == 0 && set.stdout == "set", "\(set.stderr)")
        let written = try String(contentsOf: jar, encoding: .utf8)
        #expect(written.contains("127.0.0.1:\(port)\tFALSE\t/\tFALSE\t0\tsid\tabc\n"), "\(written)")

        let store = try dir.store()
        let summary = try CookieInterchange.importCookies(from: jar, into: store.httpCookieStore)
        #expect(summary.description == "read 2 cookies: imported 2", "\(written)")
        // Equal paths: the order is the jar's line order (wget's own), so compared as a set.
        let header = try #require(
            try store.httpCookieStore.cookieHeader(for: URL(string: "http://127.0.0.1:\(port)/page")!))
        #expect(Set(header.components(separatedBy: "; ")) == ["pref=dark", "sid=abc"])

        let ours = dir.file("ours.txt")
        try CookieInterchange.exportCookies(from: store.httpCookieStore, format: .netscape, to: ours)
        let echo = try interchangeRun(
            "/usr/bin/wget", ["-q", "-O", "-", "--load-cookies", ours.path, "http://127.0.0.1:\(port)/echo"])
        #expect(echo.status == 0, "\(echo.stderr)")
        let sent = Set(echo.stdout.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(sent == ["sid=abc", "pref=dark"])
    }

    /// A domain that is still no host (not a port after it) is refused with a reason, never
    /// counted as imported; the engine refuses it from `setCookie` as well.
    @Test func domainsNoRequestCouldMatchAreRefused() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        let cookies = store.httpCookieStore
        let file = try dir.write(
            "jar.txt",
            """
            www.example.com\tFALSE\t/\tFALSE\t0\tok\t1
            example.com:http\tFALSE\t/\tFALSE\t0\tscheme\t1
            a:b:c\tFALSE\t/\tFALSE\t0\tcolons\t1
            example.com:99999999\tFALSE\t/\tFALSE\t0\tlongport\t1

            """)
        let summary = try CookieInterchange.importCookies(from: file, into: cookies)
        #expect(summary.read == 4 && summary.imported == 1 && summary.refused == 3, "\(summary)")
        #expect(summary.refusals.map(\.line) == [2, 3, 4])
        #expect(
            summary.refusals[0].description
                == "line 2: cookie 'scheme' refused: its domain 'example.com:http' is not a host name or IP address (':' belongs only in an IPv6 address; a port does not belong in a cookie's domain), so no request could carry it"
        )
        #expect(summary.description == "read 4 cookies: imported 1, refused 3")
        #expect(try cookies.allCookies().map(\.name) == ["ok"])

        let strict = try #require(throws: CookieImportError.self) {
            try CookieInterchange.importCookies(from: file, into: cookies, options: .strict)
        }
        #expect(strict.line == 2 && strict.reason.contains("not a host name"))
        #expect(throws: CookieRejection.self) {
            try cookies.setCookie(Cookie(name: "p", value: "1", domain: "example.com:8443"))
        }
    }

    // MARK: - Extension and chrome.cookies JSON

    /// EditThisCookie's "Export" (a JSON array of `chrome.cookies` objects with an `id`).
    static let editThisCookie = """
        [
        {
            "domain": ".example.com",
            "expirationDate": \(tomorrow).25,
            "hostOnly": false,
            "httpOnly": false,
            "name": "_ga",
            "path": "/",
            "sameSite": "unspecified",
            "secure": false,
            "session": false,
            "storeId": "0",
            "value": "GA1.2.1234567890.1700000000",
            "id": 1
        },
        {
            "domain": "www.example.com",
            "hostOnly": true,
            "httpOnly": true,
            "name": "sessionid",
            "path": "/",
            "sameSite": "lax",
            "secure": true,
            "session": true,
            "storeId": "0",
            "value": "x7f3",
            "id": 2
        },
        {
            "domain": ".example.com",
            "expirationDate": \(tomorrow),
            "hostOnly": false,
            "httpOnly": true,
            "name": "NID",
            "path": "/",
            "sameSite": "no_restriction",
            "secure": true,
            "session": false,
            "storeId": "0",
            "value": "511=abc",
            "id": 3
        },
        {
            "domain": "www.example.com",
            "expirationDate": \(tomorrow),
            "hostOnly": true,
            "httpOnly": false,
            "name": "prefs",
            "path": "/account",
            "sameSite": "strict",
            "secure": true,
            "session": false,
            "storeId": "0",
            "value": "lang=en",
            "id": 4
        }
        ]
        """

    @Test func editThisCookieExportImports() throws {
        let dir = try InterchangeTemporaryDirectory()
        let file = try dir.write("cookies.json", Self.editThisCookie)
        #expect(try CookieInterchange.detectFormat(of: file) == .extensionJSON)
        let store = try dir.store()
        let cookies = store.httpCookieStore
        let summary = try CookieInterchange.importCookies(from: file, into: cookies)
        #expect(summary.description == "read 4 cookies: imported 4")
        #expect(
            try cookies.cookieHeader(for: URL(string: "https://www.example.com/account/settings")!)
                == "prefs=lang=en; _ga=GA1.2.1234567890.1700000000; sessionid=x7f3; NID=511=abc")
        #expect(
            try cookies.cookieHeader(for: URL(string: "http://www.example.com/")!) == "_ga=GA1.2.1234567890.1700000000")
        let byName = Dictionary(uniqueKeysWithValues: try cookies.allCookies().map { ($0.name, $0) })
        #expect(
            InterchangeFields.storageState(try #require(byName["_ga"]))
                == InterchangeFields(
                    name: "_ga", value: "GA1.2.1234567890.1700000000", domain: "example.com", path: "/",
                    hostOnly: false, secure: false, httpOnly: false, sameSite: .unspecified, partitionKey: "",
                    expires: Double(Self.tomorrow) + 0.25))
        #expect(byName["sessionid"]?.expires == nil && byName["sessionid"]?.isHostOnly == true)
        #expect(byName["sessionid"]?.isHTTPOnly == true && byName["sessionid"]?.sameSite == .lax)
        #expect(byName["NID"]?.sameSite == CookieSameSite.none && byName["NID"]?.isHostOnly == false)
        #expect(byName["prefs"]?.sameSite == .strict && byName["prefs"]?.path == "/account")
    }

    /// `JSON.stringify(await chrome.cookies.getAll({}))` in an extension's service worker in
    /// Chrome 131 (a partitioned cookie with its `partitionKey` object), with one object from
    /// Firefox's `browser.cookies.getAll({})` (its `firstPartyDomain`, and `no_restriction`
    /// without Secure for a cookie a plain-HTTP dev server set without SameSite).
    static let chromeDump = """
        [{"domain":"embed.example.org","expirationDate":\(tomorrow).5,"hostOnly":true,"httpOnly":false,"name":"chip","partitionKey":{"hasCrossSiteAncestor":false,"topLevelSite":"https://example.net"},"path":"/","sameSite":"no_restriction","secure":true,"session":false,"storeId":"0","value":"c1"},{"domain":".github.com","expirationDate":\(tomorrow),"hostOnly":false,"httpOnly":true,"name":"logged_in","path":"/","sameSite":"lax","secure":true,"session":false,"storeId":"0","value":"yes"},{"domain":"localhost","firstPartyDomain":"","hostOnly":true,"httpOnly":false,"name":"dev","partitionKey":null,"path":"/","sameSite":"no_restriction","secure":false,"session":true,"storeId":"firefox-default","value":"2"}]
        """

    @Test func chromeCookiesGetAllDumpImports() throws {
        let dir = try InterchangeTemporaryDirectory()
        let file = try dir.write("chrome.json", Self.chromeDump)
        #expect(try CookieInterchange.detectFormat(of: file) == .extensionJSON)
        let store = try dir.store()
        let cookies = store.httpCookieStore
        let summary = try CookieInterchange.importCookies(from: file, into: cookies)
        #expect(summary.imported == 3 && summary.sameSiteNoneWithoutSecure == 1 && !summary.hasRefusals)
        let embedded = CookieRequestContext(topLevelSite: URL(string: "https://example.net/")!)
        #expect(
            try cookies.cookieHeader(for: URL(string: "https://embed.example.org/f")!, context: embedded) == "chip=c1")
        let elsewhere = CookieRequestContext(topLevelSite: URL(string: "https://other.example/")!)
        #expect(try cookies.cookieHeader(for: URL(string: "https://embed.example.org/f")!, context: elsewhere) == nil)
        #expect(try cookies.cookieHeader(for: URL(string: "https://gist.github.com/")!) == "logged_in=yes")
        #expect(try cookies.cookieHeader(for: URL(string: "http://localhost:5173/")!) == "dev=2")
        let chip = try #require(try cookies.allCookies().first { $0.name == "chip" })
        #expect(
            chip.partitionKey == "https://example.net"
                && chip.expires?.timeIntervalSince1970 == Double(Self.tomorrow) + 0.5)
    }

    @Test func extensionJSONExportRoundTrips() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        try CookieInterchange.importCookies(
            from: try dir.write("in.json", Self.editThisCookie + "\n"), into: store.httpCookieStore)
        try CookieInterchange.importCookies(
            from: try dir.write("chip.json", Self.chromeDump), into: store.httpCookieStore)
        let first = dir.file("first.json")
        let written = try CookieInterchange.exportCookies(
            from: store.httpCookieStore, format: .extensionJSON, to: first)
        #expect(written.written == 7 && written.skipped.isEmpty)
        // JSON that Foundation reads, one object per cookie, in chrome.cookies' shape.
        let parsed = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: first)) as? [[String: Any]])
        #expect(parsed.count == 7)
        let ga = try #require(parsed.first { $0["name"] as? String == "_ga" })
        #expect(ga["domain"] as? String == ".example.com" && ga["hostOnly"] as? Bool == false)
        #expect(ga["sameSite"] as? String == "unspecified" && ga["session"] as? Bool == false)
        #expect(ga["expirationDate"] as? Double == Double(Self.tomorrow) + 0.25)
        let chip = try #require(parsed.first { $0["name"] as? String == "chip" })
        #expect((chip["partitionKey"] as? [String: Any])?["topLevelSite"] as? String == "https://example.net")

        let again = try dir.store("again")
        #expect(try CookieInterchange.importCookies(from: first, into: again.httpCookieStore).imported == 7)
        let second = dir.file("second.json")
        try CookieInterchange.exportCookies(from: again.httpCookieStore, format: .extensionJSON, to: second)
        #expect(try Data(contentsOf: second) == Data(contentsOf: first))
        #expect(
            Set(try again.httpCookieStore.allCookies().map(InterchangeFields.storageState))
                == Set(try store.httpCookieStore.allCookies().map(InterchangeFields.storageState)))
    }

    @Test func extensionJSONExportLayout() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        try store.httpCookieStore.setCookies(
            fromSetCookieHeaders: ["sid=abc; Secure; HttpOnly; SameSite=Lax"],
            for: URL(string: "https://www.example.com/")!)
        let out = dir.file("out.json")
        try CookieInterchange.exportCookies(from: store.httpCookieStore, format: .extensionJSON, to: out)
        #expect(
            try String(contentsOf: out, encoding: .utf8) == """
                [
                  {
                    "domain": "www.example.com",
                    "hostOnly": true,
                    "httpOnly": true,
                    "name": "sid",
                    "path": "/",
                    "sameSite": "lax",
                    "secure": true,
                    "session": true,
                    "storeId": "0",
                    "value": "abc"
                  }
                ]

                """)
        let empty = try dir.store("empty")
        try CookieInterchange.exportCookies(from: empty.httpCookieStore, format: .extensionJSON, to: out)
        #expect(try String(contentsOf: out, encoding: .utf8) == "[]\n")
        #expect(try CookieInterchange.importCookies(from: out, into: empty.httpCookieStore).read == 0)
    }

    @Test func formatsAreToldApart() throws {
        let dir = try InterchangeTemporaryDirectory()
        #expect(
            try CookieInterchange.detectFormat(of: dir.write("a.json", "\u{FEFF}\n  [ \n {\"name\": \"a\"}]"))
                == .extensionJSON)
        #expect(try CookieInterchange.detectFormat(of: dir.write("b.json", "[]")) == .extensionJSON)
        #expect(try CookieInterchange.detectFormat(of: dir.write("c.json", "{\"cookies\": []}")) == .storageState)
        // A cookies.txt line may start with '[' for an IPv6 host.
        #expect(
            try CookieInterchange.detectFormat(of: dir.write("d.txt", "[::1]\tFALSE\t/\tFALSE\t0\tn\t1\n")) == .netscape
        )
        #expect(
            try CookieInterchange.detectFormat(of: dir.write("e.txt", "# Netscape HTTP Cookie File\n")) == .netscape)
        #expect(CookieFileFormat(rawValue: "extension-json") == .extensionJSON)

        // An array of Playwright cookies (`JSON.stringify(await context.cookies())`) reads too.
        let store = try dir.store()
        let playwright = try dir.write(
            "pw.json",
            "[{\"name\": \"a\", \"value\": \"1\", \"domain\": \".example.com\", \"path\": \"/\", \"expires\": -1, \"httpOnly\": false, \"secure\": true, \"sameSite\": \"None\"}]"
        )
        #expect(try CookieInterchange.importCookies(from: playwright, into: store.httpCookieStore).imported == 1)
        #expect(try store.httpCookieStore.allCookies().first?.sameSite == CookieSameSite.none)

        // A storage state given as a cookie array, or the other way round, names what it found.
        let wrong = try #require(throws: CookieImportError.self) {
            try CookieInterchange.importCookies(
                from: try dir.write("state.json", "{\"cookies\": []}"), format: .extensionJSON,
                into: store.httpCookieStore)
        }
        #expect(wrong.line == 1 && wrong.reason.contains("JSON array of cookie objects"), "\(wrong)")
        let trailing = try #require(throws: CookieImportError.self) {
            try CookieInterchange.importCookies(
                from: try dir.write("two.json", "[]\n[]"), into: store.httpCookieStore)
        }
        #expect(trailing.line == 2 && trailing.reason.contains("after the end"), "\(trailing)")
    }

    // MARK: - One bad line among good ones

    /// A browser-sized cookies.txt with two bad lines: lenient (the default) imports the rest
    /// in one transaction and lists each bad line; strict refuses the file and changes nothing.
    @Test func badLinesAmongGoodOnesAreListedAndTheRestImported() throws {
        var text = "# Netscape HTTP Cookie File\n# https://curl.se/docs/http-cookies.html\n\n"
        for i in 0..<500 { text += "site\(i).test\tFALSE\t/\tFALSE\t\(Self.tomorrow)\tc\(i)\tv\(i)\n" }
        text += ".co.uk\tTRUE\t/\tFALSE\t0\tsuper\tcookie\n" // line 504
        text += "www.example.com\tFALSE\t/\tFALSE\tsoon\tn\tv\n" // line 505
        text += "www.example.com\tFALSE\t/\tFALSE\t0\tlast\tone\n"
        let dir = try InterchangeTemporaryDirectory()
        let file = try dir.write("big.txt", text)

        let strictStore = try dir.store("strict")
        try strictStore.httpCookieStore.setCookies(
            fromSetCookieHeaders: ["c1=original"], for: URL(string: "https://site1.test/")!)
        let before = try InterchangeSnapshot.of(strictStore)
        let error = try #require(throws: CookieImportError.self) {
            try CookieInterchange.importCookies(from: file, into: strictStore.httpCookieStore, options: .strict)
        }
        #expect(
            error.description
                == "line 504: cookie 'super' refused: its Domain is a public suffix (nothing was imported)")
        #expect(try InterchangeSnapshot.of(strictStore) == before)
        #expect(try InterchangeSnapshot.of(dir.store("strict")) == before)

        let store = try dir.store("lenient")
        let summary = try CookieInterchange.importCookies(from: file, into: store.httpCookieStore)
        #expect(summary.read == 503 && summary.imported == 501 && summary.refused == 2)
        #expect(summary.hasRefusals)
        #expect(summary.description == "read 503 cookies: imported 501, refused 2")
        #expect(
            summary.refusals.map(\.description) == [
                "line 504: cookie 'super' refused: its Domain is a public suffix",
                "line 505: the expires field (field 5) must be Unix seconds, found 'soon'",
            ])
        #expect(summary.refusals.allSatisfy { $0.index == nil && $0.path == nil })
        #expect(try store.httpCookieStore.cookieHeader(for: URL(string: "https://www.example.com/")!) == "last=one")
        #expect(
            try store.httpCookieStore.cookieHeader(for: URL(string: "https://site499.test/")!) == "c499=v499")
        // All of it in the database, in one transaction.
        #expect(try dir.store("lenient").httpCookieStore.allCookies().count == 501)
    }

    /// Bad entries in JSON: each is listed with its line, position and path; the rest import.
    @Test func badEntriesInJSONAreListedWithTheirPositions() throws {
        let dir = try InterchangeTemporaryDirectory()
        let array = """
            [
              {"domain": "www.example.com", "hostOnly": true, "name": "good", "path": "/", "value": "1"},
              {"domain": "www.example.com", "hostOnly": true, "path": "/", "value": "1"},
              {"domain": "www.example.com", "name": "typed", "value": "1",
               "secure": "yes", "path": "/"},
              {"domain": ".com", "hostOnly": false, "name": "super", "value": "1"},
              {"domain": "www.example.com", "name": "odd", "value": "1", "sameSite": "sometimes"},
              {"domain": "www.example.com", "name": "old", "value": "1", "expirationDate": -3},
              {"domain": "www.example.com", "name": "also", "value": "2"}
            ]
            """
        let store = try dir.store()
        let summary = try CookieInterchange.importCookies(
            from: try dir.write("c.json", array), into: store.httpCookieStore)
        #expect(summary.read == 7 && summary.imported == 2 && summary.refused == 5, "\(summary)")
        #expect(summary.refusals.map(\.index) == [1, 2, 3, 4, 5])
        #expect(
            summary.refusals.map(\.description) == [
                "line 3, [1]: has no \"name\"",
                "line 5, [2].secure: must be true or false, found '\"'",
                "line 6, [3]: cookie 'super' refused: its Domain is a public suffix",
                "line 7, [4]: has \"sameSite\": \"sometimes\"; expected \"strict\", \"lax\", \"no_restriction\" or \"unspecified\" (or \"Strict\", \"Lax\", \"None\")",
                "line 8, [5]: has \"expirationDate\": -3.0; expected Unix seconds, or -1 for a session cookie",
            ])
        #expect(
            try store.httpCookieStore.cookieHeader(for: URL(string: "https://www.example.com/")!) == "good=1; also=2")

        // Strict: the first bad entry refuses the file.
        let strict = try dir.store("strict")
        let error = try #require(throws: CookieImportError.self) {
            try CookieInterchange.importCookies(
                from: try dir.write("c.json", array), into: strict.httpCookieStore, options: .strict)
        }
        #expect(error.description == "line 3: [1] has no \"name\" (nothing was imported)")
        #expect(try strict.httpCookieStore.allCookies().isEmpty)

        // A JSON syntax error refuses the file in either mode: past it no entry can be found.
        let broken = try dir.write(
            "broken.json", array.replacingOccurrences(of: "\"name\": \"also\"", with: "\"name\" \"also\""))
        let syntax = try #require(throws: CookieImportError.self) {
            try CookieInterchange.importCookies(from: broken, into: try dir.store("broken").httpCookieStore)
        }
        #expect(syntax.line == 9 && syntax.reason.contains("expected ':'"), "\(syntax)")
        #expect(try dir.store("broken").httpCookieStore.allCookies().isEmpty)
    }

    /// Each of the Netscape suite's bad lines, lenient: the lines around it are imported (the
    /// cookie it would overwrite takes the file's value) and it is listed as line 4.
    @Test(arguments: InterchangeNetscapeTests.badLines)
    func badLineIsLeftOutByDefault(_ bad: InterchangeNetscapeTests.BadLine) throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        try store.httpCookieStore.setCookies(
            fromSetCookieHeaders: ["victim=original"], for: URL(string: "https://www.example.com/")!)
        var bytes = Array(
            "# Netscape HTTP Cookie File\nwww.example.com\tFALSE\t/\tFALSE\t0\tvictim\treplaced\nnew.example.com\tFALSE\t/\tFALSE\t0\tnew\tcookie\n"
                .utf8)
        bytes += bad.bytes
        bytes += Array("\nafter.example.com\tFALSE\t/\tFALSE\t0\tafter\tx\n".utf8)
        let file = dir.file("bad.txt")
        try Data(bytes).write(to: file)
        let summary = try CookieInterchange.importCookies(from: file, into: store.httpCookieStore)
        #expect(summary.imported == 3 && summary.refused == 1, "\(summary)")
        let refusal = try #require(summary.refusals.first)
        #expect(refusal.line == 4 && refusal.reason.contains(bad.reason), "\(refusal)")
        for (url, header) in [
            ("https://www.example.com/", "victim=replaced"), ("https://new.example.com/", "new=cookie"),
            ("https://after.example.com/", "after=x"),
        ] {
            #expect(try store.httpCookieStore.cookieHeader(for: URL(string: url)!) == header)
            #expect(try dir.store().httpCookieStore.cookieHeader(for: URL(string: url)!) == header)
        }
    }

    /// The storage-state suite's bad documents, lenient: a bad cookie entry is left out and
    /// listed; a JSON syntax error or a document of the wrong shape still refuses the file.
    @Test(arguments: InterchangeStorageStateTests.badStates)
    func badStateEntryIsLeftOutByDefault(_ bad: InterchangeStorageStateTests.BadState) throws {
        let entryLevel: Set<String> = [
            "supercookie", "__Host- without Secure", "no name", "unknown sameSite", "negative expires",
            "string expires", "string secure", "not an object",
        ]
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        try store.httpCookieStore.setCookies(
            fromSetCookieHeaders: ["victim=original"], for: URL(string: "https://www.example.com/")!)
        let before = try InterchangeSnapshot.of(store)
        let text =
            "{\n  \"cookies\": [\n"
            + "    {\"name\": \"victim\", \"value\": \"replaced\", \"domain\": \"www.example.com\", \"path\": \"/\", \"expires\": -1, \"httpOnly\": false, \"secure\": false, \"sameSite\": \"Lax\"},\n"
            + bad.tail
        let file = try dir.write("state.json", text)
        if entryLevel.contains(bad.label) {
            let summary = try CookieInterchange.importCookies(from: file, into: store.httpCookieStore)
            #expect(summary.imported == 1 && summary.refused == 1, "\(summary)")
            let refusal = try #require(summary.refusals.first)
            #expect(refusal.line == bad.line && refusal.index == 1, "\(refusal)")
            #expect(
                refusal.path?.hasPrefix("cookies[1]") == true
                    && (refusal.path! + " " + refusal.reason).contains(bad.reason), "\(refusal)")
            #expect(
                try dir.store().httpCookieStore.cookieHeader(for: URL(string: "https://www.example.com/")!)
                    == "victim=replaced")
        } else {
            let error = try #require(throws: CookieImportError.self) {
                try CookieInterchange.importCookies(from: file, into: store.httpCookieStore)
            }
            #expect(error.line == bad.line && error.reason.contains(bad.reason), "\(error)")
            #expect(try InterchangeSnapshot.of(store) == before)
            #expect(try InterchangeSnapshot.of(dir.store()) == before)
        }
    }

    /// The whole storage state, lenient by default: a refused cookie is left out, listed with its
    /// path, and the origins are imported; strict keeps the file's all-or-nothing.
    @Test func refusedCookieIsLeftOutByDefault() throws {
        let dir = try InterchangeTemporaryDirectory()
        let text = Self.firefoxState.replacingOccurrences(
            of: "\"domain\": \".cdn.example.net\"", with: "\"domain\": \".net\"")
        let file = try dir.write("state.json", text)
        let store = try dir.store()
        let summary = try StorageStateInterchange.importStorageState(from: file, into: store)
        #expect(summary.cookies.imported == 3 && summary.cookies.refused == 1 && summary.localStorageItems == 1)
        #expect(
            summary.cookies.refusals.map(\.description) == [
                "line 33, cookies[3]: cookie 'widget' refused: its Domain is a public suffix"
            ])
        #expect(summary.description.hasPrefix("read 4 cookies: imported 3, refused 1;"), "\(summary)")

        let strict = try dir.store("strict")
        let error = try #require(throws: StorageStateImportError.self) {
            try StorageStateInterchange.importStorageState(from: file, into: strict, options: .strict)
        }
        #expect(
            error.description
                == "line 33, cookies[3]: cookie 'widget' refused: its Domain is a public suffix (nothing was imported)")
        #expect(try strict.httpCookieStore.allCookies().isEmpty)
        #expect(try strict.localStorage.origins().isEmpty)
    }

    /// A file of nothing but bad lines lists the first `maxListedRefusals` and counts them all.
    @Test func refusalsAreListedUpToALimit() throws {
        let dir = try InterchangeTemporaryDirectory()
        let text = String(repeating: "www.example.com\tFALSE\t/\tFALSE\tsoon\tn\tv\n", count: 1500)
        let summary = try CookieInterchange.importCookies(
            from: try dir.write("bad.txt", text), into: try dir.store().httpCookieStore)
        #expect(summary.read == 1500 && summary.refused == 1500 && summary.imported == 0)
        #expect(summary.refusals.count == CookieImportSummary.maxListedRefusals)
        #expect(summary.refusals.last?.line == CookieImportSummary.maxListedRefusals)
    }
}
