import Foundation
import WebsiteData

/// `wkstore idb put` and `wkstore idb delete`: one record of an existing object store.
extension IndexedDBCommands {
    /// Help shared by the two commands: how keys and values are written.
    static let recordHelp = """
        KEY and VALUE are JSON in the form 'wkstore idb dump' prints: plain JSON where JSON holds \
        the value exactly, tagged objects where it cannot ({"$date": "2025-01-01T00:00:00.000Z"}, \
        {"$binary": {"kind": "Uint8Array", "base64": "…"}}, …). A key is a number, a date, a \
        string, binary data or an array of those.

        The database and the object store must exist: the schema is the page's to make, in an \
        upgrade (the library's IndexedDBStore.open(origin:name:version:upgrade:)).
        """

    /// `wkstore idb put`.
    struct PutCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["idb", "put"],
            summary: "store one record in an object store (replacing the record of its key)",
            usage: ["idb put --origin ORIGIN --db NAME --object-store STORE [--key KEY] VALUE"],
            details: """
                Stores VALUE as IDBObjectStore.put does, in a transaction of its own: under --key, \
                or under the key its object store's key path finds in VALUE, or under the next key \
                of its key generator. A record with that key is replaced. Prints the key it was \
                stored under (as JSON).

                \(recordHelp)

                Example:
                  wkstore idb put --origin https://app.example.com --db app --object-store notes \\
                      '{"id": 7, "title": "From the command line"}'
                """)

        @Option(
            name: "origin", placeholder: "ORIGIN", help: "the database's origin (required)", required: "",
            parse: StorageCommands.parseOrigin)
        var origin: SecurityOrigin
        @Option(name: "db", placeholder: "NAME", help: "the database name (required)", required: "")
        var name: String
        @Option(name: "object-store", placeholder: "STORE", help: "the object store (required)", required: "")
        var objectStore: String
        @Option(
            name: "key", placeholder: "KEY", help: "the record's key, as JSON (for a store without a key path)",
            parse: IndexedDBCommands.parseKey)
        var key: IDBKey?
        @Argument(
            placeholder: "VALUE", help: "the value, as JSON",
            parse: { text throws(CLIError) in try IndexedDBCommands.parseValue(text) })
        var value: IDBValue

        func run(_ invocation: Invocation) async throws {
            let database = try IndexedDBCommands.existingDatabase(origin, name, objectStore, invocation)
            let stored = try IndexedDBCommands.withRecordErrors {
                try database.transaction(objectStore, mode: .readwrite) { tx in
                    try tx.objectStore(objectStore).put(value, key: key)
                }
            }
            let output = invocation.output
            if output.json {
                output.write(.object([("store", .string(objectStore)), ("key", json(stored.value))]))
            } else {
                output.line("stored \(json(stored.value).renderedCompact()) in \(objectStore)")
            }
        }
    }

    /// `wkstore idb delete`.
    struct DeleteCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["idb", "delete"],
            summary: "delete the record of a key from an object store",
            usage: ["idb delete --origin ORIGIN --db NAME --object-store STORE --key KEY [--must-match]"],
            details: """
                Deletes the record whose key is KEY, as IDBObjectStore.delete does, and prints whether \
                there was one (exit 0 either way, unless --must-match).

                \(recordHelp)
                """)

        @Option(
            name: "origin", placeholder: "ORIGIN", help: "the database's origin (required)", required: "",
            parse: StorageCommands.parseOrigin)
        var origin: SecurityOrigin
        @Option(name: "db", placeholder: "NAME", help: "the database name (required)", required: "")
        var name: String
        @Option(name: "object-store", placeholder: "STORE", help: "the object store (required)", required: "")
        var objectStore: String
        @Option(
            name: "key", placeholder: "KEY", help: "the record's key, as JSON (required)", required: "",
            parse: IndexedDBCommands.parseKey)
        var key: IDBKey
        @Flag(name: "must-match", help: "exit 1 when no record had the key")
        var mustMatch: Bool

        func run(_ invocation: Invocation) async throws {
            let database = try IndexedDBCommands.existingDatabase(origin, name, objectStore, invocation)
            let existed = try IndexedDBCommands.withRecordErrors {
                try database.transaction(objectStore, mode: .readwrite) { tx in
                    let store = try tx.objectStore(objectStore)
                    guard try store.count(.only(key)) > 0 else { return false }
                    try store.delete(key)
                    return true
                }
            }
            let keyText = json(key.value).renderedCompact()
            let output = invocation.output
            if output.json {
                output.write(
                    .object([("store", .string(objectStore)), ("key", json(key.value)), ("deleted", .bool(existed))]))
            } else {
                output.line(
                    existed ? "deleted \(keyText) from \(objectStore)" : "no record \(keyText) in \(objectStore)")
            }
            try CLIError.requireMatch(existed, mustMatch, "no record \(keyText) in \(objectStore)")
        }
    }

    /// The database `name` of `origin`, which must exist.
    ///
    /// - Throws: `CLIError.failure` naming the database when it does not exist.
    static func existingDatabase(
        _ origin: SecurityOrigin, _ name: String, for access: StoreLocation.Access, _ invocation: Invocation
    ) throws -> IDBDatabase {
        let store = try invocation.openStore(for: access)
        guard let info = try store.indexedDB.databases(origin: origin).first(where: { $0.name == name }) else {
            throw CLIError.failure("\(origin) has no IndexedDB database named '\(name)'")
        }
        return try openExisting(info, in: store.indexedDB)
    }

    /// The database `name` of `origin`, which must exist and have the object store `objectStore`.
    ///
    /// - Throws: `CLIError.failure` naming what does not exist, and the object stores there are.
    static func existingDatabase(
        _ origin: SecurityOrigin, _ name: String, _ objectStore: String, _ invocation: Invocation
    ) throws -> IDBDatabase {
        let database = try existingDatabase(origin, name, for: .remove, invocation)
        let names = try database.objectStoreNames()
        guard names.contains(objectStore) else {
            throw CLIError.failure(
                "the database '\(name)' of \(origin) has no object store '\(objectStore)'; stores: \(names.joined(separator: ", "))"
            )
        }
        return database
    }

    /// Runs a record operation; an `IDBError` (a key the store's key path contradicts, a value
    /// with no key where one is needed, a constraint) becomes a one-line failure.
    static func withRecordErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as IDBError {
            throw CLIError.failure(error.description)
        }
    }

    /// A key given as JSON in `idb dump`'s form.
    ///
    /// - Throws: `CLIError.usage` for text that is not such JSON, or a value that is not a key.
    static func parseKey(_ text: String) throws(CLIError) -> IDBKey {
        let value = try parseValue(text, what: "--key")
        guard let key = value.key else {
            throw .usage(
                "--key \(text) is not an IndexedDB key: give a number, a date, a string, binary data or an array of those"
            )
        }
        return key
    }

    /// A value given as JSON in `idb dump`'s form.
    ///
    /// - Throws: `CLIError.usage` for text that is not such JSON.
    static func parseValue(_ text: String, what: String = "VALUE") throws(CLIError) -> IDBValue {
        do {
            return try JSONDecoder().decode(IDBValue.self, from: Data(text.utf8))
        } catch {
            throw .usage("\(what) is not JSON in the form 'wkstore idb dump' prints: \(text.prefix(80))")
        }
    }
}
