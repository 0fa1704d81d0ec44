import Foundation
import WebsiteData

/// `wkstore watch`: prints the store's changes as they are committed, by any process.
struct WatchCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["watch"],
        summary: "print changes to the store's data as they happen, by any process, until interrupted",
        usage: ["watch [--types LIST] [--site SITE]... [--since POSITION] [--count N]"],
        details: """
            Prints one line per change, in commit order: its position, when it was committed, the \
            type, the site (or * for every site), the cause (write, removal, import, endSession, \
            expiry, eviction) and, for a cookie, its name, domain and path, with "removed" when it went:
              17 2026-12-03T07:30:00.125Z cookies example.com write sid example.com /
            With --json, one JSON object per line (JSON lines): position, date, type, site, cause, \
            and for a cookie the cookie (as 'cookies list --json' gives it) and removed.

            --since POSITION prints the changes after a position an earlier watch printed (the \
            change log keeps changes.keep-seconds and changes.keep-entries of them). When changes \
            cannot be told one by one (the position is older than the log, or this watch fell \
            behind), a line says to reload ("reload 42", or {"reload": 42}) and the watch goes on \
            after that position. --count N stops after N lines.
            """)

    @Option(
        name: "types", placeholder: "LIST", help: "types to watch, comma-separated (default: all)",
        parse: ClearCommand.parseTypes)
    var types: Set<WebsiteDataType>?
    @Option(
        name: "site", placeholder: "SITE", help: "only changes of this site (display name); may be repeated",
        parse: ClearCommand.parseSite)
    var sites: [String]
    @Option(
        name: "since", placeholder: "POSITION", help: "start after this position (default: from now on)",
        parse: { text throws(CLIError) in try WatchCommand.parseCount(text, "--since") })
    var since: Int64?
    @Option(
        name: "count", placeholder: "N", help: "stop after N lines",
        parse: { text throws(CLIError) in try WatchCommand.parseCount(text, "--count") })
    var count: Int64?

    /// A whole number, 0 or more.
    static func parseCount(_ text: String, _ option: String) throws(CLIError) -> Int64 {
        guard let value = Int64(text), value >= 0 else {
            throw .usage("invalid \(option) '\(text)': expected a whole number, 0 or more")
        }
        return value
    }

    func run(_ invocation: Invocation) async throws {
        if count == 0 { return }
        let sites = ClearCommand.readSites(self.sites)
        // Opened as a writer opens it (a store that does not exist is not created): a read-only
        // open of a store with no write-ahead log reads it as immutable, and would miss every change.
        let store = try invocation.openStore(for: .remove)
        let feed = try store.changes(ofTypes: types ?? WebsiteDataType.all, since: since.map(ChangePosition.init))
        let output = invocation.output
        var printed: Int64 = 0
        for try await event in feed {
            if case .change(let change) = event, let sites, change.site != "*", !sites.contains(change.site) {
                continue
            }
            if output.json {
                output.writeLine(Self.json(event))
            } else {
                output.line(Self.line(event))
            }
            Output.flush()
            printed += 1
            if let count, printed >= count { return }
        }
    }

    /// `17 2026-12-03T07:30:00.125Z cookies example.com write sid example.com /`, or `reload 42`.
    static func line(_ event: WebsiteDataChangeEvent) -> String {
        switch event {
        case .reload(let position):
            return "reload \(position)"
        case .change(let change):
            var words = [
                change.position.description, Format.iso8601(change.date), change.type.cliName, change.site,
                change.cause.rawValue,
            ]
            if let cookie = change.cookie { words += [cookie.name, DataFormat.playwrightDomain(cookie), cookie.path] }
            if change.cookieRemoved { words.append("removed") }
            return words.joined(separator: " ")
        }
    }

    /// The event as one JSON object.
    static func json(_ event: WebsiteDataChangeEvent) -> JSONValue {
        switch event {
        case .reload(let position):
            return .object([("reload", .int(position.value))])
        case .change(let change):
            var members: [(String, JSONValue)] = [
                ("position", .int(change.position.value)), ("date", .date(change.date)),
                ("type", .string(change.type.cliName)), ("site", .string(change.site)),
                ("cause", .string(change.cause.rawValue)),
            ]
            if change.type == .cookies {
                members.append(("cookie", change.cookie.map(DataFormat.json) ?? .null))
                members.append(("removed", .bool(change.cookieRemoved)))
            }
            return .object(members)
        }
    }
}
