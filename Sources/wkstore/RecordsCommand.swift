import WebsiteData

/// `wkstore records`: the sites that have data, with their types (and, with `--sizes`, how much).
struct RecordsCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["records"],
        summary: "list the sites (display names) that have data, with their types",
        usage: ["records [--types LIST] [--sizes]"],
        details: """
            Lists each site (display name, such as example.com) that has data of the given types, \
            with the types it has. With --json, each record also has the bytes held per type.

            --sizes lists the sites largest first, each with its bytes and a bar in proportion to \
            the largest, so you see at a glance what to clear:
              example.com   12.3 MB  ██████████  cookies, diskcache
              example.org    1.1 MB  █░░░░░░░░░  localstorage
            Sizes are in powers of 1024 (KB, MB, GB), as the size settings read them.
            """)

    @Option(
        name: "types", placeholder: "LIST",
        help: "types to list, comma-separated (default: all); see 'wkstore help clear'",
        parse: ClearCommand.parseTypes)
    var types: Set<WebsiteDataType>?
    @Flag(name: "sizes", help: "largest sites first, with their sizes and a bar")
    var bySize: Bool

    func run(_ invocation: Invocation) async throws {
        let types = self.types ?? WebsiteDataType.all
        let store = try invocation.openStore(for: .read)
        var records = try await store.dataRecords(ofTypes: types)
        if bySize { records = Self.largestFirst(records) }
        let output = invocation.output
        if output.json {
            output.write(.array(records.map { DataFormat.json($0, sizes: true) }))
        } else if bySize {
            output.lines(Self.sizeLines(records))
        } else {
            output.lines(DataFormat.lines(records))
        }
    }

    /// Records by total size, largest first; equal sizes by display name.
    static func largestFirst(_ records: [WebsiteDataRecord]) -> [WebsiteDataRecord] {
        records.sorted { a, b in
            a.totalSize != b.totalSize ? a.totalSize > b.totalSize : a.displayName < b.displayName
        }
    }

    /// `example.com  12.3 MB  ████████░░  cookies, diskcache`, the size right-aligned.
    static func sizeLines(_ records: [WebsiteDataRecord]) -> [String] {
        let largest = records.map(\.totalSize).max() ?? 0
        let sizes = records.map { Format.bytes($0.totalSize) }
        let width = sizes.map(\.count).max() ?? 0
        return Format.table(
            zip(records, sizes).map { record, size in
                [
                    record.displayName,
                    String(repeating: " ", count: width - size.count) + size,
                    Format.bar(largest > 0 ? Double(record.totalSize) / Double(largest) : 0),
                    DataFormat.typeNames(record.dataTypes).joined(separator: ", "),
                ]
            })
    }
}
