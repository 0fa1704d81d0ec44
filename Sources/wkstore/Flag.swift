/// A flag (`--dry-run`), declared on a command as a `Bool` property: `true` when given.
///
///     @Flag(name: "dry-run", help: "print what would be removed and remove nothing")
///     var dryRun: Bool
@propertyWrapper
struct Flag: DeclaredArgument {
    let declaration: ArgumentDeclaration
    private let parsed = ParsedValue<Bool>()

    /// Whether the flag was given.
    var wrappedValue: Bool { parsed.value ?? false }

    /// A flag named `--name` (and `-alias`, and `--` each of `otherNames`).
    init(name: String, alias: String? = nil, otherNames: [String] = [], help: String) {
        declaration = ArgumentDeclaration(
            kind: .flag, name: name, alias: alias, otherNames: otherNames, placeholder: nil, help: help,
            isRepeatable: false, isRequired: false, refusal: nil)
    }

    func assign(_ values: [String], command: String) throws(CLIError) {
        parsed.value = !values.isEmpty
    }
}
