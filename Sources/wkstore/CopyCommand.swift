import Foundation
import WebsiteData

/// `wkstore copy SOURCE DEST`: a whole store copied into an empty one, between a directory and
/// a PostgreSQL database either way, or between two stores of one kind.
struct CopyCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["copy"],
        summary: "copy a whole store into an empty one: a directory, a PostgreSQL store, either way",
        details: """
            Copies every persistent type of the store SOURCE into the store DEST, each a directory \
            or a postgresql:// (postgres://) URI as --store takes them: cookies, disk cache \
            entries with their bodies, localStorage, IndexedDB, WebSQL and application caches, \
            and the settings SOURCE sets (they replace DEST's). The memory cache and \
            sessionStorage live in process memory and are not copied. --source-identifier and \
            --destination-identifier name the store of an identifier (in a PostgreSQL database, \
            or the identifier's subdirectory of a directory).

            SOURCE is read as one snapshot and never changed. DEST is made when it does not exist \
            and must hold no website data; it is written in one transaction, so a failure leaves \
            it as it was, and every process that has it open reloads. The copy is then read back \
            and compared with the source, table by table. Counts per type are printed.

            Examples:
              wkstore copy ~/crawl postgresql://crawler@db.internal/fleet --destination-identifier 4F0B5D0E-7C3A-4B8E-9A51-2D6C1E8F0A37
              wkstore copy postgresql://crawler@db.internal/fleet ~/crawl-copy
            """)

    @Argument(placeholder: "SOURCE", help: "the store to copy: a directory or a postgresql:// URI")
    var source: String

    @Argument(placeholder: "DEST", help: "the store to copy into: a directory or a postgresql:// URI")
    var destination: String

    @Option(name: "source-identifier", placeholder: "UUID", help: "copy the store of this identifier in SOURCE")
    var sourceIdentifier: String?

    @Option(
        name: "destination-identifier", placeholder: "UUID", help: "copy into the store of this identifier in DEST")
    var destinationIdentifier: String?

    func run(_ invocation: Invocation) async throws {
        if invocation.globals.store != nil || invocation.globals.identifier != nil {
            throw CLIError.usage(
                "'wkstore copy' takes its stores as SOURCE and DEST (with --source-identifier, --destination-identifier); --store and --identifier do not apply"
            )
        }
        let from = try Self.location(source, identifier: sourceIdentifier, role: "SOURCE")
        let into = try Self.location(destination, identifier: destinationIdentifier, role: "DEST")
        if case .directory(let directory) = from {
            try StoreLocation.checkNamedDirectory(directory, for: .read)
        }
        let sourceStore = try from.open(for: .read)
        guard sourceStore.isPersistent else {
            throw CLIError.failure("SOURCE holds no store yet: there is nothing to copy (nothing was changed)")
        }
        let destinationStore = try into.open(for: .write, readOnly: invocation.globals.readOnly)
        let summary = try WebsiteDataStore.copyStore(from: sourceStore, to: destinationStore)
        let counts = Self.counts(summary)
        let output = invocation.output
        if output.json {
            output.write(.object(counts.map { ($0.key, .int(Int64($0.count))) }))
        } else {
            let width = counts.map(\.name.count).max() ?? 0
            output.lines(
                counts.map { $0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + "\($0.count)" })
        }
    }

    /// The store `text` names (a directory or a PostgreSQL URI), of `identifier` when given.
    static func location(_ text: String, identifier: String?, role: String) throws(CLIError) -> StoreLocation {
        guard !text.isEmpty else { throw .usage("\(role) needs a directory or a postgresql:// URI") }
        let uuid = try identifier.map(StoreLocation.identifier)
        if WebsiteDataStore.isPostgreSQLURI(text) {
            guard let url = URL(string: text) else { throw .usage("\(role): not a valid postgresql:// URI") }
            return .postgreSQL(url, identifier: uuid)
        }
        let directory = URL(fileURLWithPath: text, isDirectory: true)
        return .directory(uuid.map { directory.appendingPathComponent($0.uuidString.lowercased()) } ?? directory)
    }

    /// The counts, each under the name `wkstore copy` prints and the key of its JSON.
    static func counts(_ summary: StoreCopySummary) -> [(name: String, key: String, count: Int)] {
        [
            ("cookies", "cookies", summary.cookies),
            ("disk cache entries", "diskCacheEntries", summary.diskCacheEntries),
            ("localStorage items", "localStorageItems", summary.localStorageItems),
            ("IndexedDB databases", "indexedDBDatabases", summary.indexedDBDatabases),
            ("IndexedDB records", "indexedDBRecords", summary.indexedDBRecords),
            ("WebSQL databases", "webSQLDatabases", summary.webSQLDatabases),
            ("application caches", "applicationCacheGroups", summary.applicationCacheGroups),
            ("settings", "settings", summary.settings),
        ]
    }
}
