import Foundation
import WebsiteData

/// `wkstore import` and `wkstore export`: cookies (and, in storage-state files, web storage)
/// in and out of the files curl, wget, yt-dlp and Playwright use.
enum InterchangeCommands {
    /// `wkstore import`.
    struct ImportCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["import"],
            summary: "import a cookies.txt, a browser extension's cookie array or a Playwright storage state",
            usage: [
                "import FILE [--format netscape|storage-state|extension-json] [--strict]",
                "import --from chromium [--profile DIR] [--site SITE]... [--types cookies,localstorage] [--keyring-password PASSWORD]",
                "import --from firefox [--profile DIR] [--site SITE]... [--types cookies,localstorage] [--container NAME]",
                "import --from chromium|firefox --list-profiles",
            ],
            details: """
                Imports the cookies of FILE (- for standard input): a Netscape cookies.txt as curl \
                -c, wget and yt-dlp write it, the JSON array of cookies that browser extensions and \
                chrome.cookies export (extension-json), or a Playwright storageState JSON. The format \
                is detected when --format is not given ('{' first means storage-state, '[' an \
                extension's array). Every cookie meets the rules a Set-Cookie from its own domain over \
                HTTPS would (no supercookies on public suffixes, prefixes, sizes, the 400-day cap). \
                \(storageStateImportNote)

                The cookies that can be imported are, in one transaction; each line (or array entry) \
                that cannot is named on standard error with its reason ("line 3: cookie 'super' \
                refused: its Domain is a public suffix"), and the exit status is 1 when anything was \
                refused. With --strict the import is all or nothing: the first refused line stops it, \
                exits 1 naming it, and leaves the store exactly as it was. JSON that does not parse is \
                refused whole either way. An import holds the store's write lock from start to end, so \
                standard input is first copied to a temporary file.

                Prints what was read and imported; when the store's limits evicted cookies, it names \
                the settings to raise (cookies.max-total, cookies.max-per-site).

                With --from chromium or firefox, imports the cookies and localStorage of a browser profile instead of \
                a file: the profile folder --profile names (Chromium's Default, or a user-data-dir \
                for its last used profile; a Firefox profile folder), or the default profile found \
                in ~/.config/chromium, ~/.config/google-chrome or ~/.mozilla/firefox/profiles.ini. \
                The browser may be running: its files are copied to a private folder and read there, \
                never locked or changed. Chromium values are decrypted as Chromium does on Linux \
                (v10; v11 with --keyring-password, or the empty password Chromium uses without a \
                keyring); cookies no password decrypts are left out and counted on one line. \
                Firefox's session cookies come from its session store; --container takes a \
                container's cookies instead of the default ones. --site and --types limit what is \
                taken; --list-profiles lists the profiles found. A profile that does not exist, is damaged or too new is refused \
                whole, and the store is left as it was.

                Examples:
                  wkstore import cookies.txt
                  curl -s -c - https://example.com/ -o /dev/null | wkstore import -
                  wkstore import --from chromium --site example.com
                  wkstore import --from chromium --profile ~/.config/chromium/Default
                  wkstore import --from firefox --container Work
                """)

        @Argument(placeholder: "FILE", help: "a file (or - for standard input)")
        var path: String?
        @Option(
            name: "from", placeholder: "BROWSER",
            help: "import a browser profile instead of a file: chromium or firefox",
            parse: InterchangeCommands.browser)
        var browser: BrowserKind?
        @Option(
            name: "profile", placeholder: "DIR",
            help: "with --from: the profile folder or user-data-dir (default: the browser's default profile)")
        var profile: String?
        @Option(
            name: "site", placeholder: "SITE",
            help: "with --from: only this site's data (display name); may be repeated",
            parse: ClearCommand.parseSite)
        var sites: [String]
        @Option(
            name: "types", placeholder: "TYPES",
            help: "with --from: the data types to take (default: cookies,localstorage)",
            parse: ClearCommand.parseTypes)
        var types: Set<WebsiteDataType>?
        @Option(
            name: "keyring-password", placeholder: "PASSWORD",
            help: "with --from chromium: the keyring's Safe Storage password, for v11 cookie values")
        var keyringPassword: String?
        @Option(
            name: "container", placeholder: "NAME",
            help: "with --from firefox: the container whose cookies to take (default: none)")
        var container: String?
        @Flag(name: "list-profiles", help: "with --from: list the profiles found and import nothing")
        var listProfiles: Bool
        @Option(
            name: "format", placeholder: "FORMAT", help: "netscape or storage-state (default: detected)",
            parse: InterchangeCommands.format)
        var format: CookieFileFormat?
        @Flag(name: "strict", help: "all or nothing: refuse the whole file at its first bad line")
        var strict: Bool
        /// Declared only to be refused.
        private let sessionStorage = sessionStorageOption()

        func run(_ invocation: Invocation) async throws {
            try await InterchangeCommands.runImport(self, invocation)
        }
    }

    /// `wkstore export`.
    struct ExportCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["export"],
            summary: "export cookies (and web storage) as a cookies.txt or a Playwright storage state",
            usage: [
                "export [--format netscape|storage-state] [--site SITE]... [--indexeddb] [-o FILE]",
                "export --to chromium --profile DIR [--site SITE]...",
            ],
            details: """
                Writes the store's cookies (those of the given sites only, with --site) oldest first, \
                so that an import keeps their order, to standard output or, with -o, to FILE (made \
                0600, and replaced only once complete). netscape (the default) is curl's \
                cookies.txt; storage-state is Playwright's storageState JSON, which also keeps \
                SameSite and partitioned cookies. \(storageStateExportNote)

                cookies.txt has no place for a partitioned cookie or a tab in a value: such cookies \
                are left out and named on standard error. With -o, a summary goes to standard output \
                (--json: as JSON).

                With --to chromium, writes the cookies into the Cookies file of the Chromium profile \
                --profile names (created when missing; values v10-encrypted, as Chromium's basic \
                store keeps them): a cookie with the same domain, name and path is replaced, the \
                profile's other cookies are kept. Refused while Chromium runs on the profile.

                Examples:
                  wkstore export > cookies.txt && curl -b cookies.txt https://example.com/
                  wkstore export --format storage-state --site example.com -o state.json
                  wkstore export --to chromium --profile ~/.config/chromium/Default
                """)

        @Option(
            name: "format", placeholder: "FORMAT", help: "netscape (default) or storage-state",
            parse: InterchangeCommands.format)
        var format: CookieFileFormat?
        @Option(
            name: "site", placeholder: "SITE", help: "only this site's data (display name); may be repeated",
            parse: ClearCommand.parseSite)
        var sites: [String]
        @Flag(name: "indexeddb", help: "storage-state only: include each origin's IndexedDB databases")
        var includeIndexedDB: Bool
        /// Declared only to be refused.
        private let sessionStorage = sessionStorageOption()
        @Option(name: "output", alias: "o", placeholder: "FILE", help: "write to FILE instead of standard output")
        var output: String?
        @Option(
            name: "to", placeholder: "BROWSER", help: "write the cookies into a browser profile: chromium",
            parse: InterchangeCommands.browser)
        var browser: BrowserKind?
        @Option(name: "profile", placeholder: "DIR", help: "with --to: the profile folder or user-data-dir")
        var profile: String?

        func run(_ invocation: Invocation) async throws {
            try await InterchangeCommands.runExport(self, invocation)
        }
    }

    /// `--session-storage`, declared only to be refused, saying why.
    static func sessionStorageOption() -> Option<String?> {
        Option(
            name: "session-storage", placeholder: "NAMESPACE",
            help: "not available in the command line: sessionStorage lives in the memory of the process using it",
            refusal: sessionStorageRefusal)
    }

    /// What an import of a storage state takes besides cookies, for the help.
    static let storageStateImportNote = """
        A storage state's origins bring each origin's localStorage (a key the file has takes its \
        value, other keys stay) and IndexedDB databases (each replaces the origin's database of \
        the same name); the whole file is checked before anything is written. Its sessionStorage \
        (a member wkstore's library writes) is left out and counted: sessionStorage lives in the \
        memory of the process that uses it.
        """
    /// What an export to a storage state holds besides cookies, for the help.
    static let storageStateExportNote = """
        Its origins list has each origin's localStorage and, with --indexeddb, its IndexedDB \
        databases, as Playwright's context.storageState({ indexedDB: true }) writes them.
        """

    /// Why `--session-storage` is refused.
    static let sessionStorageRefusal = """
        --session-storage is not available in the command line: sessionStorage lives in the memory of \
        the process that uses it and ends with it, so no other process can read or fill it; a program \
        holding the store open moves it with the library (see Docs/cli.md)
        """

    /// Imports the file `import` names.
    static func runImport(_ command: ImportCommand, _ invocation: Invocation) async throws {
        if command.browser != nil {
            return try ProfileImport.run(command, invocation)
        }
        for (given, name) in [
            (command.profile != nil, "profile"), (!command.sites.isEmpty, "site"), (command.types != nil, "types"),
            (command.keyringPassword != nil, "keyring-password"), (command.container != nil, "container"),
            (command.listProfiles, "list-profiles"),
        ] where given {
            throw CLIError.usage("--\(name) needs --from BROWSER: it reads a browser profile, not a file")
        }
        guard let path = command.path else {
            throw CLIError.usage("'wkstore import' needs a FILE (or --from BROWSER); see 'wkstore import --help'")
        }
        let format = command.format
        let file: URL
        var spooled: URL?
        if path == "-" {
            let copy = try spoolStandardInput()
            spooled = copy
            file = copy
        } else {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw CLIError.failure("cannot read \(path): no such file, or not readable")
            }
            file = URL(fileURLWithPath: path)
        }
        defer { if let spooled { try? FileManager.default.removeItem(at: spooled) } }

        let chosen = try format ?? CookieInterchange.detectFormat(of: file)
        let store = try invocation.openStore(for: .write)
        let options: CookieImportOptions = command.strict ? .strict : .lenient
        let cookies: CookieImportSummary
        var state: StorageStateImportSummary?
        let message: String
        if chosen == .storageState {
            let summary = try StorageStateInterchange.importStorageState(from: file, into: store, options: options)
            cookies = summary.cookies
            state = summary
            message = importDescription(summary)
        } else {
            cookies = try CookieInterchange.importCookies(
                from: file, format: chosen, into: store.httpCookieStore, options: options)
            message = cookies.description
        }
        // A refused line fails the import for a script (exit 1), after everything is reported.
        let refused = cookies.hasRefusals ? CLIError.failure(nil) : nil
        let output = invocation.output
        guard output.json else {
            output.line(message)
            for refusal in cookies.refusals { Output.message(refusal.description) }
            if cookies.refused > cookies.refusals.count {
                Output.message("… and \(cookies.refused - cookies.refusals.count) more refused")
            }
            if let refused { throw refused }
            return
        }
        var members: [(String, JSONValue)] = [
            ("file", .string(path)),
            ("format", .string(chosen.rawValue)),
            ("read", .int(Int64(cookies.read))),
            ("imported", .int(Int64(cookies.imported))),
            ("expired", .int(Int64(cookies.expired))),
            ("evicted", .int(Int64(cookies.evicted))),
            ("refused", .int(Int64(cookies.refused))),
            ("sameSiteNoneWithoutSecure", .int(Int64(cookies.sameSiteNoneWithoutSecure))),
            (
                "refusals",
                .array(
                    cookies.refusals.map { refusal in
                        .object([
                            ("line", .int(Int64(refusal.line))),
                            ("index", refusal.index.map { .int(Int64($0)) } ?? .null),
                            ("path", JSONValue.optional(refusal.path)), ("reason", .string(refusal.reason)),
                        ])
                    })
            ),
        ]
        if let state {
            members += [
                ("origins", .int(Int64(state.origins))),
                ("localStorageItems", .int(Int64(state.localStorageItems))),
                ("indexedDBDatabases", .int(Int64(state.indexedDBDatabases))),
                ("indexedDBRecords", .int(Int64(state.indexedDBRecords))),
                ("ignoredSessionStorageItems", .int(Int64(state.ignoredSessionStorageItems))),
            ]
        }
        members.append(("message", .string(message)))
        output.write(.object(members))
        if let refused { throw refused }
    }

    /// `read 4 cookies: imported 4; 2 origins: 5 localStorage items, 1 IndexedDB database with 12 records`,
    /// and the sessionStorage items left out, with why (a command cannot keep them).
    static func importDescription(_ summary: StorageStateImportSummary) -> String {
        var text = summary.cookies.description + "; " + Format.count(summary.origins, "origin")
        var parts: [String] = []
        if summary.localStorageItems > 0 { parts.append(Format.count(summary.localStorageItems, "localStorage item")) }
        if summary.indexedDBDatabases > 0 {
            parts.append(
                Format.count(summary.indexedDBDatabases, "IndexedDB database") + " with "
                    + Format.count(summary.indexedDBRecords, "record"))
        }
        if summary.ignoredSessionStorageItems > 0 {
            parts.append(
                "left out " + Format.count(summary.ignoredSessionStorageItems, "sessionStorage item")
                    + " (sessionStorage lives in the memory of the program using it; import it with the library)")
        }
        if !parts.isEmpty { text += ": " + parts.joined(separator: ", ") }
        return text
    }

    /// Exports what `export` asks for.
    static func runExport(_ command: ExportCommand, _ invocation: Invocation) async throws {
        let sites = ClearCommand.readSites(command.sites)
        if let browser = command.browser {
            return try exportToBrowser(browser, command, sites: sites, invocation)
        }
        if command.profile != nil { throw CLIError.usage("--profile needs --to BROWSER") }
        let format = command.format ?? .netscape
        let includeIndexedDB = command.includeIndexedDB
        if includeIndexedDB && format != .storageState {
            throw CLIError.usage("--indexeddb needs --format storage-state")
        }
        let destination = command.output.flatMap { $0 == "-" ? nil : $0 }
        let output = invocation.output
        if output.json && destination == nil {
            throw CLIError.usage("--json needs -o FILE: without it, standard output carries the exported file")
        }
        let store = try invocation.openStore(for: .read)
        if format == .storageState {
            let summary: StorageStateExportSummary
            if let destination {
                summary = try StorageStateInterchange.exportStorageState(
                    from: store, sites: sites, includeIndexedDB: includeIndexedDB,
                    to: URL(fileURLWithPath: destination))
            } else {
                Output.flush()
                summary = try StorageStateInterchange.exportStorageState(
                    from: store, sites: sites, includeIndexedDB: includeIndexedDB,
                    to: FileHandle.standardOutput, named: "-")
            }
            guard let destination else { return }
            if output.json {
                output.write(
                    .object([
                        ("file", .string(destination)),
                        ("format", .string(format.rawValue)),
                        ("written", .int(Int64(summary.cookies))),
                        ("skipped", .array([])),
                        ("origins", .int(Int64(summary.origins))),
                        ("localStorageItems", .int(Int64(summary.localStorageItems))),
                        ("indexedDBDatabases", .int(Int64(summary.indexedDBDatabases))),
                        ("indexedDBRecords", .int(Int64(summary.indexedDBRecords))),
                        ("message", .string(summary.description)),
                    ]))
            } else {
                output.line(summary.description + " to " + destination)
            }
            return
        }
        let siteList = sites.map { $0.sorted() }
        let summary: CookieExportSummary
        if let destination {
            summary = try CookieInterchange.exportCookies(
                from: store.httpCookieStore, sites: siteList, format: format,
                to: URL(fileURLWithPath: destination))
        } else {
            Output.flush()
            summary = try CookieInterchange.exportCookies(
                from: store.httpCookieStore, sites: siteList, format: format,
                to: FileHandle.standardOutput, named: "-")
        }
        for skip in summary.skipped { Output.message(skipMessage(skip)) }
        guard let destination else { return }
        if output.json {
            output.write(
                .object([
                    ("file", .string(destination)),
                    ("format", .string(format.rawValue)),
                    ("written", .int(Int64(summary.written))),
                    (
                        "skipped",
                        .array(
                            summary.skipped.map { skip in
                                .object([
                                    ("name", .string(skip.cookie.name)),
                                    ("domain", .string(DataFormat.playwrightDomain(skip.cookie))),
                                    ("path", .string(skip.cookie.path)), ("reason", .string(skip.reason.rawValue)),
                                ])
                            })
                    ),
                    ("message", .string(summary.description)),
                ]))
        } else {
            // `wrote 3 cookies to FILE; left out 1 partitioned (…)`.
            let written = "wrote " + Format.count(summary.written, "cookie")
            let text = summary.description
            output.line(
                text.hasPrefix(written)
                    ? written + " to " + destination + text.dropFirst(written.count)
                    : text + " to " + destination)
        }
    }

    /// `export --to chromium --profile DIR`: the store's cookies into a browser profile.
    static func exportToBrowser(
        _ browser: BrowserKind, _ command: ExportCommand, sites: Set<String>?, _ invocation: Invocation
    ) throws {
        guard browser == .chromium else { throw CLIError.usage("--to: only chromium profiles can be written") }
        if command.format != nil || command.output != nil || command.includeIndexedDB {
            throw CLIError.usage("--to writes a browser profile: --format, -o and --indexeddb are for files")
        }
        guard let profile = command.profile else {
            throw CLIError.usage("'wkstore export --to chromium' needs --profile DIR (the profile to write)")
        }
        let store = try invocation.openStore(for: .read)
        let written = try BrowserProfileInterchange.exportCookies(
            from: store, sites: sites.map { $0.sorted() }, toChromiumProfile: URL(fileURLWithPath: profile))
        let message = "wrote " + Format.count(written, "cookie") + " to the Chromium profile " + profile
        if invocation.output.json {
            invocation.output.write(
                .object([
                    ("profile", .string(profile)), ("written", .int(Int64(written))), ("message", .string(message)),
                ]))
        } else {
            invocation.output.line(message)
        }
    }

    /// `left out cookie 'chip' (.example.org/): partitioned, which cookies.txt cannot hold`.
    static func skipMessage(_ skip: CookieExportSkip) -> String {
        let why =
            skip.reason == .partitioned
            ? "partitioned, which the format cannot hold (use --format storage-state)"
            : "a tab or line break, which the format cannot hold"
        return
            "left out cookie '\(skip.cookie.name)' (\(DataFormat.playwrightDomain(skip.cookie))\(skip.cookie.path)): \(why)"
    }

    /// A `--from` browser name.
    ///
    /// - Throws: `CLIError.usage` listing the browsers for a name that is none of them.
    static func browser(_ text: String) throws(CLIError) -> BrowserKind {
        guard let browser = BrowserKind(rawValue: text.lowercased()) else {
            throw .usage(
                "unknown --from '\(text)'; browsers: \(BrowserKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return browser
    }

    /// A `--format` name.
    ///
    /// - Throws: `CLIError.usage` listing the formats for a name that is none of them.
    static func format(_ text: String) throws(CLIError) -> CookieFileFormat {
        guard let format = CookieFileFormat(rawValue: text) else {
            throw .usage(
                "unknown --format '\(text)'; formats: \(CookieFileFormat.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        return format
    }

    /// Copies standard input to a new owner-only temporary file, so that the import that reads
    /// it holds the store's write lock only as long as reading a file takes.
    static func spoolStandardInput() throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "wkstore-import-\(UUID().uuidString.lowercased())")
        guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw CLIError.failure(
                "cannot create a temporary file in \(FileManager.default.temporaryDirectory.path) for standard input")
        }
        do {
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 16), !chunk.isEmpty {
                try handle.write(contentsOf: chunk)
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw CLIError.failure(
                "cannot copy standard input to \(file.path): \(FileErrorReason.text(error, path: file.path))")
        }
        return file
    }
}
