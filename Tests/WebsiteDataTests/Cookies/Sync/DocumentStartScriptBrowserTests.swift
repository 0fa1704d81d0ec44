import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Document-start cookie scripts in a real headless Chromium, against pages served by a loopback
/// server: what page script sees is what the store says it may see, and `document.cookie` writes
/// reported through the message handler reach the store.
@Suite("DocumentStartScriptBrowser", .serialized, .ownThreads)
struct DocumentStartScriptBrowserTests {
    /// One kind of cookie and whether page script at the test page must see it.
    struct Shape {
        let label: String
        let pair: String
        let visible: Bool
    }

    @Test func chromiumSeesWhatTheStoreSays() throws {
        let dir = try DocumentStartScriptFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try DocumentStartScriptFixture.LoopbackServer(directory: dir)
        defer { server.stop() }
        let www = "http://www.example.test:\(server.port)"
        let apex = "http://example.test:\(server.port)"
        let pageURL = URL(string: www + "/a/b/page")!
        let store = WebsiteDataStore.nonPersistent().httpCookieStore

        var shapes: [Shape] = []
        var skippedShapes: [(label: String, name: String, reason: SkippedDocumentCookie.Reason)] = []
        func add(_ label: String, _ url: String, _ header: String, pair: String, visible: Bool = true) throws {
            let summary = try store.setCookies(fromSetCookieHeaders: [header], for: URL(string: url)!)
            #expect(summary.stored == 1, "\(label): \(summary.rejected)")
            shapes.append(Shape(label: label, pair: pair, visible: visible))
        }
        let inTwoDays = CookieDate.format(Date().addingTimeInterval(2 * 86_400))
        try add("path /", www + "/", "r=root; Path=/", pair: "r=root")
        try add("path /a", www + "/", "pa=on-a; Path=/a", pair: "pa=on-a")
        try add("path /a/b", www + "/", "pab=on-ab; Path=/a/b", pair: "pab=on-ab")
        try add("path /x (no match)", www + "/", "px=elsewhere; Path=/x", pair: "px=elsewhere", visible: false)
        try add("default path", www + "/a/b/page", "dp=default-path", pair: "dp=default-path")
        try add(
            "domain cookie set by the apex", apex + "/", "apexdom=1; Domain=example.test; Path=/", pair: "apexdom=1")
        try add("domain cookie set by www", www + "/", "wwwdom=1; Domain=.example.test; Path=/a", pair: "wwwdom=1")
        try add("host-only cookie of the apex", apex + "/", "apexhost=1; Path=/", pair: "apexhost=1", visible: false)
        try add("Max-Age", www + "/", "maxage=1; Max-Age=3600; Path=/", pair: "maxage=1")
        try add("Expires", www + "/", "expires=1; Expires=\(inTwoDays); Path=/", pair: "expires=1")
        try add("SameSite=Strict", www + "/", "strict=1; SameSite=Strict; Path=/", pair: "strict=1")
        try add("SameSite=Lax", www + "/", "lax=1; SameSite=Lax; Path=/", pair: "lax=1")
        try add(
            "Secure, SameSite=None on an insecure page", "https://www.example.test/",
            "securenone=1; Secure; SameSite=None; Path=/",
            pair: "securenone=1", visible: false)
        try add("nameless", www + "/", "justvalue", pair: "justvalue")
        try add("double quotes", www + "/", "dq=\"quoted value\"; Path=/", pair: "dq=\"quoted value\"")
        try add("backslashes", www + "/", #"bs=a\b\\c"; Path=/"#, pair: #"bs=a\b\\c""#)
        try add("</script> and <!--", www + "/", "tag=</script><!--<script>; Path=/", pair: "tag=</script><!--<script>")
        try add("quote, ampersand, angle brackets, slash", www + "/", "amp='&<b>'/x; Path=/", pair: "amp='&<b>'/x")
        try add("non-ASCII value", www + "/", "intl=é😀ü; Path=/", pair: "intl=é😀ü")
        try add("U+2028 and U+2029", www + "/", "ls=a\u{2028}b\u{2029}c; Path=/", pair: "ls=a\u{2028}b\u{2029}c")
        try add("non-ASCII name", www + "/", "nämé=ok; Path=/", pair: "nämé=ok")
        try add("HttpOnly", www + "/", "secret=http-only; HttpOnly; Path=/", pair: "secret=http-only", visible: false)
        try add("empty value", www + "/", "empty=; Path=/", pair: "empty=")
        try add("same name, path /", www + "/", "dup=root; Path=/", pair: "dup=root")
        try add("same name, path /a/b", www + "/", "dup=deep; Path=/a/b", pair: "dup=deep")
        try add("inner spaces", www + "/", "sp=a b c; Path=/", pair: "sp=a b c")
        try add("template and script text", www + "/", "js=${x}`')+alert(1)//; Path=/", pair: "js=${x}`')+alert(1)//")
        // Cookies the store holds that no document.cookie string can recreate: skipped, and so unseen.
        try add("TAB in the value (skipped)", www + "/", "tab=a\tb; Path=/", pair: "tab=a\tb", visible: false)
        skippedShapes.append(("TAB in the value", "tab", .unwritableCharacter))
        try add("nameless value with '=' (skipped)", www + "/", "=k=v; Path=/a", pair: "k=v", visible: false)
        skippedShapes.append(("nameless value with '='", "", .namelessValueWithEquals))
        try store.setCookie(Cookie(name: "pad", value: " padded ", domain: "www.example.test"))
        shapes.append(Shape(label: "surrounding spaces (skipped)", pair: "pad= padded ", visible: false))
        skippedShapes.append(("surrounding spaces", "pad", .surroundingWhitespace))

        let script = try store.documentCookieScript(for: pageURL)
        let html =
            "<!doctype html><html><head>" + script.scriptTag
            + #"<meta charset="utf-8"><title>cookies</title></head><body><pre id="out"></pre>"#
            + #"<script>document.getElementById("out").textContent = encodeURIComponent(document.cookie);</script></body></html>"#
        try html.write(to: dir.appendingPathComponent("page.html"), atomically: true, encoding: .utf8)
        #expect(!script.userScript.source.contains("http-only"))

        // What the store says page script may see, less what no script can write.
        let skippedKeys = Set(script.skipped.map(\.cookie.key))
        let storeView = try store.cookies(for: pageURL, api: .nonHTTP)
        let expected = storeView.filter { !skippedKeys.contains($0.key) }.map(\.pair).joined(separator: "; ")
        #expect(script.cookies.map(\.pair).joined(separator: "; ") == expected)

        let dom = try DocumentStartScriptFixture.chromiumDOM(
            pageURL.absoluteString, profile: dir.appendingPathComponent("profile"))
        let seen = try #require(DocumentStartScriptFixture.preText("out", in: dom), "no <pre id=out> in:\n\(dom)")
        #expect(seen == expected)

        let seenPairs = Set(seen.components(separatedBy: "; "))
        let storePairs = Set(storeView.map(\.pair))
        var matched = 0
        for shape in shapes {
            let skipped = skippedShapes.contains { shape.label.hasPrefix($0.label) }
            let storeAgrees =
                skipped ? storePairs.contains(shape.pair) : storePairs.contains(shape.pair) == shape.visible
            if seenPairs.contains(shape.pair) == shape.visible && storeAgrees {
                matched += 1
            } else {
                Issue.record(
                    "shape '\(shape.label)': Chromium \(seenPairs.contains(shape.pair) ? "shows" : "hides") \(shape.pair.debugDescription)"
                )
            }
        }
        for skipped in skippedShapes {
            #expect(
                script.skipped.contains { $0.cookie.name == skipped.name && $0.reason == skipped.reason },
                "\(skipped.label)")
        }
        print(
            "document-start script in Chromium: \(matched) of \(shapes.count) cookie shapes matched; document.cookie \(seen == expected ? "identical to" : "differs from") the store's view"
        )
        #expect(shapes.count >= 20)
        #expect(matched == shapes.count)
    }

    @Test func reportedWritesReachTheStore() throws {
        let dir = try DocumentStartScriptFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try DocumentStartScriptFixture.LoopbackServer(directory: dir)
        defer { server.stop() }
        let origin = "http://localhost:\(server.port)"
        let pageURL = URL(string: origin + "/a/b/page")!
        let store = WebsiteDataStore.nonPersistent().httpCookieStore

        // Shapes only a secure origin has: http://localhost is one, to Chromium and to the store.
        let summary = try store.setCookies(
            fromSetCookieHeaders: [
                "sec=1; Secure; Path=/",
                "sn=1; Secure; SameSite=None; Path=/",
                "__Host-h=1; Secure; Path=/",
                "__Secure-s=1; Secure; Path=/a",
                "pt=1; Secure; Partitioned; Path=/",
                "strictexp=1; Secure; SameSite=Strict; Max-Age=86400; Path=/a/b",
                "plain=1",
                "sid=server; HttpOnly; Path=/",
            ], for: pageURL)
        #expect(summary.stored == 8, "\(summary.rejected)")
        // A script made for another host does nothing here.
        try store.setCookies(
            fromSetCookieHeaders: ["foreign=1; Path=/"], for: URL(string: "http://www.example.test:\(server.port)/")!)
        let foreignTag = try store.documentStartScriptTag(
            for: URL(string: "http://www.example.test:\(server.port)/a/b/page")!)
        #expect(foreignTag.contains("foreign=1"))

        let script = try store.documentCookieScript(for: pageURL, messageHandler: "wkstoreCookies")
        #expect(script.skipped.isEmpty)
        let expected = try store.cookies(for: pageURL, api: .nonHTTP).map(\.pair).joined(separator: "; ")
        #expect(script.cookies.count == 7)

        // The page defines its bridge after the document-start script ran: it is looked up at each write.
        let body = #"""
            <pre id="before"></pre><pre id="nobridge"></pre><pre id="after"></pre>
            <script>
            document.getElementById("before").textContent = encodeURIComponent(document.cookie);
            var outcome = "no exception";
            try { document.cookie = "early=1; path=/"; } catch (e) { outcome = "exception: " + e; }
            document.getElementById("nobridge").textContent = encodeURIComponent(outcome);
            window.webkit = { messageHandlers: { wkstoreCookies: { postMessage: function (message) {
              var request = new XMLHttpRequest();
              request.open("POST", "/report", false);
              request.setRequestHeader("Content-Type", "application/json");
              request.send(JSON.stringify(message));
            } } } };
            document.cookie = "fromScript=1; path=/";
            document.cookie = "x=1; HttpOnly";
            document.cookie = "sid=evil; path=/";
            document.cookie = "hostile=\"\u003c/script\u003e\u00e9; path=/";
            document.getElementById("after").textContent = encodeURIComponent(document.cookie);
            </script>
            """#
        let html =
            "<!doctype html><html><head>" + foreignTag + script.scriptTag
            + #"<meta charset="utf-8"><title>reports</title></head><body>"# + body + "</body></html>"
        try html.write(to: dir.appendingPathComponent("page.html"), atomically: true, encoding: .utf8)

        let dom = try DocumentStartScriptFixture.chromiumDOM(
            pageURL.absoluteString, profile: dir.appendingPathComponent("profile"))
        let before = try #require(
            DocumentStartScriptFixture.preText("before", in: dom), "no <pre id=before> in:\n\(dom)")
        #expect(before == expected)
        #expect(!before.contains("foreign"))
        #expect(DocumentStartScriptFixture.preText("nobridge", in: dom) == "no exception")
        let after = try #require(DocumentStartScriptFixture.preText("after", in: dom))
        let afterPairs = Set(after.components(separatedBy: "; "))
        #expect(
            afterPairs.contains("fromScript=1") && afterPairs.contains("hostile=\"</script>é")
                && afterPairs.contains("early=1"))
        #expect(!afterPairs.contains("x=1"))

        // Only the page's writes while the bridge existed were reported; the script's own writes were not.
        let reports = try server.reports().map { try DocumentCookieReport(messageBody: $0) }
        #expect(
            reports.map(\.cookie) == [
                "fromScript=1; path=/", "x=1; HttpOnly", "sid=evil; path=/", "hostile=\"</script>é; path=/",
            ])
        #expect(reports.allSatisfy { $0.url == pageURL })
        for (line, report) in zip(server.reports(), reports) {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(try DocumentCookieReport(messageBody: object as Any) == report)
        }

        let summaries = try reports.map { try store.ingestDocumentCookieReport($0, frameURL: pageURL) }
        #expect(summaries.map(\.stored) == [1, 0, 0, 1])
        #expect(summaries[1].rejected.map(\.reason) == [.httpOnlyFromScript])
        #expect(summaries[2].rejected.map(\.reason) == [.httpOnlyFromScript])

        let next = try #require(try store.cookieHeader(for: URL(string: origin + "/a/b/next")!))
        let nextPairs = next.components(separatedBy: "; ")
        #expect(nextPairs.contains("fromScript=1"))
        #expect(nextPairs.contains("hostile=\"</script>é"))
        #expect(nextPairs.contains("sid=server") && !nextPairs.contains("sid=evil"))
        #expect(!nextPairs.contains("x=1") && !nextPairs.contains("early=1"))
        print(
            "document.cookie reports from Chromium: \(reports.count) received, \(summaries.map(\.stored).reduce(0, +)) stored, \(summaries.map(\.rejected.count).reduce(0, +)) refused (HttpOnly)"
        )
    }
}
