import Foundation
import WebsiteData
import WebsiteDataHTTP

/// Section 6: requests per second through `WebsiteDataHTTP` against a loopback server, with the
/// big store (100,000 cookies) and with an empty store, interleaved in one run. The difference
/// is what the cookie work (a `Cookie` header per request, the store's lookups) costs.
enum HTTPBench {
    /// The loopback server: one Python thread answering every request of every keep-alive
    /// connection from a `selectors` loop with the same small response. Not a thread per
    /// connection (`http.server` with `ThreadingMixIn`): its threads contend for Python's lock,
    /// and the rates then swing by about 15% from pass to pass; one thread holds them within a
    /// few percent.
    static let server = #"""
        import os, selectors, socket, sys, threading
        # Arguments: the Cache-Control value and the body's size (default no-store, "ok").
        CONTROL = sys.argv[1] if len(sys.argv) > 1 else "no-store"
        BODY = b"x" * int(sys.argv[2]) if len(sys.argv) > 2 else b"ok"
        RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nCache-Control: %s\r\n\r\n" % (len(BODY), CONTROL.encode()) + BODY
        selector = selectors.DefaultSelector()
        listener = socket.create_server(("127.0.0.1", 0), backlog=128)
        listener.setblocking(False)
        print(listener.getsockname()[1], flush=True)
        pending = {}
        def accept(sock):
            conn, _ = sock.accept()
            conn.setblocking(False)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            pending[conn] = b""
            selector.register(conn, selectors.EVENT_READ, serve)
        def serve(conn):
            try:
                data = conn.recv(65536)
            except ConnectionError:
                data = b""
            if not data:
                selector.unregister(conn)
                pending.pop(conn, None)
                conn.close()
                return
            buffered, answers = pending[conn] + data, b""
            while (end := buffered.find(b"\r\n\r\n")) >= 0:
                buffered, answers = buffered[end + 4:], answers + RESPONSE
            pending[conn] = buffered
            if answers:
                conn.setblocking(True)
                conn.sendall(answers)
                conn.setblocking(False)
        selector.register(listener, selectors.EVENT_READ, accept)
        threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
        while True:
            for key, _ in selector.select():
                key.data(key.fileobj)
        """#

    /// Each pass is sent in this many parts, interleaved with the other passes' parts.
    static let chunksPerPass = 10

    static func run(_ context: Context) throws -> Table {
        let config = context.config
        let requests = config.quick ? 300 : 5_000
        let rounds = config.quick ? 2 : 8
        var table = Table("http: requests per second through WebsiteDataHTTP to a loopback server (higher is better)")
        let big = try context.persistentBigStore()
        let emptyScratch = ScratchDirectory("http-empty")
        let urls = httpURLs(context.dataset(config.big).lookups.prefix(requests))

        // The server is a forward proxy: the client sends every URL's host to it.
        let server = try LoopbackServer()
        defer { server.stop() }
        let port = server.port
        let configuration = HTTPClientConfiguration(timeout: 30, proxy: "http://127.0.0.1:\(port)", usesCache: false)
        let full = try WebsiteDataStore(directory: big)
        let empty = try WebsiteDataStore(directory: emptyScratch.url.appendingPathComponent("store"))
        let fullClient = try HTTPClient(store: full, configuration: configuration)
        let emptyClient = try HTTPClient(store: empty, configuration: configuration)
        let sent = try cookiesSent(full, urls)
        let plain = urls.map { HTTPRequest(url: $0) }
        let given = try Self.requests(urls, givenTheHeadersOf: full)

        progress(
            "http: \(rounds) rounds of \(requests.grouped) requests (8 at a time): empty store, empty store given the headers, \(config.big.cookies.grouped)-cookie store, interleaved"
        )
        // Warm up the clients (connections, the server, page cache).
        try send(Array(plain.prefix(200)), with: emptyClient)
        try send(Array(given.prefix(200)), with: emptyClient)
        try send(Array(plain.prefix(200)), with: fullClient)
        var none = Runs()
        var withHeaders = Runs()
        var store = Runs()
        var headerTimes: [Double] = []
        var headerShares: [Double] = []
        let chunk = max(1, requests / Self.chunksPerPass)
        // The three passes: through the empty store, through it given the full store's headers,
        // through the full store.
        let passes: [(requests: [HTTPRequest], client: HTTPClient)] = [
            (plain, emptyClient), (given, emptyClient), (plain, fullClient),
        ]
        for round in 0..<rounds {
            // Each round's three passes are compared with one another. They are sent a tenth at
            // a time, interleaved (the three tenths in the reverse order every other time), so
            // that a machine slowing or speeding up within a round favours none of them: passes
            // sent whole, one after another, differed by tens of percent within a round.
            var parts = [Runs.Part(), Runs.Part(), Runs.Part()]
            for (c, start) in stride(from: 0, to: plain.count, by: chunk).enumerated() {
                let range = start..<min(start + chunk, plain.count)
                let order = (round + c) % 2 == 0 ? [0, 1, 2] : [2, 1, 0]
                for kind in order { try parts[kind].send(Array(passes[kind].requests[range]), passes[kind].client) }
            }
            none.add(parts[0])
            withHeaders.add(parts[1])
            store.add(parts[2])
            // The cookie work alone, right after the round's requests it is compared with: the
            // Cookie header of every hop, as HTTPClient asks for it (a top-level navigation whose
            // top-level site is the hop's URL), in thread CPU time as the lookup section times.
            let start = threadCPUTime()
            try lookupsAsHTTPClientAsks(urls, full.httpCookieStore)
            let headerTime = Double(threadCPUTime() - start) / Double(urls.count)
            headerTimes.append(headerTime)
            headerShares.append(headerTime / (1e9 / store.rates.last!))
        }
        let cookies = config.big.cookies.grouped
        // Every cost is the median of the rounds' own: a round's three passes run within a
        // second or two of one another, where passes of different rounds differ by a third on
        // this machine.
        let carried = median(withHeaders.costs(against: none))
        table.add(
            "empty store given the \(cookies)-cookie store's Cookie headers vs without",
            ours: Format.rate(withHeaders.rate), peer: Format.rate(none.rate),
            ratio: Format.fixed(carried * 100, 1) + "% cost", target: "(sending the cookies)", met: "-")
        let total = median(store.costs(against: none))
        table.add(
            "ours with \(cookies) cookies vs the same requests with an empty store",
            ours: Format.rate(store.rate), peer: Format.rate(none.rate),
            ratio: Format.fixed(total * 100, 1) + "% cost", target: "(reported)", met: "-")
        let costs = store.costs(against: withHeaders)
        let cost = median(costs)
        table.add(
            "ours with \(cookies) cookies vs an empty store given the same headers",
            ours: Format.rate(store.rate), peer: Format.rate(withHeaders.rate),
            ratio: Format.fixed(cost * 100, 1) + "% cost", target: "< 5% cost", met: Format.met(cost < 0.05))
        // The client's own CPU per request (the server is another process): what the store's
        // work adds to it, against the time a request with the same headers takes.
        let shares = store.extraCPUShares(over: withHeaders)
        let share = median(shares)
        table.add(
            "client CPU per request: ours with the cookies vs empty store given the headers",
            ours: Format.perOp(store.cpu), peer: Format.perOp(withHeaders.cpu),
            ratio: Format.fixed(share * 100, 1) + "% of a request", target: "< 5%", met: Format.met(share < 0.05))
        // Each round's cookie work against that round's request time; the median of the shares.
        let headerShare = median(headerShares)
        table.add(
            "cookie work per request (the Cookie header from \(cookies) cookies) vs a request",
            ours: Format.perOp(median(headerTimes)), peer: Format.perOp(1e9 / store.rate),
            ratio: Format.fixed(headerShare * 100, 1) + "% of a request", target: "< 5%",
            met: Format.met(headerShare < 0.05))
        table.note(
            "cookie work: the \(requests.grouped) URLs' Cookie headers after each round, thread CPU time per header; the share is the median of the rounds' \(Self.percents(headerShares))"
        )
        table.note(
            "costs are medians of the \(rounds) rounds' own: ours vs given the headers \(Self.percents(costs)); client CPU \(Self.percents(shares))"
        )
        table.note(
            "rates are medians of \(rounds) rounds of the three passes, each sent in \(Self.chunksPerPass) parts of \(chunk.grouped), interleaved, in reverse order every other part (ours: \(store.list); given the headers: \(withHeaders.list); empty: \(none.list)); the \(requests.grouped) URLs are the lookup set's, as http, sent through the server as a proxy; the full store sent \(sent.grouped) cookies in all, the same as the requests given the headers; client CPU is the process's, per request, median of the passes"
        )
        return table
    }

    /// `values` as percentages, in order.
    static func percents(_ values: [Double]) -> String {
        "(" + values.map { Format.fixed($0 * 100, 1) + "%" }.joined(separator: ", ") + ")"
    }

    /// The passes of one kind of request: their rates and the client's CPU time per request.
    struct Runs {
        var rates: [Double] = []
        var cpus: [Double] = []
        var rate: Double { median(rates) }
        var cpu: Double { median(cpus) }
        var list: String { rates.map { Format.rate($0) }.joined(separator: ", ") }

        /// Each round's cost of these requests against `other`'s: 1 - this rate / that rate.
        func costs(against other: Runs) -> [Double] {
            zip(rates, other.rates).map { 1 - $0 / $1 }
        }

        /// Each round's client CPU per request beyond `other`'s, as a share of `other`'s time
        /// per request.
        func extraCPUShares(over other: Runs) -> [Double] {
            other.rates.indices.map { i in (cpus[i] - other.cpus[i]) / (1e9 / other.rates[i]) }
        }

        /// One round's pass, sent in parts: the requests sent, their wall time and the process's
        /// CPU time while they were sent.
        struct Part {
            var requests = 0
            var nanoseconds = 0.0
            var cpu: UInt64 = 0

            mutating func send(_ batch: [HTTPRequest], _ client: HTTPClient) throws {
                let start = processCPUTime()
                nanoseconds += try measure { try HTTPBench.send(batch, with: client) }
                cpu += processCPUTime() - start
                requests += batch.count
            }
        }

        /// Adds a round's pass.
        mutating func add(_ part: Part) {
            rates.append(Double(part.requests) / (part.nanoseconds / 1e9))
            cpus.append(Double(part.cpu) / Double(part.requests))
        }
    }

    /// The context `HTTPClient` reads a request's `Cookie` header in: a top-level navigation
    /// whose top-level site is the URL itself.
    static func asHTTPClientAsks(_ url: URL) -> CookieRequestContext {
        CookieRequestContext(topLevelSite: url, method: "GET", isNavigation: true)
    }

    /// The `Cookie` header of each URL as `HTTPClient` asks for it.
    static func lookupsAsHTTPClientAsks(_ urls: [URL], _ engine: HTTPCookieStore) throws {
        for url in urls { keep(try engine.cookieHeader(for: url, context: asHTTPClientAsks(url))) }
    }

    /// Requests for `urls` carrying, as their own field, the `Cookie` header `store` sends for
    /// each: what sending those cookies costs the client, libcurl, the kernel and the server,
    /// without the store's work.
    static func requests(_ urls: [URL], givenTheHeadersOf store: WebsiteDataStore) throws -> [HTTPRequest] {
        try urls.map { url in
            HTTPRequest(
                url: url,
                headers: try store.httpCookieStore.cookieHeader(for: url, context: asHTTPClientAsks(url))
                    .map { [HTTPHeaderField("Cookie", $0)] } ?? [])
        }
    }

    /// Sends every request, 8 at a time, and waits.
    static func send(_ requests: [HTTPRequest], with client: HTTPClient) throws {
        let failure = FailureBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            await withTaskGroup(of: Void.self) { group in
                var next = 0
                func add() {
                    guard next < requests.count else { return }
                    let request = requests[next]
                    let url = request.url
                    next += 1
                    group.addTask {
                        do {
                            let response = try await client.send(request)
                            if response.status != 200 {
                                failure.message.withLock { $0 = "status \(response.status) for \(url)" }
                            }
                        } catch {
                            failure.message.withLock { $0 = "\(error)" }
                        }
                    }
                }
                for _ in 0..<8 { add() }
                while await group.next() != nil { add() }
            }
            done.signal()
        }
        done.wait()
        if let message = failure.message.withLock({ $0 }) { throw BenchError("http: \(message)") }
    }

    /// The http URLs of the lookup set, as `HTTPClient` is asked for them in this section.
    static func httpURLs(_ lookups: some Sequence<URL>) -> [URL] {
        lookups.map { url -> URL in
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            components.scheme = "http"
            return components.url!
        }
    }

    /// The Python server (`server`), running until `stop()`; `arguments` are its `Cache-Control`
    /// value and body size, when not the default.
    final class LoopbackServer {
        let process = Process()
        let stdin = Pipe()
        /// The port it listens on, on 127.0.0.1.
        let port: Int

        init(arguments: [String] = []) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", HTTPBench.server] + arguments
            let stdout = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            try process.run()
            var portText = Data()
            while !portText.contains(10) {
                let chunk = try stdout.fileHandleForReading.readSome()
                if chunk.isEmpty {
                    Self.end(process, stdin)
                    throw BenchError("the loopback server did not start")
                }
                portText.append(chunk)
            }
            guard
                let port = Int(
                    String(decoding: portText, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            else {
                Self.end(process, stdin)
                throw BenchError("the loopback server did not say its port")
            }
            self.port = port
        }

        /// Ends the server (it exits when its standard input closes) and waits for it.
        func stop() { Self.end(process, stdin) }

        private static func end(_ process: Process, _ stdin: Pipe) {
            try? stdin.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    static func cookiesSent(_ store: WebsiteDataStore, _ urls: [URL]) throws -> Int {
        try urls.reduce(0) { $0 + (try store.httpCookieStore.cookies(for: $1).count) }
    }

    /// The first failure of a batch of requests, shared by its tasks.
    final class FailureBox: Sendable {
        let message = Locked<String?>(nil)
    }
}
