import Foundation
import WebsiteData

/// Which store a command works on: `--store DIR|URI`, `--identifier UUID`, `$WKSTORE_DIR`, or the default store.
enum StoreLocation: Sendable {
    /// A store in a directory of the user's choosing.
    case directory(URL)
    /// A store in a PostgreSQL database (`--store postgresql://…`), of an identifier or the default one.
    case postgreSQL(URL, identifier: UUID?)
    /// The store made for an identifier (`WebsiteDataStore.dataStore(forIdentifier:)`).
    case identifier(UUID)
    /// The default store (`WebsiteDataStore.default()`).
    case `default`

    /// What a command does to the store: reads it, removes from it, or writes new data into it.
    enum Access {
        /// Reads: the store is opened read-only (it creates, migrates and writes nothing, so a
        /// store this user cannot write, or a backup on read-only media, can be read); a store
        /// that does not exist yet reads as an empty one.
        case read
        /// Removes: the store is opened for writing, but one that does not exist yet is not
        /// created (there is nothing to remove).
        case remove
        /// Writes: the store is created when it does not exist.
        case write
    }

    /// The location the global options and the environment name.
    ///
    /// - Throws: `CLIError.usage` when both `--store` and `--identifier` are given, or either is malformed.
    init(_ options: GlobalOptions, environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIError)
    {
        let named = options.store ?? environment["WKSTORE_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        if let named, WebsiteDataStore.isPostgreSQLURI(named) {
            guard let url = URL(string: named) else { throw .usage("--store: not a valid postgresql:// URI") }
            self = .postgreSQL(url, identifier: try options.identifier.map(Self.identifier))
            return
        }
        switch (options.store, options.identifier) {
        case (.some, .some):
            throw .usage("give --store or --identifier, not both (--identifier goes with a postgresql:// --store)")
        case (.some(let path), nil):
            guard !path.isEmpty else { throw .usage("--store needs a directory") }
            self = .directory(URL(fileURLWithPath: path, isDirectory: true))
        case (nil, .some(let text)):
            self = .identifier(try Self.identifier(text))
        case (nil, nil):
            if let path = environment["WKSTORE_DIR"], !path.isEmpty {
                self = .directory(URL(fileURLWithPath: path, isDirectory: true))
            } else {
                self = .default
            }
        }
    }

    /// The identifier `text` names.
    static func identifier(_ text: String) throws(CLIError) -> UUID {
        guard let uuid = UUID(uuidString: text) else {
            throw .usage(
                "'\(text)' is not a store identifier: give a UUID such as 4F0B5D0E-7C3A-4B8E-9A51-2D6C1E8F0A37")
        }
        return uuid
    }

    /// The store's directory.
    func directory() throws -> URL {
        switch self {
        case .postgreSQL: throw CLIError.usage("a PostgreSQL store has no directory")
        case .directory(let url): return url
        case .identifier(let uuid):
            return try WebsiteDataStore.rootDirectory().appendingPathComponent(uuid.uuidString.lowercased())
        case .default: return try WebsiteDataStore.rootDirectory().appendingPathComponent("default")
        }
    }

    /// Opens the store.
    ///
    /// For `.read`, a store that does not exist is not created: an empty store in memory stands in
    /// for the default store and for a directory that holds no store yet. A directory the user
    /// named (`--store`, `$WKSTORE_DIR`) that does not exist, and an identifier no store has, are
    /// errors: most likely a typo, which reading them as empty would hide.
    ///
    /// - Throws: `CLIError.failure` naming the path when a named directory does not exist (for
    ///   reading), is a file or cannot be read; `StoreError` when the store is damaged, newer, or
    ///   cannot be opened, or no store has the identifier.
    func open(for access: Access, readOnly: Bool = false) throws -> WebsiteDataStore {
        if case .postgreSQL(let url, let identifier) = self {
            // As for a directory: a store not made yet reads as an empty one and has nothing to
            // remove, and neither reading nor removing creates its schema.
            if access != .write, try !WebsiteDataStore.postgreSQLStoreExists(in: url, identifier: identifier) {
                return WebsiteDataStore.nonPersistent()
            }
            guard access == .read || readOnly else { return try WebsiteDataStore(url: url, identifier: identifier) }
            do {
                return try WebsiteDataStore(url: url, identifier: identifier, configuration: .init(readOnly: true))
            } catch StoreError.olderSchema where !readOnly {
                // A store of an older schema: a writable open upgrades it, as for a directory.
                return try WebsiteDataStore(url: url, identifier: identifier)
            }
        }
        let directory = try directory()
        if case .directory = self { try Self.checkNamedDirectory(directory, for: access) }
        if access != .write {
            switch self {
            case .identifier(let uuid):
                if !FileManager.default.fileExists(atPath: directory.path) {
                    throw StoreError.noSuchStore(identifier: uuid)
                }
            case .directory, .default, .postgreSQL:
                if !FileManager.default.fileExists(atPath: directory.appendingPathComponent(Self.fileName).path) {
                    return WebsiteDataStore.nonPersistent()
                }
            }
        }
        guard access == .read || readOnly else { return try open(.init()) }
        do {
            return try open(.init(readOnly: true))
        } catch StoreError.olderSchema where !readOnly && FileManager.default.isWritableFile(atPath: directory.path) {
            // A store written by an older wkstore: a writable open upgrades it, as every open did.
            return try open(.init())
        }
    }

    private func open(_ configuration: WebsiteDataStore.Configuration) throws -> WebsiteDataStore {
        switch self {
        case .postgreSQL(let url, let identifier):
            return try WebsiteDataStore(url: url, identifier: identifier, configuration: configuration)
        case .directory(let url): return try WebsiteDataStore(directory: url, configuration: configuration)
        case .identifier(let uuid):
            return try WebsiteDataStore.dataStore(forIdentifier: uuid, configuration: configuration)
        case .default: return try WebsiteDataStore.default(configuration: configuration)
        }
    }
}

extension StoreLocation {
    /// The store's database file in its directory.
    static let fileName = "store.sqlite"

    /// Checks a directory the user named: it must be a directory this user can read. For writing,
    /// a directory that does not exist yet is created by the store; for reading, one that exists
    /// but holds no store yet reads as an empty store.
    ///
    /// - Throws: `CLIError.failure` naming the path and what is wrong with it.
    static func checkNamedDirectory(_ directory: URL, for access: Access) throws(CLIError) {
        let path = directory.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            if access == .write { return }
            throw .failure("no store at \(path): the directory does not exist")
        }
        guard isDirectory.boolValue else {
            throw .failure("\(path) is a file, not a store directory")
        }
        guard FileManager.default.isReadableFile(atPath: path), FileManager.default.isExecutableFile(atPath: path)
        else {
            throw .failure("cannot read the store directory \(path): permission denied")
        }
    }
}

/// One run of a command: which command, the global options, and where to write.
struct Invocation: Sendable {
    /// The command being run.
    let command: CommandConfiguration
    /// The global options.
    let globals: GlobalOptions
    /// Where it writes.
    var output: Output { Output(json: globals.json) }

    /// Opens the store the global options name.
    func openStore(for access: StoreLocation.Access) throws -> WebsiteDataStore {
        try StoreLocation(globals).open(for: access, readOnly: globals.readOnly)
    }
}
