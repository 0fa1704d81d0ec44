import Foundation
import Testing
import WebsiteData
import WebsiteDataHTTP
import WebsiteDataTestSupport

/// The library examples of Docs/http.md, run against the loopback server with a persistent
/// store in the test's directory (host names resolved to the server).
@Suite(.ownThreads) struct DocsExampleTests {
    @Test func crawlerExample() async throws {
        let f = try Fixture()
        let site = f.origin("www.example.org")
        let storeDirectory = f.directory.url.appendingPathComponent("crawler-store")
        let downloads = f.directory.url

        // --- as in Docs/http.md, but for the limits: the docs show a crawler's 10 s and 60 s; here
        // they are far above what a test needs even on a loaded machine, where every test of the
        // suite runs at once, so that no wall-clock limit can fail the test ---
        let store = try WebsiteDataStore(directory: storeDirectory)
        let client = try HTTPClient(
            store: store,
            configuration: HTTPClientConfiguration(
                connectTimeout: 120, timeout: 900, proxy: "", userAgent: "my-crawler/1.0",
                acceptsCompressedResponses: true, resolve: f.server.resolve(["www.example.org", "cdn.example.net"])))

        // A top-level navigation: every hop reads and writes the store.
        let login = "\(site)/r?status=302&set=\(q("session=abc; HttpOnly"))&location=\(q("/r?welcome"))"
        let page = try await client.get(URL(string: login)!)
        print(page.status, page.url, page.hops.map(\.status)) // 200 http://www.example.org:PORT/r?welcome [302, 200]

        // A form POST, with header fields and a body.
        let post = HTTPRequest(
            url: URL(string: "\(site)/r")!, method: "POST",
            headers: [HTTPHeaderField("Content-Type", "application/x-www-form-urlencoded")],
            body: Data("user=alice&remember=1".utf8))
        let posted = try await client.send(post)
        print(posted.status, posted.value(forHeader: "Content-Type") ?? "")

        // A subresource of a page of another site: SameSite rules apply.
        let image = HTTPRequest(
            url: URL(string: "\(site)/r?image")!,
            topLevelSite: URL(string: "https://news.example.net/")!)
        let fromOtherSite = try await client.send(image)

        // A large body straight to a file, with progress.
        var download = HTTPRequest(url: URL(string: "\(site)/bytes?n=1000000")!)
        download.destination = downloads.appendingPathComponent("big.bin")
        download.progress = { progress in _ = progress.received } // called on the transfer thread
        let saved = try await client.send(download)
        print(saved.bodyFile?.path ?? "", saved.body.count) // …/big.bin 0
        // --- end ---

        #expect(page.status == 200)
        #expect(page.hops.map(\.status) == [302, 200])
        #expect(try Echo(page).cookie == "session=abc")
        #expect(try Echo(posted).cookie == "session=abc")
        #expect(try Echo(posted).body == "user=alice&remember=1")
        #expect(
            try Echo(fromOtherSite).cookie == nil, "session is SameSite-default (Lax): not on a cross-site subresource")
        #expect(try Data(contentsOf: downloads.appendingPathComponent("big.bin")).count == 1_000_000)
        #expect(saved.body.isEmpty)
        // The cookie outlives the process: reopen the store.
        let reopened = try WebsiteDataStore(directory: storeDirectory)
        #expect(try reopened.httpCookieStore.cookies(forSite: "example.org").map(\.name) == ["session"])
    }
}
