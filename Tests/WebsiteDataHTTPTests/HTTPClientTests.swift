import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

@testable import WebsiteDataHTTP

/// Requests, responses, options and failures against a real loopback f.server.
@Suite(.ownThreads) struct HTTPClientTests {
    @Test func responseHeadersKeepOrderAndDuplicates() async throws {
        let f = try Fixture()
        let client = try f.client()
        let url = URL(string: "\(f.base)/r?header=\(q("X-A: 1"))&header=\(q("x-b: 2"))&header=\(q("X-A: 3"))")!
        let response = try await client.send(HTTPRequest(url: url, headers: [HTTPHeaderField("X-Request", "yes")]))
        #expect(response.status == 200)
        #expect(response.httpVersion == "1.1")
        #expect(response.url == url)
        #expect(response.headers.values(named: "x-a") == ["1", "3"])
        #expect(response.value(forHeader: "X-B") == "2")
        let names = response.headers.map { $0.name.lowercased() }
        #expect(names.firstIndex(of: "x-a")! < names.firstIndex(of: "x-b")!)
        #expect(names.lastIndex(of: "x-a")! > names.firstIndex(of: "x-b")!)
        #expect(response.hops.count == 1)
        let log = try await f.server.requestLog(using: client)
        #expect(log.count == 1)
        #expect(log.first?["host"] as? String == "a.example:\(f.server.port)")
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        let f = try Fixture()
        let client = try f.client()
        for i in 0..<5 {
            _ = try await client.send(HTTPRequest(url: URL(string: "\(f.base)/r?n=\(i)")!))
        }
        // A redirect chain on one origin too.
        _ = try await client.send(HTTPRequest(url: URL(string: "\(f.base)/loop?n=0&stop=3")!))
        let log = try await f.server.requestLog(using: client)
        #expect(log.count == 9)
        #expect(Set(log.compactMap { $0["client_port"] as? Int }).count == 1, "one TCP connection for every request")
    }

    @Test func methodsAndBodiesReachTheServerAsSent() async throws {
        let f = try Fixture()
        let client = try f.client()
        let url = URL(string: "\(f.base)/r")!
        let post = try await client.send(
            HTTPRequest(
                url: url, method: "POST", headers: [HTTPHeaderField("Content-Type", "text/plain")],
                body: Data("hello body".utf8)))
        #expect(try Echo(post).method == "POST")
        #expect(try Echo(post).body == "hello body")
        #expect(try Echo(post)["content_type"] == "text/plain")
        #expect(try Echo(post)["expect"] == nil)

        let put = try await client.send(HTTPRequest(url: url, method: "put", body: Data("{}".utf8)))
        #expect(try Echo(put).method == "PUT")
        #expect(try Echo(put).body == "{}")
        #expect(try Echo(put)["content_type"] == nil, "no Content-Type is invented for a body")

        let delete = try await client.send(HTTPRequest(url: url, method: "DELETE"))
        #expect(try Echo(delete).method == "DELETE")
        #expect(try Echo(delete).body == "")

        let patch = try await client.send(HTTPRequest(url: url, method: "PATCH", body: Data("p".utf8)))
        #expect(try Echo(patch).method == "PATCH")

        let emptyPost = try await client.send(HTTPRequest(url: url, method: "POST"))
        #expect(try Echo(emptyPost)["content_length"] == "0")

        let head = try await client.send(HTTPRequest(url: url, method: "HEAD"))
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(Int(head.value(forHeader: "Content-Length") ?? "") ?? 0 > 0)

        let big = Data((0..<300_000).map { UInt8($0 % 256) })
        let large = try await client.send(HTTPRequest(url: url, method: "POST", body: big))
        #expect(try Echo(large)["content_length"] == "300000")
        #expect(try Echo(large)["expect"] == nil)

        let log = try await f.server.requestLog(using: client)
        #expect(
            log.compactMap { $0["method"] as? String } == ["POST", "PUT", "DELETE", "PATCH", "POST", "HEAD", "POST"])
    }

    @Test func userAgentCredentialsAndCompression() async throws {
        let f = try Fixture()
        let client = try f.client {
            $0.userAgent = "wkstore-test/1.0"
            $0.acceptsCompressedResponses = true
        }
        var request = HTTPRequest(url: URL(string: "\(f.base)/gzip")!)
        request.credentials = HTTPCredentials("alice:s3cret:with:colons")
        let response = try await client.send(request)
        #expect(response.value(forHeader: "X-Was-Compressed") == "1")
        #expect(response.value(forHeader: "Content-Encoding") == "gzip")
        let echo = try Echo(response) // decoded by libcurl, so it parses as JSON
        #expect(echo["user_agent"] == "wkstore-test/1.0")
        #expect(echo["authorization"] == "Basic " + Data("alice:s3cret:with:colons".utf8).base64EncodedString())
        #expect(echo["accept_encoding"]?.contains("gzip") == true)

        let plain = try await f.client().send(HTTPRequest(url: URL(string: "\(f.base)/gzip")!))
        #expect(plain.value(forHeader: "X-Was-Compressed") == "0")
        #expect(try Echo(plain)["user_agent"] == nil)
        #expect(try Echo(plain)["authorization"] == nil)
    }

    /// The store's network identity fills what the client's configuration leaves `nil`; the
    /// configuration, then a request's own header fields, take precedence.
    @Test func theStoresNetworkIdentityIsUsedUnlessTheConfigurationOrRequestSaysOtherwise() async throws {
        let f = try Fixture()
        try f.store.set(.httpUserAgent, to: "fleet/1")
        try f.store.set(.httpAcceptLanguage, to: "de-DE,de;q=0.9")
        #expect(
            try f.store.networkIdentity() == NetworkIdentity(userAgent: "fleet/1", acceptLanguage: "de-DE,de;q=0.9"))
        let client = try f.client()
        #expect(client.configuration.userAgent == "fleet/1")
        let echo = try Echo(try await client.get(URL(string: "\(f.base)/r")!))
        #expect(echo["user_agent"] == "fleet/1")
        #expect(echo["accept_language"] == "de-DE,de;q=0.9")
        var request = HTTPRequest(url: URL(string: "\(f.base)/r")!)
        request.headers.append(HTTPHeaderField("Accept-Language", "fr"))
        request.headers.append(HTTPHeaderField("User-Agent", "own/9"))
        let own = try Echo(try await client.send(request))
        #expect(own["accept_language"] == "fr" && own["user_agent"] == "own/9")
        let configured = try f.client {
            $0.userAgent = ""
            $0.acceptLanguage = "ja"
        }
        let plain = try Echo(try await configured.get(URL(string: "\(f.base)/r")!))
        #expect(plain["user_agent"] == nil && plain["accept_language"] == "ja")

        // The proxy: the loopback server, acting as one, receives the absolute URL.
        try f.store.set(.httpProxy, to: "http://127.0.0.1:\(f.server.port)")
        let proxied = try HTTPClient(store: f.store)
        #expect(proxied.configuration.proxy == "http://127.0.0.1:\(f.server.port)")
        let response = try await proxied.get(URL(string: "http://through.example/r?p=1")!)
        #expect(try Echo(response)["target"] == "http://through.example/r?p=1")
        try f.store.set(.httpProxy, to: "direct")
        #expect(try HTTPClient(store: f.store).configuration.proxy == "")
        #expect(
            try HTTPClient(store: f.store, configuration: HTTPClientConfiguration(proxy: "http://p.example:1"))
                .configuration.proxy == "http://p.example:1")

        // Values no request could carry are refused, and the settings stay as they were.
        for (setting, value) in [
            (StoreSetting.httpProxy, "ftp://files.example"), (.httpProxy, "proxy.example:3128"),
            (.httpUserAgent, "a\r\nX-Injected: 1"), (.httpAcceptLanguage, "en\u{0}"),
        ] {
            #expect(throws: StoreError.self, "\(setting) = \(value)") { try f.store.set(setting, to: value) }
        }
        #expect(
            try f.store.networkIdentity()
                == NetworkIdentity(proxy: "", userAgent: "fleet/1", acceptLanguage: "de-DE,de;q=0.9"))
    }

    @Test func streamsTheFinalBodyToAFile() async throws {
        let f = try Fixture()
        let client = try f.client()
        let size = 3_000_000
        let file = f.directory.url.appendingPathComponent("body.bin")
        try Data("old content".utf8).write(to: file)
        let seen = Locked<(calls: Int, received: Int64)>((0, 0))
        // A redirect first: only the final body may reach the file.
        var request = HTTPRequest(url: URL(string: "\(f.base)/r?status=302&location=\(q("/bytes?n=\(size)"))")!)
        request.destination = file
        request.progress = { progress in seen.withLock { $0 = ($0.calls + 1, max($0.received, progress.received)) } }
        let response = try await client.send(request)
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.bodyFile == file)
        #expect(response.hops.map(\.status) == [302, 200])
        let written = try Data(contentsOf: file)
        #expect(written.count == size)
        let pattern = Data((0..<251).map { UInt8($0) })
        #expect(written.prefix(251) == pattern)
        #expect(written.suffix(from: size - size % 251) == pattern.prefix(size % 251))
        let progress = seen.withLock { $0 }
        #expect(progress.calls > 0)
        #expect(progress.received == Int64(size))

        let empty = f.directory.url.appendingPathComponent("empty.bin")
        var emptyRequest = HTTPRequest(url: URL(string: "\(f.base)/bytes?n=0")!)
        emptyRequest.destination = empty
        _ = try await client.send(emptyRequest)
        #expect(try Data(contentsOf: empty).isEmpty)

        var unwritable = HTTPRequest(url: URL(string: "\(f.base)/bytes?n=10")!)
        unwritable.destination = f.directory.url.appendingPathComponent("no/such/dir/file")
        await #expect(throws: HTTPClientError.self) { try await client.send(unwritable) }
    }

    @Test func failuresAreCurlErrors() async throws {
        let f = try Fixture()
        let client = try f.client()
        let closed = try LoopbackServer(in: f.directory.url)
        let closedPort = closed.port
        closed.stop()
        let refused = await #expect(throws: CurlError.self) {
            try await client.send(HTTPRequest(url: URL(string: "http://127.0.0.1:\(closedPort)/")!))
        }
        #expect(refused?.code == CurlError.couldNotConnect)
        #expect(refused?.message.contains("127.0.0.1") == true)

        let unresolved = await #expect(throws: CurlError.self) {
            try await client.send(HTTPRequest(url: URL(string: "http://no-such-host.invalid:\(f.server.port)/")!))
        }
        #expect(unresolved?.code == CurlError.couldNotResolveHost)

        var slow = HTTPRequest(url: URL(string: "\(f.base)/slow?s=5")!)
        slow.timeout = 0.3
        let timedOut = await #expect(throws: CurlError.self) { try await client.send(slow) }
        #expect(timedOut?.code == CurlError.operationTimedOut)

        let invalid = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPRequest(url: URL(string: "ftp://a.example/file")!))
        }
        #expect(invalid?.kind == .invalidRequest)

        let badHeader = await #expect(throws: HTTPClientError.self) {
            try await client.send(
                HTTPRequest(url: URL(string: "\(f.base)/r")!, headers: [HTTPHeaderField("X-Bad", "a\r\nInjected: yes")])
            )
        }
        #expect(badHeader?.kind == .invalidRequest)
    }

    @Test func aTimeLimitOfZeroStartsNoTransfer() async throws {
        let f = try Fixture()
        let client = try f.client()
        var request = HTTPRequest(url: URL(string: "\(f.base)/r")!)
        request.timeout = 0
        let error = await #expect(throws: CurlError.self) { try await client.send(request) }
        #expect(error?.code == CurlError.operationTimedOut)
        #expect(try await f.server.requestLog(using: client).isEmpty)
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        let f = try Fixture()
        let client = try f.client()
        let task = Task { [client, base = f.base] in
            try await client.send(HTTPRequest(url: URL(string: "\(base)/slow?s=30")!))
        }
        // Wait until the server has the request, so the transfer is really in flight.
        while try await f.server.requestLog(using: client).isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // The client still works afterwards.
        #expect(try await client.send(HTTPRequest(url: URL(string: "\(f.base)/r")!)).status == 200)
    }

    @Test func proxyOptionSendsRequestsThroughTheProxy() async throws {
        let f = try Fixture()
        // The loopback server plays the proxy: it sees the absolute-form target and answers itself.
        let client = try HTTPClient(
            store: f.store, configuration: HTTPClientConfiguration(proxy: "http://127.0.0.1:\(f.server.port)"))
        let response = try await client.send(
            HTTPRequest(url: URL(string: "http://origin.example/r?set=\(q("via=proxy"))")!))
        #expect(response.status == 200)
        #expect(try Echo(response)["target"] == "http://origin.example/r?set=via%3Dproxy")
        #expect(try Echo(response)["host"] == "origin.example")
        #expect(try f.store.httpCookieStore.cookieHeader(for: URL(string: "http://origin.example/")!) == "via=proxy")
    }
}
