import WebsiteData

/// `wkstore records`: the sites that have data, with their types.
enum RecordsCommand {
    /// The command.
    static let spec = CommandSpec(
        path: ["records"],
        summary: "list the sites (display names) that have data, with their types",
        usage: ["records [--types LIST]"],
        details: """
            Lists each site (display name, such as example.com) that has data of the given types, \
            with the types it has. With --json, each record also has the bytes held per type.
            """,
        options: [.value("types", "LIST", "types to list, comma-separated (default: all); see 'wkstore help clear'")],
        positionalCount: 0...0, positionalName: "no arguments",
        run: run)

    static func run(_ invocation: Invocation) async throws {
        let types = try invocation.arguments.value("types").map { text throws(WebsiteDataTypeError) in
            try WebsiteDataType.parseList(text)
        } ?? WebsiteDataType.all
        let store = try invocation.openStore(for: .read)
        let records = try await store.dataRecords(ofTypes: types)
        let output = invocation.output
        if output.json {
            output.write(.array(records.map { DataFormat.json($0, sizes: true) }))
        } else {
            output.lines(DataFormat.lines(records))
        }
    }
}
