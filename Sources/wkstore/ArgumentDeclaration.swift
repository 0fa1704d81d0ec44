/// What a command declares for one of its options, flags or positional arguments: the names the
/// parser matches, what help shows, and how many values it takes.
struct ArgumentDeclaration: Sendable {
    /// What kind of thing on the command line it is.
    enum Kind: Sendable {
        /// `--name VALUE`.
        case option
        /// `--name`, without a value.
        case flag
        /// A positional argument.
        case argument
    }

    /// What kind of thing it is.
    let kind: Kind
    /// The option's name without its dashes (`types` for `--types`); an argument's placeholder.
    let name: String
    /// The one-letter alias without its dash (`o` for `-o`), or `nil`.
    let alias: String?
    /// More long names without their dashes, for an option curl's users know by several
    /// (`data-raw` and `data-binary` beside `data`). The command is told which name was used.
    let otherNames: [String]
    /// The placeholder of the value in help (`LIST`, `URL`), or `nil` for a flag.
    let placeholder: String?
    /// One line of help; for an argument, what it is as `'wkstore X' needs …` names it (`a URL`).
    let help: String
    /// Whether an option may be given more than once, or an argument takes every remaining one.
    let isRepeatable: Bool
    /// Whether the command cannot run without it.
    let isRequired: Bool
    /// For an option kept only to say why it is not available: the message it is refused with.
    let refusal: String?

    /// Whether `given` (as on the command line, dashes removed) names this option or flag.
    func isNamed(_ given: String) -> Bool { given == name || given == alias || otherNames.contains(given) }

    /// Whether it is a flag with a one-letter alias: one that may be bundled (`-sS` for `-s -S`).
    var isBundleableFlag: Bool { kind == .flag && alias?.count == 1 }

    /// How the options listing shows it: `--types LIST`, `-o, --output FILE`,
    /// `-d, --data, --data-raw DATA`.
    var synopsis: String {
        let names = ([name] + otherNames).map { "--" + $0 }.joined(separator: ", ")
        let long = placeholder.map { names + " " + $0 } ?? names
        return alias.map { "-\($0), " + long } ?? long
    }

    /// How a generated usage line shows it: `--types LIST`, `[-o FILE]`, `[--site SITE]...`, `URL`;
    /// the one-letter alias where there is one, as curl's users write it.
    var usage: String {
        var text: String
        switch kind {
        case .argument: text = name
        case .flag, .option:
            text = alias.map { "-\($0)" } ?? "--\(name)"
            if let placeholder { text += " " + placeholder }
        }
        if !isRequired { text = "[\(text)]" }
        return isRepeatable ? text + "..." : text
    }
}

/// An option, flag or argument a command declares (`@Option`, `@Flag`, `@Argument`), as the
/// parser sees it: its declaration, and where the values given on the command line go.
protocol DeclaredArgument {
    /// Its names, help and arity.
    var declaration: ArgumentDeclaration { get }

    /// Converts and keeps the values given on the command line (none when it was not given).
    ///
    /// - Parameters:
    ///   - values: The values in the order given: one per use of an option (`"true"` for a
    ///     flag), one per positional argument it took.
    ///   - command: The command's full name (`wkstore clear`), for messages.
    /// - Throws: `CLIError.usage` for a required option that was not given, or a value its
    ///   declaration's conversion refuses.
    func assign(_ values: [String], command: String) throws(CLIError)

    /// Converts and keeps the values given, told which of its names each was given with.
    ///
    /// - Parameters:
    ///   - values: The values in the order given.
    ///   - names: For each value, the name it was given with, without dashes (`d`, `data-raw`).
    ///   - command: The command's full name, for messages.
    /// - Throws: As `assign(_:command:)`.
    func assign(_ values: [String], names: [String], command: String) throws(CLIError)
}

extension DeclaredArgument {
    /// Ignores the names: most declarations do not care which name was used.
    func assign(_ values: [String], names: [String], command: String) throws(CLIError) {
        try assign(values, command: command)
    }
}

/// The value a declaration holds once the command line is parsed.
///
/// A reference, so that the copy of the property wrapper `Mirror` hands the parser and the
/// command's own property share it: the parser fills it, the command reads it.
final class ParsedValue<Value> {
    /// The converted value, or `nil` until the parser sets it (and when nothing was given).
    var value: Value?
}
