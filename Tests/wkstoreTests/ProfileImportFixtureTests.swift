import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

/// `wkstore import --from chromium` on profiles a browser will not write here: `v11` values
/// (a keyring password, and the empty one Chromium falls back to), partitioned cookies, a
/// refused row, a damaged file and a schema from the future.
///
/// The fixtures are made by a Python script with `sqlite3`, `hashlib` and the `openssl` command,
/// independently of wkstore's code. Their layout is that of the `Cookies` file Debian's Chromium
/// 156 writes (schema 24: the `meta` and `cookies` tables, copied column for column from a
/// profile it made, see Docs/interchange.md); values are encrypted as Chromium's os_crypt does on
/// Linux (AES-128-CBC, PBKDF2-HMAC-SHA1 key from the password with salt `saltysalt` and one
/// iteration, IV of 16 spaces, the SHA-256 of `host_key` first).
@Suite(.ownThreads)
struct ProfileImportFixtureTests {
    static let script = #"""
        import hashlib, json, sqlite3, subprocess, sys
        path, compatible, rows, version = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), int(sys.argv[4])
        def encrypt(prefix, password, host, value):
            key = hashlib.pbkdf2_hmac("sha1", password.encode(), b"saltysalt", 1, 16).hex()
            # Schema 24 puts the SHA-256 of host_key before the value; earlier schemas do not.
            plain = (hashlib.sha256(host.encode()).digest() if version >= 24 else b"") + value.encode()
            out = subprocess.run(["openssl", "enc", "-aes-128-cbc", "-K", key, "-iv", "20" * 16],
                                 input=plain, capture_output=True, check=True).stdout
            return prefix.encode() + out
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR)")
        db.execute("INSERT INTO meta VALUES ('version', ?), ('last_compatible_version', ?)", (str(version), str(compatible)))
        db.execute("""CREATE TABLE cookies(creation_utc INTEGER NOT NULL,host_key TEXT NOT NULL,
            top_frame_site_key TEXT NOT NULL,name TEXT NOT NULL,value TEXT NOT NULL,encrypted_value BLOB NOT NULL,
            path TEXT NOT NULL,expires_utc INTEGER NOT NULL,is_secure INTEGER NOT NULL,is_httponly INTEGER NOT NULL,
            last_access_utc INTEGER NOT NULL,has_expires INTEGER NOT NULL,is_persistent INTEGER NOT NULL,
            priority INTEGER NOT NULL,samesite INTEGER NOT NULL,source_scheme INTEGER NOT NULL,
            source_port INTEGER NOT NULL,last_update_utc INTEGER NOT NULL,source_type INTEGER NOT NULL,
            has_cross_site_ancestor INTEGER NOT NULL)""")
        now = 13_440_000_000_000_000
        for i, r in enumerate(rows):
            enc = b"" if r["scheme"] == "plain" else encrypt(r["scheme"], r["password"], r["host"], r["value"])
            plain = r["value"] if r["scheme"] == "plain" else ""
            created = now + i * 1000
            expires = r.get("expires", 0)
            db.execute("INSERT INTO cookies VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,1,?,2,443,?,1,0)",
                (created, r["host"], r.get("top", ""), r["name"], plain, enc, r.get("path", "/"), expires,
                 r.get("secure", 0), r.get("httponly", 0), created, 1 if expires else 0, 1 if expires else 0,
                 r.get("samesite", -1), created))
        db.commit()
        """#

    /// An expiry 30 days from now, in whole Unix seconds.
    static let expiry = Int64(Date().timeIntervalSince1970) + 30 * 86_400
    /// The expiry in Chromium time: microseconds since 1601-01-01.
    static var chromiumExpiry: Int64 { (expiry + 11_644_473_600) * 1_000_000 }

    /// The rows of the fixture: one of each kind.
    static var rows: [[String: Any]] {
        [
            ["name": "v10c", "value": "ten", "host": "www.example.com", "scheme": "v10", "password": "peanuts"],
            ["name": "v11empty", "value": "eleven-empty", "host": ".example.com", "scheme": "v11", "password": ""],
            [
                "name": "v11kr", "value": "eleven-kr", "host": "www.example.com", "scheme": "v11",
                "password": "kr-secret", "expires": chromiumExpiry, "httponly": 1, "samesite": 2,
            ],
            ["name": "plain", "value": "p", "host": "www.example.com", "scheme": "plain"],
            [
                "name": "chip", "value": "c", "host": "embed.example.org", "scheme": "v10", "password": "peanuts",
                "top": "https://top.example", "secure": 1, "samesite": 0,
            ],
            ["name": "super", "value": "s", "host": ".com", "scheme": "v10", "password": "peanuts"],
        ]
    }

    /// Writes a Chromium profile folder with a fixture `Cookies` file and returns the folder.
    func makeProfile(
        in sandbox: Sandbox, compatible: Int = 24, version: Int = 24, rows: [[String: Any]] = Self.rows,
        installation: String? = nil
    ) throws -> URL {
        let folder = installation ?? "profile-\(UUID().uuidString.prefix(6))"
        let profile = sandbox.root.appendingPathComponent("\(folder)/Default")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let script = sandbox.root.appendingPathComponent("make-cookies.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let rowsText = String(decoding: try JSONSerialization.data(withJSONObject: rows), as: UTF8.self)
        let made = try runTool(
            [
                "python3", script.path, profile.appendingPathComponent("Cookies").path, "\(compatible)", rowsText,
                "\(version)",
            ], in: sandbox.root)
        #expect(made.status == 0, "\(made.output)")
        return profile
    }

    @Test func v11NeedsTheKeyringPasswordAndTheRestIsImported() throws {
        let sandbox = try Sandbox()
        let profile = try makeProfile(in: sandbox)
        let result = try sandbox.runInStore(["import", "--from", "chromium", "--profile", profile.path])
        #expect(result.status == 1)
        #expect(result.stdout.hasSuffix(" Default: read 5 cookies: imported 4, refused 1\n"), "\(result.stdout)")
        let errors = result.stderr.split(separator: "\n")
        #expect(errors.count == 2, "\(result.stderr)")
        #expect(
            errors.contains { $0.contains("left out 1 cookie encrypted with the desktop keyring's password (v11)") })
        #expect(errors.contains { $0.hasPrefix("wkstore: cookie row 6: ") && $0.contains("super") })
        let header = try sandbox.runInStore(["cookies", "header", "https://www.example.com/"])
        #expect(header.stdout == "v10c=ten; v11empty=eleven-empty; plain=p\n")

        let withPassword = sandbox.root.appendingPathComponent("second-store")
        let second = try sandbox.run(
            try sandbox.storeArguments(withPassword) + [
                "import", "--from", "chromium", "--profile", profile.path, "--keyring-password", "kr-secret", "--json",
            ])
        #expect(second.status == 1, "the public-suffix row is still refused")
        let summary = try second.object()
        #expect(summary["imported"] as? Int == 5)
        #expect(summary["needingKeyringPassword"] as? Int == 0)
        #expect((summary["notes"] as? [Any])?.isEmpty == true)
        let cookies = try sandbox.run(try sandbox.storeArguments(withPassword) + ["cookies", "list", "--json"])
            .objects()
        let kr = try #require(cookies.first { $0["name"] as? String == "v11kr" })
        #expect(kr["value"] as? String == "eleven-kr")
        #expect(kr["httpOnly"] as? Bool == true)
        #expect(kr["sameSite"] as? String == "Strict")
        #expect((kr["expires"] as? NSNumber)?.doubleValue == Double(Self.expiry))
        let empty = try #require(cookies.first { $0["name"] as? String == "v11empty" })
        #expect(empty["hostOnly"] as? Bool == false)
        #expect(empty["domain"] as? String == ".example.com")
        let chip = try #require(cookies.first { $0["name"] as? String == "chip" })
        #expect(chip["partitionKey"] as? String == "https://top.example")
        #expect(chip["sameSite"] as? String == "None")
    }

    @Test func beforeSchema24OnePasswordMustDecryptEveryV11Value() throws {
        let sandbox = try Sandbox()
        let rows: [[String: Any]] = [
            ["name": "ten", "value": "10", "host": "www.example.com", "scheme": "v10", "password": "peanuts"],
            ["name": "a", "value": "1", "host": "www.example.com", "scheme": "v11", "password": "kr-secret"],
            ["name": "b", "value": "2", "host": "www.example.com", "scheme": "v11", "password": "kr-secret"],
            ["name": "c", "value": "3", "host": "www.example.com", "scheme": "v11", "password": "kr-secret"],
        ]
        let profile = try makeProfile(in: sandbox, compatible: 23, version: 23, rows: rows)
        let without = try sandbox.runInStore(["import", "--from", "chromium", "--profile", profile.path, "--json"])
        #expect(without.status == 1)
        let first = try without.object()
        #expect(first["imported"] as? Int == 1)
        #expect(first["needingKeyringPassword"] as? Int == 3)
        let with = try sandbox.runInStore([
            "import", "--from", "chromium", "--profile", profile.path, "--keyring-password", "kr-secret",
        ])
        #expect(with.status == 0, "\(with.stderr)")
        let header = try sandbox.runInStore(["cookies", "header", "https://www.example.com/"])
        #expect(header.stdout == "ten=10; a=1; b=2; c=3\n")
    }

    @Test func theKeyringsPasswordIsReadThroughLibsecret() throws {
        let sandbox = try Sandbox()
        let profile = try makeProfile(in: sandbox, installation: "chromium")
        let wkstore = try #require(WKStoreExecutable.url)
        let runtime = sandbox.root.appendingPathComponent("run")
        try FileManager.default.createDirectory(
            at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // A private session bus with an unlocked GNOME Keyring holding Chromium's password, as a
        // desktop session has; wkstore finds the bus through DBUS_SESSION_BUS_ADDRESS.
        let store = try sandbox.storeArguments().joined(separator: " ")
        let script = """
            printf unlock-pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
            printf kr-secret | secret-tool store --label 'Chromium Safe Storage' \
                xdg:schema chrome_libsecret_os_crypt_password_v2 application chromium
            \(wkstore.path) \(store) import --from chromium --profile \(profile.path) --json
            """
        var environment = sandbox.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        let (_, output) = try runToolCapturingBytes(
            ["timeout", "-k", "5", "120", "dbus-run-session", "--", "sh", "-c", script], in: sandbox.root,
            environment: environment)
        let text = String(decoding: output, as: UTF8.self)
        let json = try #require(text.firstIndex(of: "{").map { String(text[$0...]) }, "\(text)")
        let end = try #require(json.lastIndex(of: "}"))
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(json[...end].utf8)) as? [String: Any], "\(text)")
        #expect(summary["imported"] as? Int == 5, "\(text)")
        #expect(summary["needingKeyringPassword"] as? Int == 0)
        let header = try sandbox.runInStore(["cookies", "header", "https://www.example.com/"])
        #expect(header.stdout == "v10c=ten; v11empty=eleven-empty; v11kr=eleven-kr; plain=p\n")
    }

    @Test func aBadProfileChangesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://www.example.com/", "keep=1; Max-Age=3600"])
        let before = try sandbox.succeed(["export"]).stdout

        let damaged = try makeProfile(in: sandbox)
        try Data("this is not a database, whatever its name says".utf8).write(
            to: damaged.appendingPathComponent("Cookies"))
        let future = try makeProfile(in: sandbox, compatible: 99)
        let empty = sandbox.root.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let cases: [(URL, String)] = [
            (damaged, "not a readable Chromium cookie database"),
            (future, "is newer than the 24 this wkstore reads"),
            (empty, "not a Chromium profile"),
            (sandbox.root.appendingPathComponent("missing"), "no such folder"),
        ]
        for (folder, message) in cases {
            let result = try sandbox.runInStore(["import", "--from", "chromium", "--profile", folder.path])
            #expect(result.status == 1)
            #expect(result.isOneLineMessage, "\(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
        #expect(try sandbox.succeed(["export"]).stdout == before)
    }

    @Test func usageErrors() throws {
        let sandbox = try Sandbox()
        for arguments in [
            ["import", "--from", "safari"],
            ["import", "--from", "chromium", "cookies.txt"],
            ["import", "--profile", "/tmp"],
            ["import", "--from", "chromium", "--strict"],
            ["import", "--from", "chromium", "--types", "diskcache"],
            ["import", "--from", "chromium", "--container", "Work"],
            ["import", "--from", "firefox", "--keyring-password", "x"],
            ["export", "--to", "firefox", "--profile", "/tmp"],
            ["export", "--to", "chromium"],
            ["export", "--profile", "/tmp"],
            ["export", "--to", "chromium", "--profile", "/tmp", "-o", "x.txt"],
        ] {
            let result = try sandbox.runInStore(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.isOneLineMessage, "\(arguments): \(result.stderr)")
        }
    }
}
