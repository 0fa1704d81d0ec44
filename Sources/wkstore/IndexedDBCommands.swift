import Foundation
import WebsiteData

/// `wkstore idb …`: an origin's IndexedDB databases, and their records.
enum IndexedDBCommands {
    /// The group.
    static var group: CommandGroup {
        CommandGroup(
            name: "idb", summary: "list IndexedDB databases, dump their records, put and delete one",
            commands: [
                CommandSpec(ListCommand.self), CommandSpec(DumpCommand.self), CommandSpec(PutCommand.self),
                CommandSpec(DeleteCommand.self),
            ])
    }

    /// `wkstore idb list`.
    struct ListCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["idb", "list"],
            summary: "list IndexedDB databases: name, version, object stores and record counts",
            details: """
                Prints each IndexedDB database of ORIGIN (of every origin without --origin): origin, \
                name, version, size (bytes of its records' keys and values), and its object stores \
                with their record counts. --json adds each store's key path, key generator and indexes.

                ORIGIN is scheme://host[:port] (https://app.example.com); a page URL is taken as its origin.
                """)

        @Option(
            name: "origin", placeholder: "ORIGIN", help: "only this origin's databases",
            parse: StorageCommands.parseOrigin)
        var origin: SecurityOrigin?

        func run(_ invocation: Invocation) async throws {
            try await IndexedDBCommands.runList(origin: origin, invocation)
        }
    }

    /// `wkstore idb dump`.
    struct DumpCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["idb", "dump"],
            summary: "print a database's records as JSON lines, in key order",
            details: """
                Prints every record of the database NAME of ORIGIN (of one object store with \
                --object-store; --store names the website data store, as for every command), one \
                JSON object a line: {"store": …, "key": …, "value": …}, stores by name and records \
                in key order (numbers, then dates, strings, binary, arrays), all read in one \
                transaction, so it is one consistent state. Always JSON lines, --json or not.

                Keys and values are plain JSON where JSON holds them exactly, and tagged objects \
                where it cannot, as the library's IDBValue Codable form (so a dump reads back with \
                JSONDecoder): {"$date": "2025-01-01T00:00:00.000Z"}, {"$binary": {"kind": \
                "Uint8Array", "base64": "…"}}, {"$number": "NaN"}, {"$undefined": true}, \
                {"$bigint": "…"}, {"$regexp": {…}}, {"$error": {…}}, and {"$object": {…}} around an \
                object whose only property starts with $. Object properties keep their order.

                Example:
                  wkstore idb dump --origin https://app.example.com --db app --object-store notes | jq .value.title
                """)

        @Option(
            name: "origin", placeholder: "ORIGIN", help: "the database's origin (required)", required: "",
            parse: StorageCommands.parseOrigin)
        var origin: SecurityOrigin
        @Option(name: "db", placeholder: "NAME", help: "the database name (required)", required: "")
        var name: String
        @Option(name: "object-store", placeholder: "STORE", help: "only this object store")
        var objectStore: String?

        func run(_ invocation: Invocation) async throws {
            try await IndexedDBCommands.runDump(self, invocation)
        }
    }

    /// Lists the databases of `origin` (of every origin when `nil`).
    static func runList(origin: SecurityOrigin?, _ invocation: Invocation) async throws {
        let store = try invocation.openStore(for: .read)
        let infos = try store.indexedDB.databases(origin: origin)
        var described: [(IDBDatabaseInfo, [StoreSummary])] = []
        for info in infos {
            described.append((info, try summaries(of: try openExisting(info, in: store.indexedDB))))
        }
        let output = invocation.output
        if output.json {
            output.write(
                .array(
                    described.map { info, stores in
                        .object([
                            ("origin", .string(info.origin.description)),
                            ("site", .string(info.site)),
                            ("name", .string(info.name)),
                            ("version", .int(Int64(info.version))),
                            ("size", .int(info.size)),
                            ("modified", .date(info.modified)),
                            (
                                "stores",
                                .array(
                                    stores.map { summary in
                                        .object([
                                            ("name", .string(summary.name)),
                                            ("records", .int(Int64(summary.records))),
                                            ("keyPath", summary.keyPath.map(keyPathJSON) ?? .null),
                                            ("autoIncrement", .bool(summary.autoIncrement)),
                                            ("indexes", .array(summary.indexes.map(JSONValue.string))),
                                        ])
                                    })
                            ),
                        ])
                    }))
        } else {
            output.lines(
                Format.table(
                    described.map { info, stores in
                        let storeText =
                            stores.isEmpty
                            ? "no object stores"
                            : stores.map { "\($0.name) (\(Format.count($0.records, "record")))" }.joined(
                                separator: ", ")
                        return [
                            info.origin.description, info.name, "version \(info.version)", Format.bytes(info.size),
                            storeText,
                        ]
                    }))
        }
    }

    /// Prints the records `idb dump` asks for, as JSON lines.
    static func runDump(_ command: DumpCommand, _ invocation: Invocation) async throws {
        let origin = command.origin
        let name = command.name
        let database = try existingDatabase(origin, name, for: .read, invocation)
        let names = try database.objectStoreNames()
        var chosen = names
        if let only = command.objectStore {
            guard names.contains(only) else {
                throw CLIError.failure(
                    "the database '\(name)' of \(origin) has no object store '\(only)'; stores: \(names.joined(separator: ", "))"
                )
            }
            chosen = [only]
        }
        guard !chosen.isEmpty else { return }
        let output = invocation.output
        try database.transaction(chosen) { tx in
            for storeName in chosen {
                guard let cursor = try tx.objectStore(storeName).openCursor() else { continue }
                repeat {
                    output.writeLine(
                        .object([
                            ("store", .string(storeName)), ("key", json(cursor.primaryKey.value)),
                            ("value", json(cursor.value)),
                        ]))
                } while try cursor.continue()
            }
        }
    }

    /// An object store as `idb list` shows it.
    struct StoreSummary {
        var name: String
        var records: Int
        var keyPath: IDBKeyPath?
        var autoIncrement: Bool
        var indexes: [String]
    }

    /// The stores of a database with their record counts, read in one transaction.
    static func summaries(of database: IDBDatabase) throws -> [StoreSummary] {
        let names = try database.objectStoreNames()
        guard !names.isEmpty else { return [] }
        return try database.transaction(names) { tx in
            try names.map { name in
                let store = try tx.objectStore(name)
                return StoreSummary(
                    name: name, records: try store.count(), keyPath: store.keyPath,
                    autoIncrement: store.autoIncrement, indexes: store.indexNames)
            }
        }
    }

    /// The database went away between listing and opening.
    private struct Vanished: Error, CustomStringConvertible {
        let name: String
        var description: String { "the IndexedDB database '\(name)' was deleted while being read" }
    }

    /// Opens a database that was listed, at its listed version, never creating one: should it
    /// have been deleted meanwhile, the open would have to create it and run an upgrade, which
    /// throws here, and an open whose upgrade throws keeps nothing.
    static func openExisting(_ info: IDBDatabaseInfo, in indexedDB: IndexedDBStore) throws -> IDBDatabase {
        try indexedDB.open(origin: info.origin, name: info.name, version: max(info.version, 1)) { _, _ in
            throw Vanished(name: info.name)
        }
    }

    /// A key path as JSON: a string, or an array of strings.
    static func keyPathJSON(_ keyPath: IDBKeyPath) -> JSONValue {
        switch keyPath {
        case .string(let path): .string(path)
        case .array(let paths): .array(paths.map(JSONValue.string))
        }
    }

    /// A value as JSON, in the tagged form of `IDBValue`'s `Codable` conformance (see the help),
    /// keeping the order of object properties.
    static func json(_ value: IDBValue) -> JSONValue {
        func tagged(_ tag: String, _ inner: JSONValue) -> JSONValue { .object([(tag, inner)]) }
        switch value {
        case .undefined: return tagged("$undefined", .bool(true))
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let number):
            if number.isFinite && !(number == 0 && number.sign == .minus) { return .number(number) }
            return tagged(
                "$number",
                .string(number.isNaN ? "NaN" : number.isInfinite ? (number < 0 ? "-Infinity" : "Infinity") : "-0"))
        case .bigInt(let digits): return tagged("$bigint", .string(digits))
        case .string(let text): return .string(text)
        case .date(let date):
            return tagged(
                "$date", date.timeIntervalSinceReferenceDate.isNaN ? .null : .string(javaScriptISOString(date)))
        case .binary(let data, let kind):
            return tagged(
                "$binary", .object([("kind", .string(kind.rawValue)), ("base64", .string(data.base64EncodedString()))]))
        case .regExp(let pattern, let flags):
            return tagged("$regexp", .object([("pattern", .string(pattern)), ("flags", .string(flags))]))
        case .error(let name, let message, let stack):
            return tagged(
                "$error", .object([("name", .string(name)), ("message", .string(message)), ("stack", .string(stack))]))
        case .array(let elements): return .array(elements.map(json))
        case .object(let object):
            let plain = JSONValue.object(object.properties.map { ($0.name, json($0.value)) })
            if object.count == 1, let only = object.properties.first, only.name.hasPrefix("$") {
                return tagged("$object", plain)
            }
            return plain
        }
    }

    /// A date as JavaScript's `toISOString` writes it: milliseconds, UTC, and a six-digit signed
    /// year outside 0000–9999.
    static func javaScriptISOString(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        let whole = Date(timeIntervalSince1970: milliseconds / 1000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let parts = calendar.dateComponents([.era, .year, .month, .day, .hour, .minute, .second], from: whole)
        var year = parts.year ?? 1970
        if parts.era == 0 { year = 1 - year }
        let millis = Int(milliseconds.truncatingRemainder(dividingBy: 1000) + 1000) % 1000
        func pad(_ n: Int, _ width: Int) -> String {
            let text = String(n)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let yearText = (0...9999).contains(year) ? pad(year, 4) : (year < 0 ? "-" : "+") + pad(abs(year), 6)
        return "\(yearText)-\(pad(parts.month ?? 1, 2))-\(pad(parts.day ?? 1, 2))T\(pad(parts.hour ?? 0, 2)):"
            + "\(pad(parts.minute ?? 0, 2)):\(pad(parts.second ?? 0, 2)).\(pad(millis, 3))Z"
    }
}
