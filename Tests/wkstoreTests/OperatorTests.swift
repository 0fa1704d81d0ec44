import Foundation
import Testing
import WebsiteDataTestSupport

/// What an operator needs to script the store: removals that say when they matched nothing,
/// `--site` given a host, single cached URLs and origins removed, long values kept readable.
@Suite(.ownThreads, .bothEngines) struct OperatorTests {
    @Test func mustMatchMakesARemovalThatMatchedNothingExitOne() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://www.example.com/", "sid=1"])
        try sandbox.succeed(["storage", "set", "--origin", "https://app.example.org", "k", "v"])
        let nothing: [([String], String)] = [
            (["clear", "--types", "cookies", "--site", "example.net"], "wkstore: nothing matched (--must-match)\n"),
            (
                ["cookies", "delete", "--name", "nope", "--domain", "www.example.com"],
                "wkstore: no cookie matched (--must-match)\n"
            ),
            (
                ["storage", "remove", "--origin", "https://app.example.org", "nope"],
                "wkstore: no key nope in https://app.example.org (--must-match)\n"
            ),
            (
                ["storage", "clear", "--origin", "https://other.example.org"],
                "wkstore: no keys in https://other.example.org (--must-match)\n"
            ),
        ]
        for (command, message) in nothing {
            #expect(try sandbox.runInStore(command).status == 0, "\(command) without --must-match")
            let strict = try sandbox.runInStore(command + ["--must-match"])
            #expect(strict.status == 1, "\(command)")
            #expect(strict.stderr == message, "\(command)")
        }
        // When something matched, --must-match changes nothing.
        let cleared = try sandbox.runInStore(["clear", "--types", "cookies", "--site", "example.com", "--must-match"])
        #expect(cleared.status == 0)
        #expect(cleared.stdout == "removed cookies for example.com\n")
        let storage = try sandbox.runInStore([
            "storage", "clear", "--origin", "https://app.example.org", "--must-match",
        ])
        #expect(storage.status == 0)
        #expect(storage.stdout == "removed 1 key from https://app.example.org\n")
        #expect(try sandbox.succeed(["storage", "list"]).stdout.isEmpty)
    }

    @Test func siteGivenAHostReadsItsSiteAndRefusesToRemove() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://www.example.com/", "sid=1"])
        try sandbox.succeed(["cookies", "set", "--url", "https://shop.example.com/", "cart=2"])
        let listed = try sandbox.runInStore(["cookies", "list", "--site", "www.example.com"])
        #expect(listed.status == 0)
        #expect(listed.lines.count == 2, "the site's cookies, of every host: \(listed.stdout)")
        #expect(
            listed.stderr == "wkstore: --site www.example.com is a host: reading the data of its site, example.com\n")
        let exported = try sandbox.runInStore(["export", "--site", "WWW.example.com"])
        #expect(exported.stdout.contains("sid") && exported.stdout.contains("cart"))
        #expect(exported.stderr.contains("its site, example.com"))

        let refused = try sandbox.runInStore(["clear", "--types", "cookies", "--site", "www.example.com"])
        #expect(refused.status == 2)
        #expect(refused.isOneLineMessage)
        #expect(
            refused.stderr.contains("--site example.com removes the data of example.com and of every host under it"))
        #expect(try sandbox.succeed(["cookies", "list"]).lines.count == 2, "a refused clear removed something")
        // A display name reads and removes as before, without a note.
        let site = try sandbox.runInStore(["cookies", "list", "--site", "example.com"])
        #expect(site.stderr.isEmpty && site.lines.count == 2)
    }

    @Test func cacheRemoveTakesOneURLsResponsesAndNothingElse() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let url = server.base() + "/cacheable"
        let other = server.base() + "/cacheable?other"
        try sandbox.succeed(["fetch", url, "-s"])
        try sandbox.succeed(["fetch", other, "-s"])
        #expect(try sandbox.succeed(["cache", "list", "--json"]).objects().count == 2)

        let removed = try sandbox.succeed(["cache", "remove", url + "#fragment"])
        #expect(removed.stdout == "removed 1 cached response for \(url)#fragment\n")
        #expect(try sandbox.runInStore(["cache", "show", url]).status == 1)
        #expect(try sandbox.runInStore(["cache", "show", other]).status == 0)
        // The next fetch goes to the server again; the other URL is still served from the cache.
        try sandbox.succeed(["fetch", url, "-s"])
        try sandbox.succeed(["fetch", other, "-s"])
        #expect(try server.requests(path: "/cacheable").count == 3)

        let again = try sandbox.runInStore(["cache", "remove", server.base() + "/never", "--must-match"])
        #expect(again.status == 1)
        #expect(again.stdout == "nothing cached for \(server.base())/never\n")
        #expect(again.isOneLineMessage)
        let json = try sandbox.succeed(["cache", "remove", other, "--json"]).object()
        #expect(json["removed"] as? Int == 1)
    }

    @Test func cookiesListCutsLongValuesAndJSONKeepsThemWhole() throws {
        let sandbox = try Sandbox()
        let value = String(repeating: "x", count: 4000)
        try sandbox.succeed(["cookies", "set", "--url", "https://example.com/", "big=\(value)", "small=1"])
        let lines = try sandbox.succeed(["cookies", "list"]).lines
        let big = try #require(lines.first { $0.contains("big=") })
        #expect(big.count < 120, "the table line is \(big.count) characters")
        #expect(big.contains("… (4004 bytes)"))
        #expect(lines.contains { $0.contains("small=1") && $0.count < 120 })
        let json = try sandbox.succeed(["cookies", "list", "--json"]).objects()
        #expect(json.first { $0["name"] as? String == "big" }?["value"] as? String == value)
    }

    @Test func aDryRunCountsWhatItWouldRemovePerSiteAndType() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://www.example.com/", "a=1", "b=2", "c=3"])
        try sandbox.succeed(["cookies", "set", "--url", "https://example.org/", "d=4"])
        try sandbox.succeed(["storage", "set", "--origin", "https://www.example.com", "k1", "v"])
        try sandbox.succeed(["storage", "set", "--origin", "https://app.example.com", "k2", "v"])
        let dry = try sandbox.succeed(["clear", "--types", "cookies,localstorage", "--dry-run"])
        #expect(
            dry.lines == [
                "would remove cookies (3 cookies), localstorage (2 storage keys) for example.com",
                "would remove cookies (1 cookie) for example.org",
            ])
        let json = try sandbox.succeed(["clear", "--types", "all", "--dry-run", "--json"]).object()
        let removed = try #require(json["removed"] as? [[String: Any]])
        #expect(removed.first?["counts"] as? [String: Int] == ["cookies": 3, "localstorage": 2])
        // Nothing was removed; the real clear reports the same sites.
        #expect(try sandbox.succeed(["cookies", "list"]).lines.count == 4)
        #expect(
            try sandbox.succeed(["clear", "--types", "cookies,localstorage"]).lines == [
                "removed cookies, localstorage for example.com", "removed cookies for example.org",
            ])
    }

    @Test func readOnlyRefusesEveryChangeAndReadsAsUsual() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://example.com/", "a=1"])
        let before = try sandbox.succeed(["export", "--format", "storage-state"]).stdoutData
        // On SQLite, the store's files are compared too: a read-only open creates and writes none.
        let files = try storeFiles(sandbox)
        for command in [
            ["cookies", "set", "--url", "https://example.com/", "b=2"], ["clear", "--types", "all"],
            ["config", "set", "cookies.max-total", "10"],
            ["storage", "set", "--origin", "https://example.com", "k", "v"],
            ["vacuum"],
        ] {
            let refused = try sandbox.runInStore(["--read-only"] + command)
            #expect(refused.status == 1, "\(command)")
            #expect(refused.isOneLineMessage, "\(command)")
            #expect(refused.stderr.contains("is open read-only"), "\(command): \(refused.stderr)")
        }
        #expect(try sandbox.runInStore(["--read-only", "cookies", "header", "https://example.com/"]).stdout == "a=1\n")
        #expect(try sandbox.runInStore(["records", "--read-only"]).stdout == "example.com  cookies\n")
        #expect(try sandbox.succeed(["export", "--format", "storage-state"]).stdoutData == before)
        #expect(try storeFiles(sandbox) == files)
    }

    /// The names of the files of a SQLite store and the bytes of its database; nothing on PostgreSQL.
    func storeFiles(_ sandbox: Sandbox) throws -> [String: Data]? {
        guard TestEngine.current == .sqlite else { return nil }
        let names = try FileManager.default.contentsOfDirectory(atPath: sandbox.store.path)
        var files = Dictionary(uniqueKeysWithValues: names.map { ($0, Data()) })
        files["store.sqlite"] = try Data(contentsOf: sandbox.store.appendingPathComponent("store.sqlite"))
        return files
    }
}
