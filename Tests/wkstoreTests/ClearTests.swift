import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

/// `wkstore clear` and `wkstore records`: removal by type, date and site, seen by the tool and by
/// processes holding the store open.
@Suite(.ownThreads, .bothEngines) struct ClearTests {
    @Test func clearSinceRemovesExactlyWhatWasModifiedAfter() async throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://old.example.com/", "old1=1; Max-Age=600", "old2=2"])
        try sandbox.succeed(["cookies", "set", "--url", "https://kept.example.org/", "kept=1; Max-Age=600"])
        // Every cookie above was modified before `between`; everything below, at least 1.1 s after
        // `mark`, so at or after `between` (at most 1 s after `mark`).
        let mark = Date().timeIntervalSince1970
        let between = Int(mark.rounded(.down)) + 1
        try await Task.sleep(for: .milliseconds(1100))
        try sandbox.succeed(["cookies", "set", "--url", "https://new.example.net/", "new1=1; Max-Age=600"])
        try sandbox.succeed(["cookies", "set", "--url", "https://old.example.com/", "new2=2; Max-Age=600"])

        let dry = try sandbox.succeed(["clear", "--types", "cookies", "--since", String(between), "--dry-run"])
        #expect(
            dry.lines == [
                "would remove cookies (1 cookie) for example.com", "would remove cookies (1 cookie) for example.net",
            ])
        #expect(try sandbox.succeed(["cookies", "list"]).lines.count == 5)

        let result = try sandbox.succeed(["clear", "--types", "cookies,diskcache", "--since", String(between)])
        #expect(result.lines == ["removed cookies for example.com", "removed cookies for example.net"])
        let left = try sandbox.succeed(["cookies", "list", "--json"]).objects().compactMap { $0["name"] as? String }
        #expect(Set(left) == ["old1", "old2", "kept"])
        #expect(
            try sandbox.succeed(["clear", "--types", "cookies", "--since", String(between)]).stdout
                == "nothing to remove\n")
    }

    @Test func dryRunRemovesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://example.com/", "a=1; Max-Age=600", "b=2"])
        let before = try sandbox.succeed(["cookies", "list"]).stdout
        let json = try sandbox.succeed(["clear", "--types", "all", "--dry-run", "--json"]).object()
        #expect(json["dryRun"] as? Bool == true)
        #expect(json["since"] is NSNull)
        #expect(json["sites"] is NSNull)
        let removed = try #require(json["removed"] as? [[String: Any]])
        #expect(removed.map { $0["displayName"] as? String } == ["example.com"])
        #expect(removed.map { $0["types"] as? [String] } == [["cookies"]])
        #expect(try sandbox.succeed(["cookies", "list"]).stdout == before)
    }

    @Test func clearWithoutSinceRemovesEverythingOfTheTypesForTheSites() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://a.example.com/", "a=1; Max-Age=600"])
        try sandbox.succeed(["cookies", "set", "--url", "https://b.example.org/", "b=1; Max-Age=600"])
        try sandbox.succeed(["cookies", "set", "--url", "http://localhost:8080/", "c=1; Max-Age=600"])
        // Types without data remove nothing.
        #expect(try sandbox.succeed(["clear", "--types", "diskcache,localstorage"]).stdout == "nothing to remove\n")
        let site = try sandbox.succeed(["clear", "--types", "cookies", "--site", "Example.ORG", "--site", "localhost"])
        #expect(site.lines == ["removed cookies for example.org", "removed cookies for localhost"])
        #expect(try sandbox.succeed(["records"]).lines == ["example.com  cookies"])
        #expect(try sandbox.succeed(["clear", "--types", "all"]).lines == ["removed cookies for example.com"])
        #expect(try sandbox.succeed(["records"]).stdout.isEmpty)
    }

    @Test func recordsListSitesTypesAndSizes() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.succeed(["records"]).stdout.isEmpty)
        try sandbox.succeed(["cookies", "set", "--url", "https://www.example.com/", "a=1; Max-Age=600", "bb=22"])
        try sandbox.succeed(["cookies", "set", "--url", "https://shop.example.co.uk/", "c=3"])
        #expect(try sandbox.succeed(["records"]).lines == ["example.co.uk  cookies", "example.com    cookies"])
        let json = try sandbox.succeed(["records", "--json"]).objects()
        #expect(json.map { $0["displayName"] as? String } == ["example.co.uk", "example.com"])
        let example = json[1]
        #expect(example["types"] as? [String] == ["cookies"])
        let sizes = try #require(example["sizes"] as? [String: Int])
        // name + value + domain + path of each cookie.
        #expect(sizes == ["cookies": (1 + 1 + 15 + 1) + (2 + 2 + 15 + 1)])
        #expect(example["totalSize"] as? Int == sizes["cookies"])
        #expect(try sandbox.succeed(["records", "--types", "diskcache,indexeddb"]).stdout.isEmpty)
        #expect(try sandbox.succeed(["records", "--types", "cookies"]).lines.count == 2)
    }

    @Test func aClearIsSeenByAProcessHoldingTheStoreOpen() throws {
        let sandbox = try Sandbox()
        let store = try sandbox.openStore()
        let url = URL(string: "https://www.example.com/")!
        try store.httpCookieStore.setCookies(fromSetCookieHeaders: ["sid=1; Max-Age=600", "theme=dark"], for: url)
        #expect(try store.httpCookieStore.cookieHeader(for: url) == "sid=1; theme=dark")

        let result = try sandbox.succeed(["clear", "--types", "cookies"])
        #expect(result.stdout == "removed cookies for example.com\n")
        #expect(try store.httpCookieStore.cookieHeader(for: url) == nil)
        #expect(try store.httpCookieStore.allCookies().isEmpty)

        // And the other way round: what the library writes, the tool sees.
        try store.httpCookieStore.setCookies(fromSetCookieHeaders: ["back=1"], for: url)
        #expect(try sandbox.succeed(["cookies", "header", url.absoluteString]).stdout == "back=1\n")
    }
}
