import Foundation

/// The commands the tool knows, in the order help lists them.
enum Commands {
    /// Every command and group.
    static var all: [CommandNode] {
        [
            .command(CommandSpec(RecordsCommand.self)),
            .command(CommandSpec(ClearCommand.self)),
            .command(CommandSpec(WatchCommand.self)),
            .command(CommandSpec(FetchCommand.self)),
            .group(CookiesCommands.group),
            .command(CommandSpec(InterchangeCommands.ImportCommand.self)),
            .command(CommandSpec(InterchangeCommands.ExportCommand.self)),
            .group(CacheCommands.group),
            .group(StorageCommands.group),
            .group(IndexedDBCommands.group),
            .group(ConfigCommands.group),
            .group(StoresCommands.group),
            .command(CommandSpec(BackupCommand.self)),
            .command(CommandSpec(CopyCommand.self)),
            .command(CommandSpec(VacuumCommand.self)),
            .command(CommandSpec(DemoCommand.self)),
            .command(CommandSpec(HelpCommand.self)),
        ]
    }
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
            case .run(let command, let globals):
                try await command.run(Invocation(command: type(of: command).configuration, globals: globals))
            }
            return ExitStatus.success
        } catch {
            let (status, message) = ExitStatus.report(error)
            if let message { Output.message(message) }
            return status
        }
    }
}
