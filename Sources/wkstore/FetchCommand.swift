import Foundation
import WebsiteData
import WebsiteDataHTTP

/// `wkstore fetch`: a curl-like request through `HTTPClient`, with the store's cookies (read and
/// written on every hop of every redirect) and its HTTP cache.
///
/// Only the URL is converted as the command line is read: the other options are converted by
/// `Plan`, in the order they always were, so that the same error wins when several are wrong.
struct FetchCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["fetch"],
        summary: "fetch a URL as a browser would, with the store's cookies and cache",
        usage: [
            "fetch URL [-o FILE] [-i] [-I] [-v] [-H 'NAME: VALUE']... [-X METHOD] [-d DATA]... [-G]",
            "      [--data-raw DATA]... [--data-binary DATA]... [-w FORMAT] [-L] [--max-redirects N]",
            "      [-A USER-AGENT] [-x PROXY] [-u USER:PASSWORD] [--compressed] [--cacert FILE] [-k]",
            "      [--resolve HOST:PORT:ADDRESS]... [--cache-mode MODE] [--top-level-site URL] [-f] [-s] [-S]",
            "      [--quiet]",
        ],
        details: """
            Sends a request to URL (http or https) and follows redirects itself, as a browser \
            does: every hop sends the store's cookies for its URL and stores the cookies its \
            response sets (those of redirects too), and Clear-Site-Data from secure origins \
            clears the store. Responses go through the store's HTTP cache (RFC 9111): a fresh \
            stored response is served without asking the server (HIT), a stale one is \
            revalidated (REVALIDATED), a new one fetched (MISS), or a stale one served when \
            allowed (STALE). The request is a top-level navigation unless --top-level-site names \
            the page it is made from.

            The body goes to standard output, or with -o to FILE, written as it arrives and never \
            held in memory; a body that is not text is not written to a terminal unless -o - \
            says so. -i prints each hop's status line (HTTP/1.1 302 Found) and header fields \
            before the body, -I sends HEAD and prints them alone, -v prints the request and \
            response header fields of every hop on standard error (> and <) and every refused \
            cookie. A summary (status, final URL, redirects, cache outcome, bytes) goes to \
            standard error, or to standard output with -o; -s and --quiet leave it out. While a \
            transfer that takes more than a second runs, a progress line is drawn on standard \
            error when it is a terminal (not with -s or --quiet). -s also leaves out the message \
            of a failure, as curl's -s does, unless -S; the exit status still tells.

            -d sends DATA as the body, by POST unless -X says otherwise, with Content-Type \
            application/x-www-form-urlencoded unless -H gives one; several are joined with &; \
            @FILE sends a file's bytes as they are, @- standard input (--data-binary too; \
            --data-raw sends DATA as it is, @ included). -G appends them to the URL's query and \
            sends a GET instead. -w prints FORMAT after the transfer: %{http_code}, \
            %{url_effective}, %{time_total}, %{size_download}, %{num_redirects}, \
            %{content_type}, %{http_version}, with \\n, \\t and %%. Redirects are always \
            followed (-L is accepted and changes nothing). Requests send User-Agent \
            wkstore/VERSION unless -A gives another (-A '' sends none). Options otherwise read \
            as curl's; one-letter flags may be bundled (-sSL). --cache-mode is Fetch's cache \
            mode: default, no-store, reload, no-cache, force-cache or only-if-cached.

            An HTTP error status (404, 500) is still a completed transfer: exit 0, unless --fail. \
            A failure to connect, a TLS failure, a timeout or too many redirects exit 1 with one \
            line.

            --json prints one object: the final URL, status, HTTP version, cache outcome, every \
            hop with its header fields, the final header fields, and the body (as text, or \
            base64 when it is not UTF-8) unless -o wrote it to a file.

            Examples:
              wkstore fetch https://www.example.com/login -i
              wkstore fetch -sS -o /dev/null -w '%{http_code}\\n' https://www.example.com/
              wkstore fetch https://www.example.com/session -d 'user=alice&remember=1'
              wkstore fetch https://cdn.example.com/big.iso -o big.iso
              wkstore fetch https://localhost:8443/ --cacert ca.pem --resolve localhost:8443:127.0.0.1
            """)

    @Argument(
        placeholder: "URL", help: "a URL",
        parse: { text throws(CLIError) in try FetchCommand.httpURL(text, "the URL to fetch") })
    var url: URL
    @Option(name: "output", alias: "o", placeholder: "FILE", help: "write the body to FILE instead of standard output")
    var output: String?
    @Flag(name: "include", alias: "i", help: "print each hop's status line and header fields before the body")
    var include: Bool
    @Flag(name: "head", alias: "I", help: "send HEAD and print each hop's status line and header fields")
    var head: Bool
    @Flag(
        name: "verbose", alias: "v",
        help: "print every hop's request and response header fields (> and <) and refused cookies on standard error")
    var verbose: Bool
    @Option(
        name: "header", alias: "H", placeholder: "'NAME: VALUE'",
        help: "send this header field (NAME; sends it empty); may be repeated")
    var headers: [String]
    @Option(name: "request", alias: "X", placeholder: "METHOD", help: "the method (default GET, or POST with -d)")
    var method: String?
    @Option(
        name: "data", alias: "d", otherNames: ["data-binary", "data-raw"], placeholder: "DATA",
        help:
            "send DATA as the body; @FILE a file's bytes, @- standard input (--data-raw: DATA as it is); may be repeated (joined with &)",
        parse: { name, value in FetchData(value: value, isRaw: name == "data-raw") })
    var data: [FetchData]
    @Flag(name: "get", alias: "G", help: "append the -d data to the URL's query and send a GET")
    var get: Bool
    @Option(
        name: "write-out", alias: "w", placeholder: "FORMAT",
        help: "print FORMAT after the transfer: %{http_code}, %{url_effective}, %{time_total}, %{size_download}…")
    var writeOut: String?
    @Flag(name: "location", alias: "L", help: "follow redirects (always done; accepted for curl's users)")
    var location: Bool
    @Option(
        name: "max-redirects", placeholder: "N",
        help: "follow at most N redirects (default 20; 0 fails on any redirect)")
    var maxRedirects: String?
    @Option(
        name: "user-agent", alias: "A", placeholder: "USER-AGENT",
        help: "send this User-Agent (default: the store's http.user-agent, else wkstore/VERSION)")
    var userAgent: String?
    @Option(
        name: "proxy", alias: "x", placeholder: "PROXY",
        help:
            "use this proxy URL; '' for none (default: the store's http.proxy, else http_proxy, https_proxy, no_proxy)")
    var proxy: String?
    @Option(
        name: "user", alias: "u", placeholder: "USER:PASSWORD",
        help: "HTTP authentication (Basic), sent to the first origin only")
    var user: String?
    @Flag(name: "compressed", help: "ask for a compressed response and decode it")
    var compressed: Bool
    @Option(
        name: "cacert", placeholder: "FILE", help: "verify servers with the certificate authorities in this PEM file")
    var caCertificates: String?
    @Flag(name: "insecure", alias: "k", help: "do not verify the server's certificate or name")
    var insecure: Bool
    @Option(
        name: "resolve", placeholder: "HOST:PORT:ADDRESS", help: "connect to ADDRESS for HOST:PORT; may be repeated")
    var resolve: [String]
    @Option(
        name: "cache-mode", placeholder: "MODE",
        help: "default, no-store, reload, no-cache, force-cache or only-if-cached")
    var cacheMode: String?
    @Option(
        name: "top-level-site", placeholder: "URL",
        help: "the page the request is made from (a subresource request, for SameSite)")
    var topLevelSite: String?
    @Option(name: "max-time", alias: "m", placeholder: "SECONDS", help: "give up after SECONDS, redirects included")
    var maxTime: String?
    @Option(name: "connect-timeout", placeholder: "SECONDS", help: "give up connecting after SECONDS")
    var connectTimeout: String?
    @Flag(name: "fail", alias: "f", help: "exit 1 when the final status is 400 or more (the body is still written)")
    var fail: Bool
    @Flag(
        name: "silent", alias: "s",
        help: "no progress line, no summary, and no message when the request fails (unless -S)")
    var silent: Bool
    @Flag(name: "show-error", alias: "S", help: "with -s, still print the message when the request fails")
    var showError: Bool
    @Flag(name: "quiet", help: "no progress line and no summary (a failure's message is still printed)")
    var quiet: Bool

    func run(_ invocation: Invocation) async throws {
        let plan = try Plan(self)
        if plan.writeOut != nil && invocation.output.json {
            throw CLIError.usage("-w and --json cannot be given together: --json already describes the transfer")
        }
        guard silent && !showError else { return try await run(plan, invocation) }
        do {
            try await run(plan, invocation)
        } catch {
            // curl's -s: a failure says nothing, its exit status tells.
            let (status, _) = ExitStatus.report(error)
            throw CLIError(status: status, message: nil)
        }
    }

    /// Sends the request the options describe and writes what came back.
    private func run(_ plan: Plan, _ invocation: Invocation) async throws {
        let quiet = quiet || silent
        let include = include || head
        let store = try invocation.openStore(for: .write)
        var configuration = plan.configuration
        // As curl: a User-Agent naming the tool when neither -A nor the store's http.user-agent gives one.
        if configuration.userAgent == nil, try store.networkIdentity().userAgent == nil {
            configuration.userAgent = "wkstore/\(CLI.version)"
        }
        let client = try HTTPClient(store: store, configuration: configuration)

        let progress = FetchProgress(quiet: quiet)
        var request = plan.request
        if progress.isEnabled { request.progress = { progress.update($0) } }
        defer { if let spool = plan.spoolFile { try? FileManager.default.removeItem(at: spool) } }
        // The process may exit as soon as this returns: the responses written behind are committed first.
        defer { store.httpCache.waitForPendingWrites() }
        var response: HTTPResponse
        let started = ContinuousClock.now
        do {
            defer { progress.finish() }
            response = try await client.send(request)
        } catch let error as CurlError {
            throw CLIError.failure("\(request.url.absoluteString): \(error.message)\(Self.hint(for: error))")
        } catch let error as HTTPClientError {
            throw CLIError.failure(error.message)
        }

        let elapsed = ContinuousClock.now - started
        let bodySize = Self.bodyByteCount(response)
        if verbose { FileHandle.standardError.write(Data(Self.verboseText(response).utf8)) }
        if let spool = plan.spoolFile, let target = plan.outputFile, response.bodyFile != nil {
            try Self.copy(spool, through: target)
            response.bodyFile = target
        }
        let output = invocation.output
        if output.json {
            output.write(Self.json(response, bodySize: bodySize))
        } else {
            if include { output.raw(Data(Self.headerText(response).utf8)) }
            if response.bodyFile == nil {
                if !plan.writesToTerminalAnyway && isatty(STDOUT_FILENO) == 1 && Self.isBinary(response.body) {
                    throw CLIError.failure(
                        "binary output can mess up your terminal; use '-o -' to write it to your terminal anyway, or '-o FILE' to save it to a file"
                    )
                }
                output.raw(response.body)
            }
            if !quiet {
                let line = Self.summary(response, bodySize: bodySize)
                if plan.outputFile != nil { output.line(line) } else { Output.message(line) }
            }
            if let format = plan.writeOut {
                output.raw(Data(format.render(response, bodySize: bodySize, elapsed: elapsed).utf8))
            }
        }
        if fail && response.status >= 400 {
            throw CLIError.failure("\(response.url.absoluteString) answered \(response.status)")
        }
    }

    // MARK: - Reading the options

    /// The request and client configuration the options describe.
    struct Plan {
        var request: HTTPRequest
        var configuration: HTTPClientConfiguration
        /// `-o FILE`.
        var outputFile: URL?
        /// Where the body is received when `-o` names something the body must be written
        /// through rather than replaced (`/dev/null`, a pipe, a symbolic link).
        var spoolFile: URL?
        /// `-o -`: the body goes to standard output even when it is a terminal and the body is not text.
        var writesToTerminalAnyway = false
        /// `-w FORMAT`, read.
        var writeOut: WriteOutFormat?

        init(_ command: FetchCommand) throws {
            var url = command.url
            var headers = try command.headers.map(FetchCommand.headerField)
            var body: Data?
            let data = command.data
            if !data.isEmpty {
                var joined = Data()
                for (offset, item) in data.enumerated() {
                    if offset > 0 { joined.append(UInt8(ascii: "&")) }
                    joined.append(item.isRaw ? Data(item.value.utf8) : try FetchCommand.dataValue(item.value))
                }
                if command.get {
                    url = try FetchCommand.appendingQuery(joined, to: url)
                } else {
                    if command.head {
                        throw CLIError.usage(
                            "-I sends HEAD, which has no body: add -G to send the -d data in the query")
                    }
                    body = joined
                    if !headers.contains(where: { $0.hasName("Content-Type") }) {
                        headers.append(HTTPHeaderField("Content-Type", "application/x-www-form-urlencoded"))
                    }
                }
            }
            var method = command.head ? "HEAD" : body == nil ? "GET" : "POST"
            if let given = command.method {
                guard FetchCommand.isToken(given) else { throw CLIError.usage("'\(given)' is not an HTTP method") }
                method = given
            }
            let topLevelSite = try command.topLevelSite.map { text throws(CLIError) in
                try CookiesCommands.parseURL(text, "--top-level-site")
            }
            request = HTTPRequest(url: url, method: method, headers: headers, body: body, topLevelSite: topLevelSite)
            if let text = command.maxRedirects {
                guard let count = Int(text), count >= 0 else {
                    throw CLIError.usage("invalid --max-redirects '\(text)': expected a whole number, 0 or more")
                }
                request.maxRedirects = count
            }
            if let user = command.user { request.credentials = HTTPCredentials(user) }
            writesToTerminalAnyway = command.output == "-"
            writeOut = try command.writeOut.map { text throws(CLIError) in try WriteOutFormat(text) }
            if let path = command.output, path != "-" {
                guard !path.isEmpty else { throw CLIError.usage("-o needs a file name") }
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                    throw CLIError.failure("cannot write the body to \(path): it is a directory (-o needs a file name)")
                }
                let file = URL(fileURLWithPath: path)
                outputFile = file
                if FetchCommand.isReplaceable(path) {
                    request.destination = file
                } else {
                    // The client replaces its destination when the body is complete: a device,
                    // a pipe or a link must be written through instead.
                    let spool = FileManager.default.temporaryDirectory.appendingPathComponent(
                        "wkstore-fetch-\(UUID().uuidString.lowercased())")
                    request.destination = spool
                    spoolFile = spool
                }
            }
            try FetchCommand.applyCacheMode(command.cacheMode, to: &request)

            configuration = HTTPClientConfiguration()
            // -A and -x win over the store's http.user-agent and http.proxy; -A '' sends none.
            configuration.userAgent = command.userAgent
            configuration.proxy = command.proxy
            configuration.acceptsCompressedResponses = command.compressed
            configuration.insecure = command.insecure
            if let path = command.caCertificates {
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw CLIError.failure("cannot read the --cacert file \(path)")
                }
                configuration.caCertificateFile = URL(fileURLWithPath: path)
            }
            configuration.resolve = try command.resolve.map { entry throws(CLIError) in
                guard FetchCommand.isResolveEntry(entry) else {
                    throw .usage(
                        "invalid --resolve '\(entry)': expected HOST:PORT:ADDRESS, such as www.example.com:443:127.0.0.1"
                    )
                }
                return entry
            }
            configuration.timeout = try FetchCommand.seconds(command.maxTime, "--max-time")
            configuration.connectTimeout = try FetchCommand.seconds(command.connectTimeout, "--connect-timeout")
        }
    }

    /// Whether `-o PATH` may be replaced by a new file: nothing is there yet, or a regular file
    /// (not a symbolic link, a device such as `/dev/null`, a pipe or a socket).
    static func isReplaceable(_ path: String) -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0 else { return errno == ENOENT }
        return (status.st_mode & S_IFMT) == S_IFREG
    }

    /// Writes a received body through to a `-o` target that is not replaced: truncated when it
    /// is a file (through a link), written in chunks.
    static func copy(_ spool: URL, through target: URL) throws {
        do {
            let input = try FileHandle(forReadingFrom: spool)
            defer { try? input.close() }
            guard let output = FileHandle(forWritingAtPath: target.path) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: target.path])
            }
            defer { try? output.close() }
            try? output.truncate(atOffset: 0)
            while let chunk = try input.read(upToCount: 1 << 16), !chunk.isEmpty {
                try output.write(contentsOf: chunk)
            }
        } catch {
            throw CLIError.failure("cannot write to \(target.path): \(FileErrorReason.text(error, path: target.path))")
        }
    }

    /// An absolute `http` or `https` URL.
    static func httpURL(_ text: String, _ what: String) throws(CLIError) -> URL {
        let url = try CookiesCommands.parseURL(text, what)
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .usage("'\(text)' is not an http or https URL (\(what))")
        }
        return url
    }

    /// `Name: value` (or `Name;` for an empty value) as a header field.
    static func headerField(_ text: String) throws(CLIError) -> HTTPHeaderField {
        if text.hasSuffix(";"), !text.contains(":") {
            let name = String(text.dropLast())
            if isToken(name) { return HTTPHeaderField(name, "") }
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw .usage("invalid -H '\(text)': expected 'NAME: VALUE'")
        }
        let name = String(text[..<colon])
        guard isToken(name) else { throw .usage("invalid -H '\(text)': '\(name)' is not a header name") }
        let value = text[text.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw .usage("invalid -H '\(name)': a header value cannot hold a line break or NUL")
        }
        return HTTPHeaderField(name, String(value))
    }

    /// The bytes of a `-d` value: itself, a file's bytes for `@FILE`, standard input for `@-`.
    static func dataValue(_ value: String) throws -> Data {
        guard value.hasPrefix("@") else { return Data(value.utf8) }
        let path = String(value.dropFirst())
        guard !path.isEmpty else { throw CLIError.usage("-d @ needs a file name (or @- for standard input)") }
        return try CookiesCommands.read(path)
    }

    /// Whether `text` is an HTTP token (RFC 9110 5.6.2): a method or a header name.
    static func isToken(_ text: String) -> Bool {
        let allowed = Set(
            "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".unicodeScalars)
        return !text.isEmpty && text.unicodeScalars.allSatisfy(allowed.contains)
    }

    /// `HOST:PORT:ADDRESS` (the host may be `[IPv6]`), as curl's `--resolve` takes it.
    static func isResolveEntry(_ entry: String) -> Bool {
        guard !entry.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == " " }) else { return false }
        var rest = Substring(entry)
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return false }
            rest = rest[rest.index(after: close)...]
            guard rest.hasPrefix(":") else { return false }
        } else {
            guard let colon = rest.firstIndex(of: ":"), colon != rest.startIndex else { return false }
            rest = rest[colon...]
        }
        rest = rest.dropFirst()
        guard let colon = rest.firstIndex(of: ":") else { return false }
        let port = rest[..<colon]
        let address = rest[rest.index(after: colon)...]
        return !port.isEmpty && port.allSatisfy(\.isASCII) && port.allSatisfy(\.isNumber) && !address.isEmpty
    }

    /// A positive number of seconds, or `nil` when the option was not given.
    static func seconds(_ text: String?, _ option: String) throws(CLIError) -> TimeInterval? {
        guard let text else { return nil }
        guard let value = TimeInterval(text), value > 0, value.isFinite else {
            throw .usage("invalid \(option) '\(text)': expected a number of seconds above 0, such as 30 or 2.5")
        }
        return value
    }

    /// What to try after a TLS failure, in a few words.
    static func hint(for error: CurlError) -> String {
        switch error.code {
        case CurlError.peerFailedVerification:
            " (give --cacert FILE to trust the server's certificate authority, or -k to skip verification)"
        default: ""
        }
    }

    // MARK: - Writing the response

    /// The bytes of the body: in memory, or in the file it was written to.
    static func bodyByteCount(_ response: HTTPResponse) -> Int64 {
        guard let file = response.bodyFile else { return Int64(response.body.count) }
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber
        return size?.int64Value ?? 0
    }

    /// `-i`: each hop as curl prints it: its status line, its header fields and a blank line,
    /// each line ending in CR LF.
    static func headerText(_ response: HTTPResponse) -> String {
        var text = ""
        for hop in response.hops {
            text += statusLine(hop) + "\r\n"
            for field in hop.headers { text += "\(field.name): \(field.value)\r\n" }
            text += "\r\n"
        }
        return text
    }

    /// `HTTP/1.1 302 Found`: the hop's HTTP version, status and reason phrase (none in HTTP/2,
    /// where curl leaves the space after the status).
    static func statusLine(_ hop: HTTPResponseHop) -> String {
        "HTTP/\(hop.httpVersion) \(hop.status) \(hop.reasonPhrase)"
    }

    /// `-v`: for each hop, the request line and header fields sent (`> `), the status line and
    /// header fields received (`< `), and every cookie the store refused (`* `), as curl's
    /// `-v` shows them.
    static func verboseText(_ response: HTTPResponse) -> String {
        var text = ""
        for hop in response.hops {
            if hop.requestHeaders.isEmpty {
                text += "* \(hop.method) \(hop.url.absoluteString) served from the store's cache, no request sent\n"
            } else {
                // libcurl writes HTTP/1.1 requests unless HTTP/2 or 3 was negotiated, whatever the server answers with.
                let version = hop.httpVersion == "2" || hop.httpVersion == "3" ? hop.httpVersion : "1.1"
                text += "> \(hop.method) \(requestTarget(hop.url)) HTTP/\(version)\n"
                for field in hop.requestHeaders { text += "> \(field.name): \(field.value)\n" }
                text += "> \n"
                if hop.cacheOutcome == .revalidated {
                    text += "* the server confirmed the stored response (304); it is served from the store's cache\n"
                }
            }
            text += "< " + statusLine(hop) + "\n"
            for field in hop.headers { text += "< \(field.name): \(field.value)\n" }
            text += "< \n"
            for refusal in hop.refusedCookies { text += "* \(refusal.description)\n" }
        }
        return text
    }

    /// What the request line names: the URL's path (`/` when empty) and query, as sent.
    static func requestTarget(_ url: URL) -> String {
        let path = url.path(percentEncoded: true)
        let query = url.query(percentEncoded: true).map { "?" + $0 } ?? ""
        return (path.isEmpty ? "/" : path) + query
    }

    /// Whether a body would garble a terminal: it holds a NUL byte, curl's test.
    static func isBinary(_ body: Data) -> Bool { body.contains(0) }

    /// `-G`: the URL with `data` added to its query (after `&` when it has one), before any fragment.
    static func appendingQuery(_ data: Data, to url: URL) throws(CLIError) -> URL {
        let text = String(decoding: data, as: UTF8.self)
        var address = url.absoluteString
        var fragment = ""
        if let hash = address.firstIndex(of: "#") {
            fragment = String(address[hash...])
            address = String(address[..<hash])
        }
        if !text.isEmpty { address += (address.contains("?") ? "&" : "?") + text }
        guard let joined = URL(string: address + fragment) else {
            throw .usage("-G: the data does not make a valid URL query: '\(text)'")
        }
        return joined
    }

    /// `200 https://www.example.com/welcome (1 redirect, cache MISS, 5.2 KB to page.html)`.
    static func summary(_ response: HTTPResponse, bodySize: Int64) -> String {
        var details: [String] = []
        let redirects = response.hops.count - 1
        if redirects > 0 { details.append(Format.count(redirects, "redirect")) }
        if let outcome = cacheOutcome(response) { details.append("cache " + outcome) }
        var size = bodySize < 1024 ? Format.count(Int(bodySize), "byte") : Format.bytes(bodySize)
        if let file = response.bodyFile { size += " to " + file.path }
        details.append(size)
        return "\(response.status) \(response.url.absoluteString) (\(details.joined(separator: ", ")))"
    }

    /// The response as JSON.
    static func json(_ response: HTTPResponse, bodySize: Int64) -> JSONValue {
        func fields(_ headers: [HTTPHeaderField]) -> JSONValue {
            .array(headers.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })
        }
        var members: [(String, JSONValue)] = [
            ("url", .string(response.url.absoluteString)),
            ("status", .int(Int64(response.status))),
            ("httpVersion", .string(response.httpVersion)),
            ("cache", .optional(cacheOutcome(response))),
            ("redirects", .int(Int64(response.hops.count - 1))),
            (
                "hops",
                .array(
                    response.hops.map { hop in
                        .object([
                            ("url", .string(hop.url.absoluteString)), ("method", .string(hop.method)),
                            ("status", .int(Int64(hop.status))), ("httpVersion", .string(hop.httpVersion)),
                            ("reasonPhrase", .string(hop.reasonPhrase)), ("headers", fields(hop.headers)),
                        ])
                    })
            ),
            ("headers", fields(response.headers)),
            ("bodySize", .int(bodySize)),
            ("bodyFile", .optional(response.bodyFile?.path)),
        ]
        if response.bodyFile == nil {
            if let text = String(validating: response.body, as: UTF8.self) {
                members += [("body", .string(text)), ("bodyBase64", .null)]
            } else {
                members += [("body", .null), ("bodyBase64", .string(response.body.base64EncodedString()))]
            }
        } else {
            members += [("body", .null), ("bodyBase64", .null)]
        }
        return .object(members)
    }
}

/// One `-d`, `--data-binary` or `--data-raw` value, in the order given.
struct FetchData: Sendable {
    /// The value as given.
    var value: String
    /// `--data-raw`: the value is sent as it is, even when it starts with `@`.
    var isRaw: Bool
}

extension FetchCommand {
    /// Sets the request's cache mode from `--cache-mode`.
    ///
    /// - Throws: `CLIError.usage` for a name that is not one of Fetch's cache modes.
    static func applyCacheMode(_ name: String?, to request: inout HTTPRequest) throws(CLIError) {
        guard let name else { return }
        guard let mode = CacheMode(rawValue: name) else {
            throw .usage(
                "unknown --cache-mode '\(name)'; modes: \(CacheMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        request.cacheMode = mode
    }

    /// `HIT`, `MISS`, `REVALIDATED` or `STALE` for the final response; `nil` when the cache was
    /// not involved (a method other than GET and HEAD).
    static func cacheOutcome(_ response: HTTPResponse) -> String? {
        response.cacheOutcome?.rawValue
    }
}
