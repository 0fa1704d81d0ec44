import Foundation

/// The commands the tool knows, in the order help lists them.
enum Commands {
    /// Every command and group.
    static let all: [CommandNode] = [
        .command(RecordsCommand.spec),
        .command(ClearCommand.spec),
        .command(FetchCommand.spec),
        .group(CookiesCommands.group),
        .command(InterchangeCommands.importSpec),
        .command(InterchangeCommands.exportSpec),
        .group(CacheCommands.group),
        .group(StorageCommands.group),
        .group(IndexedDBCommands.group),
        .group(ConfigCommands.group),
        .group(StoresCommands.group),
        .command(DemoCommand.spec),
        .command(HelpCommand.spec),
    ]
}

/// The tool's entry point: parses the command line, runs the command, and turns every error
/// into one line on standard error and an exit status (0 success, 1 failure, 2 usage error).
enum CLI {
    /// The version `--version` prints.
    static let version = "0.1.0"

    /// Runs the tool on `arguments` (without the program name) and returns its exit status.
    static func run(_ arguments: [String]) async -> Int32 {
        do {
            switch try CommandLineParser(nodes: Commands.all).parse(arguments) {
            case .version:
                print("wkstore \(version)")
            case .help(let words):
                print(try HelpCommand.text(for: words))
            case .run(let command, let parsed, let globals):
                try await command.run(Invocation(command: command, arguments: parsed, globals: globals))
            }
            return ExitStatus.success
        } catch {
            let (status, message) = ExitStatus.report(error)
            if let message { Output.message(message) }
            return status
        }
    }
}
