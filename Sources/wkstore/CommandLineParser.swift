/// The options every command takes.
struct GlobalOptions: Sendable {
    /// `--store DIR`.
    var store: String?
    /// `--identifier UUID`.
    var identifier: String?
    /// `--json`.
    var json = false
    /// `--read-only`: every command opens the store read-only.
    var readOnly = false

    /// Global options with a value, by name.
    static let valued: Set<String> = ["store", "identifier"]
    /// Global flags, by name.
    static let flags: Set<String> = ["json", "read-only", "help", "h", "version"]
    /// Every global option's name, in the order help lists them, for suggestions.
    static let names = ["store", "identifier", "json", "read-only", "help", "version"]
}

/// What the command line asks for.
enum ParsedCommandLine {
    /// `--version`.
    case version
    /// Help for the command or group named by these words (the overview when empty).
    case help([String])
    /// A command to run, its options set.
    case run(any Command, GlobalOptions)
}

/// A small hand-written parser: global options anywhere, then command words, then the command's
/// options and positional arguments in any order; `--name=value` and `--name value` both work,
/// and `--` ends the options. A command's options are those it declares (see `Command`).
struct CommandLineParser {
    /// The commands the tool knows.
    let nodes: [CommandNode]

    /// Reads a command line (without the program name).
    ///
    /// - Throws: `CLIError.usage` for an unknown command or option, a missing value, a wrong
    ///   number of positional arguments, a missing required option or a value its declaration
    ///   refuses.
    func parse(_ commandLine: [String]) throws(CLIError) -> ParsedCommandLine {
        var arguments = commandLine
        let options = arguments.prefix { $0 != "--" }
        if options.contains("--version") { return .version }
        if options.contains("--help") || options.contains("-h") { return .help(commandWords(arguments)) }

        var globals = GlobalOptions()
        var group: CommandGroup?
        var found: (spec: CommandSpec, command: any Command, slots: [any DeclaredArgument])?
        var given: [[String]] = []
        // For each value in `given`, the name it was given with.
        var givenNames: [[String]] = []
        var positionals: [String] = []
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !onlyPositionals && argument == "--" {
                onlyPositionals = true
                continue
            }
            // After the command, `-5` is a value (`config set cookies.max-total -5`), not an option:
            // no option is named by digits.
            let isNegativeNumber = found != nil && Self.isNegativeNumber(argument)
            if !onlyPositionals && argument.hasPrefix("-") && argument != "-" && !isNegativeNumber {
                if let found, let letters = Self.bundle(argument, among: found.slots) {
                    // `-sSL` is `-s -S -L`; its last letter may take a value (`-sSo FILE`).
                    arguments.replaceSubrange((index - 1)..<index, with: letters.map { "-" + $0 })
                    index -= 1
                    continue
                }
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
                if name == "json" || name == "read-only" {
                    if inline != nil { throw .usage("--\(name) takes no value") }
                    if name == "json" { globals.json = true } else { globals.readOnly = true }
                    continue
                }
                guard let found else {
                    let hint = Suggestion.separator(for: name, among: GlobalOptions.names) { "--\($0)" }
                    throw .usage(
                        "unknown option '\(argument)'\(hint)options of a command come after it (see 'wkstore help')")
                }
                let fullName = found.spec.fullName
                guard
                    let slot = found.slots.indices.first(where: {
                        found.slots[$0].declaration.kind != .argument && found.slots[$0].declaration.isNamed(name)
                    })
                else {
                    let names = found.slots.map(\.declaration).filter { $0.kind != .argument }.map(\.name)
                    let hint = Suggestion.separator(for: name, among: names + GlobalOptions.names) { "--\($0)" }
                    throw .usage(
                        "unknown option '\(Self.optionName(argument))' for '\(fullName)'\(hint)see '\(fullName) --help'"
                    )
                }
                let declaration = found.slots[slot].declaration
                if declaration.kind == .flag {
                    if inline != nil { throw .usage("--\(declaration.name) takes no value") }
                    given[slot].append("true")
                } else {
                    let value = try takeValue()
                    if !declaration.isRepeatable && !given[slot].isEmpty {
                        throw .usage("--\(declaration.name) given more than once")
                    }
                    given[slot].append(value)
                }
                givenNames[slot].append(name)
                continue
            }
            if found != nil {
                positionals.append(argument)
            } else if let current = group {
                guard let match = current.commands.first(where: { $0.path.last == argument }) else {
                    throw current.unknownCommand(argument)
                }
                found = Self.instantiate(match)
                given = Array(repeating: [], count: found?.slots.count ?? 0)
                givenNames = given
            } else {
                switch nodes.first(where: { $0.name == argument }) {
                case .command(let spec):
                    found = Self.instantiate(spec)
                    given = Array(repeating: [], count: found?.slots.count ?? 0)
                    givenNames = given
                case .group(let node): group = node
                case nil:
                    throw Self.unknownCommand(argument, among: nodes, see: " (see 'wkstore help')")
                }
            }
        }
        guard let found else {
            if let group { throw .usage("'wkstore \(group.name)' needs a command: \(group.commandNames)") }
            throw .usage("missing command; see 'wkstore help'")
        }
        try Self.assignPositionals(positionals, to: found.slots, given: &given, command: found.spec.fullName)
        let fullName = found.spec.fullName
        for (slot, values) in zip(found.slots, given) where !values.isEmpty {
            if let refusal = slot.declaration.refusal { throw .usage(refusal) }
        }
        for index in found.slots.indices {
            let names = givenNames[index].count == given[index].count ? givenNames[index] : []
            try found.slots[index].assign(given[index], names: names, command: fullName)
        }
        return .run(found.command, globals)
    }

    /// The message for a first word that names no command, with a suggestion when one is near.
    static func unknownCommand(_ word: String, among nodes: [CommandNode], see: String = "") -> CLIError {
        let names = nodes.map(\.name)
        let hint = Suggestion.separator(for: word, among: names)
        return .usage("unknown command '\(word)'\(hint)commands: \(names.joined(separator: ", "))\(see)")
    }

    /// A fresh instance of the command, and its declarations.
    private static func instantiate(
        _ spec: CommandSpec
    ) -> (spec: CommandSpec, command: any Command, slots: [any DeclaredArgument]) {
        let command = spec.type.init()
        return (spec, command, command.declaredArguments)
    }

    /// Hands the positional arguments to the declared ones, in order: one each, the rest to a
    /// repeatable one.
    ///
    /// - Throws: `CLIError.usage` for too few or too many.
    private static func assignPositionals(
        _ positionals: [String], to slots: [any DeclaredArgument], given: inout [[String]], command: String
    ) throws(CLIError) {
        let arguments = slots.indices.filter { slots[$0].declaration.kind == .argument }
        let required = arguments.filter { slots[$0].declaration.isRequired }
        if positionals.count < required.count {
            let names = required.map { slots[$0].declaration.help }.joined(separator: " and ")
            throw .usage("'\(command)' needs \(names); see '\(command) --help'")
        }
        var remaining = positionals[...]
        for slot in arguments where !remaining.isEmpty {
            if slots[slot].declaration.isRepeatable {
                given[slot] = Array(remaining)
                remaining = []
            } else {
                given[slot] = [remaining.removeFirst()]
            }
        }
        if let extra = remaining.first {
            throw .usage("unexpected argument '\(extra)' for '\(command)'; see '\(command) --help'")
        }
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

    /// The letters of a bundle of one-letter options (`-sSL`), when `argument` is one: one dash,
    /// two letters or more, no `=`, not itself a name, and every letter a flag's alias but the
    /// last, which may also be an option's (it then takes the next argument as its value).
    static func bundle(_ argument: String, among slots: [any DeclaredArgument]) -> [String]? {
        guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 2, !argument.contains("=")
        else { return nil }
        let body = String(argument.dropFirst())
        let named = slots.map(\.declaration).filter { $0.kind != .argument }
        if named.contains(where: { $0.isNamed(body) }) { return nil }
        let letters = body.map(String.init)
        for (offset, letter) in letters.enumerated() {
            guard let declaration = named.first(where: { $0.alias == letter }) else { return nil }
            let isLast = offset == letters.count - 1
            guard declaration.isBundleableFlag || (isLast && declaration.kind == .option) else { return nil }
        }
        return letters
    }

    /// Whether `argument` is a negative number (`-5`, `-1.5`): a minus sign, a digit, and a
    /// number in all.
    static func isNegativeNumber(_ argument: String) -> Bool {
        let digits = argument.dropFirst()
        return argument.hasPrefix("-") && digits.first?.isASCII == true && digits.first?.isNumber == true
            && Double(digits) != nil
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
