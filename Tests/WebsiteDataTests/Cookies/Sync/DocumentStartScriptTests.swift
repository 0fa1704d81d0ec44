import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Document-start cookie scripts without a browser: escaping (checked by node's parser and by
/// running the scripts in node), the inline tag, handler names, skipped cookies, and reports.
@Suite("DocumentStartScript", .ownThreads)
struct DocumentStartScriptTests {
    static let page = URL(string: "http://www.example.test/a/b/page")!

    /// Cookie values that try to end the string, the script or the HTML element, or that need escapes.
    static let hostileValues: [String] = [
        "\"quoted\"", "'single'", #"back\slash\\"#, "</script>", "</SCRIPT >", "<!--", "-->", "<script>",
        "]]>", "a\u{2028}b", "a\u{2029}b", "é", "😀", "𝄞x", "${alert(1)}", "`tick`", "&amp;&#x27;", "/*", "*/",
        "//x", "a\u{85}b", "\u{FEFF}bom", #"\u0022"#, "\"+alert(1)+\"", "');alert(1);//", "\u{FFFD}", "<\\/script>",
    ]

    /// A store holding a cookie for every hostile value (and hostile names), all visible at `page`.
    static func hostileStore() throws -> WebsiteDataStore {
        let store = WebsiteDataStore.nonPersistent()
        var headers = hostileValues.enumerated().map { "v\($0.offset)=\($0.element); Path=/" }
        headers += [
            "n\"ame=1; Path=/a", "é😀=2; Path=/a/b", "</script>=3; Path=/", "nameless</script>",
            "<!--=4; Domain=example.test",
        ]
        let summary = try store.httpCookieStore.setCookies(fromSetCookieHeaders: headers, for: page)
        #expect(summary.rejected.isEmpty, "\(summary.rejected)")
        #expect(summary.stored == headers.count)
        return store
    }

    // MARK: - Escaping

    @Test func stringLiteralsAreInertAndRoundTrip() throws {
        for value in Self.hostileValues + ["", "plain", "\u{0}\u{1}\u{7F}\t\n\r", String(repeating: "😀", count: 50)] {
            let literal = JavaScriptStringLiteral.quoted(value)
            let inner = literal.utf8.dropFirst().dropLast()
            #expect(literal.utf8.first == UInt8(ascii: "\"") && literal.utf8.last == UInt8(ascii: "\""))
            for byte in inner {
                #expect(byte >= 0x20 && byte <= 0x7E, "non-printable byte in \(literal)")
                #expect(!Array("\"'<>&/".utf8).contains(byte), "unescaped \(UnicodeScalar(byte)) in \(literal)")
            }
            // Every backslash starts a \uXXXX escape.
            let pieces = literal.split(separator: "\\", omittingEmptySubsequences: false).dropFirst()
            #expect(pieces.allSatisfy { $0.hasPrefix("u") && $0.dropFirst().prefix(4).allSatisfy(\.isHexDigit) })
            // The literal is JSON too; it decodes to the original string.
            let decoded =
                try JSONSerialization.jsonObject(with: Data(literal.utf8), options: [.fragmentsAllowed]) as? String
            #expect(decoded == value)
        }
        #expect(JavaScriptStringLiteral.quoted("😀") == #""\ud83d\ude00""#)
        #expect(JavaScriptStringLiteral.quoted("</script>") == #""\u003c\u002fscript\u003e""#)
    }

    @Test func storeCannotHoldWhatNoStringCouldCarry() throws {
        // NUL and other controls, and ';' in a value, are refused before any script sees them.
        let store = WebsiteDataStore.nonPersistent().httpCookieStore
        let summary = try store.setCookies(
            fromSetCookieHeaders: ["nul=a\u{0}b", "bell=\u{7}", "del=a\u{7F}"], for: Self.page)
        #expect(summary.stored == 0)
        #expect(summary.rejected.map(\.reason) == [.malformed, .malformed, .malformed])
        #expect(throws: CookieRejection.self) {
            try store.setCookie(Cookie(name: "semi", value: "a;b", domain: "www.example.test"))
        }
        #expect(throws: CookieRejection.self) {
            try store.setCookie(Cookie(name: "nl", value: "a\nb", domain: "www.example.test"))
        }
    }

    @Test func scriptsPassNodeCheck() throws {
        let store = try Self.hostileStore()
        let dir = try DocumentStartScriptFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var checked = 0
        for handler in [nil, "wkstoreCookies", "$h_1"] as [String?] {
            for url in [Self.page, URL(string: "http://www.example.test/")!, URL(string: "http://example.test/x")!] {
                let script = try store.httpCookieStore.documentCookieScript(for: url, messageHandler: handler)
                let file = dir.appendingPathComponent("script-\(checked).js")
                try script.userScript.source.write(to: file, atomically: true, encoding: .utf8)
                let result = try DocumentStartScriptFixture.run("node", ["--check", file.path], in: dir)
                #expect(
                    result.status == 0, "node --check failed for \(url) handler \(handler ?? "none"):\n\(result.stderr)"
                )
                checked += 1
            }
        }
        print("document-start scripts: node --check passed \(checked) of 9")
        #expect(checked == 9)
    }

    /// A stand-in `Document` with a `cookie` accessor on its prototype, so node can run the scripts.
    static let nodeHarness = #"""
        const fs = require("fs");
        const [source, hostname, href, handler] = process.argv.slice(2);
        const written = [];
        class Document {}
        Object.defineProperty(Document.prototype, "cookie", {
          configurable: true, enumerable: true,
          get() { return written.join("; "); },
          set(value) { written.push(String(value)); }
        });
        globalThis.Document = Document;
        globalThis.document = new Document();
        globalThis.window = globalThis;
        globalThis.location = { hostname, href };
        (0, eval)(fs.readFileSync(source, "utf8"));
        const initial = written.slice();
        let threw = false;
        try { document.cookie = "noBridge=1"; } catch (e) { threw = true; }
        const posted = [];
        window.webkit = { messageHandlers: { [handler]: { postMessage(m) { posted.push(m); } } } };
        document.cookie = "fromPage=\u00e9\"; path=/";
        document.cookie = { toString() { return "object=1"; } };
        new Document().cookie = "otherDocument=1";
        const readBack = document.cookie.length > 0;
        console.log(JSON.stringify({ initial, threw, posted, written, readBack }));
        """#

    struct NodeRun: Decodable {
        struct Posted: Decodable, Equatable {
            let cookie: String
            let url: String
        }
        let initial: [String]
        let threw: Bool
        let posted: [Posted]
        let written: [String]
        let readBack: Bool
    }

    static func runInNode(_ source: String, hostname: String, href: String, handler: String, in dir: URL) throws
        -> NodeRun
    {
        let file = dir.appendingPathComponent("run-\(UUID().uuidString).js")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let harness = dir.appendingPathComponent("harness.js")
        try nodeHarness.write(to: harness, atomically: true, encoding: .utf8)
        let result = try DocumentStartScriptFixture.run(
            "node", [harness.path, file.path, hostname, href, handler], in: dir)
        guard result.status == 0 else {
            throw DocumentStartScriptFixture.Failure(description: "node failed: \(result.stderr)")
        }
        return try JSONDecoder().decode(NodeRun.self, from: Data(result.stdout.utf8))
    }

    @Test func scriptsWriteExactlyTheCookieStringsInNode() throws {
        let store = try Self.hostileStore()
        let dir = try DocumentStartScriptFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = try store.httpCookieStore.documentCookieScript(for: Self.page, messageHandler: "wkstoreCookies")
        #expect(script.skipped.isEmpty)
        let visible = try store.httpCookieStore.cookies(for: Self.page, api: .nonHTTP)
        #expect(script.cookies.map(\.key) == visible.map(\.key))
        #expect(script.cookies.count == Self.hostileValues.count + 5)

        let run = try Self.runInNode(
            script.userScript.source, hostname: "www.example.test", href: Self.page.absoluteString,
            handler: "wkstoreCookies", in: dir)
        // Every value survives escaping byte for byte, in header order.
        #expect(run.initial == script.cookies.map(DocumentCookieLine.line(for:)))
        #expect(run.initial.count == script.cookies.count)
        // The reporter: no bridge, no exception; with a bridge, each page write of this document,
        // after the store's own writes, is posted once with the page URL.
        #expect(!run.threw)
        #expect(
            run.posted == [
                .init(cookie: "fromPage=é\"; path=/", url: Self.page.absoluteString),
                .init(cookie: "object=1", url: Self.page.absoluteString),
            ])
        #expect(run.written.suffix(4) == ["noBridge=1", "fromPage=é\"; path=/", "object=1", "otherDocument=1"])
        #expect(run.readBack)

        // Without a handler nothing is wrapped: the page's writes go straight through, unreported.
        let plain = try store.httpCookieStore.documentStartScript(for: Self.page)
        let plainRun = try Self.runInNode(
            plain.source, hostname: "www.example.test", href: Self.page.absoluteString,
            handler: "wkstoreCookies", in: dir)
        #expect(plainRun.initial == run.initial)
        #expect(plainRun.posted.isEmpty)
        #expect(!plain.source.contains("postMessage"))
    }

    @Test func scriptWritesNothingOnAnotherHost() throws {
        let store = try Self.hostileStore()
        let dir = try DocumentStartScriptFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try store.httpCookieStore.documentStartScript(for: Self.page, messageHandler: "h").source
        let run = try Self.runInNode(source, hostname: "evil.test", href: "http://evil.test/", handler: "h", in: dir)
        #expect(run.initial.isEmpty)
        // The reporter still works there: the page's own writes are reported with its URL.
        #expect(run.posted.first == .init(cookie: "fromPage=é\"; path=/", url: "http://evil.test/"))
    }

    @Test func inlineTagCannotEndEarly() throws {
        let store = try Self.hostileStore()
        for handler in [nil, "wkstoreCookies"] as [String?] {
            let tag = try store.httpCookieStore.documentStartScriptTag(for: Self.page, messageHandler: handler)
            #expect(tag.hasPrefix("<script>") && tag.hasSuffix("</script>"))
            let content = tag.dropFirst("<script>".count).dropLast("</script>".count)
            #expect(!content.contains("<"), "the element's content holds a '<'")
            #expect(tag.lowercased().components(separatedBy: "</script").count == 2)
            #expect(tag.allSatisfy { $0.isASCII })
            #expect(
                content
                    == Substring(
                        try store.httpCookieStore.documentStartScript(for: Self.page, messageHandler: handler).source))
        }
    }

    // MARK: - What the script writes

    @Test func cookieLinesKeepEveryAttribute() throws {
        let store = WebsiteDataStore.nonPersistent().httpCookieStore
        let secure = URL(string: "https://www.example.test/a/b/page")!
        let expiry = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 86_400).rounded(.down))
        try store.setCookies(
            fromSetCookieHeaders: [
                "host=1; Path=/",
                "dom=2; Domain=example.test; Path=/a",
                "persist=3; Expires=\(CookieDate.format(expiry)); Path=/",
                "strict=4; SameSite=Strict; Secure; Path=/",
                "lax=5; SameSite=Lax; Path=/",
                "none=6; SameSite=None; Secure; Path=/",
                "part=7; Secure; Partitioned; Path=/",
                "bare",
                "secret=8; HttpOnly; Path=/",
            ], for: secure)
        let script = try store.documentCookieScript(for: secure)
        let lines = Dictionary(uniqueKeysWithValues: script.cookies.map { ($0.name, DocumentCookieLine.line(for: $0)) })
        #expect(lines["host"] == "host=1; path=/")
        #expect(lines["dom"] == "dom=2; path=/a; domain=example.test")
        #expect(lines["persist"] == "persist=3; path=/; expires=\(CookieDate.format(expiry))")
        #expect(lines["strict"] == "strict=4; path=/; secure; samesite=strict")
        #expect(lines["lax"] == "lax=5; path=/; samesite=lax")
        #expect(lines["none"] == "none=6; path=/; secure; samesite=none")
        #expect(lines["part"] == "part=7; path=/; secure; partitioned")
        #expect(lines[""] == "bare; path=/a/b")
        #expect(lines["secret"] == nil)
        #expect(!script.userScript.source.contains("secret"))
        #expect(script.userScript.injectionTime == .atDocumentStart)
        #expect(script.userScript.forMainFrameOnly)
        #expect(try !store.documentStartScript(for: secure, forMainFrameOnly: false).forMainFrameOnly)
        // Header order: longest path first, then oldest.
        #expect(script.cookies.map(\.key) == (try store.cookies(for: secure, api: .nonHTTP)).map(\.key))
    }

    @Test func cookiesScriptCannotRecreateAreSkipped() throws {
        let store = WebsiteDataStore.nonPersistent().httpCookieStore
        try store.setCookies(
            fromSetCookieHeaders: ["tab=a\tb; Path=/", "=k=v; Path=/", "ok=1; Path=/", "__Http-flag=1; Path=/"],
            for: Self.page)
        try store.setCookie(Cookie(name: "pad", value: " padded ", domain: "www.example.test"))
        try store.setCookie(Cookie(name: "semipath", value: "1", domain: "www.example.test", path: "/a;b"))
        let script = try store.documentCookieScript(for: Self.page)
        let reasons = Dictionary(uniqueKeysWithValues: script.skipped.map { ($0.cookie.name, $0.reason) })
        #expect(reasons["tab"] == .unwritableCharacter)
        #expect(reasons[""] == .namelessValueWithEquals)
        #expect(reasons["pad"] == .surroundingWhitespace)
        if try store.allCookies().contains(where: { $0.name == "__Http-flag" }) {
            #expect(reasons["__Http-flag"] == .httpOnlyPrefix)
        }
        #expect(script.cookies.map(\.name) == ["ok"])
        #expect(!script.userScript.source.contains("padded") && !script.userScript.source.contains("k=v"))
        // A path holding ';' is never visible here (and would be skipped where it is).
        #expect(
            DocumentCookieLine.skipReason(for: Cookie(name: "p", value: "1", domain: "h", path: "/a;b"))
                == .unwritableCharacter)
        #expect(script.skipped.allSatisfy { $0.description.contains("not written by script") })
    }

    @Test func messageHandlerNamesAreValidated() throws {
        let store = WebsiteDataStore.nonPersistent().httpCookieStore
        for name in ["wkstoreCookies", "_x", "$h", "a1", "A_$9", String(repeating: "h", count: 128)] {
            #expect(try store.documentStartScript(for: Self.page, messageHandler: name).source.contains(name))
        }
        for name in [
            "", "1a", "a-b", "a b", "a\"b", "</script>", "a.b", "é", "a;b", "x\u{2028}",
            String(repeating: "h", count: 129),
        ] {
            let error = #expect(throws: CookieScriptError.self) {
                try store.documentStartScript(for: Self.page, messageHandler: name)
            }
            #expect(error?.code == .invalidMessageHandlerName)
            #expect(throws: CookieScriptError.self) {
                try store.documentStartScriptTag(for: Self.page, messageHandler: name)
            }
        }
    }

    // MARK: - Reports

    @Test func reportsDecodeFromEveryBodyShape() throws {
        let expected = DocumentCookieReport(cookie: "a=1; path=/", url: Self.page)
        let json = #"{"cookie":"a=1; path=/","url":"http://www.example.test/a/b/page"}"#
        let bodies: [Any] = [
            ["cookie": "a=1; path=/", "url": "http://www.example.test/a/b/page"] as [String: Any],
            ["cookie": "a=1; path=/", "url": Self.page] as [String: Any],
            [AnyHashable("cookie"): "a=1; path=/", AnyHashable("url"): "http://www.example.test/a/b/page"]
                as [AnyHashable: Any],
            NSDictionary(dictionary: [
                "cookie": NSString(string: "a=1; path=/"), "url": NSString(string: "http://www.example.test/a/b/page"),
            ]),
            json,
            Data(json.utf8),
            expected,
        ]
        for body in bodies {
            #expect(try DocumentCookieReport(messageBody: body) == expected, "\(type(of: body))")
        }
        #expect(try JSONDecoder().decode(DocumentCookieReport.self, from: Data(json.utf8)) == expected)
        #expect(try DocumentCookieReport(json: JSONEncoder().encode(expected)) == expected)

        let malformed: [Any] = [
            "not json", "[1]", #"{"cookie":1,"url":"http://x/"}"#, #"{"url":"http://x/"}"#, #"{"cookie":"a=1"}"#,
            #"{"cookie":"a=1","url":"no scheme"}"#, 42, ["cookie": "a=1"] as [String: Any],
        ]
        for body in malformed {
            let error = #expect(throws: CookieScriptError.self) { try DocumentCookieReport(messageBody: body) }
            #expect(error?.code == .malformedReport, "\(body)")
        }
    }

    @Test func reportsAreStoredAsNonHTTPWrites() throws {
        let store = WebsiteDataStore.nonPersistent().httpCookieStore
        try store.setCookies(fromSetCookieHeaders: ["sid=server; HttpOnly; Path=/"], for: Self.page)

        let stored = try store.ingestDocumentCookieReport(DocumentCookieReport(cookie: "fromScript=1", url: Self.page))
        #expect(stored.stored == 1 && stored.rejected.isEmpty)
        // A missing path defaults from the document's URL, as document.cookie does.
        #expect(try store.allCookies().first { $0.name == "fromScript" }?.path == "/a/b")
        #expect(
            try store.cookieHeader(for: URL(string: "http://www.example.test/a/b/next")!)?.contains("fromScript=1")
                == true)

        let httpOnly = try store.ingestDocumentCookieReport(
            DocumentCookieReport(cookie: "x=1; HttpOnly", url: Self.page))
        #expect(httpOnly.stored == 0)
        #expect(httpOnly.rejected.map(\.reason) == [.httpOnlyFromScript])
        let overwrite = try store.ingestDocumentCookieReport(
            DocumentCookieReport(cookie: "sid=evil; path=/", url: Self.page))
        #expect(overwrite.rejected.map(\.reason) == [.httpOnlyFromScript])
        #expect(try store.allCookies().first { $0.name == "sid" }?.value == "server")
        #expect(try store.allCookies().contains { $0.name == "x" } == false)

        // A report claiming another origin than the frame that sent it is refused.
        let forged = DocumentCookieReport(cookie: "steal=1", url: URL(string: "https://bank.test/")!)
        let error = #expect(throws: CookieScriptError.self) {
            try store.ingestDocumentCookieReport(forged, frameURL: URL(string: "http://www.example.test/a/b/page")!)
        }
        #expect(error?.code == .frameMismatch)
        #expect(try store.allCookies().contains { $0.name == "steal" } == false)
        let sameOrigin = try store.ingestDocumentCookieReport(
            DocumentCookieReport(cookie: "ok=1; path=/", url: Self.page),
            frameURL: URL(string: "HTTP://WWW.example.test:80/other")!)
        #expect(sameOrigin.stored == 1)
    }
}
