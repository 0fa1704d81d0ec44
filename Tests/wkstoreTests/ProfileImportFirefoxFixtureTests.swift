import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

/// `wkstore import --from firefox` on what a headless page load does not write: containers,
/// Total Cookie Protection partitions, an expiry in seconds (schemas before 16), SameSite=None
/// without Secure, session cookies in the session store, a schema from the future and a damaged
/// session store.
///
/// The fixtures are made by a Python script with `sqlite3`: `moz_cookies` as Firefox ESR 153
/// writes it here (schema 17, the columns copied from a profile it made) and a session store in
/// mozLz4 (the magic `mozLz40\0`, the size as 4 bytes little-endian, one LZ4 block; the block is
/// written as one run of literals, which the LZ4 block format allows) whose `cookies` entries have
/// the members Firefox's SessionCookies.sys.mjs writes (`host`, `name`, `value`, `path`,
/// `secure`, `httponly`, `sameSite`, `originAttributes`).
@Suite(.ownThreads)
struct ProfileImportFirefoxFixtureTests {
    static let script = #"""
        import json, os, sqlite3, struct, sys, time
        folder, version = sys.argv[1], int(sys.argv[2])
        now = int(time.time())
        expiry = now + 30 * 86400
        os.makedirs(os.path.join(folder, "sessionstore-backups"), exist_ok=True)
        db = sqlite3.connect(os.path.join(folder, "cookies.sqlite"))
        db.execute("""CREATE TABLE moz_cookies (id INTEGER PRIMARY KEY, originAttributes TEXT NOT NULL DEFAULT '',
            name TEXT, value TEXT, host TEXT, path TEXT, expiry INTEGER, lastAccessed INTEGER, creationTime INTEGER,
            isSecure INTEGER, isHttpOnly INTEGER, inBrowserElement INTEGER DEFAULT 0, sameSite INTEGER DEFAULT 0,
            schemeMap INTEGER DEFAULT 0, isPartitionedAttributeSet INTEGER DEFAULT 0, updateTime INTEGER,
            CONSTRAINT moz_uniqueid UNIQUE (name, host, path, originAttributes))""")
        db.execute("PRAGMA user_version = %d" % version)
        rows = [
            ("", "def", "1", "www.example.com", expiry * 1000, 0, 256),
            ("^userContextId=2", "work", "1", "www.example.com", expiry * 1000, 0, 256),
            ("^partitionKey=%28https%2Ctop.example%29", "chips", "c", "embed.example.org", expiry * 1000, 1, 0),
            ("", "old", "2", "www.example.com", expiry, 0, 1),
            ("", "nonenosec", "3", "www.example.com", expiry * 1000, 0, 0),
        ]
        for i, (oa, name, value, host, exp, secure, samesite) in enumerate(rows):
            created = (now - 100 + i) * 1000000
            db.execute("INSERT INTO moz_cookies (originAttributes, name, value, host, path, expiry, lastAccessed,"
                       " creationTime, isSecure, isHttpOnly, sameSite, updateTime) VALUES (?,?,?,?,'/',?,?,?,?,0,?,?)",
                       (oa, name, value, host, exp, created, created, secure, samesite, created))
        db.commit()
        session = {"version": ["sessionrestore", 1], "windows": [], "cookies": [
            {"host": "www.example.com", "name": "sessc", "value": "s1", "path": "/", "httponly": True,
             "originAttributes": {"userContextId": 0, "privateBrowsingId": 0, "firstPartyDomain": "", "partitionKey": ""}},
            {"host": ".example.com", "name": "sessw", "value": "w", "path": "/",
             "originAttributes": {"userContextId": 2, "privateBrowsingId": 0, "firstPartyDomain": "", "partitionKey": ""}},
        ]}
        data = json.dumps(session).encode()
        block = bytearray([0xF0])
        rest = len(data) - 15
        while rest >= 255:
            block.append(255)
            rest -= 255
        block.append(rest)
        block += data
        with open(os.path.join(folder, "sessionstore-backups", "recovery.jsonlz4"), "wb") as f:
            f.write(b"mozLz40\0" + struct.pack("<I", len(data)) + bytes(block))
        def storage(folder_name, rows):
            path = os.path.join(folder, "storage", "default", folder_name, "ls")
            os.makedirs(path)
            ls = sqlite3.connect(os.path.join(path, "data.sqlite"))
            ls.execute("CREATE TABLE data(key TEXT PRIMARY KEY, utf16_length INTEGER NOT NULL, conversion_type INTEGER NOT NULL,"
                       " compression_type INTEGER NOT NULL, last_access_time INTEGER NOT NULL DEFAULT 0, value BLOB NOT NULL)")
            for key, value, conversion in rows:
                data = value.encode("utf-8") if conversion == 1 else value.encode("utf-16-le")
                ls.execute("INSERT INTO data (key, utf16_length, conversion_type, compression_type, value) VALUES (?,?,?,0,?)",
                           (key, len(value.encode("utf-16-le")) // 2, conversion, data))
            ls.commit()
        storage("https+++www.example.com", [("utf8", "ünïcode ✓", 1), ("utf16", "Ωmega 😀", 0)])
        storage("https+++www.example.com^userContextId=2", [("work", "w", 1)])
        storage("http+++localhost+8080", [("big", "x" * 100, 1)])
        print(expiry)
        """#

    /// Writes a Firefox profile folder and returns it with the expiry of its cookies (Unix seconds).
    func makeProfile(in sandbox: Sandbox, version: Int = 17) throws -> (URL, Double) {
        let profile = sandbox.root.appendingPathComponent("ff-\(UUID().uuidString.prefix(6))")
        let script = sandbox.root.appendingPathComponent("make-firefox.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let made = try runTool(["python3", script.path, profile.path, "\(version)"], in: sandbox.root)
        #expect(made.status == 0, "\(made.output)")
        return (profile, try #require(Double(made.output.trimmingCharacters(in: .whitespacesAndNewlines))))
    }

    @Test func containersPartitionsExpiriesAndSessionCookies() throws {
        let sandbox = try Sandbox()
        let (profile, expiry) = try makeProfile(in: sandbox)
        let result = try sandbox.runInStore(["import", "--from", "firefox", "--profile", profile.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try result.object()
        #expect(summary["read"] as? Int == 5)
        #expect(summary["imported"] as? Int == 5)
        #expect(summary["sessionCookies"] as? Int == 1)
        let header = try sandbox.runInStore(["cookies", "header", "https://www.example.com/"])
        #expect(header.stdout == "def=1; old=2; nonenosec=3; sessc=s1\n")

        let cookies = try sandbox.runInStore(["cookies", "list", "--json"]).objects()
        func cookie(_ name: String) throws -> [String: Any] {
            try #require(cookies.first { $0["name"] as? String == name }, "no cookie \(name)")
        }
        // Milliseconds (schema 17) and seconds (older rows) both read as the same date.
        #expect((try cookie("def")["expires"] as? NSNumber)?.doubleValue == expiry)
        #expect((try cookie("old")["expires"] as? NSNumber)?.doubleValue == expiry)
        #expect(try cookie("old")["sameSite"] as? String == "Lax")
        #expect(try cookie("def")["sameSiteSpecified"] as? Bool == false)
        #expect(try cookie("nonenosec")["sameSiteSpecified"] as? Bool == false)
        #expect(try cookie("chips")["partitionKey"] as? String == "https://top.example")
        #expect((try cookie("sessc")["expires"] as? NSNumber)?.doubleValue == -1)
        #expect(try cookie("sessc")["httpOnly"] as? Bool == true)

        // localStorage: UTF-8 and raw UTF-16 values, of the default container only.
        #expect(summary["localStorageOrigins"] as? Int == 2)
        let utf8 = try sandbox.runInStore(["storage", "get", "--origin", "https://www.example.com", "utf8"])
        #expect(utf8.stdout == "ünïcode ✓\n")
        let utf16 = try sandbox.runInStore(["storage", "get", "--origin", "https://www.example.com", "utf16"])
        #expect(utf16.stdout == "Ωmega 😀\n")
        let port = try sandbox.runInStore(["storage", "get", "--origin", "http://localhost:8080", "big"])
        #expect(port.stdout == String(repeating: "x", count: 100) + "\n")

        let work = sandbox.root.appendingPathComponent("work-store")
        let fromWork = try sandbox.run(
            try sandbox.storeArguments(work) + [
                "import", "--from", "firefox", "--profile", profile.path, "--container", "Work",
            ])
        #expect(fromWork.status == 0, "\(fromWork.stderr)")
        let workHeader = try sandbox.run(
            try sandbox.storeArguments(work) + ["cookies", "header", "https://www.example.com/"])
        #expect(workHeader.stdout == "work=1; sessw=w\n")
        let workItem = try sandbox.run(
            try sandbox.storeArguments(work) + ["storage", "get", "--origin", "https://www.example.com", "work"])
        #expect(workItem.stdout == "w\n")
    }

    @Test func anOriginOverTheQuotaIsRefusedAndTheRestImported() throws {
        let sandbox = try Sandbox()
        let (profile, _) = try makeProfile(in: sandbox)
        try sandbox.succeed(["config", "set", "localstorage.quota", "100"])
        let result = try sandbox.runInStore([
            "import", "--from", "firefox", "--profile", profile.path, "--types", "localstorage",
        ])
        #expect(result.status == 1)
        #expect(result.stdout.hasSuffix("read 0 cookies: imported 0; 1 origin: 2 localStorage items, 1 refused\n"))
        #expect(result.stderr.hasPrefix("wkstore: localStorage of http://localhost:8080: 1 item refused: "))
        let listed = try sandbox.runInStore(["storage", "list"])
        #expect(listed.lines.count == 1 && listed.stdout.hasPrefix("https://www.example.com "), "\(listed.stdout)")
    }

    @Test func aBadProfileChangesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://www.example.com/", "keep=1; Max-Age=3600"])
        let before = try sandbox.succeed(["export"]).stdout
        let (future, _) = try makeProfile(in: sandbox, version: 99)
        let (damaged, _) = try makeProfile(in: sandbox)
        try Data("mozLz40\0garbage".utf8).write(
            to: damaged.appendingPathComponent("sessionstore-backups/recovery.jsonlz4"))
        let (plain, _) = try makeProfile(in: sandbox)
        let cases: [([String], String)] = [
            (["--profile", future.path], "is newer than the 17 this wkstore reads"),
            (["--profile", damaged.path], "not a readable Firefox session store"),
            (["--profile", plain.path, "--container", "Nope"], "no container named 'Nope'"),
            (["--profile", sandbox.root.path], "not a Firefox profile"),
        ]
        for (arguments, message) in cases {
            let result = try sandbox.runInStore(["import", "--from", "firefox"] + arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.isOneLineMessage, "\(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
        #expect(try sandbox.succeed(["export"]).stdout == before)
    }

    @Test func profilesIniNamesTheDefault() throws {
        let sandbox = try Sandbox()
        let firefox = sandbox.root.appendingPathComponent("home/.mozilla/firefox")
        try FileManager.default.createDirectory(at: firefox, withIntermediateDirectories: true)
        for name in ["a1.default", "b2.default-esr"] {
            try FileManager.default.createDirectory(
                at: firefox.appendingPathComponent(name), withIntermediateDirectories: true)
            try Data().write(to: firefox.appendingPathComponent(name + "/prefs.js"))
        }
        try """
        [Install3B6073811A6ABF12]
        Default=b2.default-esr
        Locked=1

        [Profile1]
        Name=default
        IsRelative=1
        Path=a1.default
        Default=1

        [Profile0]
        Name=default-esr
        IsRelative=1
        Path=b2.default-esr

        [General]
        StartWithLastProfile=1
        Version=2
        """.write(to: firefox.appendingPathComponent("profiles.ini"), atomically: true, encoding: .utf8)
        let list = try sandbox.run(["import", "--from", "firefox", "--list-profiles"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(
            list.lines == [
                "firefox default \(firefox.path)/a1.default",
                "firefox default-esr \(firefox.path)/b2.default-esr (default)",
            ])
        let imported = try sandbox.runInStore(["import", "--from", "firefox"])
        #expect(imported.stdout == "firefox default-esr: read 0 cookies: imported 0\n", "\(imported.stderr)")
    }
}
