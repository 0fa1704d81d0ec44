import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Hostile and unusual input to the cookie engine: each is refused or handled, never a crash,
/// and nothing already stored is lost.
@Suite(.ownThreads, .bothEngines) struct CookieHostileInputTests {
    let dir = TemporaryDirectory()

    @Test func aOneMegabyteHeaderIsRefusedQuickly() throws {
        let store = try WebsiteDataStore.testing(dir.url).httpCookieStore
        try store.set("https://example.com/", "keep=1")
        let huge = "big=" + String(repeating: "x", count: 1 << 20)
        let summary = try store.set(
            "https://example.com/", huge, "ok=1; Path=/; Domain=example.com; " + String(repeating: "a", count: 1 << 20))
        #expect(summary.rejected.map(\.reason) == [.malformed])
        #expect(summary.stored == 1)
        #expect(try store.header("https://example.com/") == "keep=1; ok=1")
    }

    /// Names are bytes: `é` precomposed and `e` with a combining accent are equal Swift strings
    /// (canonical equivalence) but two cookies, in memory, on disk and in the header; a Greek
    /// question mark (U+037E, equivalent to ";") in a value is not a separator.
    @Test func canonicallyEquivalentNamesAreDifferentCookies() throws {
        do {
            let store = try WebsiteDataStore.testing(dir.url).httpCookieStore
            try store.set("https://example.com/", "\u{E9}=precomposed", "e\u{301}=decomposed", "q=a\u{37E}b")
            let names = try store.allCookies().map { Array($0.name.utf8) }
            #expect(names.count == 3)
            #expect(Set(names) == [[0xC3, 0xA9], [0x65, 0xCC, 0x81], [0x71]])
            let header = try #require(try store.header("https://example.com/"))
            #expect(Array(header.utf8) == Array("\u{E9}=precomposed; e\u{301}=decomposed; q=a\u{37E}b".utf8))
            try store.delete(Cookie(name: "e\u{301}", value: "", domain: "example.com"))
        }
        let reopened = try WebsiteDataStore.testing(dir.url).httpCookieStore
        #expect(
            try reopened.allCookies().map { Array($0.name.utf8) }.sorted { $0.lexicographicallyPrecedes($1) } == [
                [0x71], [0xC3, 0xA9],
            ])
    }

    @Test(.sqliteOnly) func tenThousandSetCookieLinesInOneResponse() throws {
        let store = try WebsiteDataStore.testing(dir.url).httpCookieStore
        let headers = (0..<10_000).map { "c\($0)=\($0); Max-Age=3600" }
        let summary = try store.setCookies(fromSetCookieHeaders: headers, for: URL(string: "https://example.com/")!)
        #expect(summary.stored == 10_000)
        #expect(summary.evicted == 10_000 - 180)
        let kept = try store.allCookies()
        #expect(kept.count == 180)
        // The newest survive (the older ones were least recently used).
        #expect(kept.contains { $0.name == "c9999" })
        // One transaction, on disk as in memory.
        #expect(try WebsiteDataStore(directory: dir.url).httpCookieStore.allCookies().count == 180)
    }

    @Test func controlCharactersAndReplacementCharactersInEveryPart() throws {
        let store = try WebsiteDataStore.testing(dir.url).httpCookieStore
        let hostile = [
            "a\u{0}b=1", "a=b\u{0}", "a=1; Path=/\u{1}x", "a=1; Domain=exa\u{7}mple.com",
            "\u{1B}[31m=red", "a=\r\nInjected: yes", "n=\u{FFFD}\u{FFFD}",
        ]
        let summary = try store.set(
            "https://example.com/", hostile[0], hostile[1], hostile[2], hostile[3], hostile[4], hostile[5], hostile[6])
        #expect(summary.rejected.count == 6)
        // Invalid UTF-8 reaches the engine as U+FFFD (Swift strings are always valid); it is a value like any other.
        #expect(try store.header("https://example.com/") == "n=\u{FFFD}\u{FFFD}")
    }

    @Test func internationalisedDomainsAreComparedInASCII() throws {
        let store = try WebsiteDataStore.testing(dir.url).httpCookieStore
        #expect(try store.set("https://www.bücher.example/", "a=1; Domain=bücher.example").stored == 1)
        #expect(try store.set("https://www.xn--bcher-kva.example/", "b=1; Domain=XN--BCHER-KVA.example").stored == 1)
        let cookies = try store.allCookies()
        #expect(cookies.allSatisfy { $0.domain == "xn--bcher-kva.example" })
        #expect(try store.header("https://shop.bücher.example/") == "a=1; b=1")
        #expect(cookies.first?.site == "xn--bcher-kva.example")
        // A public suffix spelled in Unicode is still a public suffix.
        #expect(
            try store.set("https://xn--e1afmkfd.xn--p1ai/", "c=1; Domain=рф").rejected.map(\.reason) == [
                .publicSuffixDomain
            ])
    }

    @Test func trailingDotHostsAreOtherHosts() throws {
        let store = try WebsiteDataStore.testing(dir.url).httpCookieStore
        try store.set("https://example.com./", "dotted=1")
        try store.set("https://example.com/", "plain=1")
        #expect(try store.header("https://example.com./") == "dotted=1")
        #expect(try store.header("https://example.com/") == "plain=1")
        #expect(
            try store.set("https://www.example.com/", "d=1; Domain=example.com.").rejected.map(\.reason) == [
                .domainMismatch
            ])
    }

    @Test func ipv6LiteralsKeepTheirHost() throws {
        let store = try WebsiteDataStore.testing(dir.url).httpCookieStore
        try store.set("http://[::1]:8080/", "v6=1")
        try store.set("http://[2001:db8::1]/", "w=1; Domain=db8::1")
        #expect(try store.header("http://[::1]:9090/") == "v6=1")
        #expect(try store.allCookies().map(\.domain) == ["::1"])
    }

    @Test func percentEncodedPathsMatchAsWritten() throws {
        let store = try WebsiteDataStore.testing(dir.url).httpCookieStore
        try store.set("https://example.com/a%2Fb/page", "encoded=1")
        #expect(try store.allCookies().first?.path == "/a%2Fb")
        #expect(try store.header("https://example.com/a%2Fb/other") == "encoded=1")
        #expect(try store.header("https://example.com/a/b/other") == nil)
    }

    @Test func urlsWithoutHostsSetNothing() throws {
        let store = try WebsiteDataStore.testing(dir.url).httpCookieStore
        let summary = try store.setCookies(fromSetCookieHeaders: ["a=1"], for: URL(string: "data:text/plain,hi")!)
        #expect(summary.rejected.map(\.reason) == [.unsupportedURL])
        #expect(try store.cookieHeader(for: URL(string: "about:blank")!) == nil)
    }

    @Test func siteArgumentsCannotEscape() {
        for bad in ["../etc", "/etc/passwd", "a/b", "x\u{0}y", "..", "", "a\\b"] {
            #expect(throws: StoreError.self, "\(bad)") { try Site.validateDisplayName(bad) }
        }
        #expect(throws: Never.self) { try Site.validateDisplayName("example.co.uk") }
    }
}
