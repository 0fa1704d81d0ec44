import Foundation
import Testing
import WebsiteDataTestSupport

/// `wkstore cookies script` and `wkstore cookies ingest-report`: cookies to page script and back.
@Suite(.ownThreads, .bothEngines) struct CookieScriptTests {
    static let page = "https://shop.example.com/cart/view"

    /// A store with the cookies of Docs/scripts.md's example: an HttpOnly one, a domain one, a
    /// Strict one on a path, one whose value would end a script element, one with a TAB.
    func makeStore() throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.succeed([
            "cookies", "set", "--url", Self.page,
            "sid=8f14e45f; HttpOnly; Secure; Path=/",
            "theme=dark; Domain=example.com; Path=/; Max-Age=2592000; SameSite=Lax",
            "cart=3 items; Path=/cart; Secure; SameSite=Strict",
            "note=\"</script><!--é\"; Path=/",
            "tracking=a\tb; Path=/",
        ])
        return sandbox
    }

    /// Runs a script in node with a stand-in `document` and `location`, and returns what it wrote to `document.cookie`.
    func writes(of script: String, hostname: String, in sandbox: Sandbox) throws -> [String] {
        let runner = sandbox.root.appendingPathComponent("run-\(UUID().uuidString.prefix(8)).js")
        let harness = """
            const writes = [];
            globalThis.window = globalThis;
            globalThis.location = { hostname: \(try jsonString(hostname)), href: "https://" + \(try jsonString(hostname)) + "/" };
            globalThis.document = { set cookie(value) { writes.push(value); }, get cookie() { return ""; } };
            \(script)
            process.stdout.write(JSON.stringify(writes));
            """
        try harness.write(to: runner, atomically: true, encoding: .utf8)
        let (status, output) = try runTool(["node", runner.path], in: sandbox.root)
        #expect(status == 0, "node failed: \(output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String])
    }

    func jsonString(_ text: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed]), as: UTF8.self)
    }

    @Test func theScriptPassesNodeCheckAndWritesWhatPageScriptMaySee() throws {
        let sandbox = try makeStore()
        let result = try sandbox.succeed(["cookies", "script", Self.page])
        // The TAB cookie cannot be written by script: named on standard error, one line.
        #expect(
            result.stderr
                == "wkstore: cookie 'tracking' (shop.example.com/) not written by script: unwritable-character\n")
        let file = sandbox.root.appendingPathComponent("init.js")
        try result.stdoutData.write(to: file)
        let check = try runTool(["node", "--check", file.path], in: sandbox.root)
        #expect(check.status == 0, "node --check: \(check.output)")
        #expect(!result.stdout.contains("8f14e45f"), "an HttpOnly cookie reached page script")

        let written = try writes(of: result.stdout, hostname: "shop.example.com", in: sandbox)
        #expect(written.count == 3)
        #expect(written[0] == "cart=3 items; path=/cart; secure; samesite=strict")
        #expect(written[1].hasPrefix("theme=dark; path=/; domain=example.com; expires="))
        #expect(written[1].hasSuffix(" GMT; samesite=lax"))
        #expect(written[2] == "note=\"</script><!--é\"; path=/")
        // On another host (a navigation the script was not made for) it writes nothing.
        #expect(try writes(of: result.stdout, hostname: "evil.example.net", in: sandbox).isEmpty)
    }

    @Test func inlineTagsAndMessageHandlers() throws {
        let sandbox = try makeStore()
        let tag = try sandbox.succeed(["cookies", "script", Self.page, "--inline"]).stdout
        #expect(tag.hasPrefix("<script>"))
        #expect(tag.hasSuffix("</script>\n"))
        #expect(tag.filter { $0 == "<" }.count == 2, "a '<' inside the element could end it early")

        let reporting = try sandbox.succeed(["cookies", "script", Self.page, "--message-handler", "wkstoreCookies"])
        #expect(reporting.stdout.contains("\"wkstoreCookies\""))
        let file = sandbox.root.appendingPathComponent("reporting.js")
        try reporting.stdoutData.write(to: file)
        let check = try runTool(["node", "--check", file.path], in: sandbox.root)
        #expect(check.status == 0, "node --check: \(check.output)")

        let bad = try sandbox.runInStore(["cookies", "script", Self.page, "--message-handler", "1 bad"])
        #expect(bad.status == 2)
        #expect(bad.isOneLineMessage)
        #expect(bad.stderr.contains("invalid message handler name"))
    }

    @Test func jsonListsWrittenAndSkippedCookiesAndFramesSeeLess() throws {
        let sandbox = try makeStore()
        let json = try sandbox.succeed(["cookies", "script", Self.page, "--json"]).object()
        #expect((json["cookies"] as? [[String: Any]])?.map { $0["name"] as? String } == ["cart", "theme", "note"])
        let skipped = try #require(json["skipped"] as? [[String: Any]])
        #expect(skipped.map { $0["name"] as? String } == ["tracking"])
        #expect(skipped.map { $0["reason"] as? String } == ["unwritable-character"])
        #expect(json["injectionTime"] as? String == "atDocumentStart")
        #expect(json["forMainFrameOnly"] as? Bool == true)
        #expect((json["scriptTag"] as? String)?.hasPrefix("<script>") == true)

        // In a frame of another site's page, SameSite cookies (and Lax by default) stay out.
        let frame = try sandbox.succeed([
            "cookies", "script", Self.page, "--top-level-site", "https://news.example.org/", "--json",
        ]).object()
        #expect((frame["cookies"] as? [Any])?.isEmpty == true)
        #expect(frame["forMainFrameOnly"] as? Bool == false)
        // A frame of a same-site page sees them.
        let sameSite = try sandbox.succeed([
            "cookies", "script", Self.page, "--top-level-site", "https://www.example.com/", "--json",
        ]).object()
        #expect((sameSite["cookies"] as? [[String: Any]])?.count == 3)
    }

    @Test func ingestReportStoresScriptWritesAndNamesBadLines() throws {
        let sandbox = try Sandbox()
        let reports = """
            {"cookie": "fromScript=1; path=/", "url": "https://www.example.com/page"}
            this is not JSON
            {"cookie": "x=1; HttpOnly", "url": "https://www.example.com/"}
            {"cookie": "forged=1", "url": "https://bank.example.org/", "frameURL": "https://www.example.com/"}

            {"cookie": "second=2", "url": "https://www.example.com/a/b"}
            """
        let file = sandbox.root.appendingPathComponent("reports.jsonl")
        try Data(reports.utf8).write(to: file)
        let result = try sandbox.runInStore(["cookies", "ingest-report", file.path])
        #expect(result.status == 1)
        #expect(result.stdout == "read 5 reports: stored 2 cookies, refused 2, malformed 1\n")
        let messages = result.stderr.split(separator: "\n").map(String.init)
        #expect(messages.count == 3, "\(result.stderr)")
        #expect(messages.contains { $0.hasPrefix("wkstore: line 2: malformed document.cookie report") })
        #expect(messages.contains { $0.hasPrefix("wkstore: line 3: cookie 'x' refused") })
        #expect(messages.contains { $0.hasPrefix("wkstore: line 4: document.cookie report refused") })

        let cookies = try sandbox.succeed(["cookies", "list", "--json"]).objects()
        #expect(Set(cookies.compactMap { $0["name"] as? String }) == ["fromScript", "second"])
        // A script write has no HttpOnly, and a missing path defaults from the document's URL.
        #expect(cookies.first { $0["name"] as? String == "second" }?["path"] as? String == "/a")

        // Standard input, line by line; every line good: exit 0.
        let piped = try sandbox.succeed(
            ["cookies", "ingest-report", "--json"],
            stdin: Data("{\"cookie\":\"piped=3\",\"url\":\"https://www.example.com/\"}\n".utf8))
        let json = try piped.object()
        #expect(json["reports"] as? Int == 1)
        #expect(json["stored"] as? Int == 1)
        #expect(
            try sandbox.succeed(["cookies", "header", "https://www.example.com/"]).stdout == "fromScript=1; piped=3\n")
    }
}
