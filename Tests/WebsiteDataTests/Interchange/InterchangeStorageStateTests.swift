import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Playwright `storageState` JSON import and export against real stores in temporary directories.
@Suite("InterchangeStorageState", .ownThreads)
struct InterchangeStorageStateTests {
    @Test func importReadsPlaywrightsFields() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        let expiry = (Date().timeIntervalSince1970 + 86_400).rounded(.down) + 0.25
        // `origins` first, with content, and members Playwright adds that we do not use.
        let file = try dir.write(
            "state.json",
            """
            {
              "origins": [
                {
                  "origin": "https://www.example.com",
                  "localStorage": [{"name": "k", "value": "v \\" } ] {"}, {"name": "n", "value": "1"}]
                }
              ],
              "cookies": [
                {
                  "name": "sid",
                  "value": "abc",
                  "domain": "www.example.com",
                  "path": "/",
                  "expires": -1,
                  "httpOnly": true,
                  "secure": true,
                  "sameSite": "Lax"
                },
                {
                  "name": "pref",
                  "value": "dark",
                  "domain": ".example.com",
                  "path": "/app",
                  "expires": \(expiry),
                  "httpOnly": false,
                  "secure": true,
                  "sameSite": "None",
                  "_crHasCrossSiteAncestor": false,
                  "size": 8,
                  "nested": {"a": [1, 2.5e3, {"b": null}, true, false, "x"]}
                },
                {"name": "strict", "value": "1", "domain": "www.example.com", "path": "/", "expires": 0, "httpOnly": false, "secure": false, "sameSite": "Strict"},
                {"name": "plain", "value": "2", "domain": "www.example.com", "path": "/", "expires": -1, "httpOnly": false, "secure": false, "sameSite": "Lax", "sameSiteSpecified": false},
                {"name": "bare", "value": "3", "domain": "www.example.com"},
                {"name": "chip", "value": "4", "domain": "embed.example.org", "path": "/", "expires": -1, "httpOnly": false, "secure": true, "sameSite": "None", "partitionKey": "https://example.net"},
                {"name": "cli", "value": "5", "domain": "www.example.com", "path": null, "expires": null, "httpOnly": null, "secure": false, "sameSite": "Lax", "sameSiteSpecified": true, "hostOnly": true, "partitionKey": null, "created": "2025-01-01T00:00:00Z"},
                {"name": "text", "value": "caf\\u00e9 \\ud83c\\udf6a \\"q\\" \\\\ \\/", "domain": "www.example.com", "path": "/", "expires": -1, "httpOnly": false, "secure": false, "sameSite": "Lax"}
              ]
            }
            """)
        let summary = try CookieInterchange.importCookies(from: file, into: store.httpCookieStore)
        #expect(summary.read == 8)
        #expect(summary.imported == 8)

        let byName = Dictionary(uniqueKeysWithValues: try store.httpCookieStore.allCookies().map { ($0.name, $0) })
        func check(_ name: String, _ expected: InterchangeFields) {
            #expect(byName[name].map(InterchangeFields.storageState) == expected, "\(name)")
        }
        check(
            "sid",
            .init(
                name: "sid", value: "abc", domain: "www.example.com", path: "/", hostOnly: true, secure: true,
                httpOnly: true, sameSite: .lax, partitionKey: "", expires: nil))
        check(
            "pref",
            .init(
                name: "pref", value: "dark", domain: "example.com", path: "/app", hostOnly: false, secure: true,
                httpOnly: false, sameSite: CookieSameSite.none, partitionKey: "", expires: expiry))
        check(
            "strict",
            .init(
                name: "strict", value: "1", domain: "www.example.com", path: "/", hostOnly: true, secure: false,
                httpOnly: false, sameSite: .strict, partitionKey: "", expires: nil))
        check(
            "plain",
            .init(
                name: "plain", value: "2", domain: "www.example.com", path: "/", hostOnly: true, secure: false,
                httpOnly: false, sameSite: .unspecified, partitionKey: "", expires: nil))
        check(
            "bare",
            .init(
                name: "bare", value: "3", domain: "www.example.com", path: "/", hostOnly: true, secure: false,
                httpOnly: false, sameSite: .unspecified, partitionKey: "", expires: nil))
        check(
            "chip",
            .init(
                name: "chip", value: "4", domain: "embed.example.org", path: "/", hostOnly: true, secure: true,
                httpOnly: false, sameSite: CookieSameSite.none, partitionKey: "https://example.net", expires: nil))
        // What `wkstore cookies list --json` writes: nulls for missing members, extra members ignored.
        check(
            "cli",
            .init(
                name: "cli", value: "5", domain: "www.example.com", path: "/", hostOnly: true, secure: false,
                httpOnly: false, sameSite: .lax, partitionKey: "", expires: nil))
        check(
            "text",
            .init(
                name: "text", value: "caf\u{e9} \u{1F36A} \"q\" \\ /", domain: "www.example.com", path: "/",
                hostOnly: true, secure: false, httpOnly: false, sameSite: .lax, partitionKey: "", expires: nil))
    }

    @Test func roundTripLosesNothingTheFormatHolds() throws {
        let dir = try InterchangeTemporaryDirectory()
        let source = try dir.store("source")
        let cookies = source.httpCookieStore
        try cookies.setCookies(
            fromSetCookieHeaders: [
                "sid=abc123; Path=/; HttpOnly; Secure; SameSite=Lax",
                "pref=dark; Domain=example.com; Path=/; Max-Age=86400",
                "strict=1; SameSite=Strict; Max-Age=1000",
                "cart=; Path=/shop",
                "__Host-token=t0k3n; Path=/; Secure",
                "none=1; SameSite=None; Secure",
                "unicode=caf\u{e9}\u{1F36A}\"\\",
            ], for: URL(string: "https://www.example.com/shop/cart")!)
        try cookies.setCookies(fromSetCookieHeaders: ["nameless"], for: URL(string: "http://127.0.0.1:8080/")!)
        try cookies.setCookies(
            fromSetCookieHeaders: ["chip=1; Secure; Partitioned; SameSite=None; Path=/"],
            for: URL(string: "https://embed.example.org/")!,
            context: CookieRequestContext(topLevelSite: URL(string: "https://news.example.net/")!, isNavigation: false))
        try cookies.setCookie(Cookie(name: "tab", value: "a\tb", domain: "tabs.example.org"))
        let all = try cookies.allCookies()
        #expect(all.count == 10)

        let first = dir.file("first.json")
        let exported = try CookieInterchange.exportCookies(from: cookies, format: .storageState, to: first)
        #expect(exported.written == 10)
        #expect(exported.skipped.isEmpty)

        // The file is what Playwright reads: check it with an independent JSON parser.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: first)) as? [String: Any])
        #expect((json["origins"] as? [Any])?.isEmpty == true)
        let objects = try #require(json["cookies"] as? [[String: Any]])
        #expect(objects.count == 10)
        for object in objects {
            #expect(["Strict", "Lax", "None"].contains(object["sameSite"] as? String ?? ""))
            #expect(object["expires"] is NSNumber)
        }
        let cart = try #require(objects.first { $0["name"] as? String == "cart" })
        #expect(cart["sameSite"] as? String == "Lax")
        #expect(cart["sameSiteSpecified"] as? Bool == false)
        #expect(cart["expires"] as? Double == -1)
        #expect(cart["domain"] as? String == "www.example.com")
        let pref = try #require(objects.first { $0["name"] as? String == "pref" })
        #expect(pref["domain"] as? String == ".example.com")
        let chip = try #require(objects.first { $0["name"] as? String == "chip" })
        #expect(chip["partitionKey"] as? String == "https://example.net")
        let strict = try #require(objects.first { $0["name"] as? String == "strict" })
        #expect(strict["sameSiteSpecified"] == nil)
        // Foundation's JSONSerialization may read a decimal one unit in the last place off; our
        // own reader's exactness is checked by the round trip below.
        let strictExpires = try #require(all.first { $0.name == "strict" }?.expires?.timeIntervalSince1970)
        #expect(abs((strict["expires"] as? Double ?? 0) - strictExpires) < 1e-6)

        let target = try dir.store("target")
        let summary = try CookieInterchange.importCookies(from: first, into: target.httpCookieStore)
        #expect(summary.imported == 10)
        #expect(
            Set(try target.httpCookieStore.allCookies().map(InterchangeFields.storageState))
                == Set(all.map(InterchangeFields.storageState)))

        let second = dir.file("second.json")
        try CookieInterchange.exportCookies(from: target.httpCookieStore, format: .storageState, to: second)
        #expect(try Data(contentsOf: first) == Data(contentsOf: second))
    }

    @Test func creationTimesAreNotCarried() throws {
        let dir = try InterchangeTemporaryDirectory()
        let source = try dir.store("source")
        try source.httpCookieStore.setCookies(
            fromSetCookieHeaders: ["old=1"], for: URL(string: "https://www.example.com/")!)
        let original = try #require(try source.httpCookieStore.allCookies().first)
        let file = dir.file("state.json")
        try CookieInterchange.exportCookies(from: source.httpCookieStore, format: .storageState, to: file)
        #expect(try !String(contentsOf: file, encoding: .utf8).contains("creat"))

        let target = try dir.store("target")
        let before = Date()
        try CookieInterchange.importCookies(from: file, into: target.httpCookieStore)
        let copy = try #require(try target.httpCookieStore.allCookies().first)
        #expect(copy.created >= before)
        #expect(copy.created > original.created)
        #expect(copy.lastAccess >= before)
    }

    @Test func emptyStoreExportsAnEmptyState() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        let file = dir.file("empty.json")
        let summary = try CookieInterchange.exportCookies(from: store.httpCookieStore, format: .storageState, to: file)
        #expect(summary.written == 0)
        #expect(try String(contentsOf: file, encoding: .utf8) == "{\n  \"cookies\": [],\n  \"origins\": []\n}\n")
        #expect(try CookieInterchange.importCookies(from: file, into: store.httpCookieStore).read == 0)
    }

    /// A storage-state file whose text from line 4 on is `tail`; line 3 holds a valid cookie
    /// that would overwrite one in the store.
    struct BadState: CustomTestStringConvertible, Sendable {
        var label: String
        var tail: String
        var line: Int
        var reason: String
        var testDescription: String { label }
    }

    static let object4 = "    {\n      \"name\": \"bad\",\n"
    static let badStates: [BadState] = [
        BadState(
            label: "supercookie",
            tail: object4 + "      \"value\": \"v\",\n      \"domain\": \".com\"\n    }\n  ],\n  \"origins\": []\n}\n",
            line: 4, reason: "public suffix"),
        BadState(
            label: "__Host- without Secure",
            tail:
                "    {\n      \"name\": \"__Host-x\",\n      \"value\": \"v\",\n      \"domain\": \"www.example.com\"\n    }\n  ]\n}\n",
            line: 4, reason: "prefix"),
        BadState(
            label: "no name",
            tail: "    {\n      \"value\": \"v\",\n      \"domain\": \"www.example.com\"\n    }\n  ]\n}\n",
            line: 4, reason: "no \"name\""),
        BadState(
            label: "missing colon",
            tail: object4 + "      \"value\" \"v\",\n      \"domain\": \"www.example.com\"\n    }\n  ]\n}\n",
            line: 6, reason: "expected ':'"),
        BadState(
            label: "missing comma",
            tail: object4 + "      \"value\": \"v\"\n      \"domain\": \"www.example.com\"\n    }\n  ]\n}\n",
            line: 7, reason: "expected ',' or '}'"),
        BadState(
            label: "unknown sameSite",
            tail: object4
                + "      \"value\": \"v\",\n      \"domain\": \"www.example.com\",\n      \"sameSite\": \"Sometimes\"\n    }\n  ]\n}\n",
            line: 4, reason: "sameSite"),
        BadState(
            label: "negative expires",
            tail: object4
                + "      \"value\": \"v\",\n      \"domain\": \"www.example.com\",\n      \"expires\": -5\n    }\n  ]\n}\n",
            line: 4, reason: "expires"),
        BadState(
            label: "string expires",
            tail: object4 + "      \"value\": \"v\",\n      \"expires\": \"soon\"\n    }\n  ]\n}\n",
            line: 7, reason: "must be a number"),
        BadState(
            label: "leading zero", tail: object4 + "      \"value\": \"v\",\n      \"expires\": 01\n    }\n  ]\n}\n",
            line: 7, reason: "not a JSON number"),
        BadState(
            label: "string secure",
            tail: object4 + "      \"value\": \"v\",\n      \"secure\": \"yes\"\n    }\n  ]\n}\n",
            line: 7, reason: "true or false"),
        BadState(
            label: "bad escape", tail: object4 + "      \"value\": \"\\x\"\n    }\n  ]\n}\n",
            line: 6, reason: "escape"),
        BadState(
            label: "raw newline in a string", tail: object4 + "      \"value\": \"a\nb\"\n    }\n  ]\n}\n",
            line: 6, reason: "control character"),
        BadState(
            label: "not an object", tail: "    42\n  ]\n}\n", line: 4, reason: "cookies[1] must be a cookie object"),
        BadState(
            label: "bad origins after the cookies",
            tail:
                "    {\"name\": \"fine\", \"value\": \"1\", \"domain\": \"www.example.com\"}\n  ],\n  \"origins\": [\n    {\"origin\": \"x\",}\n  ]\n}\n",
            line: 7, reason: "expected a member name"),
        BadState(
            label: "data after the document",
            tail: "    {\"name\": \"fine\", \"value\": \"1\", \"domain\": \"www.example.com\"}\n  ]\n}\n\n{}\n",
            line: 8, reason: "after the end"),
        BadState(
            label: "truncated", tail: "    {\"name\": \"fine\", \"value\": \"1\", \"domain\": \"www.example.com\"}\n",
            line: 5, reason: "ends before"),
        BadState(
            label: "two cookies members",
            tail:
                "    {\"name\": \"fine\", \"value\": \"1\", \"domain\": \"www.example.com\"}\n  ],\n  \"cookies\": []\n}\n",
            line: 6, reason: "two \"cookies\""),
    ]

    /// Strict: each bad document refuses the whole file, naming the line; the store is unchanged.
    @Test(arguments: badStates)
    func badFileIsRefusedWholeAndStoreUnchanged(_ bad: BadState) throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        try store.httpCookieStore.setCookies(
            fromSetCookieHeaders: ["victim=original", "other=1; Domain=example.com"],
            for: URL(string: "https://www.example.com/")!)
        let before = try InterchangeSnapshot.of(store)
        let text =
            "{\n  \"cookies\": [\n"
            + "    {\"name\": \"victim\", \"value\": \"replaced\", \"domain\": \"www.example.com\", \"path\": \"/\", \"expires\": -1, \"httpOnly\": false, \"secure\": false, \"sameSite\": \"Lax\"},\n"
            + bad.tail
        let file = try dir.write("state.json", text)
        let error = try #require(throws: CookieImportError.self) {
            try CookieInterchange.importCookies(from: file, into: store.httpCookieStore, options: .strict)
        }
        #expect(error.line == bad.line, "\(error)")
        #expect(error.reason.contains(bad.reason), "\(error.reason)")
        #expect(try InterchangeSnapshot.of(store) == before)
        #expect(try InterchangeSnapshot.of(dir.store()) == before)
    }

    @Test func documentsThatAreNotStorageStates() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        let cases: [(String, Int, String)] = [
            ("[1, 2]", 1, "JSON object"),
            ("\n\n", 3, "empty"),
            ("{\"cookies\": {}}", 1, "must be an array"),
            ("{\"cookies\": [], \"origins\": [}", 1, "expected a JSON value"),
        ]
        for (text, line, reason) in cases {
            let file = try dir.write("state.json", text)
            let error = try #require(throws: CookieImportError.self) {
                try CookieInterchange.importCookies(from: file, format: .storageState, into: store.httpCookieStore)
            }
            #expect(error.line == line, "\(text)")
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
        // A state with no cookies member, or origins only, imports nothing and is no error.
        let file = try dir.write(
            "state.json", "{\"origins\": [{\"origin\": \"https://a.example\", \"localStorage\": []}]}")
        #expect(try CookieInterchange.importCookies(from: file, into: store.httpCookieStore) == CookieImportSummary())
    }
}
