import Foundation
import WebsiteData

/// `wkstore cookies …`: list, set, send, delete cookies, and end the session.
enum CookiesCommands {
    /// The group.
    static var group: CommandGroup {
        CommandGroup(
            name: "cookies", summary: "list, set, send and delete cookies; scripts for page script",
            commands: [
                CommandSpec(ListCommand.self), CommandSpec(SetCommand.self), CommandSpec(HeaderCommand.self),
                CommandSpec(DeleteCommand.self), CommandSpec(EndSessionCommand.self),
                CommandSpec(ScriptCommand.self), CommandSpec(IngestReportCommand.self),
            ])
    }

    /// `wkstore cookies list`.
    struct ListCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["cookies", "list"],
            summary: "list cookies: all, a site's, or those a visit to a URL sends",
            details: """
                Without options, lists every cookie in the store, by domain, path and name. With --site, \
                the cookies of that site (display name, such as example.com). With --url, the cookies a \
                top-level navigation to URL would send, in Cookie header order (and marks them accessed). \
                With --partition SITE, only the Partitioned cookies kept for that top-level site.

                Text output has one cookie a line: domain (a leading dot for a domain cookie), path, \
                name=value, expiry (or "session"), attributes. --json gives Playwright's cookie fields.
                """)

        @Option(
            name: "site", placeholder: "SITE", help: "only the cookies of this site (display name); may be repeated",
            parse: ClearCommand.parseSite)
        var sites: [String]
        @Option(
            name: "url", placeholder: "URL", help: "the cookies a top-level navigation to URL sends, in header order",
            parse: { text throws(CLIError) in try parseURL(text, "--url") })
        var url: URL?
        @Option(
            name: "partition", placeholder: "SITE",
            help: "only Partitioned cookies kept for this top-level site (https://example.com)",
            parse: CookiesCommands.parsePartition)
        var partition: String?

        func run(_ invocation: Invocation) async throws {
            let sites = ClearCommand.readSites(self.sites)
            if sites != nil && url != nil { throw CLIError.usage("give --site or --url, not both") }
            if partition != nil && url != nil { throw CLIError.usage("give --partition or --url, not both") }
            let store = try invocation.openStore(for: .read)
            var cookies: [Cookie]
            if let url {
                cookies = try store.httpCookieStore.cookies(for: url, context: .topLevelNavigation)
            } else if let sites {
                cookies = try sites.sorted().flatMap { try store.httpCookieStore.cookies(forSite: $0) }
            } else {
                cookies = try store.httpCookieStore.allCookies()
            }
            if let partition { cookies = cookies.filter { $0.partitionKey == partition } }
            let output = invocation.output
            if output.json {
                output.write(.array(cookies.map(DataFormat.json)))
            } else {
                output.lines(DataFormat.lines(cookies))
            }
        }
    }

    /// `wkstore cookies set`.
    struct SetCommand: Command {
        static let configuration = CommandConfiguration(
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
                """)

        @Option(
            name: "url", placeholder: "URL", help: "the URL of the response (required)",
            required: "(the URL the response came from)",
            parse: { text throws(CLIError) in try parseURL(text, "--url") })
        var url: URL
        @Option(
            name: "headers-file", placeholder: "FILE",
            help: "read Set-Cookie lines from raw response headers in FILE (- for standard input)")
        var headersFile: String?
        @Argument(placeholder: "SET-COOKIE-VALUE", help: "Set-Cookie values or --headers-file")
        var values: [String]

        func run(_ invocation: Invocation) async throws {
            let headers: [String]
            if let file = headersFile {
                if !values.isEmpty {
                    throw CLIError.usage("give Set-Cookie values or --headers-file, not both")
                }
                headers = SetCookieLines.values(in: try read(file))
            } else {
                if values.isEmpty {
                    throw CLIError.usage(
                        "'wkstore cookies set' needs Set-Cookie values or --headers-file; see 'wkstore cookies set --help'"
                    )
                }
                headers = values
            }
            try await CookiesCommands.set(headers, for: url, invocation)
        }
    }

    /// `wkstore cookies header`.
    struct HeaderCommand: Command {
        static let configuration = CommandConfiguration(
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
                """)

        @Argument(
            placeholder: "URL", help: "a URL", parse: { text throws(CLIError) in try parseURL(text, "the request URL") }
        )
        var url: URL
        @Option(
            name: "top-level-site", placeholder: "URL", help: "the page (URL or origin) the request is made from",
            parse: { text throws(CLIError) in try parseURL(text, "--top-level-site") })
        var topLevelSite: URL?
        @Flag(name: "subresource", help: "the request loads a subresource, not a page")
        var subresource: Bool
        @Flag(
            name: "navigation",
            help: "the request navigates the top-level page (with --top-level-site: a cross-page navigation)")
        var navigation: Bool
        // Checked in `run`, after --navigation and --subresource, as it always was.
        @Option(name: "method", placeholder: "METHOD", help: "the request method (default GET)")
        var method: String?

        func run(_ invocation: Invocation) async throws {
            if navigation && subresource {
                throw CLIError.usage("give --navigation or --subresource, not both")
            }
            let method = self.method ?? "GET"
            let tokenCharacters = CharacterSet(
                charactersIn: "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
            if method.isEmpty || !method.unicodeScalars.allSatisfy(tokenCharacters.contains) {
                throw CLIError.usage("'\(method)' is not an HTTP method")
            }
            let isNavigation = navigation || (!subresource && topLevelSite == nil)
            let context = CookieRequestContext(topLevelSite: topLevelSite, method: method, isNavigation: isNavigation)
            let store = try invocation.openStore(for: .read)
            // One lookup: a store opened for reading reads the request's site alone.
            let cookies = try store.httpCookieStore.cookiesOfOneLookup(for: url, context: context)
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
    }

    /// `wkstore cookies delete`.
    struct DeleteCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["cookies", "delete"],
            summary: "delete cookies by name, domain, path or partition (each optional)",
            details: """
                Deletes the cookies that match every option given, as Playwright's clearCookies: \
                --name NAME, --domain DOMAIN (with or without a leading dot: host-only and domain \
                cookies match; with --subdomains, the cookies of its subdomains too), --path PATH and \
                --partition SITE (the top-level site a Partitioned cookie is kept for). At least one \
                is required: 'wkstore clear --types cookies' deletes every cookie. --name alone \
                deletes that name everywhere. Prints each cookie deleted, or "no cookie matched"; \
                --dry-run prints what would be deleted and deletes nothing.

                Examples:
                  wkstore cookies delete --name session_id
                  wkstore cookies delete --domain example.com --subdomains --dry-run
                """)

        @Option(name: "name", placeholder: "NAME", help: "only cookies with this name")
        var name: String?
        @Option(name: "domain", placeholder: "DOMAIN", help: "only cookies of this domain, such as www.example.com")
        var domain: String?
        @Flag(name: "subdomains", help: "--domain also matches the cookies of its subdomains")
        var subdomains: Bool
        @Option(name: "path", placeholder: "PATH", help: "only cookies with this path")
        var path: String?
        @Option(
            name: "partition", placeholder: "SITE",
            help: "only Partitioned cookies kept for this top-level site (https://example.com)",
            parse: CookiesCommands.parsePartition)
        var partition: String?
        @Flag(name: "dry-run", help: "print what would be deleted and delete nothing")
        var dryRun: Bool
        @Flag(name: "must-match", help: "exit 1 when no cookie matched")
        var mustMatch: Bool

        func run(_ invocation: Invocation) async throws {
            if name == nil && domain == nil && path == nil && partition == nil {
                throw CLIError.usage(
                    "give at least one of --name, --domain, --path and --partition ('wkstore clear --types cookies' deletes every cookie)"
                )
            }
            if subdomains && domain == nil { throw CLIError.usage("--subdomains needs --domain") }
            let filter = CookieFilter(
                name: name, domain: domain, includesSubdomains: subdomains, path: path, partitionKey: partition)
            let store = try invocation.openStore(for: dryRun ? .read : .remove)
            let deleted = try store.httpCookieStore.deleteCookies(matching: filter, dryRun: dryRun)
            let output = invocation.output
            if output.json {
                output.write(
                    .object([(dryRun ? "wouldDelete" : "deleted", .array(deleted.map(DataFormat.json)))]))
            } else if deleted.isEmpty {
                output.line("no cookie matched")
            } else {
                let verb = dryRun ? "would delete" : "deleted"
                output.lines(
                    deleted.map {
                        var line = "\(verb) \($0.name) (domain \(DataFormat.playwrightDomain($0)), path \($0.path)"
                        if !$0.partitionKey.isEmpty { line += ", partition \($0.partitionKey)" }
                        return line + ")"
                    })
            }
            try CLIError.requireMatch(!deleted.isEmpty, mustMatch, "no cookie matched")
        }
    }

    /// `wkstore cookies end-session`.
    struct EndSessionCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["cookies", "end-session"],
            summary: "remove every session cookie (one without an expiry), as quitting a browser does",
            details: "Removes every session cookie from the store, in every process sharing it, and prints how many.")

        func run(_ invocation: Invocation) async throws {
            let store = try invocation.openStore(for: .remove)
            let removed = try store.endSession()
            let output = invocation.output
            if output.json {
                output.write(.object([("removed", .array(removed.map(DataFormat.json)))]))
            } else {
                output.line("removed \(Format.count(removed.count, "session cookie"))")
            }
        }
    }

    // MARK: - Helpers

    /// Stores the cookies of Set-Cookie values from a response from `url`, and reports them.
    ///
    /// - Throws: `CLIError.failure` (already reported) when cookies were refused and none was
    ///   stored or deleted.
    static func set(_ headers: [String], for url: URL, _ invocation: Invocation) async throws {
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

    /// An absolute URL with a scheme and a host (or a `file:` URL).
    ///
    /// - Throws: `CLIError.usage` naming `what` otherwise.
    /// A `--partition` value: a top-level site as a URL, a schemeful site or a host (read as
    /// `https`), as the partition key `Cookie.partitionKey` holds.
    ///
    /// - Throws: `CLIError.usage` for a value that names no host.
    static func parsePartition(_ text: String) throws(CLIError) -> String {
        guard let key = CookieFilter.partitionKey(forTopLevelSite: text) else {
            throw .usage("'\(text)' is not a site (--partition): give one such as https://example.com")
        }
        return key
    }

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
        if path == "-" { return try FileHandle.standardInput.readToEndOfFile() }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError.failure("cannot read \(path): \(FileErrorReason.text(error, path: path))")
        }
    }
}
