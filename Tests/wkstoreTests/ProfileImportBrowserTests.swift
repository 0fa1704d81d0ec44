import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

/// `wkstore import --from chromium|firefox`: a profile a real headless browser wrote while
/// loading a page from a loopback server, imported; the store must send what the browser sent.
@Suite("ProfileImportBrowser", .serialized, .ownThreads)
struct ProfileImportBrowserTests {
    /// The store's view of one URL: its `Cookie` header and the cookies behind it.
    struct View {
        let header: String
        let cookies: [[String: Any]]
        /// What page script sees: the header's cookies that are not HttpOnly.
        var documentCookie: String {
            cookies.filter { $0["httpOnly"] as? Bool == false }.map { "\($0["name"]!)=\($0["value"]!)" }
                .joined(separator: "; ")
        }
    }

    func view(_ sandbox: Sandbox, _ url: String, store: URL? = nil, topLevelSite: String? = nil) throws -> View {
        let result = try sandbox.run(
            try sandbox.storeArguments(store) + ["cookies", "header", url, "--json"]
                + (topLevelSite.map { ["--top-level-site", $0] } ?? []))
        #expect(result.status == 0, "\(result.stderr)")
        let object = try result.object()
        return View(header: object["cookie"] as? String ?? "", cookies: object["cookies"] as? [[String: Any]] ?? [])
    }

    /// The cookie named `name` of a `cookies list --json` listing.
    static func cookie(_ name: String, in listed: [[String: Any]]) throws -> [String: Any] {
        try #require(listed.first { $0["name"] as? String == name }, "no cookie \(name)")
    }

    /// Requires the store's localStorage of `origin` to be what the page saw.
    func expectStorage(_ sandbox: Sandbox, _ origin: String, _ seen: [String: String], store: URL? = nil) throws {
        for (key, value) in seen {
            let got = try sandbox.run(try sandbox.storeArguments(store) + ["storage", "get", "--origin", origin, key])
            #expect(got.status == 0, "\(key): \(got.stderr)")
            #expect(got.stdout == value + "\n", "\(key)")
        }
        let listed = try sandbox.run(try sandbox.storeArguments(store) + ["storage", "list", "--origin", origin])
        #expect(listed.lines.count == seen.count, "\(listed.stdout)")
    }

    @Test func chromiumProfileImportSendsWhatChromiumSent() throws {
        let sandbox = try Sandbox()
        let server = try BrowserPageServer(directory: sandbox.root)
        defer { server.stop() }
        let userDataDir = sandbox.root.appendingPathComponent("chromium")
        let origin = "http://localhost:\(server.port)"
        // Chromium runs on the page while its profile is imported, as a user's browser would.
        let chromium = try RunningBrowser.chromium(origin + "/page", userDataDir: userDataDir)
        defer { chromium.stop() }
        let cookieCount = BrowserPageServer.setCookies.count + 2
        try chromium.waitForCookies(cookieCount)
        let seen = try server.report("/report")
        let seenSub = try server.report("/sub/report")
        #expect(seen.storage == BrowserPageServer.storageItems)

        // A user-data-dir reads as its last used profile (Default here).
        let imported = try sandbox.runInStore(["import", "--from", "chromium", "--profile", userDataDir.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(
            imported.stdout.contains(
                "read \(cookieCount) cookies: imported \(cookieCount); 1 origin: \(seen.storage.count) localStorage items"
            ),
            "\(imported.stdout)")
        try expectStorage(sandbox, origin, seen.storage)

        let root = try view(sandbox, origin + "/report")
        #expect(root.header == seen.header)
        #expect(root.documentCookie == seen.documentCookie)
        let sub = try view(sandbox, origin + "/sub/report")
        #expect(sub.header == seenSub.header)
        #expect(sub.header.hasPrefix("deep=2; "))

        // Attributes survive: SameSite, Secure, HttpOnly, session or not, the exact expiry.
        let listed = try sandbox.runInStore(["cookies", "list", "--json"]).objects()
        let cookie = { (name: String) throws -> [String: Any] in try Self.cookie(name, in: listed) }
        #expect(try cookie("strict")["sameSite"] as? String == "Strict")
        #expect(try cookie("lax")["sameSite"] as? String == "Lax")
        #expect(try cookie("nonesec")["sameSite"] as? String == "None")
        #expect(try cookie("nonesec")["secure"] as? Bool == true)
        #expect(try cookie("http")["httpOnly"] as? Bool == true)
        #expect((try cookie("sess")["expires"] as? NSNumber)?.doubleValue == -1)
        // Chromium caps Expires at 400 days as the store does: the expiry is the one in its file.
        let stored = try runTool(
            [
                "sqlite3", "-readonly", userDataDir.appendingPathComponent("Default/Cookies").path,
                "SELECT expires_utc FROM cookies WHERE name = 'persist'",
            ], in: sandbox.root)
        let microseconds = try #require(Int64(stored.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let expires = try #require((try cookie("persist")["expires"] as? NSNumber)?.doubleValue)
        #expect(abs(expires - (Double(microseconds) / 1e6 - 11_644_473_600)) < 0.001)
        #expect(try cookie("hostonly")["hostOnly"] as? Bool == true)
        #expect(try cookie("quoted")["value"] as? String == "\"a b\"")

        // --site limits the import to display names.
        let other = sandbox.root.appendingPathComponent("other-store")
        let none = try sandbox.run(
            try sandbox.storeArguments(other) + [
                "import", "--from", "chromium", "--profile", userDataDir.appendingPathComponent("Default").path,
                "--site", "example.com",
            ])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stdout.contains("read 0 cookies"))
        let some = try sandbox.run(
            try sandbox.storeArguments(other) + [
                "import", "--from", "chromium", "--profile", userDataDir.path, "--site", "localhost",
            ])
        #expect(some.stdout.contains("imported \(cookieCount)"))

        // --list-profiles finds the profile where Chromium keeps it, given a home.
        chromium.stop()
        let config = sandbox.root.appendingPathComponent("home/.config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: userDataDir, to: config.appendingPathComponent("chromium"))
        let list = try sandbox.run(["import", "--from", "chromium", "--list-profiles"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.lines == ["chromium Default \(config.path)/chromium/Default (default)"])
        let third = sandbox.root.appendingPathComponent("third-store")
        let byDefault = try sandbox.run(try sandbox.storeArguments(third) + ["import", "--from", "chromium"])
        #expect(
            byDefault.stdout
                == "chromium Default: read \(cookieCount) cookies: imported \(cookieCount); 1 origin: \(seen.storage.count) localStorage items\n"
        )
        // --types localstorage takes the items only.
        let fourth = sandbox.root.appendingPathComponent("fourth-store")
        let itemsOnly = try sandbox.run(
            try sandbox.storeArguments(fourth) + ["import", "--from", "chromium", "--types", "localstorage"])
        #expect(itemsOnly.stdout.hasPrefix("chromium Default: read 0 cookies"), "\(itemsOnly.stdout)")
        try expectStorage(sandbox, origin, seen.storage, store: fourth)
    }

    /// What the store sends on the pages of `/top`, after importing a profile that loaded it:
    /// the Domain cookie on a sibling host too, the partitioned frame's cookies only inside the
    /// frame's partition. `frameCookies` are the cookies the browser kept for the frame.
    func expectSiteCookies(_ sandbox: Sandbox, server: BrowserPageServer, frameCookies: [String]) throws {
        let port = server.port
        let top = "http://www.site.localhost:\(port)"
        let embed = "http://embed.localhost:\(port)"
        let seenTop = try server.report("/top-report")
        let seenFrame = try server.report("/frame-report")
        #expect(seenTop.header == "dom=1; hostdom=2")
        #expect(seenFrame.header == frameCookies.joined(separator: "; "))
        #expect(try view(sandbox, top + "/top-report").header == seenTop.header)
        #expect(try view(sandbox, "http://other.site.localhost:\(port)/").header == "dom=1")
        let framed = try view(sandbox, embed + "/frame-report", topLevelSite: top)
        #expect(framed.header == seenFrame.header)
        #expect(framed.documentCookie == seenFrame.documentCookie)
        // Outside the partition (the frame's site at the top level, or under another page)
        // the partitioned cookies are not sent.
        #expect(try view(sandbox, embed + "/frame-report").header == "")
        #expect(try view(sandbox, embed + "/frame-report", topLevelSite: "http://elsewhere.localhost").header == "")

        let listed = try sandbox.runInStore(["cookies", "list", "--json"]).objects()
        #expect(try Self.cookie("dom", in: listed)["hostOnly"] as? Bool == false)
        // The listing spells a Domain cookie's domain as Playwright does, with a leading dot.
        #expect(try Self.cookie("dom", in: listed)["domain"] as? String == ".site.localhost")
        #expect(try Self.cookie("hostdom", in: listed)["hostOnly"] as? Bool == true)
        for name in frameCookies.map({ String($0.prefix { $0 != "=" }) }) {
            #expect(try Self.cookie(name, in: listed)["partitionKey"] as? String == "http://site.localhost", "\(name)")
            #expect(try Self.cookie(name, in: listed)["secure"] as? Bool == true, "\(name)")
        }
    }

    @Test func chromiumDomainAndPartitionedCookies() throws {
        let sandbox = try Sandbox()
        let server = try BrowserPageServer(directory: sandbox.root)
        defer { server.stop() }
        let userDataDir = sandbox.root.appendingPathComponent("chromium")
        let chromium = try RunningBrowser.chromium(
            "http://www.site.localhost:\(server.port)/top", userDataDir: userDataDir)
        defer { chromium.stop() }
        // Chromium keeps the Partitioned cookie (its top_frame_site_key) and refuses the
        // unpartitioned third-party one: three cookies.
        try chromium.waitForCookies(3)
        let imported = try sandbox.runInStore(["import", "--from", "chromium", "--profile", userDataDir.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("read 3 cookies: imported 3"), "\(imported.stdout)")
        try expectSiteCookies(sandbox, server: server, frameCookies: ["part=3"])
    }

    @Test func firefoxDomainAndPartitionedCookies() throws {
        let sandbox = try Sandbox()
        let server = try BrowserPageServer(directory: sandbox.root)
        defer { server.stop() }
        let profile = sandbox.root.appendingPathComponent("firefox-profile")
        // Firefox runs on the page while its profile is imported.
        let firefox = try RunningBrowser.firefox("http://www.site.localhost:\(server.port)/top", profile: profile)
        defer { firefox.stop() }
        try firefox.waitForCookies(4)
        let imported = try sandbox.runInStore(["import", "--from", "firefox", "--profile", profile.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("read 4 cookies: imported 4"), "\(imported.stdout)")
        // Total Cookie Protection partitions every cookie of the cross-site frame, the one set
        // without `Partitioned` too.
        try expectSiteCookies(sandbox, server: server, frameCookies: ["part=3", "unpart=4"])
    }

    @Test func firefoxProfileImportSendsWhatFirefoxKept() throws {
        let sandbox = try Sandbox()
        let server = try BrowserPageServer(directory: sandbox.root)
        defer { server.stop() }
        let profile = sandbox.root.appendingPathComponent("firefox-profile")
        let origin = "http://localhost:\(server.port)"
        try HeadlessBrowser.firefox(origin + "/page", profile: profile)
        let seen = try server.report("/report")
        #expect(seen.storage == BrowserPageServer.storageItems)

        // Firefox keeps session cookies in memory and in its session store, which a page load
        // in --screenshot mode does not write: what it keeps on disk is the persistent cookies.
        let sessionNames =
            Set(
                BrowserPageServer.setCookies.filter { !$0.contains("Max-Age") && !$0.contains("Expires") }
                    .map { String($0.prefix { $0 != "=" }) }
            ).union(["script"])
        func persistent(_ header: String) -> String {
            header.components(separatedBy: "; ").filter { !sessionNames.contains(String($0.prefix { $0 != "=" })) }
                .joined(separator: "; ")
        }
        let expected = persistent(seen.header)
        #expect(expected.components(separatedBy: "; ").count == 4, "\(seen.header)")

        let imported = try sandbox.runInStore(["import", "--from", "firefox", "--profile", profile.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(
            imported.stdout.contains("read 4 cookies: imported 4; 1 origin: \(seen.storage.count) localStorage items"),
            "\(imported.stdout)")
        try expectStorage(sandbox, origin, seen.storage)
        // The long value is one Firefox keeps Snappy-compressed, the others UTF-8: both were read.
        let formats = try runTool(
            [
                "sqlite3", "-readonly",
                "file:\(profile.path)/storage/default/http+++localhost+\(server.port)/ls/data.sqlite?immutable=1",
                "SELECT conversion_type || compression_type FROM data WHERE key IN ('long', 'emoji') ORDER BY key",
            ], in: sandbox.root)
        #expect(formats.output == "10\n11\n")
        let root = try view(sandbox, origin + "/report")
        #expect(root.header == expected)
        #expect(root.documentCookie == persistent(seen.documentCookie))

        let listed = try sandbox.runInStore(["cookies", "list", "--json"]).objects()
        let cookie = { (name: String) throws -> [String: Any] in try Self.cookie(name, in: listed) }
        #expect(try cookie("strict")["sameSite"] as? String == "Strict")
        #expect(try cookie("lax")["sameSite"] as? String == "Lax")
        #expect(try cookie("scriptlax")["sameSite"] as? String == "Lax")
        #expect(try cookie("strict")["hostOnly"] as? Bool == true)
        // Firefox writes the expiry in milliseconds here: read as such, it is the file's.
        let stored = try runTool(
            [
                "sqlite3", "-readonly", "file:\(profile.path)/cookies.sqlite?immutable=1",
                "SELECT expiry FROM moz_cookies WHERE name = 'persist'",
            ], in: sandbox.root)
        let milliseconds = try #require(Double(stored.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(milliseconds > 1e11)
        #expect((try cookie("persist")["expires"] as? NSNumber)?.doubleValue == milliseconds / 1000)
    }

    @Test func chromiumSendsWhatTheStoreExported() throws {
        let sandbox = try Sandbox()
        let server = try BrowserPageServer(directory: sandbox.root)
        defer { server.stop() }
        let origin = "http://localhost:\(server.port)"
        try sandbox.succeed([
            "cookies", "set", "--url", origin + "/", "a=1; Max-Age=3600",
            "h=2; HttpOnly; Max-Age=3600; SameSite=Strict",
            "deep=3; Path=/sub; Max-Age=3600", "s=4; Secure; SameSite=None; Max-Age=3600", "é=ü; Max-Age=3600",
        ])
        let userDataDir = sandbox.root.appendingPathComponent("exported")
        try FileManager.default.createDirectory(
            at: userDataDir.appendingPathComponent("Default"), withIntermediateDirectories: true)
        let exported = try sandbox.runInStore(["export", "--to", "chromium", "--profile", userDataDir.path])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout == "wrote 5 cookies to the Chromium profile \(userDataDir.path)\n")

        try HeadlessBrowser.chromium(origin + "/quiet", userDataDir: userDataDir)
        let sent = try server.report("/report").header
        let storeHeader = try view(sandbox, origin + "/report").header
        #expect(sent == storeHeader)
        #expect(sent.split(separator: ";").count == 4)

        // An export replaces the cookie of the same name, domain and path and keeps the others.
        let other = sandbox.root.appendingPathComponent("other-store")
        let set = try sandbox.run(
            try sandbox.storeArguments(other) + ["cookies", "set", "--url", origin + "/", "a=changed; Max-Age=3600"])
        #expect(set.status == 0)
        let again = try sandbox.run(
            try sandbox.storeArguments(other) + [
                "export", "--to", "chromium", "--profile", userDataDir.appendingPathComponent("Default").path,
            ])
        #expect(again.status == 0, "\(again.stderr)")
        try HeadlessBrowser.chromium(origin + "/quiet", userDataDir: userDataDir)
        let resent = try server.report("/report").header
        // The new `a` was created last, so it comes last (RFC 6265bis order, Chromium's and the store's).
        #expect(resent == sent.replacingOccurrences(of: "a=1; ", with: "") + "; a=changed")

        // The exported profile imports back to the same header.
        let back = sandbox.root.appendingPathComponent("back-store")
        let imported = try sandbox.run(
            try sandbox.storeArguments(back) + ["import", "--from", "chromium", "--profile", userDataDir.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try view(sandbox, origin + "/report", store: back).header == resent)

        // While Chromium runs (its SingletonLock link is there) nothing is written.
        let cookiesFile = userDataDir.appendingPathComponent("Default/Cookies")
        let before = try Data(contentsOf: cookiesFile)
        try FileManager.default.createSymbolicLink(
            atPath: userDataDir.appendingPathComponent("SingletonLock").path, withDestinationPath: "host-4242")
        let refused = try sandbox.runInStore(["export", "--to", "chromium", "--profile", userDataDir.path])
        #expect(refused.status == 1)
        #expect(refused.isOneLineMessage)
        #expect(refused.stderr.contains("Chromium is running on this profile"), "\(refused.stderr)")
        #expect(try Data(contentsOf: cookiesFile) == before)
    }
}
