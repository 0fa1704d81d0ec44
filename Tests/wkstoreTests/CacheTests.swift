import Foundation
import Testing
import WebsiteDataTestSupport

/// `wkstore cache …` and `records --sizes`, on entries `wkstore fetch` put in the cache.
@Suite(.ownThreads, .bothEngines) struct CacheTests {
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
        let otherPartition = try sandbox.runInStore([
            "cache", "show", url, "--top-level-site", "https://elsewhere.example/",
        ])
        #expect(otherPartition.status == 1)
        #expect(try server.requests().count == 1)
    }

    @Test func listShowsEveryEntryWithoutUsingIt() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let resolve = server.resolveArguments(["www.example.test", "other.example.net"])
        let fresh = server.base("www.example.test") + "/cacheable"
        let stale =
            server.base("other.example.net") + "/r?header=\(q("Cache-Control: max-age=0"))&header=\(q("ETag: \"e1\""))"
        #expect(try sandbox.succeed(["cache", "list"]).stdout.isEmpty)
        try sandbox.succeed(["fetch", fresh, "-s", "-o", "/dev/null"] + resolve)
        try sandbox.succeed(["fetch", stale, "-s", "-o", "/dev/null"] + resolve)

        let json = try sandbox.succeed(["cache", "list", "--json"]).objects()
        #expect(json.map { $0["url"] as? String } == [stale, fresh], "\(json)")
        #expect(json.map { $0["site"] as? String } == ["example.net", "example.test"])
        let first = json[1]
        #expect(first["method"] as? String == "GET")
        #expect(first["status"] as? Int == 200)
        #expect(first["partition"] as? String == "http://example.test")
        #expect((first["variant"] as? [String: Any])?.isEmpty == true)
        #expect(first["bodySize"] as? Int == "cacheable body, served 1 times by the server\n".utf8.count)
        #expect(first["fresh"] as? Bool == true)
        #expect(first["freshnessLifetime"] as? Int == 3600)
        let age = try #require(first["age"] as? Int)
        #expect(age + (first["timeToLive"] as? Int ?? -1) == 3600)
        #expect(first["onDisk"] as? Bool == true)
        #expect(first["inMemory"] as? Bool == false)
        let size = try #require(first["size"] as? Int)
        #expect(size > first["bodySize"] as? Int ?? .max)
        #expect(json[0]["fresh"] as? Bool == false)
        #expect(json[0]["timeToLive"] as? Int == 0)
        let created = try #require(first["created"] as? String)
        #expect(first["modified"] as? String == created)
        #expect(first["lastAccess"] as? String == created)

        // The sizes add up to what the disk cache holds.
        let disk = try #require(try sandbox.succeed(["cache", "size", "--json"]).object()["disk"] as? [String: Any])
        #expect(disk["bytes"] as? Int == json.compactMap { $0["size"] as? Int }.reduce(0, +))

        let lines = try sandbox.succeed(["cache", "list"]).lines
        #expect(lines.count == 2, "\(lines)")
        let cells = lines.map {
            $0.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        #expect(cells[0].prefix(3) == [stale, "GET", "200"], "\(lines)")
        #expect(cells[0].last?.hasPrefix("stale by ") == true && cells[0].last?.hasSuffix(" s") == true)
        #expect(cells[1].prefix(3) == [fresh, "GET", "200"])
        #expect(cells[1].last?.hasPrefix("fresh for ") == true)
        #expect(cells[1].contains(String(created.prefix(19)) + "Z"))
        #expect(cells[1].contains("\(size) B"))

        // --site filters by display name.
        let only = try sandbox.succeed(["cache", "list", "--site", "example.test", "--json"]).objects()
        #expect(only.map { $0["url"] as? String } == [fresh])
        #expect(
            try sandbox.succeed(["cache", "list", "--site", "example.test", "--site", "example.net"]).lines.count == 2)
        #expect(try sandbox.succeed(["cache", "list", "--site", "nothing.example"]).stdout.isEmpty)
        #expect(try sandbox.succeed(["cache", "list", "--site", "nothing.example", "--json"]).objects().isEmpty)

        // Neither listing nor showing is a use; neither asks the server.
        try sandbox.succeed(["cache", "show", fresh])
        try sandbox.succeed(["cache", "show", stale, "--json"])
        let after = try sandbox.succeed(["cache", "list", "--json"]).objects()
        #expect(after.map { $0["lastAccess"] as? String } == json.map { $0["lastAccess"] as? String })
        #expect(try server.requests().count == 2)
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
        try sandbox.succeed([
            "storage", "set", "--origin", "https://www.big.example.com", "blob", String(repeating: "x", count: 6000),
        ])
        try sandbox.succeed([
            "cookies", "set", "--url", "https://www.big.example.com/", "session=" + String(repeating: "s", count: 40),
        ])
        try sandbox.succeed([
            "storage", "set", "--origin", "https://mid.example.net", "note", String(repeating: "y", count: 2999),
        ])

        let records = try sandbox.succeed(["records", "--sizes", "--json"]).objects()
        #expect(records.map { $0["displayName"] as? String } == ["example.com", "example.net", "example.org"])
        let sizes = records.compactMap { $0["totalSize"] as? Int }
        // localStorage: UTF-16 units × 2; cookies: name, value, domain and path.
        #expect(sizes[0] == (4 + 6000) * 2 + (7 + 40 + 19 + 1))
        #expect(sizes[1] == (4 + 2999) * 2)

        let lines = try sandbox.succeed(["records", "--sizes"]).lines
        #expect(sizes[2] == 1 + 1 + 17 + 1)
        #expect(
            lines == [
                "example.com  11.8 KB  ██████████  cookies, localstorage",
                "example.net   5.9 KB  █████░░░░░  localstorage",
                "example.org     20 B  █░░░░░░░░░  cookies",
            ], "\(lines)")
    }
}
