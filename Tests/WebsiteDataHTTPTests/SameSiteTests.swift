import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

@testable import WebsiteDataHTTP

/// SameSite over HTTPS: cookies of `example.org` set with `Set-Cookie`, then requested from
/// pages of `example.org` and `example.net`, as navigations and subresources, GET and POST, and
/// through redirect chains that cross sites (RFC 6265bis 5.2, 5.8.3).
@Suite(.ownThreads) struct SameSiteTests {
    static let all: Set<String> = ["strict", "lax", "none", "dflt"]

    /// A TLS fixture whose store holds one cookie of each SameSite kind for `secure.example.org`.
    static func fixture() async throws -> (TLSFixture, HTTPClient) {
        let f = try TLSFixture()
        let client = try f.client()
        let set = ["strict=1; SameSite=Strict", "lax=1; SameSite=Lax", "none=1; SameSite=None; Secure", "dflt=1"]
        let url = "\(f.secure("secure.example.org"))/r?" + set.map { "set=\(q($0))" }.joined(separator: "&")
        _ = try await client.send(HTTPRequest(url: URL(string: url)!))
        #expect(Set(try f.store.httpCookieStore.allCookies().map(\.name)) == all)
        return (f, client)
    }

    static func names(
        _ client: HTTPClient, _ url: String, method: String = "GET", from page: String?, navigation: Bool? = nil
    ) async throws -> Set<String> {
        let request = HTTPRequest(
            url: URL(string: url)!, method: method, body: method == "POST" ? Data("x".utf8) : nil,
            topLevelSite: page.map { URL(string: $0)! }, isNavigation: navigation)
        return try Echo(try await client.send(request)).cookieNames
    }

    @Test func requestsFromPagesOfAnotherSite() async throws {
        let (f, client) = try await Self.fixture()
        let target = "\(f.secure("secure.example.org"))/r"
        let crossPage = "https://other.example.net/page"
        let samePage = "https://www.example.org/page"
        // A top-level request (address bar) carries everything.
        #expect(try await Self.names(client, target, from: nil) == Self.all)
        // Subresources: same-site pages get everything, cross-site pages only SameSite=None.
        #expect(try await Self.names(client, target, from: samePage) == Self.all)
        #expect(try await Self.names(client, target, from: crossPage) == ["none"])
        #expect(try await Self.names(client, target, method: "POST", from: crossPage) == ["none"])
        // A cross-site navigation carries Lax (and default) cookies for GET, not for POST; never Strict.
        #expect(try await Self.names(client, target, from: crossPage, navigation: true) == ["lax", "none", "dflt"])
        #expect(try await Self.names(client, target, method: "POST", from: crossPage, navigation: true) == ["none"])
        #expect(try await Self.names(client, target, method: "POST", from: samePage, navigation: true) == Self.all)
        // http://www.example.org is another (schemeful) site than https://secure.example.org.
        #expect(try await Self.names(client, target, from: "http://www.example.org/page") == ["none"])
    }

    @Test func redirectChainsThatCrossSites() async throws {
        let (f, client) = try await Self.fixture()
        let target = "\(f.secure("secure.example.org"))/r?final"
        let viaOther = RedirectTests.hop(f.secure("other.example.net"), to: target)
        let viaSameSite = RedirectTests.hop(f.secure("www.example.org"), to: target)
        // A navigation that went through another site is cross-site at its end: no Strict cookies.
        #expect(try await Self.names(client, viaOther, from: nil) == ["lax", "none", "dflt"])
        #expect(try await Self.names(client, viaSameSite, from: nil) == Self.all)
        // Back and forth: example.org -> example.net -> example.org is still cross-site.
        let roundTrip = RedirectTests.hop(f.secure("www.example.org"), to: viaOther)
        #expect(try await Self.names(client, roundTrip, from: nil) == ["lax", "none", "dflt"])
        // A subresource of an example.org page through example.net gets SameSite=None only.
        #expect(try await Self.names(client, roundTrip, from: "https://www.example.org/page") == ["none"])
        #expect(try await Self.names(client, viaSameSite, from: "https://www.example.org/page") == Self.all)
        // A 307 keeps POST: a cross-site chain then withholds Lax cookies too.
        #expect(
            try await Self.names(
                client, RedirectTests.hop(f.secure("other.example.net"), status: 307, to: target),
                method: "POST", from: nil) == ["none"])
        let log = try await f.https.requestLog(using: client, host: "secure.example.org", scheme: "https")
        // The hops through other.example.net carried no example.org cookie.
        #expect(
            log.filter { ($0["host"] as? String)?.hasPrefix("other.example.net") == true }.allSatisfy {
                $0["cookie"] == nil || $0["cookie"] is NSNull
            })
    }

    @Test func cookiesSetFromCrossSiteContexts() async throws {
        let f = try TLSFixture()
        let client = try f.client()
        let setter =
            "\(f.secure("secure.example.org"))/r?set=\(q("sub=1; SameSite=Lax"))&set=\(q("subnone=1; SameSite=None; Secure"))"
        // A cross-site subresource response may not set SameSite cookies; SameSite=None ones it may.
        _ = try await client.send(
            HTTPRequest(url: URL(string: setter)!, topLevelSite: URL(string: "https://other.example.net/")!))
        #expect(try f.store.httpCookieStore.allCookies().map(\.name) == ["subnone"])
        // A cross-site navigation may.
        _ = try await client.send(
            HTTPRequest(
                url: URL(string: setter)!, topLevelSite: URL(string: "https://other.example.net/")!, isNavigation: true)
        )
        #expect(Set(try f.store.httpCookieStore.allCookies().map(\.name)) == ["sub", "subnone"])
    }
}
