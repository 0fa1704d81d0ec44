/// An option with a value (`--types LIST`), declared on a command as a typed property.
///
/// The property's type says how many times it may be given: `T?` once at most (`nil` when not
/// given), `[T]` any number of times (`--site A --site B`), and `T` exactly once: a required
/// option, whose absence is a usage error naming it. `parse` turns each value into a `T`, throwing
/// `CLIError.usage` with the message the user sees; without it the value is the text as given.
///
///     @Option(name: "since", placeholder: "WHEN", help: "only data modified at or after WHEN",
///             parse: ClearCommand.since)
///     var since: Date?
@propertyWrapper
struct Option<Value>: DeclaredArgument {
    let declaration: ArgumentDeclaration
    /// The value when the option is not given; `nil` for a required option.
    private let absent: Value?
    private let convert: ([String]) throws(CLIError) -> Value
    /// For an option with other names: the conversion told which name each value was given with.
    private var convertNamed: (([(name: String, value: String)]) throws(CLIError) -> Value)?
    private let parsed = ParsedValue<Value>()
    /// Words after `--name` in the message for a missing required option (`(the URL …)`).
    private let missingNote: String

    /// The value given, converted; what the type says when it was not given.
    var wrappedValue: Value {
        guard let value = parsed.value ?? absent else {
            preconditionFailure("--\(declaration.name) read before the command line was parsed")
        }
        return value
    }

    private init(
        _ declaration: ArgumentDeclaration, absent: Value?, missingNote: String = "",
        convert: @escaping ([String]) throws(CLIError) -> Value
    ) {
        self.declaration = declaration
        self.absent = absent
        self.missingNote = missingNote
        self.convert = convert
    }

    private static func makeDeclaration(
        _ name: String, _ alias: String?, _ placeholder: String, _ help: String, repeatable: Bool = false,
        required: Bool = false, refusal: String? = nil, otherNames: [String] = []
    ) -> ArgumentDeclaration {
        ArgumentDeclaration(
            kind: .option, name: name, alias: alias, otherNames: otherNames, placeholder: placeholder, help: help,
            isRepeatable: repeatable, isRequired: required, refusal: refusal)
    }

    func assign(_ values: [String], command: String) throws(CLIError) {
        guard !values.isEmpty else {
            guard absent == nil else { return }
            let note = missingNote.isEmpty ? "" : " " + missingNote
            throw .usage("'\(command)' needs --\(declaration.name)\(note); see '\(command) --help'")
        }
        parsed.value = try convert(values)
    }

    func assign(_ values: [String], names: [String], command: String) throws(CLIError) {
        guard let convertNamed, !values.isEmpty, names.count == values.count else {
            return try assign(values, command: command)
        }
        parsed.value = try convertNamed(zip(names, values).map { (name: $0, value: $1) })
    }
}

extension Option {
    /// An option given at most once, converted by `parse`.
    init<T>(
        name: String, alias: String? = nil, placeholder: String, help: String,
        parse: @escaping (String) throws(CLIError) -> T
    ) where Value == T? {
        self.init(Self.makeDeclaration(name, alias, placeholder, help), absent: .some(nil)) {
            values throws(CLIError) in try parse(values[values.count - 1])
        }
    }

    /// An option given at most once, as text.
    init(name: String, alias: String? = nil, placeholder: String, help: String) where Value == String? {
        self.init(name: name, alias: alias, placeholder: placeholder, help: help) { text throws(CLIError) in text }
    }

    /// An option kept only to refuse it, saying why: given, it fails with `refusal` before the
    /// command's other options are looked at. Usage lines leave it out; the options listing keeps it.
    init(name: String, placeholder: String, help: String, refusal: String) where Value == String? {
        self.init(Self.makeDeclaration(name, nil, placeholder, help, refusal: refusal), absent: .some(nil)) {
            values throws(CLIError) in values.last
        }
    }

    /// An option that may be given any number of times, each value converted by `parse`.
    init<T>(
        name: String, alias: String? = nil, placeholder: String, help: String,
        parse: @escaping (String) throws(CLIError) -> T
    ) where Value == [T] {
        self.init(Self.makeDeclaration(name, alias, placeholder, help, repeatable: true), absent: []) {
            values throws(CLIError) in try values.map(parse)
        }
    }

    /// An option that may be given any number of times under any of its names, each value
    /// converted by `parse`, which is told the name it was given with (without dashes: the
    /// alias, `name` or one of `otherNames`), so that the order across names is kept.
    init<T>(
        name: String, alias: String? = nil, otherNames: [String], placeholder: String, help: String,
        parse: @escaping (_ name: String, _ value: String) throws(CLIError) -> T
    ) where Value == [T] {
        self.init(
            Self.makeDeclaration(name, alias, placeholder, help, repeatable: true, otherNames: otherNames),
            absent: []
        ) { values throws(CLIError) in try values.map { value throws(CLIError) in try parse(name, value) } }
        convertNamed = { pairs throws(CLIError) in
            try pairs.map { pair throws(CLIError) in try parse(pair.name, pair.value) }
        }
    }

    /// An option that may be given any number of times, as text.
    init(name: String, alias: String? = nil, placeholder: String, help: String) where Value == [String] {
        self.init(name: name, alias: alias, placeholder: placeholder, help: help) { text throws(CLIError) in text }
    }

    /// A required option, converted by `parse`; `missing` is added after `--name` in the message
    /// when it is not given.
    init(
        name: String, alias: String? = nil, placeholder: String, help: String, required missing: String,
        parse: @escaping (String) throws(CLIError) -> Value
    ) {
        self.init(
            Self.makeDeclaration(name, alias, placeholder, help, required: true), absent: nil, missingNote: missing
        ) {
            values throws(CLIError) in try parse(values[values.count - 1])
        }
    }

    /// A required option, as text.
    init(name: String, alias: String? = nil, placeholder: String, help: String, required missing: String)
    where Value == String {
        self.init(name: name, alias: alias, placeholder: placeholder, help: help, required: missing) {
            text throws(CLIError) in text
        }
    }
}
