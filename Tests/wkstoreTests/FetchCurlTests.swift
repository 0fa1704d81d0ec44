import Foundation
import Testing
import WebsiteDataTestSupport

/// `wkstore fetch` read as curl's users type it: the built binary against the loopback server.
///
/// The server's status lines all carry the reason phrase `X` (`HTTP/1.1 302 X`), so a status
/// line that shows it came from the response, not from a table.
@Suite(.ownThreads) struct FetchCurlTests {
    /// The version `wkstore --version` prints (`0.1.0` of `wkstore 0.1.0`).
    func version(_ sandbox: Sandbox) throws -> String {
        let printed = try sandbox.run(["--version"]).stdout
        let version = printed.dropFirst("wkstore ".count).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(printed.hasPrefix("wkstore ") && !version.isEmpty, "\(printed)")
        return version
    }

    /// The store's network identity (`config set http.user-agent`, `http.accept-language`,
    /// `http.proxy`) is what fetch sends unless its own options say otherwise.
    @Test func theStoresUserAgentLanguageAndProxyAreUsedUnlessOptionsOverrideThem() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        try sandbox.succeed(["config", "set", "http.user-agent", "fleet-crawler/3 (+https://crawler.example)"])
        try sandbox.succeed(["config", "set", "http.accept-language", "de-DE,de;q=0.9"])
        try sandbox.succeed(["fetch", server.base() + "/stored", "-s"])
        let stored = try #require(try server.requests(path: "/stored").first)
        #expect(stored["user_agent"] as? String == "fleet-crawler/3 (+https://crawler.example)")
        #expect(stored["accept_language"] as? String == "de-DE,de;q=0.9")
        try sandbox.succeed(["fetch", server.base() + "/given", "-s", "-A", "agent/2", "-H", "Accept-Language: fr"])
        let given = try #require(try server.requests(path: "/given").first)
        #expect(given["user_agent"] as? String == "agent/2")
        #expect(given["accept_language"] as? String == "fr")

        // Through the proxy the store names: the server, as the proxy, gets the absolute URL.
        try sandbox.succeed(["config", "set", "http.proxy", "http://127.0.0.1:\(server.port)"])
        let proxied = try sandbox.succeed(["fetch", "http://proxied.example/r?via=proxy", "--json"]).object()
        #expect(proxied["status"] as? Int == 200, "\(proxied)")
        let seen = try #require(try server.requests(path: "/r").last)
        #expect(seen["target"] as? String == "http://proxied.example/r?via=proxy")
        #expect(seen["host"] as? String == "proxied.example")
        // -x '' goes direct whatever the store says, as does the setting `direct`.
        let direct = try sandbox.run(["fetch", "http://proxied.example/r", "-x", ""])
        #expect(direct.status != 0 && direct.stderr.contains("proxied.example"), "\(direct)")
        try sandbox.succeed(["config", "set", "http.proxy", "direct"])
        #expect(try sandbox.run(["fetch", "http://proxied.example/r"]).status != 0)
        // A value a request could not carry is refused in one line, and nothing is changed.
        let refused = try sandbox.run(["config", "set", "http.proxy", "ftp://files.example"])
        #expect(refused.status != 0 && refused.stderr.contains("expected a proxy URL"), "\(refused)")
        #expect(try sandbox.succeed(["config", "get", "http.proxy"]).stdout == "direct\n")
    }

    @Test func aUserAgentNamingTheVersionIsSentUnlessAGivesAnother() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let version = try version(sandbox)
        try sandbox.succeed(["fetch", server.base() + "/default", "-s"])
        #expect(try server.requests(path: "/default").first?["user_agent"] as? String == "wkstore/" + version)
        try sandbox.succeed(["fetch", server.base() + "/given", "-s", "-A", "agent/2"])
        #expect(try server.requests(path: "/given").first?["user_agent"] as? String == "agent/2")
        // As curl's -A '': no User-Agent at all.
        try sandbox.succeed(["fetch", server.base() + "/none", "-s", "-A", ""])
        #expect(try server.requests(path: "/none").first?["user_agent"] is NSNull)
    }

    @Test func bundledFlagsAndCurlsSpellingsAreAccepted() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let base = server.base()

        // -sSL: silent, errors shown, redirects followed (as they always are).
        let followed = try sandbox.succeed(["fetch", "-sSL", base + "/login"])
        let echo = try #require(try JSONSerialization.jsonObject(with: followed.stdoutData) as? [String: Any])
        #expect(echo["path"] as? String == "/welcome")
        #expect(followed.stderr.isEmpty, "\(followed.stderr)")
        for spelling in [["-s", "-S", "-L"], ["--silent", "--show-error", "--location"], ["-sS", "-L"]] {
            let result = try sandbox.succeed(["fetch", base + "/login"] + spelling)
            #expect(result.stdoutData == followed.stdoutData || result.stdout.contains("\"/welcome\""))
            #expect(result.stderr.isEmpty, "\(spelling): \(result.stderr)")
        }
        // A bundle's last letter may take a value: -sSo FILE.
        let file = sandbox.root.appendingPathComponent("bundled.bin")
        let saved = try sandbox.succeed(["fetch", base + "/bytes?n=700", "-sSo", file.path])
        #expect(try Data(contentsOf: file) == Data((0..<700).map { UInt8($0 % 251) }))
        #expect(saved.stdout.isEmpty && saved.stderr.isEmpty)

        // A letter that is no flag of fetch makes the bundle an unknown option.
        let unknown = try sandbox.runInStore(["fetch", base + "/r", "-sZ"])
        #expect(unknown.status == 2)
        #expect(unknown.isOneLineMessage)
        #expect(unknown.stderr.contains("unknown option '-sZ'"), "\(unknown.stderr)")
        // A letter that takes a value cannot come before the end of a bundle.
        #expect(try sandbox.runInStore(["fetch", base + "/r", "-os", file.path]).status == 2)
    }

    @Test func silentHidesAFailuresMessageUnlessShowError() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let refusedURL = "http://127.0.0.1:9/"
        let silent = try sandbox.runInStore(["fetch", refusedURL, "-s", "--connect-timeout", "5"])
        #expect(silent.status == 1)
        #expect(silent.stderr.isEmpty, "\(silent.stderr)")
        let shown = try sandbox.runInStore(["fetch", refusedURL, "-sS", "--connect-timeout", "5"])
        #expect(shown.status == 1)
        #expect(shown.isOneLineMessage, "\(shown.stderr)")
        #expect(shown.stderr.contains("127.0.0.1:9"))
        // --quiet leaves out the summary only.
        let quiet = try sandbox.runInStore(["fetch", refusedURL, "--quiet", "--connect-timeout", "5"])
        #expect(quiet.status == 1)
        #expect(quiet.isOneLineMessage)

        let notFound = server.base() + "/r?status=404"
        let failed = try sandbox.runInStore(["fetch", notFound, "-sf"])
        #expect(failed.status == 1)
        #expect(failed.stderr.isEmpty, "\(failed.stderr)")
        let failedLoudly = try sandbox.runInStore(["fetch", notFound, "-sSf"])
        #expect(failedLoudly.status == 1)
        #expect(failedLoudly.stderr == "wkstore: \(notFound) answered 404\n")
        // A usage error is still reported: the request was never made.
        let usage = try sandbox.runInStore(["fetch", server.base(), "-s", "-X", "G T"])
        #expect(usage.status == 2)
        #expect(usage.isOneLineMessage)
    }

    @Test func includePrintsEachHopsStatusLineAsCurlDoes() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let result = try sandbox.succeed(["fetch", "-si", server.base() + "/login"])
        let blocks = result.stdout.components(separatedBy: "\r\n\r\n")
        #expect(blocks.count == 3, "\(result.stdout.debugDescription)")
        let first = blocks[0].components(separatedBy: "\r\n")
        #expect(first.first == "HTTP/1.1 302 X")
        #expect(first.contains("Location: /welcome"))
        #expect(first.contains("Set-Cookie: sid=abc123; Path=/; HttpOnly"))
        let second = blocks[1].components(separatedBy: "\r\n")
        #expect(second.first == "HTTP/1.1 200 X")
        #expect(second.contains("Content-Type: application/json"))
        #expect(blocks[2].contains("\"/welcome\""))

        // --json has each hop's version and reason phrase too.
        let json = try sandbox.succeed(["fetch", server.base() + "/login", "--json"]).object()
        let hops = try #require(json["hops"] as? [[String: Any]])
        #expect(hops.map { $0["httpVersion"] as? String } == ["1.1", "1.1"])
        #expect(hops.map { $0["reasonPhrase"] as? String } == ["X", "X"])
    }

    @Test func headSendsHeadAndPrintsTheHeadersAlone() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let result = try sandbox.succeed(["fetch", "-sI", server.base() + "/r?header=X-Kind:head"])
        #expect(result.stdout.hasPrefix("HTTP/1.1 200 X\r\n"), "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains("\r\nX-Kind: head\r\n"))
        #expect(result.stdout.hasSuffix("\r\n\r\n"))
        #expect(try server.requests(path: "/r").map { $0["method"] as? String } == ["HEAD"])

        // HEAD has no body: -d needs -G, which puts the data in the query.
        let withData = try sandbox.runInStore(["fetch", "-I", server.base() + "/data", "-d", "a=1"])
        #expect(withData.status == 2)
        #expect(withData.isOneLineMessage)
        #expect(withData.stderr.contains("-G"))
        try sandbox.succeed(["fetch", "-sIG", server.base() + "/data", "-d", "a=1"])
        #expect(try server.requests(path: "/data").map { $0["query"] as? String } == ["a=1"])
    }

    @Test func verboseShowsTheHeadersOfEveryHopAndEveryRefusedCookie() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let base = server.base()
        let version = try version(sandbox)
        let result = try sandbox.succeed(["fetch", "-sv", base + "/login"])
        let lines = result.stderr.components(separatedBy: "\n")
        let expected = [
            "> GET /login HTTP/1.1", "> Host: 127.0.0.1:\(server.port)", "> User-Agent: wkstore/\(version)",
            "> Accept: */*", "> ", "< HTTP/1.1 302 X", "< Location: /welcome",
            "< Set-Cookie: sid=abc123; Path=/; HttpOnly", "< Set-Cookie: hop=redirect; Path=/",
            "< Content-Length: 0", "< ", "> GET /welcome HTTP/1.1", "> Host: 127.0.0.1:\(server.port)",
            "> User-Agent: wkstore/\(version)", "> Accept: */*", "> Cookie: sid=abc123; hop=redirect", "> ",
            "< HTTP/1.1 200 X", "< Content-Type: application/json",
        ]
        #expect(Array(lines.prefix(expected.count)) == expected, "\(result.stderr)")
        #expect(result.stdout.contains("\"/welcome\""))

        // A cookie the store refuses is named with its reason.
        let secure = try sandbox.succeed(["fetch", "-sv", base + "/r?set=\(q("s=1; Domain=example.com"))&set=ok%3D1"])
        #expect(
            secure.stderr.contains("\n* cookie 's' refused: its Domain does not match the host that set it\n"),
            "\(secure.stderr)")
        #expect(!secure.stderr.contains("cookie 'ok'"))

        // A response from the cache was not requested: no "> " lines for it.
        try sandbox.succeed(["fetch", "-s", base + "/cacheable"])
        let hit = try sandbox.succeed(["fetch", "-sv", base + "/cacheable"])
        #expect(
            hit.stderr.hasPrefix(
                "* GET \(base)/cacheable served from the store's cache, no request sent\n< HTTP/1.1 200"))
        #expect(!hit.stderr.contains("\n> "))

        // Without -v, nothing of it.
        #expect(try sandbox.succeed(["fetch", "-s", base + "/login"]).stderr.isEmpty)
    }

    @Test func verboseRequestFieldsAreTheOnesCurlShowsForTheSameRequest() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let version = try version(sandbox)
        let url = server.base() + "/compare?a=1"
        let options = [
            "-u", "alice:s3cret", "-H", "X-Test: yes", "-H", "Content-Type: application/x-www-form-urlencoded",
            "-d", "k=v",
        ]
        let ours = try sandbox.succeed(["fetch", "-sv", "-o", "/dev/null", url] + options).stderr
        let curl = try runTool(
            ["curl", "-sv", "--noproxy", "*", "-o", "/dev/null", "-A", "wkstore/" + version, url] + options,
            in: sandbox.root)
        #expect(curl.status == 0, "\(curl.output)")
        func sent(_ text: String) -> [String] {
            // curl ends its lines in CR LF, one Character in Swift: made LF before splitting.
            text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
                .filter { $0.hasPrefix("> ") }
        }
        #expect(sent(ours).count == 9, "\(ours)")
        #expect(sent(ours) == sent(curl.output), "\(ours)\n\(curl.output)")
    }

    @Test func writeOutPrintsCurlsVariables() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let base = server.base()
        let result = try sandbox.succeed([
            "fetch", "-s", "-o", "/dev/null", base + "/loop?n=0&stop=2",
            "-w", "%{http_code} %{url_effective} %{size_download} %{num_redirects}\\n%{time_total}\\t100%%\\n",
        ])
        let lines = result.stdout.components(separatedBy: "\n")
        #expect(lines.count == 3 && lines[2].isEmpty, "\(result.stdout.debugDescription)")
        #expect(lines[0] == "200 \(base)/loop?n=2&stop=2 11 2")
        let timing = lines[1].components(separatedBy: "\t")
        #expect(timing.count == 2 && timing[1] == "100%")
        let seconds = try #require(Double(timing[0]), "\(lines[1])")
        #expect(seconds >= 0)
        #expect(timing[0].split(separator: ".").last?.count == 6)

        // After the body, on standard output.
        let after = try sandbox.succeed(["fetch", "-s", base + "/bytes?n=5", "--write-out", "|%{response_code}"])
        #expect(after.stdoutData == Data([0, 1, 2, 3, 4]) + Data("|200".utf8))

        // An unknown variable is refused before any request is made.
        let unknown = try sandbox.runInStore(["fetch", base + "/never", "-w", "%{http_cod}"])
        #expect(unknown.status == 2)
        #expect(unknown.isOneLineMessage)
        #expect(unknown.stderr.contains("unknown -w variable 'http_cod'"), "\(unknown.stderr)")
        #expect(unknown.stderr.contains("%{http_code}"))
        #expect(try server.requests(path: "/never").isEmpty)
    }

    @Test func dataRawDataBinaryAndGet() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let base = server.base()
        let file = sandbox.root.appendingPathComponent("payload.txt")
        try Data("line one\nline two\n".utf8).write(to: file)

        // All three kinds, joined with & in the order given; --data-raw keeps its @.
        try sandbox.succeed([
            "fetch", "-s", base + "/mixed", "--data-raw", "@not-a-file", "-d", "a=1",
            "--data-binary", "@" + file.path, "--data-raw", "z=9",
        ])
        let mixed = try #require(try server.requests(path: "/mixed").first)
        #expect(mixed["method"] as? String == "POST")
        #expect(mixed["body"] as? String == "@not-a-file&a=1&line one\nline two\n&z=9")
        #expect(mixed["content_type"] as? String == "application/x-www-form-urlencoded")

        // -G: the data goes in the query of a GET, after what the URL has.
        try sandbox.succeed(["fetch", "-sG", base + "/query?x=0", "-d", "a=1", "--data-raw", "b=2"])
        let query = try #require(try server.requests(path: "/query").first)
        #expect(query["method"] as? String == "GET")
        #expect(query["query"] as? String == "x=0&a=1&b=2")
        #expect(query["body"] as? String == "")
        #expect(query["content_type"] is NSNull)
        try sandbox.succeed(["fetch", "--get", base + "/bare", "-d", "q=wk", "-s"])
        #expect(try server.requests(path: "/bare").first?["query"] as? String == "q=wk")
    }

    @Test func outputToADirectoryFailsInOneLineBeforeTheRequest() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let directory = sandbox.root.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let result = try sandbox.runInStore(["fetch", server.base() + "/r", "-o", directory.path])
        #expect(result.status == 1)
        #expect(result.isOneLineMessage, "\(result.stderr)")
        #expect(result.stderr.contains("\(directory.path): it is a directory"), "\(result.stderr)")
        #expect(try server.requests(path: "/r").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// Runs `wkstore --store <sandbox store> arguments` with standard output (and error) on a
    /// terminal `script` makes; returns the exit status and what the terminal showed.
    func runOnTerminal(_ sandbox: Sandbox, _ arguments: [String]) throws -> (status: Int32, terminal: Data) {
        let executable = try #require(WKStoreExecutable.url)
        let words = [executable.path, "--store", sandbox.store.path] + arguments
        let command = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let (status, terminal) = try runToolCapturingBytes(
            ["script", "-qec", command, "/dev/null"], in: sandbox.root, environment: sandbox.environment)
        return (status, terminal)
    }

    @Test func binaryOutputIsNotWrittenToATerminalUnlessOutputDashSaysSo() throws {
        let sandbox = try Sandbox()
        let server = try LoopbackServer(in: sandbox.root)
        let url = server.base() + "/bytes?n=300"
        let refused = try runOnTerminal(sandbox, ["fetch", url])
        let text = String(decoding: refused.terminal, as: UTF8.self)
        #expect(refused.status == 1, "\(text)")
        #expect(
            text.hasPrefix(
                "wkstore: binary output can mess up your terminal; use '-o -' to write it to your terminal anyway"),
            "\(text.debugDescription)")
        #expect(!refused.terminal.contains(0))

        // -o - writes it anyway; a text body, and any body off a terminal, is written as ever.
        let forced = try runOnTerminal(sandbox, ["fetch", url, "-o", "-", "-s"])
        #expect(forced.status == 0)
        #expect(forced.terminal.filter { $0 == 0 }.count == 2, "the pattern's two NUL bytes")
        let textual = try runOnTerminal(sandbox, ["fetch", server.base() + "/r", "-s"])
        #expect(textual.status == 0)
        #expect(String(decoding: textual.terminal, as: UTF8.self).contains("\"path\": \"/r\""))
        #expect(try sandbox.succeed(["fetch", url, "-s"]).stdoutData.count == 300)
    }
}
