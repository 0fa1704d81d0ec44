import Foundation
import WebsiteData

/// `wkstore storage …`: an origin's localStorage.
///
/// sessionStorage is not offered: it lives in the memory of the process that uses it, per
/// browsing context, and ends with that process, so a command (a process of its own) could only
/// ever see an empty one and whatever it set would be gone when it exits.
enum StorageCommands {
    /// The group.
    static var group: CommandGroup {
        CommandGroup(
            name: "storage", summary: "read and change an origin's localStorage",
            commands: [
                CommandSpec(ListCommand.self), CommandSpec(GetCommand.self), CommandSpec(SetCommand.self),
                CommandSpec(RemoveCommand.self), CommandSpec(ClearCommand.self),
            ])
    }

    /// Help shared by the commands: origins, and why sessionStorage is not here.
    static let originHelp = """
        ORIGIN is scheme://host[:port] (https://www.example.com); a page URL is taken as its \
        origin. Keys are listed in the order they were first set.

        Only localStorage: sessionStorage lives in the memory of the process that uses it (one \
        namespace per browsing context) and ends with it, so a wkstore command, a process of its \
        own, would only ever see an empty one. Programs use it through the library \
        (store.sessionStorage); 'wkstore clear --types sessionstorage' still reaches the \
        processes holding the store open.
        """

    /// `--session`, declared only to be refused, saying why.
    static func sessionOption() -> Option<String?> {
        Option(
            name: "session", placeholder: "NAMESPACE",
            help: "not available: sessionStorage lives in the memory of the process using it (see below)",
            refusal: """
                --session is not available in the command line: sessionStorage lives in the memory of the \
                process that uses it and ends with it, so a command could only see an empty namespace; \
                use the library (store.sessionStorage), see 'wkstore storage list --help'
                """)
    }

    /// `wkstore storage list`.
    struct ListCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["storage", "list"],
            summary: "list an origin's localStorage items, or the origins that have any",
            details: """
                With --origin, prints the origin's items, one a line: key, then value (line breaks, \
                tabs and other control characters shown escaped as \\n, \\t, \\u0001). Without it, \
                prints each origin that has localStorage with its item count and bytes (UTF-16 code \
                units × 2, as the quota counts them).

                \(originHelp)
                """)

        // Read in `run`, after the store is opened, whose errors come first.
        @Option(name: "origin", placeholder: "ORIGIN", help: "the origin whose items to list")
        var origin: String?
        /// Declared only to be refused.
        private let session = sessionOption()

        func run(_ invocation: Invocation) async throws {
            try await StorageCommands.runList(origin: origin, invocation)
        }
    }

    /// `wkstore storage get`.
    struct GetCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["storage", "get"],
            summary: "print the value of a localStorage key",
            details: """
                Prints the value stored under KEY for ORIGIN, as it is. Exits 1 when the key is not set.

                \(originHelp)
                """)

        @Option(
            name: "origin", placeholder: "ORIGIN", help: "the origin (required)", required: "",
            parse: StorageCommands.parseOrigin)
        var origin: SecurityOrigin
        /// Declared only to be refused.
        private let session = sessionOption()
        @Argument(placeholder: "KEY", help: "a key")
        var key: String

        func run(_ invocation: Invocation) async throws {
            let value = try invocation.openStore(for: .read).localStorage.getItem(key, origin: origin)
            let output = invocation.output
            if output.json {
                output.write(
                    .object([
                        ("origin", .string(origin.description)), ("key", .string(key)), ("value", .optional(value)),
                    ]))
            } else if let value {
                output.line(value)
            }
            if value == nil { throw CLIError.failure("no key '\(key)' in the localStorage of \(origin)") }
        }
    }

    /// `wkstore storage set`.
    struct SetCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["storage", "set"],
            summary: "set a localStorage key to a value",
            details: """
                Stores VALUE under KEY for ORIGIN, as localStorage.setItem does. A write that would \
                take the origin past its quota (the setting localstorage.quota, 5 MiB by default) is \
                refused with exit 1 and changes nothing. Processes holding the store open see the \
                value at their next call.

                \(originHelp)

                Example:
                  wkstore storage set --origin https://app.example.com theme dark
                """)

        @Option(
            name: "origin", placeholder: "ORIGIN", help: "the origin (required)", required: "",
            parse: StorageCommands.parseOrigin)
        var origin: SecurityOrigin
        /// Declared only to be refused.
        private let session = sessionOption()
        @Argument(placeholder: "KEY", help: "a key")
        var key: String
        @Argument(placeholder: "VALUE", help: "a value")
        var value: String

        func run(_ invocation: Invocation) async throws {
            let store = try invocation.openStore(for: .write)
            try store.localStorage.setItem(key, value, origin: origin)
            let usage = try store.localStorage.usage(origin: origin)
            let output = invocation.output
            if output.json {
                output.write(
                    .object([
                        ("origin", .string(origin.description)), ("key", .string(key)), ("value", .string(value)),
                        ("usage", .int(usage)),
                    ]))
            } else {
                output.line("set \(escaped(key)) for \(origin) (\(Format.bytes(usage)) in use)")
            }
        }
    }

    /// `wkstore storage remove`.
    struct RemoveCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["storage", "remove"],
            summary: "remove a localStorage key",
            details: """
                Removes KEY from ORIGIN's localStorage; prints what it removed, or that the key was not \
                set (exit 0 either way). 'wkstore clear --types localstorage --site SITE' removes a \
                whole site's.

                \(originHelp)
                """)

        @Option(
            name: "origin", placeholder: "ORIGIN", help: "the origin (required)", required: "",
            parse: StorageCommands.parseOrigin)
        var origin: SecurityOrigin
        /// Declared only to be refused.
        private let session = sessionOption()
        @Argument(placeholder: "KEY", help: "a key")
        var key: String
        @Flag(name: "must-match", help: "exit 1 when the key was not set")
        var mustMatch: Bool

        func run(_ invocation: Invocation) async throws {
            let store = try invocation.openStore(for: .remove)
            let existed = try store.localStorage.getItem(key, origin: origin) != nil
            if existed { try store.localStorage.removeItem(key, origin: origin) }
            let output = invocation.output
            if output.json {
                output.write(
                    .object([
                        ("origin", .string(origin.description)), ("key", .string(key)), ("removed", .bool(existed)),
                    ]))
            } else {
                output.line(existed ? "removed \(escaped(key)) from \(origin)" : "no key \(escaped(key)) in \(origin)")
            }
            try CLIError.requireMatch(existed, mustMatch, "no key \(escaped(key)) in \(origin)")
        }
    }

    /// `wkstore storage clear`.
    struct ClearCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["storage", "clear"],
            summary: "remove every localStorage key of an origin",
            details: """
                Removes every key of ORIGIN's localStorage, as a page's localStorage.clear() does, and \
                prints how many it removed (exit 0 even when there was none, unless --must-match). \
                Other origins of the same site keep theirs; 'wkstore clear --types localstorage --site \
                SITE' removes a whole site's.

                \(originHelp)
                """)

        @Option(
            name: "origin", placeholder: "ORIGIN", help: "the origin (required)", required: "",
            parse: StorageCommands.parseOrigin)
        var origin: SecurityOrigin
        /// Declared only to be refused.
        private let session = sessionOption()
        @Flag(name: "must-match", help: "exit 1 when the origin had no keys")
        var mustMatch: Bool

        func run(_ invocation: Invocation) async throws {
            let store = try invocation.openStore(for: .remove)
            let count = try store.localStorage.length(origin: origin)
            if count > 0 { try store.localStorage.clear(origin: origin) }
            let output = invocation.output
            if output.json {
                output.write(.object([("origin", .string(origin.description)), ("removed", .int(Int64(count)))]))
            } else {
                output.line(
                    count == 0 ? "no keys in \(origin)" : "removed \(Format.count(count, "key")) from \(origin)")
            }
            try CLIError.requireMatch(count > 0, mustMatch, "no keys in \(origin)")
        }
    }

    /// Lists the items of `origin`, or every origin with its item count and bytes.
    static func runList(origin text: String?, _ invocation: Invocation) async throws {
        let store = try invocation.openStore(for: .read)
        let output = invocation.output
        guard let text else {
            let origins = try store.localStorage.origins()
            let summaries = try origins.map { origin in
                (origin, try store.localStorage.length(origin: origin), try store.localStorage.usage(origin: origin))
            }
            if output.json {
                output.write(
                    .array(
                        summaries.map { origin, count, bytes in
                            .object([
                                ("origin", .string(origin.description)), ("site", .string(origin.site)),
                                ("items", .int(Int64(count))), ("bytes", .int(bytes)),
                            ])
                        }))
            } else {
                output.lines(
                    Format.table(
                        summaries.map { origin, count, bytes in
                            [origin.description, Format.count(count, "item"), Format.bytes(bytes)]
                        }))
            }
            return
        }
        let origin = try parseOrigin(text)
        let items = try store.localStorage.items(origin: origin)
        if output.json {
            output.write(
                .array(
                    items.map { item in
                        .object([
                            ("key", .string(item.key)), ("value", .string(item.value)), ("size", .int(item.size)),
                            ("modified", .date(item.modified)),
                        ])
                    }))
        } else {
            output.lines(Format.table(items.map { [escaped($0.key), escaped($0.value)] }))
        }
    }

    /// An origin: its serialization, or the origin of a page URL.
    ///
    /// - Throws: `CLIError.usage` for text that is neither, or a URL with an opaque origin.
    static func parseOrigin(_ text: String) throws(CLIError) -> SecurityOrigin {
        if let origin = SecurityOrigin(string: text) { return origin }
        if let url = URL(string: text), url.scheme != nil, let origin = SecurityOrigin(url: url) { return origin }
        throw .usage("'\(text)' is not an origin: give one such as https://www.example.com")
    }

    /// Text with control characters escaped (`\n`, `\t`, `\r`, `\\`, `\u0001`), for one-line output.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "\\": result += "\\\\"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += JSONString.unicodeEscape(scalar)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
