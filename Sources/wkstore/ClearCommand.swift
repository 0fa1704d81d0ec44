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
    @Flag(name: "dry-run", help: "print what would be removed and remove nothing")
    var dryRun: Bool

    func run(_ invocation: Invocation) async throws {
        let sites = Self.siteFilter(self.sites)
        let store = try invocation.openStore(for: .read)
        let inFuture = since.map { $0 > Date() } ?? false
        let removed =
            inFuture
            ? []
            : try store.removeData(
                ofTypes: types, matching: RemovalFilter(modifiedSince: since, sites: sites), dryRun: dryRun)

        let output = invocation.output
        if output.json {
            output.write(
                .object([
                    ("types", .array(DataFormat.typeNames(types).map(JSONValue.string))),
                    ("since", since.map(JSONValue.date) ?? .null),
                    ("sites", sites.map { .array($0.sorted().map(JSONValue.string)) } ?? .null),
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
    }

    /// `removed cookies, diskcache for example.com` per record, or `nothing to remove`.
    static func lines(_ removed: [WebsiteDataRecord], dryRun: Bool) -> [String] {
        if removed.isEmpty { return ["nothing to remove"] }
        return removed.map {
            "\(dryRun ? "would remove" : "removed") \(DataFormat.typeNames($0.dataTypes).joined(separator: ", ")) for \($0.displayName)"
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

    /// The sites `--site` named, or `nil` for every site.
    static func siteFilter(_ sites: [String]) -> Set<String>? { sites.isEmpty ? nil : Set(sites) }

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
