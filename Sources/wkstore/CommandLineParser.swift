/// An option a command takes: a flag (`--dry-run`) or an option with a value (`--types LIST`),
/// with an optional one-letter alias as curl has them (`-o` for `--output`).
struct OptionSpec: Sendable {
    /// The name without its dashes (`types` for `--types`).
    let name: String
    /// The one-letter alias without its dash (`o` for `-o`), or `nil`.
    var short: String? = nil
    /// The placeholder of the value in help (`LIST`), or `nil` for a flag.
    let value: String?
    /// Whether the option may be given more than once (`--site A --site B`).
    let repeatable: Bool
    /// One line of help.
    let help: String

    /// An option that takes a value.
    static func value(_ name: String, _ placeholder: String, repeatable: Bool = false, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: placeholder, repeatable: repeatable, help: help)
    }

    /// A flag.
    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, repeatable: false, help: help)
    }

    /// The same option with a one-letter alias (`-o`).
    func alias(_ letter: String) -> OptionSpec {
        var spec = self
        spec.short = letter
        return spec
    }

    /// Whether `name` (as given, dashes removed) names this option: its name or its alias.
    func isNamed(_ given: String) -> Bool { given == name || given == short }

    /// How help shows the option: `--types LIST`, `-o, --output FILE`.
    var synopsis: String {
        let long = value.map { "--\(name) \($0)" } ?? "--\(name)"
        return short.map { "-\($0), " + long } ?? long
    }
}

/// A command the tool runs: its words, its help and its arguments.
struct CommandSpec: Sendable {
    /// The command words after `wkstore` (`["cookies", "set"]`).
    let path: [String]
    /// One line of help, shown in the overview.
    let summary: String
    /// Usage lines, each after `wkstore `.
    let usage: [String]
    /// Further help: what the command does and how its arguments read, with examples.
    let details: String
    /// The options it takes besides the global ones.
    let options: [OptionSpec]
    /// How many positional arguments it takes.
    let positionalCount: ClosedRange<Int>
    /// The placeholder of its positional arguments in messages.
    let positionalName: String
    /// Runs the command; throws `CLIError`, `StoreError`, … which the entry point reports.
    let run: @Sendable (Invocation) async throws -> Void

    /// `wkstore cookies set`.
    var fullName: String { (["wkstore"] + path).joined(separator: " ") }
}

/// A group of commands sharing a first word (`cookies list`, `cookies set`, …).
struct CommandGroup: Sendable {
    /// The first word.
    let name: String
    /// One line of help.
    let summary: String
    /// The commands of the group, whose paths start with `name`.
    let commands: [CommandSpec]

    /// The names of its commands, for messages.
    var commandNames: String { commands.map { $0.path.last! }.joined(separator: ", ") }
}

/// A word after `wkstore`: a command, or a group of them.
enum CommandNode: Sendable {
    case command(CommandSpec)
    case group(CommandGroup)

    /// The first word.
    var name: String {
        switch self {
        case .command(let spec): spec.path[0]
        case .group(let group): group.name
        }
    }
}

/// The options every command takes.
struct GlobalOptions: Sendable {
    /// `--store DIR`.
    var store: String?
    /// `--identifier UUID`.
    var identifier: String?
    /// `--json`.
    var json = false

    /// Global options with a value, by name.
    static let valued: Set<String> = ["store", "identifier"]
    /// Global flags, by name.
    static let flags: Set<String> = ["json", "help", "h", "version"]
}

/// A command's arguments once read: option values, flags and positional arguments.
struct ParsedArguments: Sendable {
    /// Values of options that take one, in the order given.
    var values: [String: [String]] = [:]
    /// Flags given.
    var flags: Set<String> = []
    /// Positional arguments, in order.
    var positionals: [String] = []

    /// The value of a non-repeatable option, if given.
    func value(_ name: String) -> String? { values[name]?.last }
    /// Every value of a repeatable option.
    func all(_ name: String) -> [String] { values[name] ?? [] }
    /// Whether a flag was given.
    func has(_ name: String) -> Bool { flags.contains(name) }
}

/// What the command line asks for.
enum ParsedCommandLine: Sendable {
    /// `--version`.
    case version
    /// Help for the command or group named by these words (the overview when empty).
    case help([String])
    /// A command to run.
    case run(CommandSpec, ParsedArguments, GlobalOptions)
}

/// A small hand-written parser: global options anywhere, then command words, then the command's
/// options and positional arguments in any order; `--name=value` and `--name value` both work,
/// and `--` ends the options.
struct CommandLineParser: Sendable {
    /// The commands the tool knows.
    let nodes: [CommandNode]

    /// Reads a command line (without the program name).
    ///
    /// - Throws: `CLIError.usage` for an unknown command or option, a missing value or a wrong
    ///   number of positional arguments.
    func parse(_ arguments: [String]) throws(CLIError) -> ParsedCommandLine {
        let options = arguments.prefix { $0 != "--" }
        if options.contains("--version") { return .version }
        if options.contains("--help") || options.contains("-h") { return .help(commandWords(arguments)) }

        var globals = GlobalOptions()
        var group: CommandGroup?
        var command: CommandSpec?
        var parsed = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !onlyPositionals && argument == "--" {
                onlyPositionals = true
                continue
            }
            if !onlyPositionals && argument.hasPrefix("-") && argument != "-" {
                let (name, inline) = Self.split(argument)
                func takeValue() throws(CLIError) -> String {
                    if let inline { return inline }
                    guard index < arguments.count else { throw .usage("\(Self.optionName(argument)) needs a value") }
                    index += 1
                    return arguments[index - 1]
                }
                if GlobalOptions.valued.contains(name) {
                    let value = try takeValue()
                    if name == "store" {
                        if globals.store != nil { throw .usage("--store given more than once") }
                        globals.store = value
                    } else {
                        if globals.identifier != nil { throw .usage("--identifier given more than once") }
                        globals.identifier = value
                    }
                    continue
                }
                if name == "json" {
                    if inline != nil { throw .usage("--json takes no value") }
                    globals.json = true
                    continue
                }
                guard let command else {
                    throw .usage(
                        "unknown option '\(argument)'; options of a command come after it (see 'wkstore help')")
                }
                guard let spec = command.options.first(where: { $0.isNamed(name) }) else {
                    throw .usage(
                        "unknown option '\(Self.optionName(argument))' for '\(command.fullName)'; see '\(command.fullName) --help'"
                    )
                }
                if spec.value == nil {
                    if inline != nil { throw .usage("--\(spec.name) takes no value") }
                    parsed.flags.insert(spec.name)
                } else {
                    let value = try takeValue()
                    if !spec.repeatable && parsed.values[spec.name] != nil {
                        throw .usage("--\(spec.name) given more than once")
                    }
                    parsed.values[spec.name, default: []].append(value)
                }
                continue
            }
            if command != nil {
                parsed.positionals.append(argument)
            } else if let current = group {
                guard let match = current.commands.first(where: { $0.path.last == argument }) else {
                    throw .usage(
                        "unknown command 'wkstore \(current.name) \(argument)'; '\(current.name)' commands: \(current.commandNames)"
                    )
                }
                command = match
            } else {
                switch nodes.first(where: { $0.name == argument }) {
                case .command(let spec): command = spec
                case .group(let found): group = found
                case nil:
                    throw .usage(
                        "unknown command '\(argument)'; commands: \(nodes.map(\.name).joined(separator: ", ")) (see 'wkstore help')"
                    )
                }
            }
        }
        guard let command else {
            if let group { throw .usage("'wkstore \(group.name)' needs a command: \(group.commandNames)") }
            throw .usage("missing command; see 'wkstore help'")
        }
        let count = parsed.positionals.count
        if !command.positionalCount.contains(count) {
            if count < command.positionalCount.lowerBound {
                throw .usage("'\(command.fullName)' needs \(command.positionalName); see '\(command.fullName) --help'")
            }
            throw .usage(
                "unexpected argument '\(parsed.positionals[command.positionalCount.upperBound])' for '\(command.fullName)'; see '\(command.fullName) --help'"
            )
        }
        return .run(command, parsed, globals)
    }

    /// The command words of a command line, skipping options and the values of global options,
    /// for `--help` given anywhere.
    func commandWords(_ arguments: [String]) -> [String] {
        var words: [String] = []
        var index = 0
        var group: CommandGroup?
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { break }
            if argument.hasPrefix("-") && argument != "-" {
                let (name, inline) = Self.split(argument)
                if GlobalOptions.valued.contains(name) && inline == nil { index += 1 }
                continue
            }
            if let current = group {
                if current.commands.contains(where: { $0.path.last == argument }) { words.append(argument) }
                break
            }
            words.append(argument)
            guard case .group(let found) = nodes.first(where: { $0.name == argument }) else { break }
            group = found
        }
        return words
    }

    /// `--types=cookies` → (`types`, `cookies`); `-h` → (`h`, nil).
    static func split(_ argument: String) -> (name: String, value: String?) {
        let body = argument.drop { $0 == "-" }
        guard let equals = body.firstIndex(of: "=") else { return (String(body), nil) }
        return (String(body[..<equals]), String(body[body.index(after: equals)...]))
    }

    /// The option as given, without any `=value`.
    static func optionName(_ argument: String) -> String {
        argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
    }
}
