import WebsiteData

/// `wkstore config …`: the settings kept in a store.
enum ConfigCommands {
    /// The group.
    static var group: CommandGroup {
        CommandGroup(
            name: "config", summary: "read and change the settings kept in a store",
            commands: [
                CommandSpec(ListCommand.self), CommandSpec(GetCommand.self), CommandSpec(SetCommand.self),
                CommandSpec(UnsetCommand.self),
            ])
    }

    private static var keyList: String { StoreSetting.all.map(\.key).joined(separator: ", ") }

    private static var settingLines: String {
        StoreSetting.all.map { "  \($0.key) (default \($0.defaultValue)): \($0.summary)" }.joined(separator: "\n")
    }

    /// `wkstore config list`.
    struct ListCommand: Command {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                path: ["config", "list"],
                summary: "list every setting with its value",
                details:
                    "Prints each setting, its value, and whether that is the default. The settings:\n\(settingLines)")
        }

        func run(_ invocation: Invocation) async throws {
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
    }

    /// `wkstore config get`.
    struct GetCommand: Command {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                path: ["config", "get"],
                summary: "print a setting's value",
                details:
                    "Prints the value of the setting KEY (its default when it was never set). The settings:\n\(settingLines)"
            )
        }

        @Argument(placeholder: "KEY", help: "a setting key", parse: ConfigCommands.named)
        var setting: StoreSetting

        func run(_ invocation: Invocation) async throws {
            let value = try invocation.openStore(for: .read).settings()[setting] ?? setting.defaultValue
            let output = invocation.output
            if output.json { output.write(json(setting, value: value)) } else { output.line(value) }
        }
    }

    /// `wkstore config set`.
    struct SetCommand: Command {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                path: ["config", "set"],
                summary: "change a setting for every process using the store",
                details: """
                    Sets KEY to VALUE in the store; processes holding the store open follow it on their next \
                    lookup. The settings:
                    \(settingLines)

                    Example:
                      wkstore config set cookies.max-total 1000000
                    """)
        }

        @Argument(placeholder: "KEY", help: "a setting key", parse: ConfigCommands.named)
        var setting: StoreSetting
        @Argument(placeholder: "VALUE", help: "a value")
        var value: String

        func run(_ invocation: Invocation) async throws {
            // Check the value on a throwaway store in memory first, so a bad value creates no store on disk.
            try WebsiteDataStore.nonPersistent().set(setting, to: value)
            let store = try invocation.openStore(for: .write)
            try store.set(setting, to: value)
            let stored = try store.settings()[setting] ?? setting.defaultValue
            let output = invocation.output
            if output.json {
                output.write(json(setting, value: stored))
            } else {
                output.line("\(setting.key) = \(stored)")
            }
        }
    }

    /// `wkstore config unset`.
    struct UnsetCommand: Command {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                path: ["config", "unset"],
                summary: "put a setting back to its default",
                details: """
                    Puts KEY back to its default for every process using the store (they follow on their next \
                    lookup). The settings:
                    \(settingLines)

                    Example:
                      wkstore config unset cookies.max-total
                    """)
        }

        @Argument(placeholder: "KEY", help: "a setting key", parse: ConfigCommands.named)
        var setting: StoreSetting

        func run(_ invocation: Invocation) async throws {
            let store = try invocation.openStore(for: .write)
            try store.reset(setting)
            let value = try store.settings()[setting] ?? setting.defaultValue
            let output = invocation.output
            if output.json {
                output.write(json(setting, value: value))
            } else {
                output.line("\(setting.key) = \(value) (default)")
            }
        }
    }

    /// The setting `key` names.
    ///
    /// - Throws: `CLIError.usage` listing the settings for a key that names none.
    static func named(_ key: String) throws(CLIError) -> StoreSetting {
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
