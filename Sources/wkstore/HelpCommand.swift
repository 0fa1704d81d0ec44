/// `wkstore help` and `--help`: the overview, a group's commands, or a command's usage.
struct HelpCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["help"],
        summary: "show help for the tool or a command",
        usage: ["help [COMMAND [SUBCOMMAND]]"],
        details: "Shows the overview, or the help of a command. 'wkstore COMMAND --help' does the same.")

    @Argument(placeholder: "COMMAND", help: "a command")
    var command: String?
    @Argument(placeholder: "SUBCOMMAND", help: "a command of its group")
    var subcommand: String?

    func run(_ invocation: Invocation) throws(CLIError) {
        invocation.output.line(try Self.text(for: [command, subcommand].compactMap { $0 }))
    }

    /// The options every command takes, as help shows them.
    static let globalOptions = [
        [
            "--store DIR|URI",
            "the store in DIR, or in the PostgreSQL database of a postgresql:// URI (default: $WKSTORE_DIR, else the default store)",
        ],
        ["--identifier UUID", "the store made for this identifier (see 'wkstore stores list')"],
        ["--json", "write JSON to standard output"],
        ["--read-only", "open the store read-only: change nothing, create nothing (reads do so anyway)"],
        ["-h, --help", "show help"],
        ["--version", "print the version"],
    ]

    /// The help text for the command or group named by `words`; the overview when there are none.
    ///
    /// - Throws: `CLIError.usage` for words that name no command.
    static func text(for words: [String]) throws(CLIError) -> String {
        let nodes = Commands.all
        guard let first = words.first else { return overview() }
        switch nodes.first(where: { $0.name == first }) {
        case .command(let spec):
            if words.count > 1 { throw .usage("'wkstore \(first)' has no command '\(words[1])'") }
            return text(for: spec)
        case .group(let group):
            guard words.count > 1 else { return text(for: group) }
            guard let spec = group.commands.first(where: { $0.path.last == words[1] }) else {
                throw group.unknownCommand(words[1])
            }
            return text(for: spec)
        case nil:
            throw CommandLineParser.unknownCommand(first, among: nodes)
        }
    }

    static func overview() -> String {
        var rows: [[String]] = []
        for node in Commands.all {
            switch node {
            case .command(let spec): rows.append(["  " + spec.path.joined(separator: " "), spec.configuration.summary])
            case .group(let group):
                for spec in group.commands {
                    rows.append(["  " + spec.path.joined(separator: " "), spec.configuration.summary])
                }
            }
        }
        return """
            wkstore \(CLI.version): cookies and other website data for programs that browse without a browser

            usage: wkstore [--store DIR | --identifier UUID] [--json] COMMAND [ARGUMENTS]

            commands:
            \(Format.table(rows).joined(separator: "\n"))

            global options (before or after the command):
            \(Format.table(globalOptions.map { ["  " + $0[0], $0[1]] }).joined(separator: "\n"))

            The default store is $XDG_DATA_HOME/wkstore/default (else ~/.local/share/wkstore/default).
            Exit status: 0 success, 1 failure, 2 usage error. 'wkstore COMMAND --help' for more.
            """
    }

    static func text(for group: CommandGroup) -> String {
        let rows = group.commands.map { ["  " + $0.path.joined(separator: " "), $0.configuration.summary] }
        return """
            wkstore \(group.name): \(group.summary)

            commands:
            \(Format.table(rows).joined(separator: "\n"))

            global options:
            \(Format.table(globalOptions.map { ["  " + $0[0], $0[1]] }).joined(separator: "\n"))

            'wkstore \(group.name) COMMAND --help' for more.
            """
    }

    static func text(for spec: CommandSpec) -> String {
        let configuration = spec.configuration
        var lines = [
            "usage: " + spec.usage.map { "wkstore " + $0 }.joined(separator: "\n       "), "",
            configuration.summary + ".", "",
        ]
        lines.append(configuration.details)
        let options = spec.declarations.filter { $0.kind != .argument }
        if !options.isEmpty {
            lines += ["", "options:"]
            lines += Format.table(options.map { ["  " + $0.synopsis, $0.help] })
        }
        lines += ["", "global options:"]
        lines += Format.table(globalOptions.map { ["  " + $0[0], $0[1]] })
        return lines.joined(separator: "\n")
    }
}
