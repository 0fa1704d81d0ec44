import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

/// `wkstore cookies …` end to end: what is set is what is listed, sent and deleted.
@Suite(.ownThreads, .bothEngines) struct CookiesTests {
    @Test func setListHeaderDeleteRoundTrip() throws {
        let sandbox = try Sandbox()
        let set = try sandbox.succeed([
            "cookies", "set", "--url", "https://www.example.com/account/",
            "sid=abc123; Path=/; Secure; HttpOnly; SameSite=Lax",
            "theme=dark; Domain=example.com; Path=/; Max-Age=3600",
            "lang=en; Path=/account",
        ])
        #expect(set.stdout == "stored 3 cookies, refused 0\n")
        #expect(set.stderr.isEmpty)

        let list = try sandbox.succeed(["cookies", "list"]).lines
        #expect(list.count == 3)
        #expect(list.contains { $0.hasPrefix(".example.com") && $0.contains("theme=dark") })
        #expect(
            list.contains {
                $0.hasPrefix("www.example.com") && $0.contains("sid=abc123") && $0.contains("session")
                    && $0.contains("Secure") && $0.contains("HttpOnly") && $0.contains("SameSite=Lax")
            })

        // Longer paths first, then earlier creation.
        let header = try sandbox.succeed(["cookies", "header", "https://www.example.com/account/settings"])
        #expect(header.stdout == "lang=en; sid=abc123; theme=dark\n")
        let bare = try sandbox.succeed(["cookies", "header", "https://example.com/"])
        #expect(bare.stdout == "theme=dark\n")
        let insecure = try sandbox.succeed(["cookies", "header", "http://www.example.com/account/x"])
        #expect(insecure.stdout == "lang=en; theme=dark\n")
        let none = try sandbox.succeed(["cookies", "header", "https://other.example.org/"])
        #expect(none.stdout.isEmpty)

        let sent = try sandbox.succeed([
            "cookies", "list", "--url", "https://www.example.com/account/settings", "--json",
        ]).objects()
        #expect(sent.map { $0["name"] as? String } == ["lang", "sid", "theme"])
        let site = try sandbox.succeed(["cookies", "list", "--site", "example.com", "--json"]).objects()
        #expect(Set(site.compactMap { $0["name"] as? String }) == ["lang", "sid", "theme"])
        #expect(try sandbox.succeed(["cookies", "list", "--site", "example.org"]).stdout.isEmpty)

        let deleted = try sandbox.succeed(["cookies", "delete", "--name", "theme", "--domain", ".example.com"])
        #expect(deleted.stdout == "deleted theme (domain .example.com, path /)\n")
        #expect(
            try sandbox.succeed(["cookies", "delete", "--name", "lang", "--domain", "www.example.com", "--path", "/"])
                .stdout
                == "no cookie matched\n")
        #expect(
            try sandbox.succeed([
                "cookies", "delete", "--name", "lang", "--domain", "www.example.com", "--path", "/account",
            ]).stdout
                == "deleted lang (domain www.example.com, path /account)\n")
        #expect(
            try sandbox.succeed(["cookies", "header", "https://www.example.com/account/settings"]).stdout
                == "sid=abc123\n")
    }

    @Test func deleteTakesAnyOfNameDomainPathAndPartitionAndADryRun() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://www.example.com/", "sid=1", "theme=dark"])
        try sandbox.succeed(["cookies", "set", "--url", "https://shop.example.com/", "sid=2"])
        try sandbox.succeed(["cookies", "set", "--url", "https://other.example.org/", "sid=3", "lang=en"])
        do {
            let store = try sandbox.openStore()
            let embedded = CookieRequestContext(topLevelSite: URL(string: "https://news.example.net/")!)
            try store.httpCookieStore.setCookies(
                fromSetCookieHeaders: ["chip=a; Secure; SameSite=None; Partitioned; Path=/"],
                for: URL(string: "https://widget.example.org/")!, context: embedded)
        }
        // A dry run lists what would go and deletes nothing.
        let dry = try sandbox.succeed(["cookies", "delete", "--name", "sid", "--dry-run"])
        #expect(
            Set(dry.stdout.split(separator: "\n")) == [
                "would delete sid (domain www.example.com, path /)",
                "would delete sid (domain shop.example.com, path /)",
                "would delete sid (domain other.example.org, path /)",
            ])
        #expect(try sandbox.succeed(["cookies", "header", "https://shop.example.com/"]).stdout == "sid=2\n")
        // A domain and its subdomains.
        let wide = try sandbox.succeed([
            "cookies", "delete", "--name", "sid", "--domain", "example.com", "--subdomains", "--json",
        ]).object()
        #expect(
            (wide["deleted"] as? [[String: Any]])?.compactMap { $0["domain"] as? String }.sorted() == [
                "shop.example.com", "www.example.com",
            ])
        // The name alone, everywhere else.
        #expect(
            try sandbox.succeed(["cookies", "delete", "--name", "sid"]).stdout
                == "deleted sid (domain other.example.org, path /)\n")
        // Partitioned cookies, listed and deleted by their top-level site.
        let listed = try sandbox.succeed(["cookies", "list", "--partition", "https://www.news.example.net/", "--json"])
            .objects()
        #expect(listed.compactMap { $0["name"] as? String } == ["chip"])
        #expect(try sandbox.succeed(["cookies", "list", "--partition", "elsewhere.example"]).stdout.isEmpty)
        #expect(
            try sandbox.succeed(["cookies", "delete", "--partition", "news.example.net"]).stdout
                == "deleted chip (domain widget.example.org, path /, partition https://example.net)\n")
        let left = try sandbox.succeed(["cookies", "list", "--json"]).objects().compactMap { $0["name"] as? String }
        #expect(left.sorted() == ["lang", "theme"])
    }

    @Test func clearTakesAPartition() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://widget.example.org/", "plain=1"])
        do {
            let store = try sandbox.openStore()
            for (top, value) in [("https://news.example.net/", "a"), ("https://blog.example.io/", "b")] {
                try store.httpCookieStore.setCookies(
                    fromSetCookieHeaders: ["chip=\(value); Secure; SameSite=None; Partitioned; Path=/"],
                    for: URL(string: "https://widget.example.org/")!,
                    context: CookieRequestContext(topLevelSite: URL(string: top)!))
            }
        }
        let dry = try sandbox.succeed([
            "clear", "--types", "cookies", "--partition", "https://example.net", "--dry-run",
        ])
        #expect(dry.stdout == "would remove cookies (1 cookie) for example.org\n")
        let removed = try sandbox.succeed([
            "clear", "--types", "cookies", "--partition", "https://example.net", "--json",
        ]).object()
        #expect(removed["partition"] as? String == "https://example.net")
        let values = try sandbox.succeed(["cookies", "list", "--json"]).objects().compactMap { $0["value"] as? String }
        #expect(values.sorted() == ["1", "b"])
    }

    @Test func jsonUsesPlaywrightFieldNames() throws {
        let sandbox = try Sandbox()
        let before = Date()
        try sandbox.succeed([
            "cookies", "set", "--url", "https://www.example.com/",
            "host=1; Path=/; Secure; HttpOnly; SameSite=Strict",
            "dom=2; Domain=example.com; Path=/p; Max-Age=86400",
            "plain=3",
            "__Host-part=4; Path=/; Secure; Partitioned",
        ])
        let after = Date()
        let cookies = try sandbox.succeed(["cookies", "list", "--json"]).objects()
        #expect(cookies.count == 4)
        let fields: Set<String> = [
            "name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite",
            "sameSiteSpecified", "hostOnly", "partitionKey", "created", "lastAccess", "modified",
        ]
        for cookie in cookies { #expect(Set(cookie.keys) == fields) }
        let byName = Dictionary(uniqueKeysWithValues: cookies.map { ($0["name"] as! String, $0) })

        let host = try #require(byName["host"])
        #expect(host["value"] as? String == "1")
        #expect(host["domain"] as? String == "www.example.com")
        #expect(host["hostOnly"] as? Bool == true)
        #expect(host["expires"] as? Int == -1)
        #expect(host["httpOnly"] as? Bool == true)
        #expect(host["secure"] as? Bool == true)
        #expect(host["sameSite"] as? String == "Strict")
        #expect(host["sameSiteSpecified"] as? Bool == true)
        #expect(host["partitionKey"] is NSNull)

        let domain = try #require(byName["dom"])
        #expect(domain["domain"] as? String == ".example.com")
        #expect(domain["hostOnly"] as? Bool == false)
        #expect(domain["path"] as? String == "/p")
        let expires = try #require((domain["expires"] as? NSNumber)?.doubleValue)
        #expect(expires >= before.timeIntervalSince1970 + 86_400 && expires <= after.timeIntervalSince1970 + 86_400)

        let plain = try #require(byName["plain"])
        #expect(plain["sameSite"] as? String == "Lax")
        #expect(plain["sameSiteSpecified"] as? Bool == false)
        #expect(plain["secure"] as? Bool == false)
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for key in ["created", "lastAccess", "modified"] {
            let date = try format.parse(try #require(plain[key] as? String))
            #expect(date.timeIntervalSince1970 >= before.timeIntervalSince1970 - 0.001)
            #expect(date.timeIntervalSince1970 <= after.timeIntervalSince1970 + 0.001)
        }

        let partitioned = try #require(byName["__Host-part"])
        #expect(partitioned["partitionKey"] as? String == "https://example.com")
    }

    @Test func aRefusedSupercookieIsReportedOnStandardError() throws {
        let sandbox = try Sandbox()
        let mixed = try sandbox.runInStore([
            "cookies", "set", "--url", "https://shop.example.co.uk/",
            "ok=1", "super=1; Domain=co.uk", "insecure=1; SameSite=None",
        ])
        #expect(mixed.status == 0)
        #expect(mixed.stdout == "stored 1 cookie, refused 2\n")
        let messages = mixed.stderr.split(separator: "\n")
        #expect(messages.count == 2)
        #expect(messages.allSatisfy { $0.hasPrefix("wkstore: cookie '") })
        #expect(messages.contains { $0.contains("'super'") && $0.contains("public suffix") })
        #expect(messages.contains { $0.contains("'insecure'") && $0.contains("SameSite") })

        let refused = try sandbox.runInStore([
            "cookies", "set", "--url", "https://shop.example.co.uk/", "super=1; Domain=co.uk", "--json",
        ])
        #expect(refused.status == 1)
        #expect(refused.isOneLineMessage)
        let json = try refused.object()
        #expect(json["stored"] as? Int == 0)
        let reasons = try #require(json["refused"] as? [[String: Any]])
        #expect(reasons.map { $0["reason"] as? String } == ["public-suffix-domain"])
        #expect(reasons.map { $0["name"] as? String } == ["super"])

        #expect(try sandbox.succeed(["cookies", "list", "--json"]).objects().map { $0["name"] as? String } == ["ok"])
    }

    @Test func anExpiredSetCookieDeletesAndSucceeds() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://example.com/", "a=1; Max-Age=600"])
        let result = try sandbox.succeed(["cookies", "set", "--url", "https://example.com/", "a=gone; Max-Age=0"])
        #expect(result.stdout == "stored 0 cookies, deleted 1, refused 0\n")
        #expect(try sandbox.succeed(["cookies", "list"]).stdout.isEmpty)
    }

    static let capturedResponse: Data = {
        var bytes = Data("HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Type: text/html\r\n".utf8)
        bytes += Data("set-cookie: lower=1; Path=/\r\n".utf8)
        bytes += Data("SET-COOKIE:   upper=2;  Path=/\r\n".utf8)
        bytes += Data("Set-Cookie:\ttab=3\n".utf8)
        bytes += Data("X-Set-Cookie: fake=1\r\n".utf8)
        bytes += Data("Set-Cookie2: old=1\r\n".utf8)
        bytes += Data("Set-Cookie: latin=caf".utf8) + Data([0xE9]) + Data("\r\n".utf8)
        bytes += Data("Set-Cookie: utf8=café\r\n".utf8)
        bytes += Data("Set-Cookie: keep=a:b c\r\r\n".utf8)
        bytes += Data("\r\n".utf8)
        return bytes
    }()

    static let expectedFromCapture: [String: String] = [
        "lower": "1", "upper": "2", "tab": "3", "latin": "café", "utf8": "café",
    ]

    @Test func headersFileReplaysACapturedResponse() throws {
        let sandbox = try Sandbox()
        let file = sandbox.root.appendingPathComponent("response.txt")
        try Self.capturedResponse.write(to: file)
        let result = try sandbox.succeed([
            "cookies", "set", "--url", "https://example.com/", "--headers-file", file.path,
        ])
        // `keep=a:b c\r` keeps its second CR, a control character, so the engine refuses it.
        #expect(result.stdout == "stored 5 cookies, refused 1\n")
        let cookies = try sandbox.succeed(["cookies", "list", "--json"]).objects()
        let values = Dictionary(uniqueKeysWithValues: cookies.map { ($0["name"] as! String, $0["value"] as! String) })
        #expect(values == Self.expectedFromCapture)
        #expect(try Data(contentsOf: file) == Self.capturedResponse)
    }

    @Test func headersFileFromStandardInput() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.succeed(
            ["cookies", "set", "--url", "https://example.com/", "--headers-file", "-"],
            stdin: Self.capturedResponse)
        #expect(result.stdout == "stored 5 cookies, refused 1\n")
        let cookies = try sandbox.succeed(["cookies", "list", "--json"]).objects()
        #expect(Set(cookies.compactMap { $0["name"] as? String }) == Set(Self.expectedFromCapture.keys))
    }

    @Test func headersFileThatCannotBeReadExits1() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.runInStore([
            "cookies", "set", "--url", "https://example.com/", "--headers-file", "/nonexistent/file",
        ])
        #expect(result.status == 1)
        #expect(result.isOneLineMessage)
        #expect(result.stderr.contains("/nonexistent/file"))
        let both = try sandbox.runInStore([
            "cookies", "set", "--url", "https://example.com/", "--headers-file", "-", "a=1",
        ])
        #expect(both.status == 2)
    }

    /// `cookies header` opens the store read-only and reads the request's site alone: it prints
    /// what a store holding every cookie sends, from the folded table and from the changes logged
    /// after the fold, on every site.
    @Test func headerReadsOneSiteAndPrintsWhatTheWholeStoreSends() throws {
        let sandbox = try Sandbox()
        func set(_ i: Int, _ values: String...) throws {
            try sandbox.succeed(["cookies", "set", "--url", "https://www.site\(i).com/a/"] + values)
        }
        for i in 0..<8 {
            try set(i, "host=\(i)", "dom=\(i); Domain=site\(i).com; Path=/", "deep=\(i); Path=/a/b; Secure")
        }
        try sandbox.succeed(["vacuum"])
        for i in stride(from: 0, to: 10, by: 3) { try set(i, "late=\(i); Path=/", "host=new\(i)") }
        try set(4, "dom=; Domain=site4.com; Path=/; Max-Age=0")
        var urls: [String] = []
        for i in 0..<10 {
            urls += ["https://www.site\(i).com/a/b/c", "http://www.site\(i).com/a/", "https://shop.site\(i).com/"]
        }
        let store = try sandbox.openStore()
        var sent = 0
        for url in urls {
            let expected = try store.httpCookieStore.cookieHeader(for: URL(string: url)!)
            let printed = try sandbox.succeed(["cookies", "header", url]).stdout
            #expect(printed == expected.map { $0 + "\n" } ?? "", "\(url)")
            if expected != nil { sent += 1 }
        }
        #expect(sent == 25)
        #expect(
            try sandbox.succeed(["cookies", "header", "https://www.site3.com/a/b/c"]).stdout
                == "deep=3; host=new3; dom=3; late=3\n")
    }

    @Test func headerContexts() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed([
            "cookies", "set", "--url", "https://api.example.com/",
            "strict=1; SameSite=Strict", "lax=2; SameSite=Lax", "default=3", "none=4; SameSite=None; Secure",
        ])
        func header(_ extra: [String]) throws -> String {
            try sandbox.succeed(["cookies", "header", "https://api.example.com/"] + extra).stdout
        }
        #expect(try header([]) == "strict=1; lax=2; default=3; none=4\n")
        // A subresource of a cross-site page: only SameSite=None.
        #expect(try header(["--top-level-site", "https://shop.example.org/"]) == "none=4\n")
        #expect(try header(["--top-level-site", "https://shop.example.org/", "--subresource"]) == "none=4\n")
        // A cross-site navigation: Lax and default cookies too, with a safe method only.
        #expect(
            try header(["--top-level-site", "https://shop.example.org/", "--navigation"])
                == "lax=2; default=3; none=4\n")
        #expect(
            try header(["--top-level-site", "https://shop.example.org/", "--navigation", "--method", "POST"])
                == "none=4\n")
        // Same-site subresource: everything.
        #expect(try header(["--top-level-site", "https://www.example.com/"]) == "strict=1; lax=2; default=3; none=4\n")

        let json = try sandbox.succeed([
            "cookies", "header", "https://api.example.com/", "--top-level-site",
            "https://shop.example.org/", "--json",
        ]).object()
        #expect(json["cookie"] as? String == "none=4")
        #expect((json["cookies"] as? [[String: Any]])?.map { $0["name"] as? String } == ["none"])
        let empty = try sandbox.succeed(["cookies", "header", "https://nobody.example.net/", "--json"]).object()
        #expect(empty["cookie"] is NSNull)
    }

    @Test func endSessionRemovesSessionCookiesOnly() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed([
            "cookies", "set", "--url", "https://example.com/", "session1=1", "session2=2", "kept=3; Max-Age=600",
        ])
        let result = try sandbox.succeed(["cookies", "end-session"])
        #expect(result.stdout == "removed 2 session cookies\n")
        #expect(try sandbox.succeed(["cookies", "header", "https://example.com/"]).stdout == "kept=3\n")
        let again = try sandbox.succeed(["cookies", "end-session", "--json"]).object()
        #expect((again["removed"] as? [Any])?.isEmpty == true)
    }

    @Test func cookiesSetByTheToolAreSeenThroughTheLibrary() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://example.com/", "a=1; Max-Age=600"])
        let store = try sandbox.openStore()
        #expect(try store.httpCookieStore.cookieHeader(for: URL(string: "https://example.com/")!) == "a=1")
    }
}
