import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// The security promises of a store, each tried through every entry point a cookie can come in
/// by: `Set-Cookie`, `setCookie`, both import formats and document-cookie reports. The cookie
/// rules hold on both engines; what concerns a store directory's files is SQLite's alone.
@Suite(.ownThreads, .bothEngines) struct HardeningSecurityTests {
    let dir = TemporaryDirectory()

    /// Public suffixes from both parts of the list (ICANN and private), in several spellings.
    static let publicSuffixes = ["com", "COM", "co.uk", "github.io", "xn--p1ai", "рф", "s3.amazonaws.com", "com."]
    /// Hosts under each suffix, from which a page would try to set the supercookie.
    static func host(under suffix: String) -> String {
        switch suffix.lowercased() {
        case "com.": return "www.example.com."
        case "рф": return "xn--e1afmkfd.xn--p1ai"
        default: return "victim." + suffix.lowercased()
        }
    }

    /// Every entry point's attempt to store a cookie for `domain` as a domain cookie, from a page
    /// of `pageHost`; returns whether anything was stored (an error counts as refusal).
    func tryEveryEntryPoint(
        _ store: WebsiteDataStore, name: String, domain: String, pageHost: String,
        secure: Bool = false, httpOnly: Bool = false
    ) -> [String: Bool] {
        let cookies = store.httpCookieStore
        let pageURL = URL(string: "https://\(pageHost)/")!
        let attributes =
            "; Domain=\(domain); Path=/; Max-Age=3600" + (secure ? "; Secure" : "") + (httpOnly ? "; HttpOnly" : "")
        var stored: [String: Bool] = [:]
        stored["Set-Cookie"] =
            ((try? cookies.setCookies(fromSetCookieHeaders: ["\(name)h=1" + attributes], for: pageURL))?.stored ?? 0)
            > 0
        stored["response fields"] =
            ((try? cookies.setCookies(
                fromResponseHeaderFields: [(name: "Set-Cookie", value: "\(name)f=1" + attributes)],
                for: pageURL))?.stored ?? 0) > 0
        let whole = Cookie(
            name: "\(name)a", value: "1", domain: domain, isHostOnly: false, isSecure: secure, isHTTPOnly: httpOnly,
            expires: Date().addingTimeInterval(3600))
        stored["setCookie"] = (try? cookies.setCookie(whole)) != nil
        let expires = Int(Date().timeIntervalSince1970) + 3600
        let netscape = dir.path("\(name).txt")
        try? Data(
            "\(httpOnly ? "#HttpOnly_" : "").\(domain)\tTRUE\t/\t\(secure ? "TRUE" : "FALSE")\t\(expires)\t\(name)n\t1\n"
                .utf8
        ).write(to: netscape)
        stored["cookies.txt"] =
            ((try? CookieInterchange.importCookies(from: netscape, format: .netscape, into: cookies))?.imported ?? 0)
            > 0
        let state = dir.path("\(name).json")
        try? Data(
            """
            {"cookies": [{"name": "\(name)s", "value": "1", "domain": ".\(domain)", "path": "/", "expires": \(expires),
              "httpOnly": \(httpOnly), "secure": \(secure), "sameSite": "Lax"}], "origins": []}
            """.utf8
        ).write(to: state)
        stored["storageState"] =
            ((try? CookieInterchange.importCookies(from: state, format: .storageState, into: cookies))?.imported ?? 0)
            > 0
        let report = DocumentCookieReport(cookie: "\(name)r=1" + attributes, url: pageURL)
        stored["document.cookie report"] =
            ((try? cookies.ingestDocumentCookieReport(report, frameURL: pageURL))?.stored ?? 0) > 0
        return stored
    }

    @Test func publicSuffixSupercookiesAreRefusedEverywhere() throws {
        let store = try TestEngine.openStore(for: dir.path("store"))
        var attempts = 0
        for (i, suffix) in Self.publicSuffixes.enumerated() {
            let stored = tryEveryEntryPoint(
                store, name: "super\(i)", domain: suffix, pageHost: Self.host(under: suffix))
            #expect(stored.count == 6)
            for (entryPoint, wasStored) in stored {
                #expect(!wasStored, "a supercookie on \(suffix) got in through \(entryPoint)")
                attempts += 1
            }
        }
        // Nothing in the store is a domain cookie of a public suffix, and no other site receives one.
        let all = try store.httpCookieStore.allCookies()
        #expect(all.allSatisfy { $0.isHostOnly || !Site.isPublicSuffix($0.domain) }, "\(all)")
        for url in [
            "https://other.com/", "https://other.co.uk/", "https://other.github.io/",
            "https://xn--80ak6aa92e.xn--p1ai/",
            "https://bucket.s3.amazonaws.com/",
        ] {
            #expect(try store.httpCookieStore.header(url) == nil, "\(url)")
        }
        print(
            "supercookies: \(attempts) attempts over \(Self.publicSuffixes.count) public suffixes and 6 entry points, all refused"
        )
    }

    @Test func noCookieCrossesSites() throws {
        let store = try TestEngine.openStore(for: dir.path("store"))
        var attempts = 0
        // From a.example (and look-alikes of b.example), for b.example: by header and by script.
        for page in ["a.example", "b.example.evil.test", "evilb.example", "b-example.test"] {
            let url = URL(string: "https://\(page)/")!
            let cookie = "cross=1; Domain=b.example; Path=/; Max-Age=3600"
            let summaries = [
                try store.httpCookieStore.setCookies(fromSetCookieHeaders: [cookie], for: url),
                try store.httpCookieStore.setCookies(
                    fromResponseHeaderFields: [(name: "set-cookie", value: cookie)], for: url),
                try store.httpCookieStore.ingestDocumentCookieReport(
                    DocumentCookieReport(cookie: cookie, url: url), frameURL: url),
            ]
            for summary in summaries {
                #expect(
                    summary.stored == 0 && summary.rejected.map(\.reason) == [.domainMismatch], "\(page): \(summary)")
                attempts += 1
            }
        }
        // A report that claims another site than the frame that sent it.
        let forged = DocumentCookieReport(cookie: "forged=1; Path=/", url: URL(string: "https://b.example/")!)
        #expect(throws: CookieScriptError.self) {
            try store.httpCookieStore.ingestDocumentCookieReport(forged, frameURL: URL(string: "https://a.example/")!)
        }
        // Cookies a site did store never reach another one, by header or by script.
        try store.httpCookieStore.set("https://a.example/", "mine=1; Domain=a.example; Path=/; SameSite=None; Secure")
        try store.httpCookieStore.set(
            "https://a.example/", "chip=1; Path=/; Secure; Partitioned; SameSite=None",
            context: CookieRequestContext(topLevelSite: URL(string: "https://a.example/")!))
        #expect(try store.httpCookieStore.header("https://b.example/") == nil)
        #expect(try store.httpCookieStore.header("https://a.example.b.example/") == nil)
        let script = try store.httpCookieStore.documentStartScript(for: URL(string: "https://b.example/")!).source
        #expect(!script.contains("mine") && !script.contains("chip"))
        // A partitioned cookie stays under the top-level site it was set under.
        let underB = CookieRequestContext(topLevelSite: URL(string: "https://b.example/")!, isNavigation: false)
        #expect(
            try store.httpCookieStore.cookieHeader(for: URL(string: "https://a.example/")!, context: underB)?.contains(
                "chip") != true)
        #expect(try store.httpCookieStore.allCookies().allSatisfy { $0.site == "a.example" })
        print("cross-site: \(attempts) attempts refused, forged report refused")
    }

    @Test func secureCookiesAreNeverSentOverHTTPExceptToLoopback() throws {
        let store = try TestEngine.openStore(for: dir.path("store"))
        let stored = tryEveryEntryPoint(
            store, name: "sec", domain: "example.com", pageHost: "www.example.com", secure: true)
        #expect(stored.values.allSatisfy { $0 }, "every entry point stores a Secure cookie from HTTPS: \(stored)")
        let cookies = store.httpCookieStore
        for url in [
            "http://example.com/", "http://www.example.com/", "ws://www.example.com/", "http://localhost.example.com/",
        ] {
            #expect(try cookies.header(url) == nil, "\(url)")
            #expect(try cookies.cookies(for: URL(string: url)!).isEmpty)
            #expect(try cookies.documentCookieScript(for: URL(string: url)!).cookies.isEmpty)
        }
        #expect(try cookies.header("https://www.example.com/")?.split(separator: ";").count == 6)
        // Scheme and host in any case.
        #expect(try cookies.header("HTTPS://WWW.Example.COM/")?.split(separator: ";").count == 6)
        // Loopback hosts are secure origins: Secure cookies are set and sent there over http.
        for host in ["localhost", "127.0.0.1", "[::1]", "app.localhost"] {
            try cookies.set("http://\(host):8080/", "s=1; Secure")
            #expect(try cookies.header("http://\(host):8080/") == "s=1", "\(host)")
        }
        // A name that only ends in "localhost" is not one.
        #expect(try cookies.set("http://notlocalhost:8080/", "s=1; Secure").stored == 0)
        // Plain http cannot set one, by header or by script.
        #expect(try cookies.set("http://plain.example/", "s=1; Secure").stored == 0)
        let report = DocumentCookieReport(cookie: "s=1; Secure", url: URL(string: "http://plain.example/")!)
        #expect(try cookies.ingestDocumentCookieReport(report, frameURL: report.url).stored == 0)
    }

    @Test func httpOnlyCookiesAreNeverInDocumentStartScripts() throws {
        let store = try TestEngine.openStore(for: dir.path("store"))
        let cookies = store.httpCookieStore
        let stored = tryEveryEntryPoint(
            store, name: "secretmarker", domain: "example.com", pageHost: "www.example.com", httpOnly: true)
        #expect(
            stored.filter(\.value).keys.sorted() == [
                "Set-Cookie", "cookies.txt", "response fields", "setCookie", "storageState",
            ],
            "script cannot set HttpOnly; everything else can: \(stored)")
        try cookies.set("https://www.example.com/", "visible=1; Path=/")
        for url in ["https://www.example.com/", "https://example.com/a/b", "http://www.example.com/"] {
            let details = try cookies.documentCookieScript(for: URL(string: url)!, messageHandler: "h")
            #expect(!details.userScript.source.contains("secretmarker"), "\(url)")
            #expect(!details.scriptTag.contains("secretmarker"))
            #expect(details.cookies.allSatisfy { !$0.isHTTPOnly })
            #expect(details.skipped.allSatisfy { !$0.cookie.isHTTPOnly })
        }
        #expect(
            try cookies.documentStartScript(for: URL(string: "https://www.example.com/")!).source.contains("visible=1"))
        // Script cannot overwrite or delete an HttpOnly cookie either.
        let page = URL(string: "https://www.example.com/")!
        for attempt in [
            "secretmarkerh=evil; Domain=example.com; Path=/", "secretmarkerh=; Domain=example.com; Path=/; Max-Age=0",
        ] {
            let summary = try cookies.ingestDocumentCookieReport(
                DocumentCookieReport(cookie: attempt, url: page), frameURL: page)
            #expect(
                summary.stored == 0 && summary.deleted == 0 && summary.rejected.map(\.reason) == [.httpOnlyFromScript],
                "\(attempt)")
        }
        #expect(try cookies.header("https://www.example.com/")?.contains("secretmarkerh=1") == true)
    }

    // MARK: - Permissions

    @Test(.sqliteOnly) func aNewStoreIsOwnerOnlyInEveryFileAndFolder() async throws {
        let directory = dir.path("store")
        let store = try WebsiteDataStore(directory: directory)
        let origin = SecurityOrigin(string: "https://example.com")!
        try store.httpCookieStore.set("https://example.com/", "a=1; Max-Age=3600")
        try store.localStorage.setItem("k", "v", origin: origin)
        let db = try store.webSQLDatabases.open(origin: origin, name: "w", version: "1")
        try db.transaction { tx in _ = try tx.executeSql("CREATE TABLE t (x)") }
        _ = try store.indexedDB.open(origin: origin, name: "i", version: 1) { tx, _ in _ = try tx.createObjectStore("s")
        }
        _ = try store.applicationCache.replaceGroup(
            manifestURL: URL(string: "https://example.com/m")!, manifest: Data("CACHE MANIFEST".utf8), entries: [])
        let big = Data(repeating: 1, count: 200_000)
        _ = try await store.httpCache.send(CacheRequest(url: URL(string: "https://example.com/big")!)) { _ in
            OriginResponse(status: 200, headers: ["Cache-Control": "max-age=600"], body: .data(big))
        }
        _ = try store.httpCache.makeTemporaryBodyFile()
        // While the store is open (its -wal and -shm files exist) and after.
        let entries = StoreFiles.modes(under: directory)
        #expect(
            entries.contains { $0.path == "store.sqlite-wal" } && entries.contains { $0.path.hasPrefix("cache/") }
                && entries.contains { $0.path.hasPrefix("websql/") }, "\(entries.map(\.path))")
        for entry in entries {
            #expect(
                entry.mode & 0o777 == (entry.isDirectory ? 0o700 : 0o600),
                "\(entry.path) is \(String(entry.mode, radix: 8))")
        }
        #expect(store.permissionWarnings.isEmpty)
        print("owner-only: \(entries.count) files and folders checked")
    }

    @Test(.sqliteOnly) func looserPermissionsOfAnExistingStoreAreReported() async throws {
        let directory = dir.path("store")
        do {
            let store = try WebsiteDataStore(directory: directory)
            try store.httpCookieStore.set("https://example.com/", "a=1; Max-Age=3600")
            let db = try store.webSQLDatabases.open(
                origin: SecurityOrigin(string: "https://example.com")!, name: "w", version: "1")
            try db.transaction { tx in _ = try tx.executeSql("CREATE TABLE t (x)") }
            _ = try await store.httpCache.send(CacheRequest(url: URL(string: "https://example.com/big")!)) { _ in
                OriginResponse(
                    status: 200, headers: ["Cache-Control": "max-age=600"],
                    body: .data(Data(repeating: 1, count: 200_000)))
            }
        }
        #expect(try WebsiteDataStore(directory: directory).permissionWarnings.isEmpty)
        // Widened by hand, each in turn: each is named, and left as the owner set it. (SQLite gives
        // the -wal and -shm files the main file's mode, so they are named with it.) A cache body
        // file is guarded by its owner-only folder and is not checked one by one.
        var widened: [(path: String, mode: mode_t, reported: Bool)] = [
            ("", 0o755, true), ("store.sqlite", 0o644, true),
        ]
        for entry in StoreFiles.modes(under: directory)
        where entry.path.hasPrefix("cache") || entry.path.hasPrefix("websql") {
            widened.append(
                (entry.path, entry.isDirectory ? 0o711 : 0o640, entry.isDirectory || entry.path.hasPrefix("websql")))
        }
        #expect(widened.count >= 6)
        for (path, mode, reported) in widened {
            let url = path.isEmpty ? directory : directory.appendingPathComponent(path)
            let original = try #require(StoreFiles.modes(under: url).first?.mode)
            chmod(url.path, mode)
            let warnings = try WebsiteDataStore(directory: directory).permissionWarnings
            if reported {
                #expect(
                    warnings.contains { $0.hasPrefix(url.path + " is mode \(String(mode, radix: 8))") },
                    "\(path) at \(String(mode, radix: 8)): \(warnings)")
                #expect(warnings.allSatisfy { $0.hasPrefix(url.path) }, "\(warnings)")
            } else {
                #expect(warnings.isEmpty, "\(path): \(warnings)")
            }
            #expect(StoreFiles.modes(under: url).first?.mode == Int(mode), "the owner's choice is kept")
            chmod(url.path, mode_t(original))
        }
    }

    // MARK: - Arguments that could escape the store directory

    @Test(.sqliteOnly) func namesAndSitesNeverBecomePathsInTheLibrary() throws {
        let directory = dir.path("store")
        let store = try WebsiteDataStore(directory: directory)
        let origin = SecurityOrigin(string: "https://example.com")!
        let hostile = ["../../escaped", "/tmp/escaped-absolute", "a\u{0}b", "..", "websql/../../x", "%2e%2e%2fx"]
        for name in hostile {
            let db = try store.webSQLDatabases.open(origin: origin, name: name, version: "1")
            try db.transaction { tx in _ = try tx.executeSql("CREATE TABLE IF NOT EXISTS t (x)") }
            _ = try store.indexedDB.open(origin: origin, name: name, version: 1)
            try store.localStorage.setItem(name, name, origin: origin)
        }
        #expect(try store.webSQLDatabases.databases(origin: origin).map(\.name).sorted() == hostile.sorted())
        // Every file the store made is inside its directory, under names of its own.
        let parentListing = try FileManager.default.contentsOfDirectory(atPath: dir.url.path)
        #expect(parentListing == ["store"], "\(parentListing)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/escaped-absolute"))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("websql").path)
        #expect(
            files.allSatisfy {
                $0.range(of: "^[0-9a-f-]{36}\\.sqlite(-wal|-shm)?$", options: .regularExpression) != nil
            }, "\(files)")
        // Site arguments are display names, never paths.
        for site in ["../x", "/etc", "..", "a/b", "a\\b", "x\u{0}y", ""] {
            #expect(throws: StoreError.self, "\(site)") {
                try CookieInterchange.exportCookies(
                    from: store.httpCookieStore, sites: [site], format: .netscape, to: dir.path("out.txt"))
            }
            #expect(try store.removeData(ofTypes: .all, matching: RemovalFilter(sites: [site])).isEmpty)
        }
    }

    @Test(.sqliteOnly) func storeIdentifiersAndSitesCannotEscapeThroughTheCommand() async throws {
        let sandbox = dir.path("cli")
        let data = sandbox.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let victim = sandbox.appendingPathComponent("victim")
        try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: victim.appendingPathComponent("file"))
        let before = StoreFiles.fingerprint(sandbox)
        let attempts: [[String]] = [
            ["--identifier", "../victim", "records"],
            ["--identifier", "../../victim", "cookies", "set", "--url", "https://example.com/", "a=1"],
            ["--identifier", victim.path, "records"],
            ["--identifier", "..", "clear", "--types", "all"],
            ["stores", "remove", "../victim"],
            ["stores", "remove", "../../cli/victim"],
            ["stores", "remove", victim.path],
            ["stores", "remove", ".."],
            ["clear", "--types", "all", "--site", "../victim"],
            ["clear", "--types", "all", "--site", "/etc/passwd"],
            ["clear", "--types", "all", "--site", ".."],
            ["cookies", "list", "--site", "../../victim"],
            ["cookies", "list", "--site", "a/b"],
        ]
        for arguments in attempts {
            let result = try await Command.wkstore(arguments, sandbox: sandbox)
            #expect(result.status == 2 && result.isOneLineMessage(), "\(arguments): \(result)")
        }
        #expect(StoreFiles.fingerprint(sandbox) == before, "nothing was created, changed or removed")
        print("command escapes: \(attempts.count) attempts refused with exit 2")
    }
}
