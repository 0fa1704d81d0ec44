/// A positional argument, declared on a command as a typed property.
///
/// The property's type says how many it takes: `T` exactly one (converted by `parse`, or the text
/// as given), `String?` one if given, `[String]` every remaining one. Positional arguments are
/// matched in declaration order; `help` is what the argument is in the message for missing ones
/// (`'wkstore cookies header' needs a URL`).
///
///     @Argument(placeholder: "URL", help: "a URL", parse: { try parseURL($0, "the request URL") })
///     var url: URL
@propertyWrapper
struct Argument<Value>: DeclaredArgument {
    let declaration: ArgumentDeclaration
    /// The value when no argument is left for it; `nil` for a required one.
    private let absent: Value?
    private let convert: ([String]) throws(CLIError) -> Value
    private let parsed = ParsedValue<Value>()

    /// The argument given, converted.
    var wrappedValue: Value {
        guard let value = parsed.value ?? absent else {
            preconditionFailure("\(declaration.name) read before the command line was parsed")
        }
        return value
    }

    private init(
        placeholder: String, help: String, required: Bool, repeatable: Bool, absent: Value?,
        convert: @escaping ([String]) throws(CLIError) -> Value
    ) {
        declaration = ArgumentDeclaration(
            kind: .argument, name: placeholder, alias: nil, otherNames: [], placeholder: placeholder, help: help,
            isRepeatable: repeatable, isRequired: required, refusal: nil)
        self.absent = absent
        self.convert = convert
    }

    func assign(_ values: [String], command: String) throws(CLIError) {
        // The parser has checked the count: a required argument always has its value here.
        guard !values.isEmpty else { return }
        parsed.value = try convert(values)
    }
}

extension Argument {
    /// A required argument, converted by `parse`.
    init(placeholder: String, help: String, parse: @escaping (String) throws(CLIError) -> Value) {
        self.init(placeholder: placeholder, help: help, required: true, repeatable: false, absent: nil) {
            values throws(CLIError) in try parse(values[0])
        }
    }

    /// A required argument, as text.
    init(placeholder: String, help: String) where Value == String {
        self.init(placeholder: placeholder, help: help) { text throws(CLIError) in text }
    }

    /// An optional argument, as text.
    init(placeholder: String, help: String) where Value == String? {
        self.init(placeholder: placeholder, help: help, required: false, repeatable: false, absent: .some(nil)) {
            values throws(CLIError) in values[0]
        }
    }

    /// Every remaining argument, as text.
    init(placeholder: String, help: String) where Value == [String] {
        self.init(placeholder: placeholder, help: help, required: false, repeatable: true, absent: []) {
            values throws(CLIError) in values
        }
    }
}
