import Foundation
import WebsiteData

/// Which store a command works on: `--store DIR`, `--identifier UUID`, `$WKSTORE_DIR`, or the default store.
enum StoreLocation: Sendable {
    /// A store in a directory of the user's choosing.
    case directory(URL)
    /// The store made for an identifier (`WebsiteDataStore.dataStore(forIdentifier:)`).
    case identifier(UUID)
    /// The default store (`WebsiteDataStore.default()`).
    case `default`

    /// Whether a command only reads the store (or removes from it), or writes new data into it.
    enum Access {
        /// Reads or removes: a store that does not exist yet is read as an empty one and not created.
        case read
        /// Writes: the store is created when it does not exist.
        case write
    }

    /// The location the global options and the environment name.
    ///
    /// - Throws: `CLIError.usage` when both `--store` and `--identifier` are given, or either is malformed.
    init(_ options: GlobalOptions, environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIError)
    {
        switch (options.store, options.identifier) {
        case (.some, .some):
            throw .usage("give --store or --identifier, not both")
        case (.some(let path), nil):
            guard !path.isEmpty else { throw .usage("--store needs a directory") }
            self = .directory(URL(fileURLWithPath: path, isDirectory: true))
        case (nil, .some(let text)):
            guard let uuid = UUID(uuidString: text) else {
                throw .usage(
                    "'\(text)' is not a store identifier: give a UUID such as 4F0B5D0E-7C3A-4B8E-9A51-2D6C1E8F0A37")
            }
            self = .identifier(uuid)
        case (nil, nil):
            if let path = environment["WKSTORE_DIR"], !path.isEmpty {
                self = .directory(URL(fileURLWithPath: path, isDirectory: true))
            } else {
                self = .default
            }
        }
    }

    /// The store's directory.
    func directory() throws -> URL {
        switch self {
        case .directory(let url): return url
        case .identifier(let uuid):
            return try WebsiteDataStore.rootDirectory().appendingPathComponent(uuid.uuidString.lowercased())
        case .default: return try WebsiteDataStore.rootDirectory().appendingPathComponent("default")
        }
    }

    /// Opens the store.
    ///
    /// For `.read`, a store that does not exist is not created: an empty store in memory stands in
    /// for it, except for an identifier no store has, which is an error (most likely a typo).
    ///
    /// - Throws: `StoreError` when the store is damaged, newer, or cannot be opened, or no store has the identifier.
    func open(for access: Access) throws -> WebsiteDataStore {
        let directory = try directory()
        if access == .read {
            switch self {
            case .identifier(let uuid):
                if !FileManager.default.fileExists(atPath: directory.path) {
                    throw StoreError.noSuchStore(identifier: uuid)
                }
            case .directory, .default:
                if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("store.sqlite").path) {
                    return WebsiteDataStore.nonPersistent()
                }
            }
        }
        switch self {
        case .directory(let url): return try WebsiteDataStore(directory: url)
        case .identifier(let uuid): return try WebsiteDataStore.dataStore(forIdentifier: uuid)
        case .default: return try WebsiteDataStore.default()
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
        try StoreLocation(globals).open(for: access)
    }
}
