import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

@testable import WebsiteDataHTTP

/// Redirects followed by the client itself: cookies read and written on every hop, method and
/// body rules, the limit, and what is dropped when the chain leaves its first origin.
@Suite(.ownThreads) struct RedirectTests {
    /// `/r` that answers `status` with a `Location` of `location`, setting `cookies`.
    static func hop(_ origin: String, status: Int = 302, to location: String? = nil, setting cookies: [String] = [])
        -> String
    {
        var url = "\(origin)/r?status=\(status)"
        for cookie in cookies { url += "&set=\(q(cookie))" }
        if let location { url += "&location=\(q(location))" }
        return url
    }

    @Test func cookiesAreReadAndWrittenOnEveryHopAcrossHosts() async throws {
        let f = try Fixture()
        let client = try f.client()
        try f.store.httpCookieStore.setCookie(Cookie(name: "pre", value: "b", domain: "b.example"))
        let a = f.origin("a.example")
        let b = f.origin("b.example")
        let c = f.origin("c.example")
        // a (sets ca) -> b (sets cb) -> c (sets cc) -> a, final.
        let final = "\(a)/r?final"
        let url = Self.hop(
            a,
            to: Self.hop(
                b, status: 301, to: Self.hop(c, status: 307, to: final, setting: ["cc=3"]), setting: ["cb=2; Path=/"]),
            setting: ["ca=1", "ca_path=x; Path=/elsewhere"])
        let response = try await client.send(HTTPRequest(url: URL(string: url)!))
        #expect(response.status == 200)
        #expect(response.url.absoluteString == final)
        #expect(response.hops.map(\.status) == [302, 301, 307, 200])
        #expect(response.hops.map { $0.url.host() } == ["a.example", "b.example", "c.example", "a.example"])
        #expect(response.hops[1].headers.values(named: "Set-Cookie") == ["cb=2; Path=/"])

        let log = try await f.server.requestLog(using: client)
        #expect(log.map { $0["cookie"] as? String } == [nil, "pre=b", nil, "ca=1"])
        // Cookies set on the redirects are kept.
        let cookies = try f.store.httpCookieStore.allCookies()
        #expect(Set(cookies.map(\.name)) == ["pre", "ca", "ca_path", "cb", "cc"])
        #expect(try f.store.httpCookieStore.cookieHeader(for: URL(string: "\(b)/")!) == "pre=b; cb=2")
    }

    @Test func methodAndBodyRulesPerStatus() async throws {
        let f = try Fixture()
        let client = try f.client()
        // (status, method sent, method expected at the target, body kept)
        let cases: [(Int, String, String, Bool)] = [
            (301, "POST", "GET", false), (302, "POST", "GET", false), (303, "POST", "GET", false),
            (301, "PUT", "PUT", true), (302, "DELETE", "DELETE", true), (303, "PUT", "GET", false),
            (303, "HEAD", "HEAD", false), (303, "GET", "GET", false),
            (307, "POST", "POST", true), (308, "POST", "POST", true), (308, "PUT", "PUT", true),
            (307, "PATCH", "PATCH", true),
        ]
        for (index, (status, method, expected, _)) in cases.enumerated() {
            let target = "/r?case=\(index)"
            let hasBody = method != "HEAD" && method != "GET"
            let request = HTTPRequest(
                url: URL(string: Self.hop(f.base, status: status, to: target))!, method: method,
                headers: [HTTPHeaderField("Content-Type", "text/plain"), HTTPHeaderField("X-Keep", "yes")],
                body: hasBody ? Data("payload-\(index)".utf8) : nil)
            let response = try await client.send(request)
            #expect(response.status == 200)
            #expect(response.hops.map(\.method) == [method, expected])
        }
        let log = try await f.server.requestLog(using: client)
        let targets = LoopbackServer.entries(log, path: "/r").filter {
            ($0["query"] as? String)?.hasPrefix("case=") == true
        }
        #expect(targets.count == cases.count)
        for (entry, (status, method, expected, keepsBody)) in zip(targets, cases) {
            let label = "\(status) \(method)"
            #expect(entry["method"] as? String == expected, "\(label)")
            let hasBody = method != "HEAD" && method != "GET"
            if keepsBody && hasBody {
                #expect((entry["body"] as? String)?.hasPrefix("payload-") == true, "\(label)")
                #expect(entry["content_type"] as? String == "text/plain", "\(label)")
            } else if method != expected {
                // Turned into GET: the body and the fields describing it are gone.
                #expect(entry["body"] as? String == "", "\(label)")
                #expect(entry["content_type"] as? String == nil, "\(label)")
                #expect(entry["content_length"] as? String == nil, "\(label)")
            } else {
                // Never had a body (303 keeps GET and HEAD as they are, header fields included).
                #expect(entry["body"] as? String == "", "\(label)")
                #expect(entry["content_type"] as? String == "text/plain", "\(label)")
            }
        }
    }

    @Test func redirectLimit() async throws {
        let f = try Fixture()
        let client = try f.client { $0.maxRedirects = 5 }
        // Exactly five redirects are allowed…
        let five = try await client.send(HTTPRequest(url: URL(string: "\(f.base)/loop?n=0&stop=5")!))
        #expect(five.status == 200)
        #expect(five.hops.count == 6)
        // …a sixth is an error.
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPRequest(url: URL(string: "\(f.base)/loop?n=0&stop=6")!))
        }
        #expect(error?.kind == .tooManyRedirects)
        // The default limit is 20; a request may lower it.
        var request = HTTPRequest(url: URL(string: "\(f.base)/loop?n=0")!)
        request.maxRedirects = 2
        let lowered = await #expect(throws: HTTPClientError.self) { try await client.send(request) }
        #expect(lowered?.kind == .tooManyRedirects)
        let unlimited = try f.client()
        let endless = await #expect(throws: HTTPClientError.self) {
            try await unlimited.send(HTTPRequest(url: URL(string: "\(f.base)/loop?n=0")!))
        }
        #expect(endless?.kind == .tooManyRedirects)
        let log = try await f.server.requestLog(using: client)
        let loopRequests = LoopbackServer.entries(log, path: "/loop").count
        // 6 (five redirects then 200) + 6 (the sixth redirect fails) + 3 + 21.
        #expect(loopRequests == 36)
        // Not following redirects returns the redirect itself.
        var manual = HTTPRequest(url: URL(string: "\(f.base)/loop?n=0")!)
        manual.followsRedirects = false
        let first = try await client.send(manual)
        #expect(first.status == 302)
        #expect(first.value(forHeader: "Location") == "/loop?n=1&stop=1000000")
    }

    @Test func relativeAndSchemeRelativeLocations() async throws {
        let f = try Fixture()
        let client = try f.client()
        let b = f.origin("b.example")
        let schemeRelative = "//b.example:\(f.server.port)/r?scheme-relative"
        let start = Self.hop(f.base, to: "r?status=303&location=\(q(schemeRelative))")
        let response = try await client.send(
            HTTPRequest(url: URL(string: start)!, method: "POST", body: Data("x".utf8)))
        #expect(response.url.absoluteString == "\(b)/r?scheme-relative")
        #expect(response.hops.count == 3)
        #expect(response.hops[1].url.absoluteString.hasPrefix("\(f.base)/r?status=303"))

        let bad = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPRequest(url: URL(string: Self.hop(f.base, to: "ftp://a.example/file"))!))
        }
        #expect(bad?.kind == .invalidRedirect)
    }

    @Test func authorizationCredentialsAndOwnCookieStayOnTheFirstOrigin() async throws {
        let f = try Fixture()
        let client = try f.client()
        try f.store.httpCookieStore.setCookie(Cookie(name: "stored", value: "1", domain: "a.example"))
        let a = f.base
        let b = f.origin("b.example")
        let url = Self.hop(a, to: Self.hop(a, to: Self.hop(b, to: "\(a)/r?back")))
        var request = HTTPRequest(
            url: URL(string: url)!,
            headers: [
                HTTPHeaderField("Authorization", "Bearer token"),
                HTTPHeaderField("Cookie", "own=2"),
                HTTPHeaderField("X-Other", "kept"),
            ])
        request.credentials = HTTPCredentials(user: "u", password: "p")
        _ = try await client.send(request)
        let log = try await f.server.requestLog(using: client)
        #expect(log.count == 4)
        // The store's cookies first, then the caller's own, while on the first origin.
        #expect(log.map { $0["cookie"] as? String } == ["stored=1; own=2", "stored=1; own=2", nil, "stored=1"])
        #expect(log.map { $0["authorization"] as? String } == ["Bearer token", "Bearer token", nil, nil])
        let withCredentials = try f.client()
        var basic = HTTPRequest(url: URL(string: Self.hop(a, to: Self.hop(b, to: "\(a)/r?back2")))!)
        basic.credentials = HTTPCredentials(user: "u", password: "p")
        _ = try await withCredentials.send(basic)
        let log2 = try await f.server.requestLog(using: client).suffix(3)
        #expect(log2.map { $0["authorization"] as? String } == ["Basic dTpw", nil, nil])
    }

    @Test func secureCookiesGoOverPlainHTTPOnlyToLocalhost() async throws {
        let f = try Fixture()
        let client = try f.client()
        let cookies = f.store.httpCookieStore
        try cookies.setCookie(Cookie(name: "sec", value: "1", domain: "plain.example.org", isSecure: true))
        try cookies.setCookie(Cookie(name: "plain", value: "1", domain: "plain.example.org"))
        try cookies.setCookie(Cookie(name: "sec", value: "local", domain: "localhost", isSecure: true))
        let plain = try await client.send(HTTPRequest(url: URL(string: "\(f.origin("plain.example.org"))/r")!))
        #expect(try Echo(plain).cookie == "plain=1")
        let local = try await client.send(HTTPRequest(url: URL(string: "\(f.origin("localhost"))/r")!))
        #expect(try Echo(local).cookie == "sec=local")
        // Set over plain HTTP: refused from a host name, accepted from localhost.
        _ = try await client.send(
            HTTPRequest(url: URL(string: "\(f.origin("plain.example.org"))/r?set=\(q("s2=1; Secure"))")!))
        _ = try await client.send(HTTPRequest(url: URL(string: "\(f.origin("localhost"))/r?set=\(q("s2=1; Secure"))")!))
        #expect(try cookies.cookies(forSite: "example.org").map(\.name).sorted() == ["plain", "sec"])
        #expect(try cookies.cookies(forSite: "localhost").map(\.name).sorted() == ["s2", "sec"])
    }
}

/// The redirect rules as pure functions.
@Suite(.ownThreads) struct RedirectRuleTests {
    @Test func locationsResolveAgainstTheHop() throws {
        let base = URL(string: "http://a.example/dir/page?x=1#frag")!
        #expect(
            try HTTPRedirect.target(of: "other", relativeTo: base).absoluteString == "http://a.example/dir/other#frag")
        #expect(
            try HTTPRedirect.target(of: "/top?y#own", relativeTo: base).absoluteString == "http://a.example/top?y#own")
        #expect(
            try HTTPRedirect.target(of: "//b.example/p", relativeTo: base).absoluteString == "http://b.example/p#frag")
        #expect(try HTTPRedirect.target(of: "HTTPS://C.example:8443/", relativeTo: base).host() == "C.example")
        #expect(throws: HTTPClientError.self) { try HTTPRedirect.target(of: "javascript:alert(1)", relativeTo: base) }
        #expect(throws: HTTPClientError.self) { try HTTPRedirect.target(of: "file:///etc/passwd", relativeTo: base) }
    }

    @Test func originsCompareSchemeHostAndPort() {
        let a = URL(string: "http://a.example/x")!
        #expect(HTTPRedirect.isSameOrigin(a, URL(string: "http://A.example:80/y")!))
        #expect(!HTTPRedirect.isSameOrigin(a, URL(string: "https://a.example/x")!))
        #expect(!HTTPRedirect.isSameOrigin(a, URL(string: "http://a.example:8080/x")!))
        #expect(!HTTPRedirect.isSameOrigin(a, URL(string: "http://b.a.example/x")!))
    }

    @Test func methodRules() {
        #expect(HTTPRedirect.nextMethod(after: 302, method: "POST") == ("GET", true))
        #expect(HTTPRedirect.nextMethod(after: 302, method: "PUT") == ("PUT", false))
        #expect(HTTPRedirect.nextMethod(after: 303, method: "DELETE") == ("GET", true))
        #expect(HTTPRedirect.nextMethod(after: 303, method: "HEAD") == ("HEAD", false))
        #expect(HTTPRedirect.nextMethod(after: 307, method: "POST") == ("POST", false))
        #expect(
            [300, 301, 302, 303, 304, 305, 306, 307, 308].filter(HTTPRedirect.isRedirect) == [301, 302, 303, 307, 308])
    }
}
