import Foundation
import WebsiteData

/// `wkstore clear`: removes data by type, by modification date and by site.
enum ClearCommand {
    /// The command.
    static let spec = CommandSpec(
        path: ["clear"],
        summary: "remove data of some types, modified since a date, of some sites",
        usage: ["clear --types LIST [--since WHEN] [--site SITE]... [--dry-run]"],
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
            """,
        options: [
            .value("types", "LIST", "types to remove, comma-separated, or all (required)"),
            .value("since", "WHEN", "only data modified at or after WHEN"),
            .value("site", "SITE", repeatable: true, "only data of this site (display name); may be repeated"),
            .flag("dry-run", "print what would be removed and remove nothing"),
        ],
        positionalCount: 0...0, positionalName: "no arguments",
        run: run)

    static func run(_ invocation: Invocation) async throws {
        let arguments = invocation.arguments
        let types = try WebsiteDataType.parseList(
            try invocation.required("types", "(a comma-separated list such as cookies,diskcache, or all)"))
        let now = Date()
        var since: Date?
        if let text = arguments.value("since") {
            guard let date = SinceDate.parse(text, now: now) else {
                throw CLIError.usage("invalid --since '\(text)': expected \(SinceDate.acceptedForms)")
            }
            since = date
        }
        let sites = try siteFilter(arguments.all("site"))
        let dryRun = arguments.has("dry-run")

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
            output.lines(lines(removed, dryRun: dryRun))
        }
    }

    /// `removed cookies, diskcache for example.com` per record, or `nothing to remove`.
    static func lines(_ removed: [WebsiteDataRecord], dryRun: Bool) -> [String] {
        if removed.isEmpty { return ["nothing to remove"] }
        return removed.map {
            "\(dryRun ? "would remove" : "removed") \(DataFormat.typeNames($0.dataTypes).joined(separator: ", ")) for \($0.displayName)"
        }
    }

    /// The `--site` values checked as display names (ASCII letters folded to lower case), or `nil` for every site.
    ///
    /// - Throws: `StoreError.invalidArgument` for a value that is not a display name (`../x`).
    static func siteFilter(_ values: [String]) throws -> Set<String>? {
        guard !values.isEmpty else { return nil }
        var sites = Set<String>()
        for value in values {
            try Site.validateDisplayName(value)
            sites.insert(value == Site.localFilesDisplayName ? value : value.lowercased())
        }
        return sites
    }
}
