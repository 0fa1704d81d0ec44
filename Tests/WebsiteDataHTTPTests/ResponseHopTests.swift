import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

@testable import WebsiteDataHTTP

/// What each hop says went over the wire: version, reason phrase, request fields, refused cookies.
///
/// The loopback server's status lines carry the reason phrase `X` (`HTTP/1.1 302 X`).
@Suite(.ownThreads) struct ResponseHopTests {
    @Test func everyHopHasItsStatusLineAndTheFieldsSent() async throws {
        let f = try Fixture()
        let client = try f.client { $0.userAgent = "hops/1" }
        let response = try await client.send(
            HTTPRequest(
                url: URL(string: "\(f.base)/login")!, headers: [HTTPHeaderField("X-Test", "yes")]))
        #expect(response.hops.map(\.status) == [302, 200])
        #expect(response.hops.map(\.httpVersion) == ["1.1", "1.1"])
        #expect(response.hops.map(\.reasonPhrase) == ["X", "X"])
        let host = "a.example:\(f.server.port)"
        #expect(
            response.hops[0].requestHeaders == [
                HTTPHeaderField("Host", host), HTTPHeaderField("User-Agent", "hops/1"),
                HTTPHeaderField("Accept", "*/*"), HTTPHeaderField("X-Test", "yes"),
            ])
        // The cookies the 302 set are in the next hop's fields, as sent.
        #expect(
            response.hops[1].requestHeaders == [
                HTTPHeaderField("Host", host), HTTPHeaderField("User-Agent", "hops/1"),
                HTTPHeaderField("Accept", "*/*"), HTTPHeaderField("X-Test", "yes"),
                HTTPHeaderField("Cookie", "sid=abc123; hop=redirect"),
            ])
        #expect(response.hops.allSatisfy { $0.refusedCookies.isEmpty })
    }

    @Test func theHostFieldNamesThePortOnlyWhenItIsNotTheSchemesAndBracketsIPv6() {
        let cases: [(String, String)] = [
            ("http://a.example/", "a.example"), ("http://a.example:80/", "a.example"),
            ("HTTP://a.example:80/", "a.example"), ("https://a.example:443/", "a.example"),
            ("https://a.example:80/", "a.example:80"), ("http://a.example:8080/p", "a.example:8080"),
            ("http://[::1]:8080/", "[::1]:8080"), ("https://[2001:db8::1]/", "[2001:db8::1]"),
            ("http://127.0.0.1:443/", "127.0.0.1:443"),
        ]
        for (url, field) in cases {
            #expect(CurlTransfer.hostField(of: URL(string: url)!) == field, "\(url)")
        }
    }

    @Test func aBodyAddsContentLengthAndCredentialsAuthorization() async throws {
        let f = try Fixture()
        let client = try f.client()
        var request = HTTPRequest(url: URL(string: "\(f.base)/r")!, method: "POST", body: Data("a=1".utf8))
        request.credentials = HTTPCredentials("alice:pw")
        let response = try await client.send(request)
        let token = Data("alice:pw".utf8).base64EncodedString()
        #expect(
            response.hops[0].requestHeaders == [
                HTTPHeaderField("Host", "a.example:\(f.server.port)"),
                HTTPHeaderField("Authorization", "Basic " + token), HTTPHeaderField("Accept", "*/*"),
                HTTPHeaderField("Content-Length", "3"),
            ])
        #expect(try Echo(response)["authorization"] == "Basic " + token)
    }

    @Test func refusedCookiesAreListedWithTheirRules() async throws {
        let f = try Fixture()
        let client = try f.client()
        let url = URL(string: "\(f.base)/r?set=\(q("wide=1; Domain=example.com"))&set=\(q("kept=1"))")!
        let response = try await client.send(HTTPRequest(url: url))
        let refused = try #require(response.hops.first?.refusedCookies)
        #expect(refused.map(\.reason) == [.domainMismatch])
        #expect(refused.map(\.name) == ["wide"])
        #expect(try f.store.httpCookieStore.cookieHeader(for: url) == "kept=1")
    }

    @Test func aCachedResponseSentNothingAndARevalidationSentItsValidator() async throws {
        let f = try Fixture()
        let client = try f.client()
        let url = URL(string: "\(f.base)/cacheable")!
        let first = try await client.send(HTTPRequest(url: url))
        #expect(first.hops[0].reasonPhrase == "X")
        let hit = try await client.send(HTTPRequest(url: url))
        #expect(hit.cacheOutcome == .hit)
        #expect(hit.hops[0].requestHeaders.isEmpty)
        #expect(hit.hops[0].reasonPhrase == "")

        var again = HTTPRequest(url: url)
        again.cacheMode = .noCache
        let revalidated = try await client.send(again)
        #expect(revalidated.cacheOutcome == .revalidated)
        #expect(revalidated.hops[0].requestHeaders.values(named: "If-None-Match") == ["\"v1\""])
        #expect(revalidated.hops[0].reasonPhrase == "")
    }
}
