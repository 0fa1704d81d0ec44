import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

/// `wkstore import` and `wkstore export`: round trips through both formats, standard input and
/// output, and all-or-nothing imports.
@Suite(.ownThreads, .bothEngines) struct InterchangeTests {
    /// Cookies of several shapes: host-only HttpOnly Secure session, domain with Max-Age, a path,
    /// SameSite Strict, a partitioned one.
    func makeStore() throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.succeed([
            "cookies", "set", "--url", "https://www.example.com/account/",
            "sid=abc123; Path=/; Secure; HttpOnly; SameSite=Lax",
            "pref=dark; Domain=example.com; Path=/; Max-Age=86400",
            "cart=; Path=/shop; SameSite=Strict",
        ])
        try sandbox.succeed([
            "cookies", "set", "--url", "https://embed.example.org/",
            "chip=1; Secure; Path=/; SameSite=None; Partitioned",
        ])
        return sandbox
    }

    @Test("export, import into a new store, export again: the same bytes", arguments: ["netscape", "storage-state"])
    func roundTrip(_ format: String) throws {
        let sandbox = try makeStore()
        let first = sandbox.root.appendingPathComponent("first.\(format)")
        let exported = try sandbox.succeed(["export", "--format", format, "-o", first.path])
        let other = sandbox.root.appendingPathComponent("other-store")
        let imported = try sandbox.run(try sandbox.storeArguments(other) + ["import", first.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let second = try sandbox.run(try sandbox.storeArguments(other) + ["export", "--format", format])
        #expect(second.status == 0)
        #expect(second.stdoutData == (try Data(contentsOf: first)))

        let cookies = try sandbox.run(try sandbox.storeArguments(other) + ["cookies", "list", "--json"]).objects()
        if format == "netscape" {
            // cookies.txt cannot hold a partitioned cookie: left out, and said so.
            #expect(
                exported.stdout
                    == "wrote 3 cookies to \(first.path); left out 1 partitioned (the format has no partition; use storage-state)\n"
            )
            #expect(exported.stderr.contains("left out cookie 'chip' (embed.example.org/): partitioned"))
            #expect(imported.stdout == "read 3 cookies: imported 3\n")
            #expect(Set(cookies.compactMap { $0["name"] as? String }) == ["sid", "pref", "cart"])
        } else {
            #expect(exported.stdout == "wrote 4 cookies and 0 origins to \(first.path)\n")
            #expect(exported.stderr.isEmpty)
            #expect(imported.stdout == "read 4 cookies: imported 4; 0 origins\n")
            let chip = cookies.first { $0["name"] as? String == "chip" }
            #expect(chip?["partitionKey"] as? String == "https://example.org")
            #expect(cookies.first { $0["name"] as? String == "cart" }?["sameSite"] as? String == "Strict")
        }
        let sid = cookies.first { $0["name"] as? String == "sid" }
        #expect(sid?["httpOnly"] as? Bool == true && sid?["secure"] as? Bool == true && sid?["expires"] as? Int == -1)
        #expect(
            try sandbox.run(
                try sandbox.storeArguments(other) + ["cookies", "header", "https://www.example.com/shop/x"]
            ).stdout
                == "cart=; sid=abc123; pref=dark\n")
    }

    @Test func standardInputAndOutputAndSites() throws {
        let sandbox = try makeStore()
        let all = try sandbox.succeed(["export"])
        #expect(all.stdout.hasPrefix("# Netscape HTTP Cookie File\n"))
        #expect(all.stdout.contains("#HttpOnly_www.example.com\tFALSE\t/\tTRUE\t0\tsid\tabc123\n"))
        let site = try sandbox.succeed(["export", "--site", "example.org", "--format", "storage-state"]).stdout
        let state = try #require(try JSONSerialization.jsonObject(with: Data(site.utf8)) as? [String: Any])
        #expect((state["cookies"] as? [[String: Any]])?.map { $0["name"] as? String } == ["chip"])

        // Import from standard input goes through a temporary file, removed afterwards.
        let other = sandbox.root.appendingPathComponent("other-store")
        let piped = try sandbox.run(try sandbox.storeArguments(other) + ["import", "-"], stdin: all.stdoutData)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == "read 3 cookies: imported 3\n")
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: sandbox.root.appendingPathComponent("tmp").path)
        #expect(leftovers.isEmpty, "\(leftovers)")
        #expect(try sandbox.run(try sandbox.storeArguments(other) + ["export"]).stdout == all.stdout)

        let json = try sandbox.run(
            try sandbox.storeArguments(other) + ["import", "-", "--json"], stdin: all.stdoutData
        ).object()
        #expect(json["format"] as? String == "netscape")
        #expect(json["read"] as? Int == 3)
        #expect(json["imported"] as? Int == 3)
    }

    @Test func aSupercookieRefusesTheWholeFileNamingItsLineWithStrict() throws {
        let sandbox = try makeStore()
        let before = try sandbox.succeed(["export", "--format", "storage-state"]).stdout
        let file = sandbox.root.appendingPathComponent("bad.txt")
        try Data(
            """
            # Netscape HTTP Cookie File
            .example.com\tTRUE\t/\tFALSE\t0\tpref\toverwritten
            .co.uk\tTRUE\t/\tFALSE\t0\tsuper\t1
            www.example.net\tFALSE\t/\tFALSE\t0\tnew\t1

            """.utf8
        ).write(to: file)
        let result = try sandbox.runInStore(["import", file.path, "--strict"])
        #expect(result.status == 1)
        #expect(result.isOneLineMessage)
        #expect(
            result.stderr
                == "wkstore: line 3: cookie 'super' refused: its Domain is a public suffix (nothing was imported)\n")
        #expect(result.stdout.isEmpty)
        // Nothing of the file: pref keeps its value, new is not there.
        #expect(try sandbox.succeed(["export", "--format", "storage-state"]).stdout == before)

        let malformed = sandbox.root.appendingPathComponent("malformed.txt")
        try Data("example.com\tTRUE\t/\tFALSE\tsoon\ta\t1\n".utf8).write(to: malformed)
        let syntax = try sandbox.runInStore(["import", malformed.path, "--strict"])
        #expect(syntax.status == 1)
        #expect(syntax.stderr.hasPrefix("wkstore: line 1: "))

        let missing = try sandbox.runInStore(["import", "/nonexistent/cookies.txt"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/nonexistent/cookies.txt"))
        #expect(try sandbox.runInStore(["import", file.path, "--format", "json"]).status == 2)
    }

    @Test func byDefaultTheGoodLinesImportAndEachRefusedLineIsNamed() throws {
        let sandbox = try makeStore()
        let file = sandbox.root.appendingPathComponent("bad.txt")
        try Data(
            """
            # Netscape HTTP Cookie File
            .example.com\tTRUE\t/\tFALSE\t0\tpref\toverwritten
            .co.uk\tTRUE\t/\tFALSE\t0\tsuper\t1
            www.example.net\tFALSE\t/\tFALSE\t0\tnew\t1

            """.utf8
        ).write(to: file)
        let result = try sandbox.runInStore(["import", file.path])
        #expect(result.status == 1, "a refused line fails the import for a script")
        #expect(result.stdout == "read 3 cookies: imported 2, refused 1\n")
        #expect(result.stderr == "wkstore: line 3: cookie 'super' refused: its Domain is a public suffix\n")
        #expect(try sandbox.succeed(["cookies", "header", "https://www.example.net/"]).stdout == "new=1\n")
        #expect(try sandbox.succeed(["cookies", "header", "https://example.com/"]).stdout.contains("pref=overwritten"))

        let json = try sandbox.runInStore(["import", file.path, "--json"])
        #expect(json.status == 1)
        let object = try json.object()
        #expect(object["refused"] as? Int == 1)
        let refusal = try #require((object["refusals"] as? [[String: Any]])?.first)
        #expect(refusal["line"] as? Int == 3)
        #expect((refusal["reason"] as? String)?.contains("public suffix") == true)

        // A browser extension's array is detected, and imports the same way.
        let array = sandbox.root.appendingPathComponent("cookies.json")
        try Data(
            #"""
            [{"domain": ".example.org", "hostOnly": false, "path": "/", "secure": false, "httpOnly": false,
              "session": true, "sameSite": "lax", "storeId": "0", "name": "ext", "value": "1"}]
            """#.utf8
        ).write(to: array)
        #expect(try sandbox.succeed(["import", array.path]).stdout == "read 1 cookie: imported 1\n")
        #expect(try sandbox.succeed(["cookies", "header", "https://www.example.org/"]).stdout == "ext=1\n")
    }

    @Test func evictionsNameTheSettingsToRaise() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["config", "set", "cookies.max-total", "2"])
        let file = sandbox.root.appendingPathComponent("three.txt")
        try Data((1...3).map { "site\($0).example.com\tFALSE\t/\tFALSE\t0\tc\($0)\tv\n" }.joined().utf8).write(to: file)
        let result = try sandbox.succeed(["import", file.path])
        #expect(result.stdout.hasPrefix("read 3 cookies: imported 3, evicted 1 to stay within the store's limits"))
        #expect(result.stdout.contains("cookies.max-total"))
        #expect(result.stdout.contains("cookies.max-per-site"))
        #expect(try sandbox.succeed(["cookies", "list"]).lines.count == 2)
    }

    @Test func aStorageStateCarriesLocalStorageAndIndexedDB() throws {
        let sandbox = try makeStore()
        try sandbox.succeed(["storage", "set", "--origin", "https://app.example.com", "theme", "dark"])
        try sandbox.succeed(["storage", "set", "--origin", "https://app.example.com", "draft", "line one\nline two"])
        try sandbox.succeed(["storage", "set", "--origin", "http://localhost:8080", "k", "v"])
        do {
            let store = try sandbox.openStore()
            let origin = try #require(SecurityOrigin(string: "https://app.example.com"))
            let db = try store.indexedDB.open(origin: origin, name: "app", version: 3) { tx, _ in
                _ = try tx.createObjectStore("notes", keyPath: "id", autoIncrement: true)
            }
            try db.transaction("notes", mode: .readwrite) { tx in
                _ = try tx.objectStore("notes").add([
                    "title": "Groceries", "due": .date(Date(timeIntervalSince1970: 1_767_225_600)),
                ])
                _ = try tx.objectStore("notes").add(["title": "Taxes", "tags": ["work"]])
            }
        }

        let first = sandbox.root.appendingPathComponent("state.json")
        let exported = try sandbox.succeed(["export", "--format", "storage-state", "--indexeddb", "-o", first.path])
        #expect(
            exported.stdout
                == "wrote 4 cookies and 2 origins (3 localStorage items, 1 IndexedDB database with 2 records) to \(first.path)\n"
        )
        let state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: first)) as? [String: Any])
        let origins = try #require(state["origins"] as? [[String: Any]])
        #expect(origins.map { $0["origin"] as? String } == ["http://localhost:8080", "https://app.example.com"])

        let other = sandbox.root.appendingPathComponent("other-store")
        let imported = try sandbox.run(try sandbox.storeArguments(other) + ["import", first.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(
            imported.stdout
                == "read 4 cookies: imported 4; 2 origins: 3 localStorage items, 1 IndexedDB database with 2 records\n")
        #expect(
            try sandbox.run(
                try sandbox.storeArguments(other) + ["storage", "get", "--origin", "https://app.example.com", "draft"]
            )
            .stdout
                == "line one\nline two\n")
        let dump = ["idb", "dump", "--origin", "https://app.example.com", "--db", "app"]
        let originalDump = try sandbox.succeed(dump).stdout
        #expect(originalDump.split(separator: "\n").count == 2)
        #expect(try sandbox.run(try sandbox.storeArguments(other) + dump).stdout == originalDump)
        let again = try sandbox.run(
            try sandbox.storeArguments(other) + ["export", "--format", "storage-state", "--indexeddb"])
        #expect(again.stdoutData == (try Data(contentsOf: first)))

        // Without --indexeddb, and for one site: the origins of that site only, localStorage alone.
        let site = try sandbox.succeed(["export", "--format", "storage-state", "--site", "localhost"]).stdout
        let siteState = try #require(try JSONSerialization.jsonObject(with: Data(site.utf8)) as? [String: Any])
        let siteOrigins = try #require(siteState["origins"] as? [[String: Any]])
        #expect(siteOrigins.map { $0["origin"] as? String } == ["http://localhost:8080"])
        #expect(siteOrigins.first?["indexedDB"] == nil)
        #expect((siteState["cookies"] as? [Any])?.isEmpty == true)
    }

    @Test func aBadOriginEntryRefusesTheWholeStorageState() throws {
        let sandbox = try makeStore()
        try sandbox.succeed(["storage", "set", "--origin", "https://app.example.com", "theme", "dark"])
        let before = try sandbox.succeed(["export", "--format", "storage-state", "--indexeddb"]).stdout
        let file = sandbox.root.appendingPathComponent("bad.json")
        try Data(
            """
            {
              "cookies": [
                { "name": "fresh", "value": "1", "domain": "new.example.net", "path": "/", "expires": -1 }
              ],
              "origins": [
                { "origin": "https://app.example.com",
                  "localStorage": [
                    { "name": "theme", "value": "light" },
                    { "name": "count", "value": 3 }
                  ] }
              ]
            }

            """.utf8
        ).write(to: file)
        let result = try sandbox.runInStore(["import", file.path])
        #expect(result.status == 1)
        #expect(result.isOneLineMessage)
        #expect(
            result.stderr.hasPrefix("wkstore: line 9, origins[0].localStorage[1].value: must be a string"),
            "\(result.stderr)")
        #expect(result.stderr.hasSuffix("(nothing was imported)\n"))
        #expect(try sandbox.succeed(["export", "--format", "storage-state", "--indexeddb"]).stdout == before)

        // sessionStorage in a file is left out, and the summary says why.
        try Data(
            """
            {"cookies": [], "origins": [{"origin": "https://app.example.com", "localStorage": [],
              "sessionStorage": [{"name": "step", "value": "2"}]}]}
            """.utf8
        ).write(to: file)
        let session = try sandbox.succeed(["import", file.path])
        #expect(
            session.stdout.contains("left out 1 sessionStorage item (sessionStorage lives in the memory"),
            "\(session.stdout)")
    }

    @Test func sessionStorageAndJSONWithoutAFileAreUsageErrors() throws {
        let sandbox = try makeStore()
        for arguments in [["export", "--session-storage", "x"], ["import", "-", "--session-storage", "x"]] {
            let result = try sandbox.runInStore(arguments)
            #expect(result.status == 2)
            #expect(result.isOneLineMessage)
            #expect(result.stderr.contains("sessionStorage lives in the memory"))
        }
        let json = try sandbox.runInStore(["export", "--json"])
        #expect(json.status == 2)
        #expect(json.stderr.contains("-o FILE"))
        let indexedDB = try sandbox.runInStore(["export", "--indexeddb", "--format", "netscape"])
        #expect(indexedDB.status == 2)
        #expect(indexedDB.stderr.contains("storage-state"))
    }
}
