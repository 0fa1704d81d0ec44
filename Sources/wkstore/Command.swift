/// A command the tool runs, as a type whose properties are its options, flags and arguments.
///
/// Each option is a property declared with `@Option`, `@Flag` or `@Argument`, whose declaration
/// carries its name, alias, placeholder and help, and whose type and `parse` give the typed value
/// `run` reads. The parser finds the declarations with `Mirror` on a default-initialised instance
/// (stored properties come in declaration order, which is the order of the usage line and the
/// options listing), hands each one the strings given for it, and then calls `run`. Each
/// declaration keeps its value in a small reference box it shares with the copy `Mirror` sees,
/// so no key paths or unsafe writes are needed, and nothing can name an option that is not
/// declared. The values are converted, and required options checked, in declaration order after
/// the whole line is read: a conversion whose failure must come after a check `run` makes stays
/// in `run`.
protocol Command {
    /// The command's words, help and usage.
    static var configuration: CommandConfiguration { get }

    /// A command with no options given yet, for the parser to fill.
    init()

    /// Runs the command on the options the parser set.
    ///
    /// - Throws: `CLIError`, `StoreError`, … which the entry point reports on one line.
    func run(_ invocation: Invocation) async throws
}

extension Command {
    /// The command's options, flags and arguments, in declaration order.
    var declaredArguments: [any DeclaredArgument] {
        Mirror(reflecting: self).children.compactMap { $0.value as? any DeclaredArgument }
    }
}

/// What a command is, besides its options: its words and its help.
struct CommandConfiguration: Sendable {
    /// The command words after `wkstore` (`["cookies", "set"]`).
    let path: [String]
    /// One line of help, shown in the overview.
    let summary: String
    /// Usage lines, each after `wkstore `, where the one generated from the declarations would
    /// say less (alternatives such as `[--subresource | --navigation]`); `nil` to generate it.
    let usage: [String]?
    /// Further help: what the command does and how its arguments read, with examples.
    let details: String

    /// A configuration; `usage` only where the generated line would say less.
    init(path: [String], summary: String, usage: [String]? = nil, details: String) {
        self.path = path
        self.summary = summary
        self.usage = usage
        self.details = details
    }

    /// `wkstore cookies set`.
    var fullName: String { (["wkstore"] + path).joined(separator: " ") }
}

/// A command type in the tool's list of commands.
struct CommandSpec {
    /// The command's type.
    let type: any Command.Type

    /// The entry for `type`.
    init(_ type: any Command.Type) { self.type = type }

    /// Its words and help.
    var configuration: CommandConfiguration { type.configuration }
    /// The command words after `wkstore`.
    var path: [String] { configuration.path }
    /// `wkstore cookies set`.
    var fullName: String { configuration.fullName }
    /// Its options, flags and arguments, read from a fresh instance.
    var declarations: [ArgumentDeclaration] { type.init().declaredArguments.map(\.declaration) }

    /// The usage lines help prints, each after `wkstore `: the configuration's, or one made of
    /// the declarations (options kept only to be refused left out).
    var usage: [String] {
        if let usage = configuration.usage { return usage }
        let parts = declarations.filter { $0.refusal == nil }.map(\.usage)
        return [(path + parts).joined(separator: " ")]
    }
}

/// A group of commands sharing a first word (`cookies list`, `cookies set`, …).
struct CommandGroup {
    /// The first word.
    let name: String
    /// One line of help.
    let summary: String
    /// The commands of the group, whose paths start with `name`.
    let commands: [CommandSpec]

    /// The names of its commands, for messages.
    var commandNames: String { commands.map { $0.path.last! }.joined(separator: ", ") }

    /// The message for a word that names none of its commands, with a suggestion when one is near.
    func unknownCommand(_ word: String) -> CLIError {
        let hint = Suggestion.separator(for: word, among: commands.map { $0.path.last! })
        return .usage("unknown command 'wkstore \(name) \(word)'\(hint)'\(name)' commands: \(commandNames)")
    }
}

/// A word after `wkstore`: a command, or a group of them.
enum CommandNode {
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
