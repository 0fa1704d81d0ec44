import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// The library example of README.md, run as written, and kept word for word: the README's
/// ```swift block, after its `import WebsiteData` line, is the section of this file between the
/// `// --- README.md ---` and `// --- end ---` markers.
@Suite(.ownThreads) struct ReadmeExampleTests {
    let dir = TemporaryDirectory()

    @Test func theReadmeExampleRuns() async throws {
        let storeDirectory = dir.url.appendingPathComponent("store")
        // --- README.md ---
        let store = try WebsiteDataStore(directory: storeDirectory) // or WebsiteDataStore.default()
        let cookies = store.httpCookieStore
        let url = URL(string: "https://www.example.com/account")!

        // Response side: every Set-Cookie of one response, checked by RFC 6265bis, in one transaction.
        let summary = try cookies.setCookies(
            fromSetCookieHeaders: ["sid=abc; Secure; HttpOnly", "theme=dark; Max-Age=86400", "x=1; Domain=com"],
            for: url)
        // summary.stored == 2; summary.rejected says why x was refused: .publicSuffixDomain

        // Request side: the Cookie header a request carries, in its context.
        let header = try cookies.cookieHeader(for: url) // "sid=abc; theme=dark"
        let embedded = CookieRequestContext(topLevelSite: URL(string: "https://news.example/")!)
        let thirdParty = try cookies.cookieHeader(for: url, context: embedded) // nil: SameSite is Lax by default

        // Records by site, and removal by type and date, as WKWebsiteDataStore does.
        let records = try await store.dataRecords(ofTypes: .all) // example.com: cookies
        try await store.removeData(ofTypes: [.cookies], modifiedSince: Date().addingTimeInterval(-7200))
        // --- end ---
        #expect(summary.stored == 2)
        #expect(summary.rejected.map(\.reason) == [.publicSuffixDomain])
        #expect(summary.rejected.map(\.name) == ["x"])
        #expect(header == "sid=abc; theme=dark")
        #expect(thirdParty == nil)
        #expect(records.map(\.displayName) == ["example.com"])
        #expect(records.first?.dataTypes == [.cookies])
        #expect(try cookies.allCookies().isEmpty)
    }

    @Test func theReadmeShowsThisExample() throws {
        let testFile = URL(fileURLWithPath: #filePath)
        let root = testFile.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: testFile, encoding: .utf8)

        let readmeLines = readme.components(separatedBy: "\n")
        let start = try #require(readmeLines.firstIndex(of: "```swift"), "README.md has no ```swift block")
        let end = try #require(readmeLines[(start + 1)...].firstIndex(of: "```"), "the ```swift block is not closed")
        var block = Array(readmeLines[(start + 1)..<end])
        #expect(block.first == "import WebsiteData")
        block.removeFirst()
        if block.first == "" { block.removeFirst() }

        let sourceLines = source.components(separatedBy: "\n")
        let open = try #require(sourceLines.firstIndex { $0.hasSuffix("// --- README.md ---") && !$0.contains("`") })
        let close = try #require(sourceLines[(open + 1)...].firstIndex { $0.hasSuffix("// --- end ---") })
        let indent = String(repeating: " ", count: 8)
        let section = sourceLines[(open + 1)..<close].map { $0.hasPrefix(indent) ? String($0.dropFirst(8)) : $0 }

        #expect(block == section, "README.md's ```swift block differs from ReadmeExampleTests' marked section")
    }
}
