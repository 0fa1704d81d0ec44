import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Netscape `cookies.txt` import and export against real stores in temporary directories.
@Suite("InterchangeNetscape", .ownThreads)
struct InterchangeNetscapeTests {
    @Test func importReadsEveryFieldAndCurlsVariants() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        let expiry = Int(Date().timeIntervalSince1970) + 86_400
        let text =
            "# Netscape HTTP Cookie File\r\n"
            + "# a comment\r\n"
            + "\r\n"
            + ".example.com\tTRUE\t/\tFALSE\t0\tdomain\tone\r\n"
            + "www.example.com\tFALSE\t/docs\tTRUE\t\(expiry)\thost\ttwo\r\n"
            + "#HttpOnly_www.example.com\tFALSE\t/\tFALSE\t0\thttponly\tthree\n"
            + "shop.example.org\tFALSE\t/\tFALSE\t0\tempty\t\n"
            + "shop.example.org\tFALSE\t/\tFALSE\t0\tnovalue\n"
            + "shop.example.org\tFALSE\tFALSE\t0\tnopath\tfour\n"
            + ".example.net\tFALSE\t/\tFALSE\t0\tdotfalse\tfive\n"
            + "Example.NET\ttrue\t/\tfalse\t\tnodot\tsix\n"
            + "   \t  \n"
            + "last.example.com\tFALSE\t/\tFALSE\t\(expiry).5\tfraction\tseven"
        let file = try dir.write("cookies.txt", text)

        let summary = try CookieInterchange.importCookies(from: file, format: .netscape, into: store.httpCookieStore)
        #expect(summary.read == 9)
        #expect(summary.imported == 9)
        #expect(summary.expired == 0)
        #expect(summary.evicted == 0)

        let byName = Dictionary(uniqueKeysWithValues: try store.httpCookieStore.allCookies().map { ($0.name, $0) })
        #expect(byName.count == 9)
        func check(_ name: String, _ expected: InterchangeFields) {
            #expect(byName[name].map(InterchangeFields.netscape) == expected, "\(name)")
            #expect(byName[name]?.sameSite == .unspecified, "\(name): cookies.txt has no SameSite")
        }
        let exp = Double(expiry)
        check(
            "domain",
            .init(
                name: "domain", value: "one", domain: "example.com", path: "/", hostOnly: false, secure: false,
                httpOnly: false, expires: nil))
        check(
            "host",
            .init(
                name: "host", value: "two", domain: "www.example.com", path: "/docs", hostOnly: true, secure: true,
                httpOnly: false, expires: exp))
        check(
            "httponly",
            .init(
                name: "httponly", value: "three", domain: "www.example.com", path: "/", hostOnly: true, secure: false,
                httpOnly: true, expires: nil))
        check(
            "empty",
            .init(
                name: "empty", value: "", domain: "shop.example.org", path: "/", hostOnly: true, secure: false,
                httpOnly: false, expires: nil))
        // curl: six fields whose third is not TRUE/FALSE lack the value.
        check(
            "novalue",
            .init(
                name: "novalue", value: "", domain: "shop.example.org", path: "/", hostOnly: true, secure: false,
                httpOnly: false, expires: nil))
        // curl: six fields whose third is TRUE/FALSE lack the path.
        check(
            "nopath",
            .init(
                name: "nopath", value: "four", domain: "shop.example.org", path: "/", hostOnly: true, secure: false,
                httpOnly: false, expires: nil))
        // The flag, not the dot, decides (as curl reads it).
        check(
            "dotfalse",
            .init(
                name: "dotfalse", value: "five", domain: "example.net", path: "/", hostOnly: true, secure: false,
                httpOnly: false, expires: nil))
        check(
            "nodot",
            .init(
                name: "nodot", value: "six", domain: "example.net", path: "/", hostOnly: false, secure: false,
                httpOnly: false, expires: nil))
        check(
            "fraction",
            .init(
                name: "fraction", value: "seven", domain: "last.example.com", path: "/", hostOnly: true, secure: false,
                httpOnly: false, expires: exp))
        #expect(byName["fraction"]?.expires?.timeIntervalSince1970 == exp + 0.5)

        // The flags work as cookies: the domain cookie goes to a subdomain, the host-only one does not.
        let header = try store.httpCookieStore.cookieHeader(for: URL(string: "https://sub.example.com/")!)
        #expect(header == "domain=one")
    }

    @Test func exportWritesCurlsLines() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        let cookies = store.httpCookieStore
        try cookies.setCookies(
            fromSetCookieHeaders: [
                "a=1; Domain=example.com; Path=/", "b=2; Secure; HttpOnly; Path=/x",
                "c=3; Max-Age=1000; SameSite=Strict",
            ],
            for: URL(string: "https://www.example.com/dir/page")!)
        let out = dir.file("out.txt")
        let summary = try CookieInterchange.exportCookies(from: cookies, format: .netscape, to: out)
        #expect(summary.written == 3)
        #expect(summary.skipped.isEmpty)
        let text = try String(contentsOf: out, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        #expect(lines.first == "# Netscape HTTP Cookie File")
        let data = lines.filter { !$0.hasPrefix("#") || $0.hasPrefix("#HttpOnly_") }
        let c = try #require(try cookies.allCookies().first { $0.name == "c" })
        let expires = Int64(c.expires!.timeIntervalSince1970.rounded(.down))
        #expect(
            Set(data) == [
                ".example.com\tTRUE\t/\tFALSE\t0\ta\t1",
                "#HttpOnly_www.example.com\tFALSE\t/x\tTRUE\t0\tb\t2",
                "www.example.com\tFALSE\t/dir\tFALSE\t\(expires)\tc\t3",
            ])
        // Files of cookies are credentials.
        let attributes = try FileManager.default.attributesOfItem(atPath: out.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    @Test func roundTripLosesNothingTheFormatHolds() throws {
        let dir = try InterchangeTemporaryDirectory()
        let source = try dir.store("source")
        let cookies = source.httpCookieStore
        try cookies.setCookies(
            fromSetCookieHeaders: [
                "sid=abc123; Path=/; HttpOnly; Secure; SameSite=Lax",
                "pref=dark; Domain=example.com; Path=/; Max-Age=86400",
                "cart=; Path=/shop",
                "__Host-token=t0k3n; Path=/; Secure",
                "__Secure-x=y; Domain=example.com; Secure; Path=/a/b",
                "lang=fr-CH; Expires=Wed, 09 Jun 2100 10:18:14 GMT",
                "none=1; SameSite=None; Secure",
                "unicode=caf\u{e9}%20\u{1F36A}",
            ], for: URL(string: "https://www.example.com/shop/cart")!)
        try cookies.setCookies(
            fromSetCookieHeaders: ["nameless", "q=\"quoted value\""], for: URL(string: "http://127.0.0.1:8080/")!)
        // What the format cannot hold.
        try cookies.setCookies(
            fromSetCookieHeaders: ["chip=1; Secure; Partitioned; SameSite=None; Path=/"],
            for: URL(string: "https://embed.example.org/")!,
            context: CookieRequestContext(topLevelSite: URL(string: "https://news.example.net/")!, isNavigation: false))
        try cookies.setCookie(Cookie(name: "tab", value: "a\tb", domain: "tabs.example.org"))
        let all = try cookies.allCookies()
        #expect(all.count == 12)

        let first = dir.file("first.txt")
        let exported = try CookieInterchange.exportCookies(from: cookies, format: .netscape, to: first)
        #expect(exported.written == 10)
        #expect(
            exported.skipped.map(\.reason).sorted { $0.rawValue < $1.rawValue } == [.partitioned, .unrepresentable])
        #expect(exported.description.contains("partitioned"))

        let target = try dir.store("target")
        let summary = try CookieInterchange.importCookies(from: first, into: target.httpCookieStore)
        #expect(summary.read == 10)
        #expect(summary.imported == 10)

        let written = Set(
            all.filter { $0.partitionKey.isEmpty && !$0.value.contains("\t") }.map(InterchangeFields.netscape))
        let imported = try target.httpCookieStore.allCookies()
        #expect(Set(imported.map(InterchangeFields.netscape)) == written)
        // SameSite is not in the format: every imported cookie has none.
        #expect(imported.allSatisfy { $0.sameSite == .unspecified })

        let second = dir.file("second.txt")
        try CookieInterchange.exportCookies(from: target.httpCookieStore, format: .netscape, to: second)
        #expect(try Data(contentsOf: first) == Data(contentsOf: second))
    }

    @Test func creationTimesAreNotCarried() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        let cookies = store.httpCookieStore
        try cookies.setCookies(fromSetCookieHeaders: ["keep=old"], for: URL(string: "https://www.example.com/")!)
        let original = try #require(try cookies.allCookies().first)

        let before = Date()
        let file = try dir.write(
            "cookies.txt",
            """
            www.example.com\tFALSE\t/\tFALSE\t0\tsecond\t2
            www.example.com\tFALSE\t/\tFALSE\t0\tkeep\tnew
            www.example.com\tFALSE\t/\tFALSE\t0\tfirst\t1

            """)
        try CookieInterchange.importCookies(from: file, into: cookies)
        let after = Date()
        let byName = Dictionary(uniqueKeysWithValues: try cookies.allCookies().map { ($0.name, $0) })
        // A cookie that replaces one keeps the creation time of the one it replaces.
        #expect(byName["keep"]?.value == "new")
        #expect(InterchangeSnapshot(byName["keep"]!).created == InterchangeSnapshot(original).created)
        // New cookies are created at import time, in the order of the file.
        let second = try #require(byName["second"])
        let first = try #require(byName["first"])
        #expect(second.created >= before && second.created <= after)
        #expect(first.created >= before && first.created <= after)
        #expect(second.created < first.created)
        // Which orders the Cookie header among cookies of equal path length.
        #expect(
            try cookies.cookieHeader(for: URL(string: "https://www.example.com/")!) == "keep=new; second=2; first=1")
    }

    /// A file with a bad line at line 4, after a line that would overwrite a cookie.
    struct BadLine: CustomTestStringConvertible, Sendable {
        var label: String
        var bytes: [UInt8]
        var reason: String
        init(_ label: String, _ line: String, _ reason: String) {
            self.label = label
            self.bytes = Array(line.utf8)
            self.reason = reason
        }
        init(_ label: String, bytes: [UInt8], _ reason: String) {
            self.label = label
            self.bytes = bytes
            self.reason = reason
        }
        var testDescription: String { label }
    }

    static let badLines: [BadLine] = [
        BadLine("supercookie .com", ".com\tTRUE\t/\tFALSE\t0\tsuper\tcookie", "public suffix"),
        BadLine("supercookie .co.uk", ".co.uk\tTRUE\t/\tFALSE\t0\tsuper\tcookie", "public suffix"),
        BadLine("five fields", "www.example.com\tFALSE\t/\tFALSE\t0", "found 5"),
        BadLine("eight fields", "www.example.com\tFALSE\t/\tFALSE\t0\tn\tv\textra", "found 8"),
        BadLine("non-numeric expiry", "www.example.com\tFALSE\t/\tFALSE\tsoon\tn\tv", "expires"),
        BadLine("negative expiry", "www.example.com\tFALSE\t/\tFALSE\t-5\tn\tv", "expires"),
        BadLine("bad include-subdomains flag", "www.example.com\tYES\t/\tFALSE\t0\tn\tv", "TRUE or FALSE"),
        BadLine("bad secure flag", "www.example.com\tFALSE\t/\tmaybe\t0\tn\tv", "TRUE or FALSE"),
        BadLine("__Host- without Secure", "www.example.com\tFALSE\t/\tFALSE\t0\t__Host-id\tv", "prefix"),
        BadLine("__Host- on a domain", ".example.com\tTRUE\t/\tTRUE\t0\t__Host-id\tv", "prefix"),
        BadLine("__Secure- without Secure", "www.example.com\tFALSE\t/\tFALSE\t0\t__Secure-id\tv", "prefix"),
        BadLine("empty domain", "\tFALSE\t/\tFALSE\t0\tn\tv", "domain"),
        BadLine(
            "over 4096 bytes", "www.example.com\tFALSE\t/\tFALSE\t0\tn\t" + String(repeating: "v", count: 4100),
            "over the 4096-byte limit"),
        BadLine(
            "over-long line", "www.example.com\tFALSE\t/\tFALSE\t0\tn\t" + String(repeating: "v", count: 70_000),
            "longer than"),
        BadLine("not UTF-8", bytes: Array("www.example.com\tFALSE\t/\tFALSE\t0\tn\t".utf8) + [0xFF, 0xFE], "UTF-8"),
    ]

    /// Strict: each bad line refuses the whole file, naming it; the store is unchanged.
    @Test(arguments: badLines)
    func badFileIsRefusedWholeAndStoreUnchanged(_ bad: BadLine) throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        try store.httpCookieStore.setCookies(
            fromSetCookieHeaders: ["victim=original", "other=1; Domain=example.com"],
            for: URL(string: "https://www.example.com/")!)
        let before = try InterchangeSnapshot.of(store)
        #expect(before.count == 2)

        var bytes = Array(
            "# Netscape HTTP Cookie File\nwww.example.com\tFALSE\t/\tFALSE\t0\tvictim\treplaced\nnew.example.com\tFALSE\t/\tFALSE\t0\tnew\tcookie\n"
                .utf8)
        bytes += bad.bytes
        bytes += Array("\nafter.example.com\tFALSE\t/\tFALSE\t0\tafter\tx\n".utf8)
        let file = dir.file("bad.txt")
        try Data(bytes).write(to: file)

        let error = try #require(throws: CookieImportError.self) {
            try CookieInterchange.importCookies(from: file, into: store.httpCookieStore, options: .strict)
        }
        #expect(error.line == 4)
        #expect(error.reason.contains(bad.reason), "\(error.reason)")
        #expect(error.description.contains("nothing was imported"))
        #expect(try InterchangeSnapshot.of(store) == before)
        // Nothing reached the database either.
        #expect(try InterchangeSnapshot.of(dir.store()) == before)
    }

    @Test func lineNumbersHoldAcrossChunksAndLongComments() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        // 20,000 CRLF comment lines span many 64 KiB chunks; a 100 KB comment line is skipped unread.
        var text = String(repeating: "# padding padding padding padding padding\r\n", count: 20_000)
        text += "# " + String(repeating: "x", count: 100_000) + "\r\n"
        text += "www.example.com\tFALSE\t/\tFALSE\t0\tok\t1\r\n"
        let good = try dir.write("good.txt", text)
        let summary = try CookieInterchange.importCookies(from: good, into: store.httpCookieStore)
        #expect(summary.imported == 1)

        let bad = try dir.write("bad.txt", text + "www.example.com\tFALSE\t/\tFALSE\tnever\tbad\t1\r\n")
        let error = try #require(throws: CookieImportError.self) {
            try CookieInterchange.importCookies(from: bad, into: store.httpCookieStore, options: .strict)
        }
        #expect(error.line == 20_003)
        // Lenient, the line is listed with the same number and the good line is imported.
        let lenient = try CookieInterchange.importCookies(from: bad, into: try dir.store("other").httpCookieStore)
        #expect(lenient.imported == 1 && lenient.refused == 1)
        #expect(lenient.refusals.map(\.line) == [20_003])
    }

    @Test func expiredCookiesAreCountedAndRemoveTheirNamesake() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        try store.httpCookieStore.setCookies(
            fromSetCookieHeaders: ["gone=1"], for: URL(string: "https://www.example.com/")!)
        let future = Int(Date().timeIntervalSince1970) + 3600
        let file = try dir.write(
            "cookies.txt",
            """
            www.example.com\tFALSE\t/\tFALSE\t1000\tgone\tstale
            www.example.com\tFALSE\t/\tFALSE\t1000\tnever\tstale
            www.example.com\tFALSE\t/\tFALSE\t\(future)\talive\t1

            """)
        let summary = try CookieInterchange.importCookies(from: file, into: store.httpCookieStore)
        #expect(summary.read == 3)
        #expect(summary.expired == 2)
        #expect(summary.imported == 1)
        #expect(summary.description.contains("skipped 2 already expired"))
        #expect(try store.httpCookieStore.allCookies().map(\.name) == ["alive"])
    }

    @Test func evictionsAreCountedAndTheMessageNamesTheSettings() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        try store.set(.cookiesMaxPerSite, to: "5")
        var text = ""
        for i in 0..<8 { text += "www.example.com\tFALSE\t/\tFALSE\t0\tc\(i)\t\(i)\n" }
        let file = try dir.write("cookies.txt", text)
        let summary = try CookieInterchange.importCookies(from: file, into: store.httpCookieStore)
        #expect(summary.read == 8)
        #expect(summary.imported == 8)
        #expect(summary.evicted == 3)
        #expect(try store.httpCookieStore.allCookies().count == 5)
        #expect(summary.description.contains("evicted 3"))
        #expect(summary.description.contains("cookies.max-total"))
        #expect(summary.description.contains("cookies.max-per-site"))

        let quiet = try CookieInterchange.importCookies(
            from: try dir.write("one.txt", "a.example.org\tFALSE\t/\tFALSE\t0\tx\t1\n"),
            into: store.httpCookieStore)
        #expect(quiet.description == "read 1 cookie: imported 1")
    }

    @Test func exportOfSomeSites() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        let cookies = store.httpCookieStore
        try cookies.setCookies(fromSetCookieHeaders: ["a=1"], for: URL(string: "https://www.example.com/")!)
        try cookies.setCookies(fromSetCookieHeaders: ["b=2"], for: URL(string: "https://shop.example.org/")!)
        try cookies.setCookies(fromSetCookieHeaders: ["c=3"], for: URL(string: "https://other.net/")!)
        let out = dir.file("some.txt")
        let summary = try CookieInterchange.exportCookies(
            from: cookies, sites: ["example.org", "other.net", "absent.example"],
            format: .netscape, to: out)
        #expect(summary.written == 2)
        let text = try String(contentsOf: out, encoding: .utf8)
        #expect(text.contains("shop.example.org\tFALSE\t/\tFALSE\t0\tb\t2\n"))
        #expect(text.contains("other.net\tFALSE\t/\tFALSE\t0\tc\t3\n"))
        #expect(!text.contains("www.example.com"))

        #expect(throws: StoreError.self) {
            try CookieInterchange.exportCookies(from: cookies, sites: ["../etc"], format: .netscape, to: out)
        }
        // The earlier export is still whole.
        #expect(try String(contentsOf: out, encoding: .utf8) == text)
    }

    @Test func formatIsDetected() throws {
        let dir = try InterchangeTemporaryDirectory()
        let json = dir.file("state.json")
        try Data(
            [0xEF, 0xBB, 0xBF]
                + Array(
                    "\n\n  {\"cookies\": [{\"name\": \"j\", \"value\": \"1\", \"domain\": \"www.example.com\", \"path\": \"/\", \"expires\": -1, \"httpOnly\": false, \"secure\": false, \"sameSite\": \"Lax\"}], \"origins\": []}"
                        .utf8)
        ).write(to: json)
        let text = try dir.write("cookies.txt", "\u{FEFF}www.example.com\tFALSE\t/\tFALSE\t0\tn\t1\n")
        let empty = try dir.write("empty.txt", "")
        #expect(try CookieInterchange.detectFormat(of: json) == .storageState)
        #expect(try CookieInterchange.detectFormat(of: text) == .netscape)
        #expect(try CookieInterchange.detectFormat(of: empty) == .netscape)

        let store = try dir.store()
        #expect(try CookieInterchange.importCookies(from: json, into: store.httpCookieStore).imported == 1)
        #expect(try CookieInterchange.importCookies(from: text, into: store.httpCookieStore).imported == 1)
        #expect(try CookieInterchange.importCookies(from: empty, into: store.httpCookieStore).read == 0)
        #expect(Set(try store.httpCookieStore.allCookies().map(\.name)) == ["j", "n"])

        let missing = try #require(throws: CookieFileError.self) {
            try CookieInterchange.importCookies(from: dir.file("missing.txt"), into: store.httpCookieStore)
        }
        #expect(missing.description.contains("missing.txt"))
    }
}
