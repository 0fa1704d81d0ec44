import WebsiteData

/// `wkstore config …`: the settings kept in a store.
enum ConfigCommands {
    /// The group.
    static let group = CommandGroup(
        name: "config", summary: "read and change the settings kept in a store",
        commands: [list, get, set])

    private static var keyList: String { StoreSetting.all.map(\.key).joined(separator: ", ") }

    private static var settingLines: String {
        StoreSetting.all.map { "  \($0.key) (default \($0.defaultValue)): \($0.summary)" }.joined(separator: "\n")
    }

    /// `wkstore config list`.
    static let list = CommandSpec(
        path: ["config", "list"],
        summary: "list every setting with its value",
        usage: ["config list"],
        details: "Prints each setting, its value, and whether that is the default. The settings:\n\(settingLines)",
        options: [], positionalCount: 0...0, positionalName: "no arguments",
        run: runList)

    /// `wkstore config get`.
    static let get = CommandSpec(
        path: ["config", "get"],
        summary: "print a setting's value",
        usage: ["config get KEY"],
        details:
            "Prints the value of the setting KEY (its default when it was never set). The settings:\n\(settingLines)",
        options: [], positionalCount: 1...1, positionalName: "a setting key",
        run: runGet)

    /// `wkstore config set`.
    static let set = CommandSpec(
        path: ["config", "set"],
        summary: "change a setting for every process using the store",
        usage: ["config set KEY VALUE"],
        details: """
            Sets KEY to VALUE in the store; processes holding the store open follow it on their next \
            lookup. The settings:
            \(settingLines)

            Example:
              wkstore config set cookies.max-total 1000000
            """,
        options: [], positionalCount: 2...2, positionalName: "a setting key and a value",
        run: runSet)

    static func runList(_ invocation: Invocation) async throws {
        let settings = try invocation.openStore(for: .read).settings()
        let output = invocation.output
        if output.json {
            output.write(.array(StoreSetting.all.map { json($0, value: settings[$0] ?? $0.defaultValue) }))
        } else {
            output.lines(
                Format.table(
                    StoreSetting.all.map { setting in
                        let value = settings[setting] ?? setting.defaultValue
                        return [setting.key, value, value == setting.defaultValue ? "(default)" : ""]
                    }))
        }
    }

    static func runGet(_ invocation: Invocation) async throws {
        let setting = try named(invocation.arguments.positionals[0])
        let value = try invocation.openStore(for: .read).settings()[setting] ?? setting.defaultValue
        let output = invocation.output
        if output.json { output.write(json(setting, value: value)) } else { output.line(value) }
    }

    static func runSet(_ invocation: Invocation) async throws {
        let setting = try named(invocation.arguments.positionals[0])
        let value = invocation.arguments.positionals[1]
        // Check the value on a throwaway store in memory first, so a bad value creates no store on disk.
        try WebsiteDataStore.nonPersistent().set(setting, to: value)
        let store = try invocation.openStore(for: .write)
        try store.set(setting, to: value)
        let stored = try store.settings()[setting] ?? setting.defaultValue
        let output = invocation.output
        if output.json { output.write(json(setting, value: stored)) } else { output.line("\(setting.key) = \(stored)") }
    }

    private static func named(_ key: String) throws(CLIError) -> StoreSetting {
        guard let setting = StoreSetting.named(key) else {
            throw .usage("unknown setting '\(key)'; settings: \(keyList)")
        }
        return setting
    }

    private static func json(_ setting: StoreSetting, value: String) -> JSONValue {
        .object([
            ("key", .string(setting.key)),
            ("value", .string(value)),
            ("default", .string(setting.defaultValue)),
            ("isDefault", .bool(value == setting.defaultValue)),
            ("summary", .string(setting.summary)),
        ])
    }
}
