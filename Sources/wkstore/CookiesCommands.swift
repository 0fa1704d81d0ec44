import Foundation
import WebsiteData

/// `wkstore cookies …`: list, set, send, delete cookies, and end the session.
enum CookiesCommands {
    /// The group.
    static let group = CommandGroup(
        name: "cookies", summary: "list, set, send and delete cookies; scripts for page script",
        commands: [list, set, header, delete, endSession, script, ingestReport])

    /// `wkstore cookies list`.
    static let list = CommandSpec(
        path: ["cookies", "list"],
        summary: "list cookies: all, a site's, or those a visit to a URL sends",
        usage: ["cookies list [--site SITE]... [--url URL]"],
        details: """
            Without options, lists every cookie in the store, by domain, path and name. With --site, \
            the cookies of that site (display name, such as example.com). With --url, the cookies a \
            top-level navigation to URL would send, in Cookie header order (and marks them accessed).

            Text output has one cookie a line: domain (a leading dot for a domain cookie), path, \
            name=value, expiry (or "session"), attributes. --json gives Playwright's cookie fields.
            """,
        options: [
            .value("site", "SITE", repeatable: true, "only the cookies of this site (display name); may be repeated"),
            .value("url", "URL", "the cookies a top-level navigation to URL sends, in header order"),
        ],
        positionalCount: 0...0, positionalName: "no arguments",
        run: runList)

    /// `wkstore cookies set`.
    static let set = CommandSpec(
        path: ["cookies", "set"],
        summary: "store cookies as a server response from a URL would set them",
        usage: ["cookies set --url URL SET-COOKIE-VALUE...", "cookies set --url URL --headers-file FILE"],
        details: """
            Stores the cookies of Set-Cookie header values as a browser would on receiving them in \
            a response from URL (a top-level navigation), with every rule of RFC 6265bis: public \
            suffixes, Secure, prefixes, sizes, limits. Prints how many were stored and refused; \
            each refusal's reason goes to standard error. Exits 1 only when cookies were refused \
            and none was stored or deleted.

            --headers-file reads raw response header lines (- for standard input) byte for byte, so \
            captured responses (curl -D) replay exactly: only Set-Cookie lines are used; the status \
            line and other headers are skipped.

            Examples:
              wkstore cookies set --url https://www.example.com/ 'sid=abc; Path=/; Secure; HttpOnly'
              curl -sD - -o /dev/null https://example.com/ | wkstore cookies set --url https://example.com/ --headers-file -
            """,
        options: [
            .value("url", "URL", "the URL of the response (required)"),
            .value(
                "headers-file", "FILE", "read Set-Cookie lines from raw response headers in FILE (- for standard input)"
            ),
        ],
        positionalCount: 0...Int.max, positionalName: "Set-Cookie values or --headers-file",
        run: runSet)

    /// `wkstore cookies header`.
    static let header = CommandSpec(
        path: ["cookies", "header"],
        summary: "print the Cookie header a request to a URL carries",
        usage: ["cookies header URL [--top-level-site URL] [--subresource | --navigation] [--method METHOD]"],
        details: """
            Prints the value of the Cookie header a request to URL carries (nothing when no cookie \
            applies), with cookies in RFC 6265bis order: longer paths first, then earlier creation. \
            The cookies are marked accessed.

            By default the request is a top-level GET navigation to URL. --top-level-site names the \
            page the request is made from (for SameSite), and makes it a subresource request unless \
            --navigation is given.

            Example:
              wkstore cookies header https://api.example.com/v1 --top-level-site https://shop.example --method POST
            """,
        options: [
            .value("top-level-site", "URL", "the page (URL or origin) the request is made from"),
            .flag("subresource", "the request loads a subresource, not a page"),
            .flag(
                "navigation",
                "the request navigates the top-level page (with --top-level-site: a cross-page navigation)"),
            .value("method", "METHOD", "the request method (default GET)"),
        ],
        positionalCount: 1...1, positionalName: "a URL",
        run: runHeader)

    /// `wkstore cookies delete`.
    static let delete = CommandSpec(
        path: ["cookies", "delete"],
        summary: "delete cookies by name and domain (and path)",
        usage: ["cookies delete --name NAME --domain DOMAIN [--path PATH]"],
        details: """
            Deletes the cookies named NAME whose domain is DOMAIN (with or without a leading dot: \
            both host-only and domain cookies match), and whose path is PATH when given. Prints \
            each cookie deleted, or "no cookie matched".
            """,
        options: [
            .value("name", "NAME", "the cookie name (required)"),
            .value("domain", "DOMAIN", "the cookie domain, such as www.example.com (required)"),
            .value("path", "PATH", "only the cookie with this path"),
        ],
        positionalCount: 0...0, positionalName: "no arguments",
        run: runDelete)

    /// `wkstore cookies end-session`.
    static let endSession = CommandSpec(
        path: ["cookies", "end-session"],
        summary: "remove every session cookie (one without an expiry), as quitting a browser does",
        usage: ["cookies end-session"],
        details: "Removes every session cookie from the store, in every process sharing it, and prints how many.",
        options: [],
        positionalCount: 0...0, positionalName: "no arguments",
        run: runEndSession)

    // MARK: - Runs

    static func runList(_ invocation: Invocation) async throws {
        let sites = try ClearCommand.siteFilter(invocation.arguments.all("site"))
        let url = try invocation.arguments.value("url").map { text throws(CLIError) in try parseURL(text, "--url") }
        if sites != nil && url != nil { throw CLIError.usage("give --site or --url, not both") }
        let store = try invocation.openStore(for: .read)
        let cookies: [Cookie]
        if let url {
            cookies = try store.httpCookieStore.cookies(for: url, context: .topLevelNavigation)
        } else if let sites {
            cookies = try sites.sorted().flatMap { try store.httpCookieStore.cookies(forSite: $0) }
        } else {
            cookies = try store.httpCookieStore.allCookies()
        }
        let output = invocation.output
        if output.json {
            output.write(.array(cookies.map(DataFormat.json)))
        } else {
            output.lines(DataFormat.lines(cookies))
        }
    }

    static func runSet(_ invocation: Invocation) async throws {
        let url = try parseURL(try invocation.required("url", "(the URL the response came from)"), "--url")
        let positionals = invocation.arguments.positionals
        let headers: [String]
        if let file = invocation.arguments.value("headers-file") {
            if !positionals.isEmpty {
                throw CLIError.usage("give Set-Cookie values or --headers-file, not both")
            }
            headers = SetCookieLines.values(in: try read(file))
        } else {
            if positionals.isEmpty {
                throw CLIError.usage(
                    "'wkstore cookies set' needs Set-Cookie values or --headers-file; see 'wkstore cookies set --help'")
            }
            headers = positionals
        }
        let store = try invocation.openStore(for: .write)
        let summary = try store.httpCookieStore.setCookies(fromSetCookieHeaders: headers, for: url)
        for rejection in summary.rejected { Output.message(rejection.description) }
        let output = invocation.output
        if output.json {
            output.write(
                .object([
                    ("url", .string(url.absoluteString)),
                    ("stored", .int(Int64(summary.stored))),
                    ("deleted", .int(Int64(summary.deleted))),
                    ("evicted", .int(Int64(summary.evicted))),
                    (
                        "refused",
                        .array(
                            summary.rejected.map {
                                .object([
                                    ("name", .string($0.name)), ("reason", .string($0.reason.rawValue)),
                                    ("message", .string($0.description)),
                                ])
                            })
                    ),
                ]))
        } else {
            output.line(summaryLine(summary))
        }
        if summary.stored == 0 && summary.deleted == 0 && !summary.rejected.isEmpty {
            throw CLIError.failure(nil)
        }
    }

    /// `stored 3 cookies, refused 1` (with deletions and evictions when there were any).
    static func summaryLine(_ summary: CookieWriteSummary) -> String {
        var parts = ["stored \(Format.count(summary.stored, "cookie"))"]
        if summary.deleted > 0 { parts.append("deleted \(summary.deleted)") }
        if summary.evicted > 0 { parts.append("evicted \(summary.evicted)") }
        parts.append("refused \(summary.rejected.count)")
        return parts.joined(separator: ", ")
    }

    static func runHeader(_ invocation: Invocation) async throws {
        let arguments = invocation.arguments
        let url = try parseURL(arguments.positionals[0], "the request URL")
        let topLevelSite = try arguments.value("top-level-site").map { text throws(CLIError) in
            try parseURL(text, "--top-level-site")
        }
        if arguments.has("navigation") && arguments.has("subresource") {
            throw CLIError.usage("give --navigation or --subresource, not both")
        }
        let method = arguments.value("method") ?? "GET"
        let tokenCharacters = CharacterSet(
            charactersIn: "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        if method.isEmpty || !method.unicodeScalars.allSatisfy(tokenCharacters.contains) {
            throw CLIError.usage("'\(method)' is not an HTTP method")
        }
        let isNavigation = arguments.has("navigation") || (!arguments.has("subresource") && topLevelSite == nil)
        let context = CookieRequestContext(topLevelSite: topLevelSite, method: method, isNavigation: isNavigation)
        let store = try invocation.openStore(for: .read)
        let cookies = try store.httpCookieStore.cookies(for: url, context: context)
        let value = cookies.isEmpty ? nil : cookies.map(\.pair).joined(separator: "; ")
        let output = invocation.output
        if output.json {
            output.write(
                .object([
                    ("url", .string(url.absoluteString)),
                    ("cookie", .optional(value)),
                    ("cookies", .array(cookies.map(DataFormat.json))),
                ]))
        } else if let value {
            output.line(value)
        }
    }

    static func runDelete(_ invocation: Invocation) async throws {
        let name = try invocation.required("name")
        let domain = try invocation.required("domain")
        let path = invocation.arguments.value("path")
        let store = try invocation.openStore(for: .read)
        let deleted = try store.httpCookieStore.deleteCookies(named: name, domain: domain, path: path)
        let output = invocation.output
        if output.json {
            output.write(.object([("deleted", .array(deleted.map(DataFormat.json)))]))
        } else if deleted.isEmpty {
            output.line("no cookie matched")
        } else {
            output.lines(
                deleted.map { "deleted \($0.name) (domain \(DataFormat.playwrightDomain($0)), path \($0.path))" })
        }
    }

    static func runEndSession(_ invocation: Invocation) async throws {
        let store = try invocation.openStore(for: .read)
        let removed = try store.endSession()
        let output = invocation.output
        if output.json {
            output.write(.object([("removed", .array(removed.map(DataFormat.json)))]))
        } else {
            output.line("removed \(Format.count(removed.count, "session cookie"))")
        }
    }

    // MARK: - Helpers

    /// An absolute URL with a scheme and a host (or a `file:` URL).
    ///
    /// - Throws: `CLIError.usage` naming `what` otherwise.
    static func parseURL(_ text: String, _ what: String) throws(CLIError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "file" || !(url.host(percentEncoded: false) ?? "").isEmpty
        else {
            throw .usage("'\(text)' is not an absolute URL (\(what)): give one such as https://www.example.com/")
        }
        return url
    }

    /// The bytes of a file, or of standard input for `-`.
    static func read(_ path: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError.failure("cannot read \(path): \((error as NSError).localizedDescription)")
        }
    }
}
