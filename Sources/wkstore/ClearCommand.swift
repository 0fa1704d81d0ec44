import Foundation
import WebsiteData

/// `wkstore clear`: removes data by type, by modification date and by site.
struct ClearCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["clear"],
        summary: "remove data of some types, modified since a date, of some sites",
        details: """
            Removes the data of the given types that was modified at or after WHEN (all of it \
            without --since), for the given sites (all sites without --site). --types is required, \
            so nothing is cleared by accident: a comma-separated list of \
            \(WebsiteDataType.allCases.map(\.cliName).joined(separator: ", ")), or all.

            WHEN is \(SinceDate.acceptedForms). A WHEN in the future removes nothing.

            SITE is a display name as 'wkstore records' prints it (example.com, not www.example.com).

            With --partition SITE (and --types cookies), only the Partitioned cookies kept for that \
            top-level site (https://example.com) are removed.

            Processes that hold the store open see the removal before their next lookup.

            Examples:
              wkstore clear --types cookies,diskcache --since 2h
              wkstore clear --types all --since 2026-11-01 --site example.com --dry-run
            """)

    @Option(
        name: "types", placeholder: "LIST", help: "types to remove, comma-separated, or all (required)",
        required: "(a comma-separated list such as cookies,diskcache, or all)", parse: ClearCommand.parseTypes)
    var types: Set<WebsiteDataType>
    @Option(
        name: "since", placeholder: "WHEN", help: "only data modified at or after WHEN",
        parse: ClearCommand.parseSince)
    var since: Date?
    @Option(
        name: "site", placeholder: "SITE", help: "only data of this site (display name); may be repeated",
        parse: ClearCommand.parseSite)
    var sites: [String]
    @Option(
        name: "partition", placeholder: "SITE",
        help: "only Partitioned cookies kept for this top-level site (with --types cookies)",
        parse: CookiesCommands.parsePartition)
    var partition: String?
    @Flag(name: "dry-run", help: "print what would be removed and remove nothing")
    var dryRun: Bool
    @Flag(name: "must-match", help: "exit 1 when nothing matched (so a script can tell)")
    var mustMatch: Bool

    func run(_ invocation: Invocation) async throws {
        let sites = try Self.removalSites(self.sites)
        if partition != nil && types != [.cookies] {
            throw CLIError.usage("--partition removes Partitioned cookies: give it with --types cookies")
        }
        let store = try invocation.openStore(for: dryRun ? .read : .remove)
        let inFuture = since.map { $0 > Date() } ?? false
        let removed =
            inFuture
            ? []
            : try store.removeData(
                ofTypes: types, matching: RemovalFilter(modifiedSince: since, sites: sites, partitionKey: partition),
                dryRun: dryRun)

        let output = invocation.output
        if output.json {
            output.write(
                .object([
                    ("types", .array(DataFormat.typeNames(types).map(JSONValue.string))),
                    ("since", since.map(JSONValue.date) ?? .null),
                    ("sites", sites.map { .array($0.sorted().map(JSONValue.string)) } ?? .null),
                    ("partition", partition.map(JSONValue.string) ?? .null),
                    ("dryRun", .bool(dryRun)),
                    ("sinceIsInFuture", .bool(inFuture)),
                    ("removed", .array(removed.map { DataFormat.json($0, sizes: false) })),
                ]))
            return
        }
        if inFuture, let since {
            output.line("nothing to remove: --since \(Format.iso8601Seconds(since)) is in the future")
        } else {
            output.lines(Self.lines(removed, dryRun: dryRun))
        }
        try CLIError.requireMatch(!removed.isEmpty, mustMatch, "nothing matched")
    }

    /// `removed cookies, diskcache for example.com` per record, or `nothing to remove`; a dry run
    /// counts what it would remove: `would remove cookies (3 cookies), diskcache (1 cached response)
    /// for example.com`.
    static func lines(_ removed: [WebsiteDataRecord], dryRun: Bool) -> [String] {
        if removed.isEmpty { return ["nothing to remove"] }
        return removed.map { record in
            let types = record.dataTypes.sorted()
            guard dryRun else {
                return "removed \(types.map(\.cliName).joined(separator: ", ")) for \(record.displayName)"
            }
            let counted = types.map { type in
                record.counts[type].map { "\(type.cliName) (\(Format.count($0, type.itemName)))" } ?? type.cliName
            }
            return "would remove \(counted.joined(separator: ", ")) for \(record.displayName)"
        }
    }

    /// A `--site` value checked as a display name, ASCII letters folded to lower case.
    ///
    /// - Throws: `CLIError.usage` (from `StoreError.invalidArgument`) for a value that is not a
    ///   display name (`../x`).
    static func parseSite(_ value: String) throws(CLIError) -> String {
        do {
            try Site.validateDisplayName(value)
        } catch {
            throw .reporting(error)
        }
        return value == Site.localFilesDisplayName ? value : value.lowercased()
    }

    /// The sites `--site` named for a command that only reads, or `nil` for every site.
    ///
    /// A host (`www.example.com`) reads as its site's display name (`example.com`), and a line on
    /// standard error says so: data is kept by site, so the host alone would match nothing.
    static func readSites(_ sites: [String]) -> Set<String>? {
        guard !sites.isEmpty else { return nil }
        return Set(
            sites.map { site in
                let name = Site.displayName(forHost: site)
                if name != site { Output.message("--site \(site) is a host: reading the data of its site, \(name)") }
                return name
            })
    }

    /// The sites `--site` named for a command that removes data, or `nil` for every site.
    ///
    /// - Throws: `CLIError.usage` for a host (`www.example.com`), naming the display name to use:
    ///   mapping it would widen the removal to every host of the site, which the user did not ask for.
    static func removalSites(_ sites: [String]) throws(CLIError) -> Set<String>? {
        guard !sites.isEmpty else { return nil }
        for site in sites {
            let name = Site.displayName(forHost: site)
            if name != site {
                throw .usage(
                    "--site \(site) is a host, not a site: data is removed by site; --site \(name) removes the data of \(name) and of every host under it"
                )
            }
        }
        return Set(sites)
    }

    /// A `--types` list.
    ///
    /// - Throws: `CLIError.usage` with `WebsiteDataTypeError`'s message for an unknown name.
    static func parseTypes(_ text: String) throws(CLIError) -> Set<WebsiteDataType> {
        do {
            return try WebsiteDataType.parseList(text)
        } catch {
            throw .reporting(error)
        }
    }

    /// A `--since` date, read against the present moment.
    ///
    /// - Throws: `CLIError.usage` naming the forms `SinceDate` accepts.
    static func parseSince(_ text: String) throws(CLIError) -> Date {
        guard let date = SinceDate.parse(text, now: Date()) else {
            throw .usage("invalid --since '\(text)': expected \(SinceDate.acceptedForms)")
        }
        return date
    }
}
