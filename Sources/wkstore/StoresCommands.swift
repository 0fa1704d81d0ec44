import Foundation
import WebsiteData

/// `wkstore stores …`: the stores made for identifiers.
enum StoresCommands {
    /// The group.
    static var group: CommandGroup {
        CommandGroup(
            name: "stores", summary: "list and remove the stores made for identifiers",
            commands: [CommandSpec(ListCommand.self), CommandSpec(RemoveCommand.self)])
    }

    /// `wkstore stores list`.
    struct ListCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["stores", "list"],
            summary: "list the identifiers of the stores made for identifiers",
            details: """
                Prints, one a line, the identifiers (UUIDs) of the stores under $XDG_DATA_HOME/wkstore \
                (else ~/.local/share/wkstore), as WKWebsiteDataStore.allDataStoreIdentifiers gives them. \
                The default store is not among them.
                """)

        func run(_ invocation: Invocation) async throws {
            try refuseStoreOptions(invocation)
            let identifiers = try
                (postgreSQLDatabase(invocation).map { try WebsiteDataStore.allDataStoreIdentifiers(in: $0) }
                ?? WebsiteDataStore.allDataStoreIdentifiers()).map { $0.uuidString.lowercased() }
            let output = invocation.output
            if output.json {
                output.write(.array(identifiers.map(JSONValue.string)))
            } else {
                output.lines(identifiers)
            }
        }
    }

    /// `wkstore stores remove`.
    struct RemoveCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["stores", "remove"],
            summary: "delete the store with an identifier, and all its data",
            details: """
                Deletes the store made for the identifier UUID, with every piece of data in it. A store \
                that a process has open (a crawler, 'wkstore watch'; on PostgreSQL, on any machine) is \
                refused with exit 1 and nothing is removed; --force removes it anyway (on PostgreSQL, \
                the processes holding it then fail at their next call, saying the store was removed).
                """)

        // Read in `run`, after the check of --store and --identifier, whose message comes first.
        @Argument(placeholder: "UUID", help: "a store identifier (UUID)")
        var text: String
        @Flag(name: "force", help: "remove the store even while a process has it open")
        var force: Bool

        func run(_ invocation: Invocation) async throws {
            try refuseStoreOptions(invocation)
            guard let identifier = UUID(uuidString: text) else {
                throw CLIError.usage(
                    "'\(text)' is not a store identifier: give a UUID as 'wkstore stores list' prints it")
            }
            if let database = try postgreSQLDatabase(invocation) {
                try WebsiteDataStore.removeDataStore(forIdentifier: identifier, in: database, force: force)
            } else {
                try WebsiteDataStore.removeDataStore(forIdentifier: identifier, force: force)
            }
            let output = invocation.output
            if output.json {
                output.write(.object([("removed", .string(identifier.uuidString.lowercased()))]))
            } else {
                output.line("removed store \(identifier.uuidString.lowercased())")
            }
        }
    }

    /// `stores` works on the stores under the root directory, or in the PostgreSQL database a
    /// `--store URI` names: a directory `--store` and `--identifier` name one store, which makes
    /// no sense here.
    private static func refuseStoreOptions(_ invocation: Invocation) throws(CLIError) {
        let store = invocation.globals.store
        if store.map(WebsiteDataStore.isPostgreSQLURI) == true && invocation.globals.identifier == nil { return }
        if store != nil || invocation.globals.identifier != nil {
            throw .usage(
                "'\(invocation.command.fullName)' works on the stores under $XDG_DATA_HOME/wkstore, or in the database of a postgresql:// --store; a directory --store and --identifier do not apply"
            )
        }
    }

    /// The PostgreSQL database a `--store URI` names, if it does.
    private static func postgreSQLDatabase(_ invocation: Invocation) throws(CLIError) -> URL? {
        guard invocation.globals.store != nil, case .postgreSQL(let url, _) = try StoreLocation(invocation.globals)
        else { return nil }
        return url
    }
}
