import Foundation
import Testing
import WebsiteData
import WebsiteDataHTTP
import WebsiteDataTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The URLSession recipe of Docs/http.md, as written there.

/// Keeps a `URLSession`'s cookies in a wkstore `HTTPCookieStore`: stores each redirect's
/// `Set-Cookie` fields and gives the next request the store's `Cookie` header, with the
/// same-site rules of a redirect chain (a navigation that crossed sites gets no Strict cookies).
final class StoreCookieDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    let cookies: HTTPCookieStore
    /// The chain of each task being redirected (kept with the task, to forget finished ones).
    let chains = Locked<[Int: (chain: CookieRequestChain, task: URLSessionTask)]>([:])

    init(cookies: HTTPCookieStore) { self.cookies = cookies }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        do {
            // The redirect's own cookies, as received from its URL (a navigation).
            try cookies.setCookies(from: response)
            let context = chains.withLock { chains in
                // Foundation on Linux does not always report completion: forget finished tasks here.
                chains = chains.filter { $0.value.task.state == .running }
                var chain = chains[task.taskIdentifier]?.chain ?? CookieRequestChain()
                if chains[task.taskIdentifier] == nil, let first = task.originalRequest?.url {
                    _ = chain.next(first, method: task.originalRequest?.httpMethod ?? "GET")
                }
                let context = chain.next(request.url!, method: request.httpMethod ?? "GET")
                chains[task.taskIdentifier] = (chain, task)
                return context
            }
            var next = request
            try next.setCookieHeader(from: cookies, context: context) // replaces the previous hop's
            completionHandler(next)
        } catch {
            completionHandler(nil) // the store failed: stop rather than send the wrong cookies
        }
    }
}

@Suite(.ownThreads) struct URLSessionRecipeTests {
    @Test func urlSessionKeepsCookiesInTheStore() async throws {
        let f = try Fixture()
        let store = f.store
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.connectionProxyDictionary = [:]
        let delegate = StoreCookieDelegate(cookies: store.httpCookieStore)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }

        try store.httpCookieStore.setCookie(Cookie(name: "pre", value: "0", domain: "127.0.0.1"))
        let port = f.server.port
        let final = "http://127.0.0.1:\(port)/r?final&set=\(q("last=3"))"
        let second = "http://127.0.0.1:\(port)/r?status=302&set=\(q("b=2; Path=/"))&location=\(q(final))"
        let first =
            "http://127.0.0.1:\(port)/r?status=302&set=\(q("a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT"))&set=\(q("a2=1"))&location=\(q(second))"
        var request = URLRequest(url: URL(string: first)!)
        try request.setCookieHeader(from: store.httpCookieStore)
        let (data, urlResponse) = try await session.data(for: request)
        let response = urlResponse as! HTTPURLResponse
        try store.httpCookieStore.setCookies(from: response)
        #expect(response.statusCode == 200)
        let echo = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(echo?["cookie"] as? String == "pre=0; a=1; a2=1; b=2")
        let log =
            try JSONSerialization.jsonObject(
                with: try await session.data(from: URL(string: "http://127.0.0.1:\(port)/_log")!).0) as? [[String: Any]]
        #expect(log?.map { $0["cookie"] as? String } == ["pre=0", "pre=0; a=1; a2=1", "pre=0; a=1; a2=1; b=2"])
        let names = Set(try store.httpCookieStore.allCookies().map(\.name))
        #expect(names == ["pre", "a", "a2", "b", "last"])
        #expect(try store.httpCookieStore.allCookies().first { $0.name == "a" }?.expires != nil)
        // A second redirected task forgets the first, finished one.
        _ = try await session.data(for: URLRequest(url: URL(string: "http://127.0.0.1:\(port)/loop?n=0&stop=1")!))
        #expect(delegate.chains.withLock { $0.count } == 1)
    }

    @Test func combinedSetCookieValuesSplitBack() {
        #expect(
            HTTPCookieStore.splitCombinedSetCookie(
                "a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/, b=2, c=3; expires = Thu, 01 Jan 2037 00:00:00 GMT")
                == [
                    "a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/", "b=2",
                    "c=3; expires = Thu, 01 Jan 2037 00:00:00 GMT",
                ])
        #expect(HTTPCookieStore.splitCombinedSetCookie("only=1") == ["only=1"])
        #expect(HTTPCookieStore.splitCombinedSetCookie("").isEmpty)
    }
}
