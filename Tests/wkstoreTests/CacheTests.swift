import Foundation
import Testing

/// `wkstore cache …` and `records --sizes`, on entries `wkstore fetch` put in the cache.
@Suite struct CacheTests {
    @Test func showExplainsAStoredResponse() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let url = server.base() + "/cacheable"
        try sandbox.succeed(["fetch", url, "-s"])

        let shown = try sandbox.succeed(["cache", "show", url])
        let lines = shown.lines
        #expect(lines.contains("status      200"), "\(shown.stdout)")
        #expect(lines.contains("lifetime    3600 s (Cache-Control: max-age=3600)"))
        #expect(lines.contains { $0.hasPrefix("freshness   fresh for ") && $0.hasSuffix(" s more") })
        #expect(lines.contains { $0.hasPrefix("a GET now   HIT: fresh") })
        #expect(lines.contains { $0.contains("ETag \"v1\" (If-None-Match)") })
        #expect(lines.contains("Cache-Control: max-age=3600"))
        #expect(lines.contains { $0.hasPrefix("Age: ") })

        let json = try sandbox.succeed(["cache", "show", url, "--json"]).object()
        #expect(json["fresh"] as? Bool == true)
        #expect(json["freshnessLifetime"] as? Int == 3600)
        let age = try #require(json["age"] as? Int)
        let left = try #require(json["timeToLive"] as? Int)
        #expect(age >= 0 && age + left == 3600)
        #expect(json["outcomeNow"] as? String == "HIT")
        #expect(json["bodySize"] as? Int == "cacheable body, served 1 times by the server\n".utf8.count)

        // Looking up never asks the server.
        #expect(try server.requests(path: "/cacheable").count == 1)

        let missing = try sandbox.runInStore(["cache", "show", server.base() + "/never-fetched"])
        #expect(missing.status == 1)
        #expect(missing.isOneLineMessage)
        #expect(missing.stderr.contains("is not in the cache"))
        // Under another top-level site, the entry is in another partition.
        let otherPartition = try sandbox.runInStore(["cache", "show", url, "--top-level-site", "https://elsewhere.example/"])
        #expect(otherPartition.status == 1)
        #expect(try server.requests().count == 1)
    }

    @Test func sizeShowsUsageAgainstTheLimits() throws {
        let sandbox = try Sandbox()
        let empty = try sandbox.succeed(["cache", "size", "--json"]).object()
        let disk0 = try #require(empty["disk"] as? [String: Any])
        #expect(disk0["bytes"] as? Int == 0)
        #expect(disk0["limit"] as? Int == 256 << 20)
        #expect(disk0["sites"] as? Int == 0)

        let server = try LoopbackServer(in: sandbox.root)
        try sandbox.succeed(["fetch", server.base() + "/cacheable", "-s"])
        try sandbox.succeed(["config", "set", "cache.max-size", "1GB"])
        let json = try sandbox.succeed(["cache", "size", "--json"]).object()
        let disk = try #require(json["disk"] as? [String: Any])
        let bytes = try #require(disk["bytes"] as? Int)
        #expect(bytes > "cacheable body, served 1 times by the server\n".utf8.count)
        #expect(disk["limit"] as? Int == 1 << 30)
        #expect(disk["sites"] as? Int == 1)
        let memory = try #require(json["memory"] as? [String: Any])
        #expect(memory["limit"] as? Int == 32 << 20)
        #expect(memory["perProcess"] as? Bool == true)

        // The same bytes as the disk-cache record of the site.
        let records = try sandbox.succeed(["records", "--json", "--types", "diskcache"]).objects()
        #expect((records.first?["sizes"] as? [String: Int])?["diskcache"] == bytes)

        let text = try sandbox.succeed(["cache", "size"]).lines
        #expect(text.count == 2)
        #expect(text[0].hasPrefix("disk cache    "))
        #expect(text[0].contains(" of 1.0 GB ("))
        #expect(text[0].contains("1 site"))
        #expect(text[0].hasSuffix("cache.max-size = 1GB"))
        #expect(text[1].contains("up to 32.0 MB in each process using the store"))
    }

    @Test func recordsSizesListsTheLargestSitesFirstWithABar() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://small.example.org/", "a=1"])
        try sandbox.succeed(["storage", "set", "--origin", "https://www.big.example.com", "blob", String(repeating: "x", count: 6000)])
        try sandbox.succeed(["cookies", "set", "--url", "https://www.big.example.com/", "session=" + String(repeating: "s", count: 40)])
        try sandbox.succeed(["storage", "set", "--origin", "https://mid.example.net", "note", String(repeating: "y", count: 2999)])

        let records = try sandbox.succeed(["records", "--sizes", "--json"]).objects()
        #expect(records.map { $0["displayName"] as? String } == ["example.com", "example.net", "example.org"])
        let sizes = records.compactMap { $0["totalSize"] as? Int }
        // localStorage: UTF-16 units × 2; cookies: name, value, domain and path.
        #expect(sizes[0] == (4 + 6000) * 2 + (7 + 40 + 19 + 1))
        #expect(sizes[1] == (4 + 2999) * 2)

        let lines = try sandbox.succeed(["records", "--sizes"]).lines
        #expect(sizes[2] == 1 + 1 + 17 + 1)
        #expect(lines == [
            "example.com  11.8 KB  ██████████  cookies, localstorage",
            "example.net   5.9 KB  █████░░░░░  localstorage",
            "example.org     20 B  █░░░░░░░░░  cookies",
        ], "\(lines)")
    }
}
