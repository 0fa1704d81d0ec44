import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

@testable import WebsiteDataHTTP

/// `Clear-Site-Data` responses: honoured from secure origins (HTTPS and localhost) for the
/// response's site, ignored from plain HTTP elsewhere, applied after the same response's
/// `Set-Cookie` fields (so those do not survive a `"cookies"` clear).
@Suite(.ownThreads) struct ClearSiteDataTests {
    @Test func directivesMapToDataTypes() {
        #expect(ClearSiteData.dataTypes(forHeaderValues: ["\"cookies\""]) == [.cookies])
        #expect(ClearSiteData.dataTypes(forHeaderValues: ["\"cache\""]) == [.diskCache, .memoryCache])
        #expect(
            ClearSiteData.dataTypes(forHeaderValues: ["\"storage\""]) == [
                .localStorage, .sessionStorage, .indexedDBDatabases, .webSQLDatabases, .offlineWebApplicationCache,
            ])
        #expect(ClearSiteData.dataTypes(forHeaderValues: ["\"*\""]) == WebsiteDataType.all)
        #expect(
            ClearSiteData.dataTypes(forHeaderValues: [" \"cache\" ,\"cookies\"", "\"executionContexts\""]) == [
                .diskCache, .memoryCache, .cookies,
            ])
        // Unquoted, unknown or differently cased entries are ignored.
        #expect(ClearSiteData.dataTypes(forHeaderValues: ["cookies", "\"Cookies\"", "\"everything\"", ""]).isEmpty)
    }

    /// Puts cookies for example.org (two hosts), example.net and localhost in the store.
    static func seed(_ store: WebsiteDataStore) throws {
        let cookies = store.httpCookieStore
        try cookies.setCookie(Cookie(name: "host", value: "1", domain: "secure.example.org"))
        try cookies.setCookie(Cookie(name: "www", value: "1", domain: "www.example.org"))
        try cookies.setCookie(Cookie(name: "wide", value: "1", domain: "example.org", isHostOnly: false))
        try cookies.setCookie(Cookie(name: "other", value: "1", domain: "other.example.net"))
        try cookies.setCookie(Cookie(name: "local", value: "1", domain: "localhost"))
    }

    static func names(_ store: WebsiteDataStore) throws -> Set<String> {
        Set(try store.httpCookieStore.allCookies().map(\.name))
    }

    @Test func cookiesDirectiveFromHTTPSClearsTheWholeSite() async throws {
        let f = try TLSFixture()
        let client = try f.client()
        try Self.seed(f.store)
        let response = try await client.send(
            HTTPRequest(url: URL(string: "\(f.secure("secure.example.org"))/r?csd=\(q("\"cookies\""))")!))
        #expect(response.status == 200)
        #expect(try Echo(response).cookieNames == ["host", "wide"], "the request itself still carried them")
        #expect(try Self.names(f.store) == ["other", "local"])
    }

    @Test func otherDirectivesLeaveCookies() async throws {
        let f = try TLSFixture()
        let client = try f.client()
        try Self.seed(f.store)
        for value in ["\"storage\"", "\"cache\", \"executionContexts\"", "cookies", "\"unknown\""] {
            _ = try await client.send(
                HTTPRequest(url: URL(string: "\(f.secure("secure.example.org"))/r?csd=\(q(value))")!))
            #expect(try Self.names(f.store) == ["host", "www", "wide", "other", "local"], "\(value)")
        }
        _ = try await client.send(
            HTTPRequest(url: URL(string: "\(f.secure("secure.example.org"))/r?csd=\(q("\"storage\", \"*\""))")!))
        #expect(try Self.names(f.store) == ["other", "local"])
    }

    @Test func cookiesSetByTheSameResponseAreClearedToo() async throws {
        let f = try TLSFixture()
        let client = try f.client()
        try Self.seed(f.store)
        // Set-Cookie before and after the Clear-Site-Data field: neither survives (Fetch stores
        // a response's cookies, then Clear Site Data runs on the response).
        let base = "\(f.secure("secure.example.org"))/r?"
        _ = try await client.send(HTTPRequest(url: URL(string: base + "set=new1%3D1&csd=\(q("\"cookies\""))")!))
        _ = try await client.send(
            HTTPRequest(url: URL(string: base + "csd=\(q("\"cookies\""))&header=\(q("Set-Cookie: new2=1"))")!))
        #expect(try Self.names(f.store) == ["other", "local"])
        // The next response's cookies are kept.
        _ = try await client.send(HTTPRequest(url: URL(string: base + "set=after%3D1")!))
        #expect(try Self.names(f.store) == ["other", "local", "after"])
    }

    @Test func onRedirectHopsToo() async throws {
        let f = try TLSFixture()
        let client = try f.client()
        try Self.seed(f.store)
        let final = "\(f.secure("secure.example.org"))/r?final"
        let url = "\(f.secure("www.example.org"))/r?status=302&csd=\(q("\"cookies\""))&location=\(q(final))"
        let response = try await client.send(HTTPRequest(url: URL(string: url)!))
        #expect(response.hops.count == 2)
        #expect(try Echo(response).cookie == nil, "cleared before the next hop")
        #expect(try Self.names(f.store) == ["other", "local"])
    }

    @Test func plainHTTPIsIgnoredExceptFromLocalhost() async throws {
        let f = try TLSFixture()
        let client = try f.client()
        try Self.seed(f.store)
        // plain.example.org resolves to 127.0.0.1 but is not a secure origin.
        _ = try await client.send(HTTPRequest(url: URL(string: "\(f.plain("plain.example.org"))/r?csd=\(q("\"*\""))")!))
        _ = try await client.send(
            HTTPRequest(url: URL(string: "\(f.plain("secure.example.org"))/r?csd=\(q("\"cookies\""))")!))
        #expect(try Self.names(f.store) == ["host", "www", "wide", "other", "local"])
        // localhost counts as secure.
        _ = try await client.send(HTTPRequest(url: URL(string: "\(f.plain("localhost"))/r?csd=\(q("\"cookies\""))")!))
        #expect(try Self.names(f.store) == ["host", "www", "wide", "other"])
        // And the client can be told to ignore the header altogether.
        let ignoring = try f.client { $0.honorsClearSiteData = false }
        _ = try await ignoring.send(
            HTTPRequest(url: URL(string: "\(f.secure("secure.example.org"))/r?csd=\(q("\"*\""))")!))
        #expect(try Self.names(f.store) == ["host", "www", "wide", "other"])
    }
}
