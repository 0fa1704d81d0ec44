import Foundation
import Testing
import WebsiteDataTestSupport

/// `wkstore fetch` end to end: the built binary against a loopback server, with a store in the sandbox.
@Suite(.ownThreads, .bothEngines) struct FetchTests {
    @Test func cookiesSetOnARedirectHopAreStoredAndSentOnTheNextRequest() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let base = server.base("www.example.test")
        let resolve = server.resolveArguments(["www.example.test"])

        let result = try sandbox.succeed(["fetch", base + "/login"] + resolve)
        // The body of /welcome is the request the server received: with the cookies the 302 set.
        let echo = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        #expect(echo["path"] as? String == "/welcome")
        #expect(echo["cookie"] as? String == "sid=abc123; hop=redirect")
        #expect(echo["host"] as? String == "www.example.test:\(server.port)")
        #expect(result.stderr.hasPrefix("wkstore: 200 \(base)/welcome (1 redirect, "), "\(result.stderr)")
        #expect(result.isOneLineMessage)

        // The store kept them, HttpOnly included, and sends them on the next request.
        let cookies = try sandbox.succeed(["cookies", "list", "--json"]).objects()
        #expect(Set(cookies.compactMap { $0["name"] as? String }) == ["sid", "hop"])
        #expect(cookies.first { $0["name"] as? String == "sid" }?["httpOnly"] as? Bool == true)
        try sandbox.succeed(["fetch", base + "/again", "--quiet"] + resolve)
        let again = try #require(try server.requests(path: "/again").first)
        #expect(again["cookie"] as? String == "sid=abc123; hop=redirect")

        // A cookie the final response sets is stored too; a redirect to another host gets none of them.
        try sandbox.succeed(["fetch", base + "/r?set=\(q("late=1; Path=/"))", "-s"] + resolve)
        #expect(
            try sandbox.succeed(["cookies", "header", "http://www.example.test/"]).stdout
                == "sid=abc123; hop=redirect; late=1\n")
        let other = server.base("other.example.net")
        try sandbox.succeed(
            ["fetch", base + "/r?status=302&location=\(q(other + "/landing"))", "-s"]
                + resolve + server.resolveArguments(["other.example.net"]))
        let landing = try #require(try server.requests(path: "/landing").first)
        #expect(landing["cookie"] is NSNull)
    }

    @Test func includePrintsEveryHopBeforeTheBody() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let base = server.base()
        let result = try sandbox.succeed(["fetch", "-i", base + "/login", "--quiet"])
        let text = result.stdout
        let blocks = text.components(separatedBy: "\r\n\r\n")
        #expect(blocks.count == 3, "\(text)")
        let first = blocks[0].components(separatedBy: "\r\n")
        #expect(first.first == "HTTP/1.1 302 X")
        #expect(first.contains("Location: /welcome"))
        #expect(first.contains("Set-Cookie: sid=abc123; Path=/; HttpOnly"))
        #expect(first.contains("Set-Cookie: hop=redirect; Path=/"))
        let second = blocks[1].components(separatedBy: "\r\n")
        #expect(second.first == "HTTP/1.1 200 X")
        #expect(second.contains("Content-Type: application/json"))
        let body = try #require(try JSONSerialization.jsonObject(with: Data(blocks[2].utf8)) as? [String: Any])
        #expect(body["path"] as? String == "/welcome")
        #expect(result.stderr.isEmpty)
    }

    @Test func headersMethodAndDataReachTheServerAndTheBodyGoesToAFile() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let file = sandbox.root.appendingPathComponent("out.json")
        let result = try sandbox.succeed([
            "fetch", server.base() + "/submit", "-H", "X-Test: yes please", "-X", "PUT",
            "-d", "a=1", "--data", "b=2", "-A", "wkstore-tests/1.0", "-u", "alice:s3cret",
            "-o", file.path,
        ])
        let received = try #require(try server.requests(path: "/submit").first)
        #expect(received["method"] as? String == "PUT")
        #expect(received["x_test"] as? String == "yes please")
        #expect(received["body"] as? String == "a=1&b=2")
        #expect(received["content_type"] as? String == "application/x-www-form-urlencoded")
        #expect(received["user_agent"] as? String == "wkstore-tests/1.0")
        #expect(received["authorization"] as? String == "Basic " + Data("alice:s3cret".utf8).base64EncodedString())
        // The body is in the file; the summary, with the file, on standard output.
        let written = try Data(contentsOf: file)
        let echo = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        #expect(echo["method"] as? String == "PUT")
        #expect(result.stdout == "200 \(server.base())/submit (\(written.count) bytes to \(file.path))\n")
        #expect(result.stderr.isEmpty)

        // -d alone makes a POST; @FILE sends the file's bytes; a Content-Type of one's own is kept.
        let payload = sandbox.root.appendingPathComponent("payload.json")
        try Data("{\"k\": [1, 2]}\n".utf8).write(to: payload)
        try sandbox.succeed([
            "fetch", server.base() + "/post", "-d", "@" + payload.path, "-H", "Content-Type: application/json", "-s",
        ])
        let posted = try #require(try server.requests(path: "/post").first)
        #expect(posted["method"] as? String == "POST")
        #expect(posted["body"] as? String == "{\"k\": [1, 2]}\n")
        #expect(posted["content_type"] as? String == "application/json")
    }

    @Test func jsonDescribesHopsHeadersAndBody() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let json = try sandbox.succeed(["fetch", server.base() + "/login", "--json"]).object()
        #expect(json["url"] as? String == server.base() + "/welcome")
        #expect(json["status"] as? Int == 200)
        #expect(json["redirects"] as? Int == 1)
        let hops = try #require(json["hops"] as? [[String: Any]])
        #expect(hops.map { $0["status"] as? Int } == [302, 200])
        #expect(hops.map { $0["method"] as? String } == ["GET", "GET"])
        let firstHeaders = try #require(hops[0]["headers"] as? [[String: String]])
        #expect(firstHeaders.filter { $0["name"] == "Set-Cookie" }.count == 2)
        let body = try #require(json["body"] as? String)
        #expect(body.contains("\"/welcome\""))
        #expect(json["bodySize"] as? Int == body.utf8.count)
        #expect(json["bodyFile"] is NSNull)

        // A body that is not UTF-8 comes as base64.
        let binary = try sandbox.succeed(["fetch", server.base() + "/bytes?n=300", "--json"]).object()
        let base64 = try #require(binary["bodyBase64"] as? String)
        #expect(Data(base64Encoded: base64) == Data((0..<300).map { UInt8($0 % 251) }))
        #expect(binary["body"] is NSNull)
    }

    @Test func aBinaryBodyGoesToStandardOutputByteForByte() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let result = try sandbox.succeed(["fetch", server.base() + "/bytes?n=100000", "-s"])
        #expect(result.stdoutData == Data((0..<100_000).map { UInt8($0 % 251) }))
        let file = sandbox.root.appendingPathComponent("big.bin")
        let saved = try sandbox.succeed(["fetch", server.base() + "/bytes?n=3000000", "-o", file.path])
        #expect(try Data(contentsOf: file) == Data((0..<3_000_000).map { UInt8($0 % 251) }))
        #expect(saved.stdout.contains("2.9 MB to \(file.path)"))
    }

    @Test func outputIsWrittenThroughLinksAndPipesNotReplacingThem() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let expected = Data((0..<5000).map { UInt8($0 % 251) })

        // A symbolic link: the file it points to gets the body (truncated first), the link stays.
        let real = sandbox.root.appendingPathComponent("real.bin")
        let link = sandbox.root.appendingPathComponent("link.bin")
        try Data(repeating: 7, count: 9000).write(to: real)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        try sandbox.succeed(["fetch", server.base() + "/bytes?n=5000", "-o", link.path, "-s"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == real.path)
        #expect(try Data(contentsOf: real) == expected)

        // A named pipe (as /dev/null or /dev/stdout would be): read at the other end, still a pipe after.
        let fifo = sandbox.root.appendingPathComponent("body.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let received = sandbox.root.appendingPathComponent("from-fifo.bin")
        _ = FileManager.default.createFile(atPath: received.path, contents: nil)
        let reader = Subprocess()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        reader.arguments = ["cat", fifo.path]
        let readerOutput = try FileHandle(forWritingTo: received)
        defer { try? readerOutput.close() }
        reader.standardOutput = readerOutput
        try reader.run()
        let result = try sandbox.succeed(["fetch", server.base() + "/bytes?n=5000", "-o", fifo.path])
        reader.waitUntilExit()
        #expect(try Data(contentsOf: received) == expected)
        #expect(result.stdout == "200 \(server.base())/bytes?n=5000 (cache MISS, 4.9 KB to \(fifo.path))\n")
        var status = stat()
        #expect(lstat(fifo.path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: sandbox.root.appendingPathComponent("tmp").path).isEmpty
        )
    }

    @Test func tlsVerifiesWithCacertAndFailsInOneLineWithout() throws {
        let sandbox = try Sandbox()
        let certificate = try TestCertificate(in: sandbox.root)
        let server = try LoopbackServer(in: sandbox.root, tls: certificate)
        let url = server.base("secure.example.test", scheme: "https") + "/r?set=\(q("s=1; Secure; HttpOnly"))"
        let resolve = server.resolveArguments(["secure.example.test"])

        let refused = try sandbox.runInStore(["fetch", url] + resolve)
        #expect(refused.status == 1)
        #expect(refused.isOneLineMessage, "\(refused.stderr)")
        #expect(refused.stderr.contains("certificate"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--cacert"))
        #expect(refused.stdout.isEmpty)
        #expect(try sandbox.succeed(["cookies", "list"]).stdout.isEmpty)

        let trusted = try sandbox.succeed(["fetch", url, "--cacert", certificate.certificate.path] + resolve)
        #expect(trusted.stderr.hasPrefix("wkstore: 200 https://secure.example.test:\(server.port)/r"))
        #expect(try sandbox.succeed(["cookies", "header", "https://secure.example.test/"]).stdout == "s=1\n")

        let insecure = try sandbox.succeed(["fetch", url, "-k", "-s"] + resolve)
        #expect(!insecure.stdout.isEmpty)
    }

    @Test func aCacheableResponseIsServedFromTheCacheUntilCleared() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let url = server.base() + "/cacheable"

        let first = try sandbox.succeed(["fetch", url])
        #expect(first.stdout == "cacheable body, served 1 times by the server\n")
        #expect(first.stderr.contains("cache MISS"), "\(first.stderr)")
        let second = try sandbox.succeed(["fetch", url])
        #expect(second.stdout == first.stdout)
        #expect(second.stderr.contains("cache HIT"), "\(second.stderr)")
        #expect(try sandbox.succeed(["fetch", url, "--json"]).object()["cache"] as? String == "HIT")
        #expect(try server.requests(path: "/cacheable").count == 1)

        // The entry is disk-cache data of the site, with a size.
        let records = try sandbox.succeed(["records", "--sizes", "--types", "diskcache"]).lines
        #expect(records.count == 1)
        #expect(records[0].hasPrefix("127.0.0.1  "))
        #expect(records[0].hasSuffix("██████████  diskcache"), "\(records)")

        // no-cache revalidates with the ETag; the server's 304 keeps the stored body.
        let revalidated = try sandbox.succeed(["fetch", url, "--cache-mode", "no-cache", "--json"]).object()
        #expect(revalidated["cache"] as? String == "REVALIDATED")
        #expect(revalidated["body"] as? String == first.stdout)
        let requests = try server.requests(path: "/cacheable")
        #expect(requests.count == 2)
        #expect(requests.last?["if_none_match"] as? String == "\"v1\"")

        let cleared = try sandbox.succeed(["clear", "--types", "diskcache", "--since", "2h"])
        #expect(cleared.stdout == "removed diskcache for 127.0.0.1\n")
        #expect(try sandbox.succeed(["records", "--types", "diskcache"]).stdout.isEmpty)
        let third = try sandbox.succeed(["fetch", url])
        #expect(third.stderr.contains("cache MISS"))
        #expect(third.stdout == "cacheable body, served 3 times by the server\n")

        let bypass = try sandbox.succeed(["fetch", url, "--cache-mode", "no-store"])
        #expect(bypass.stdout == "cacheable body, served 4 times by the server\n")
        let bad = try sandbox.runInStore(["fetch", url, "--cache-mode", "sometimes"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("only-if-cached"))
    }

    @Test func failuresExitOneWithOneLine() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let redirect = try sandbox.runInStore(["fetch", server.base() + "/login", "--max-redirects", "0"])
        #expect(redirect.status == 1)
        #expect(redirect.isOneLineMessage)
        #expect(redirect.stderr.contains("redirect"))

        // An error status is a completed transfer, unless --fail.
        let notFound = server.base() + "/r?status=404"
        #expect(try sandbox.runInStore(["fetch", notFound, "-s"]).status == 0)
        let failed = try sandbox.runInStore(["fetch", notFound, "--fail", "--quiet"])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("404"))

        // Nothing listens on the discard port of the loopback address: the connection is refused.
        let refused = try sandbox.runInStore(["fetch", "http://127.0.0.1:9/", "--connect-timeout", "5"])
        #expect(refused.status == 1)
        #expect(refused.isOneLineMessage)

        let usage: [([String], String)] = [
            (["fetch", "ftp://example.com/"], "not an http or https URL"),
            (["fetch", server.base(), "-H", "no colon"], "NAME: VALUE"),
            (["fetch", server.base(), "-X", "G T"], "not an HTTP method"),
            (["fetch", server.base(), "--resolve", "nonsense"], "HOST:PORT:ADDRESS"),
            (["fetch", server.base(), "--max-redirects", "-1"], "--max-redirects"),
            (["fetch", server.base(), "-o"], "-o needs a value"),
        ]
        for (arguments, message) in usage {
            let result = try sandbox.runInStore(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.isOneLineMessage)
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(try server.requests().count == 3)
    }
}

/// The progress line, which needs standard error to be a terminal: the binary runs with its
/// standard error on a pseudo-terminal that a small Python program reads.
@Suite(.ownThreads) struct FetchProgressTests {
    /// Runs `wkstore --store <sandbox store> arguments` with standard error on a pseudo-terminal;
    /// returns standard output and what the terminal received.
    func runOnTerminal(_ sandbox: Sandbox, _ arguments: [String]) throws -> (
        status: Int32, stdout: Data, terminal: String
    ) {
        let executable = try #require(WKStoreExecutable.url)
        let script = sandbox.root.appendingPathComponent("pty-run.py")
        try """
        import os, pty, subprocess, sys
        out, command = sys.argv[1], sys.argv[2:]
        master, slave = pty.openpty()
        with open(out, "wb") as stdout:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=stdout, stderr=slave)
        os.close(slave)
        received = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            received += chunk
        status = process.wait()
        sys.stdout.buffer.write(received)
        sys.exit(status)
        """.write(to: script, atomically: true, encoding: .utf8)
        let out = sandbox.root.appendingPathComponent("pty-\(UUID().uuidString.prefix(8)).stdout")
        let terminal = sandbox.root.appendingPathComponent("pty-\(UUID().uuidString.prefix(8)).terminal")
        _ = FileManager.default.createFile(atPath: terminal.path, contents: nil)
        let process = Subprocess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", script.path, out.path, executable.path, "--store", sandbox.store.path] + arguments
        var environment = sandbox.environment
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        process.environment = environment
        let handle = try FileHandle(forWritingTo: terminal)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, try Data(contentsOf: out),
            String(decoding: try Data(contentsOf: terminal), as: UTF8.self)
        )
    }

    @Test func aTransferOfMoreThanASecondShowsProgressOnATerminal() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        // 400,000 bytes in ten pieces over 2.5 s: the transfer outlasts the one-second delay.
        let url = server.base() + "/trickle?n=400000&s=2.5"
        let shown = try runOnTerminal(sandbox, ["fetch", url])
        #expect(shown.status == 0, "\(shown.terminal)")
        #expect(shown.stdout == Data(repeating: UInt8(ascii: "x"), count: 400_000))
        // Drawn on one line rewritten with CR, erased at the end, then the summary.
        #expect(shown.terminal.contains("\r  "), "\(shown.terminal.debugDescription)")
        #expect(shown.terminal.contains(" of 390.6 KB  "), "\(shown.terminal.debugDescription)")
        #expect(shown.terminal.contains("127.0.0.1/trickle"))
        #expect(shown.terminal.contains("\r\u{1B}[Kwkstore: 200 \(url) ("), "\(shown.terminal.debugDescription)")

        let quiet = try runOnTerminal(sandbox, ["fetch", url, "--quiet"])
        #expect(quiet.status == 0)
        #expect(quiet.terminal.isEmpty, "\(quiet.terminal.debugDescription)")
        #expect(quiet.stdout.count == 400_000)
    }
}
