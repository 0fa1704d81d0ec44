import Foundation
import Synchronization

/// A website data store, as WebKit's `WKWebsiteDataStore`: cookies and the other types of
/// website data, persistent in a directory of its own or held in memory only.
///
/// Persistent stores live in `$XDG_DATA_HOME/wkstore/<name>` (else `~/.local/share/wkstore/<name>`):
/// `default` for `WebsiteDataStore.default()`, a UUID for `dataStore(forIdentifier:)`. A store
/// may also be opened at any directory. Directories are created 0700 and files 0600.
public final class WebsiteDataStore: Sendable {
    /// The store's cookies.
    public let httpCookieStore: HTTPCookieStore
    /// The store's HTTP cache: its disk cache (persistent stores) and this process's memory cache.
    public let httpCache: HTTPCache
    /// Whether the store outlives the process: in a directory, or in a PostgreSQL database.
    public var isPersistent: Bool { database.isPersistent }
    /// Whether the store was opened read-only: every call that would change it throws
    /// `StoreError.readOnly`.
    public var isReadOnly: Bool { database.isReadOnly }
    /// The store's directory, or `nil` for a non-persistent store and a PostgreSQL store.
    public let directory: URL?
    /// The identifier of a store made by `dataStore(forIdentifier:)`.
    public let identifier: UUID?

    let database: StoreDatabase

    /// Problems found when an existing store was opened: files or the directory that others than
    /// the owner may read or write (a store holds credentials). Empty when all is owner-only.
    public var permissionWarnings: [String] { database.permissionProblems }
    /// Every data type's component, in `WebsiteDataStore.componentKinds` order.
    let components: [any WebsiteDataComponent]
    let clock: @Sendable () -> Date

    /// Opens (creating when needed) the store in `directory`.
    ///
    /// - Throws: `StoreError` when the directory cannot be made, the file is damaged or not a
    ///   store, or was written by a newer wkstore. Nothing is changed in those cases.
    public convenience init(directory: URL) throws {
        try self.init(directory: directory, identifier: nil, clock: { Date() })
    }

    /// Opens the store in `directory` as `configuration` says: read-only, it must exist, and
    /// the store is read as it is, with nothing created, migrated, purged or written.
    ///
    /// - Throws: `StoreError.cannotOpen` naming the path for a read-only open of a directory that
    ///   is missing, is a file, cannot be read or holds no store; `.olderSchema` for a read-only
    ///   open of a store a writable open would upgrade; otherwise as `init(directory:)`.
    public convenience init(directory: URL, configuration: Configuration) throws {
        try self.init(directory: directory, identifier: nil, clock: { Date() }, readOnly: configuration.readOnly)
    }

    /// Opens the store a URL names: a `postgresql://` (or `postgres://`) URI opens the default
    /// store in that PostgreSQL database, shared by every machine that opens it; a `file:` URL
    /// opens the store in that directory.
    ///
    /// What libpq reads besides the URI applies as libpq documents it: the `PG*` environment
    /// variables, the password file (`~/.pgpass`), `sslmode` and client certificates.
    /// Docs/fleet.md says what the database needs.
    ///
    /// - Throws: `StoreError.invalidArgument` for a URL of another scheme; `PostgreSQLError`
    ///   (never holding a password) when the server cannot be reached or refuses, or its store
    ///   was written by a newer wkstore; otherwise as `init(directory:)`.
    public convenience init(url: URL) throws {
        try self.init(url: url, identifier: nil, configuration: Configuration())
    }

    /// Opens the store of `identifier` (or, for `nil`, the default store) in the database or
    /// directory a URL names, as `configuration` says.
    ///
    /// In a PostgreSQL database each identifier's store is a schema of its own; in a directory
    /// URL, the identifier's store is the directory's subdirectory named by it, as
    /// `dataStore(forIdentifier:)` lays them out under `rootDirectory()`.
    ///
    /// - Throws: as `init(url:)`.
    public convenience init(url: URL, identifier: UUID?, configuration: Configuration = Configuration()) throws {
        if PostgreSQLStoreLocation.isPostgreSQLURI(url.absoluteString) {
            try self.init(
                directory: nil, identifier: identifier, clock: { Date() }, readOnly: configuration.readOnly,
                postgreSQL: PostgreSQLStoreLocation(connectionString: url.absoluteString, identifier: identifier),
                strictCoherence: configuration.strictCoherence)
        } else if url.isFileURL {
            let directory = identifier.map { url.appendingPathComponent($0.uuidString.lowercased()) } ?? url
            try self.init(
                directory: directory, identifier: identifier, clock: { Date() }, readOnly: configuration.readOnly)
        } else {
            throw StoreError.invalidArgument(
                "a store URL is a postgresql:// or postgres:// URI, or a file: URL of a directory (not \(url.scheme ?? "a URL without a scheme"))"
            )
        }
    }

    /// Opens a store with an injected clock (tests): at a directory, in a PostgreSQL database, or in memory.
    init(
        directory: URL?, identifier: UUID?, clock: @escaping @Sendable () -> Date, readOnly: Bool = false,
        postgreSQL: PostgreSQLStoreLocation? = nil, strictCoherence: Bool = false
    ) throws {
        self.directory = directory
        self.identifier = identifier
        if let postgreSQL {
            self.database = try StoreDatabase(
                postgreSQL: postgreSQL, folds: Self.componentKinds.compactMap { $0.changeLogFold }, readOnly: readOnly,
                strictCoherence: strictCoherence)
        } else if let directory, readOnly {
            self.database = try StoreDatabase(readingDirectory: directory)
        } else {
            if let directory { try Self.makeDirectory(directory) }
            self.database = try StoreDatabase(
                directory: directory, folds: Self.componentKinds.compactMap { $0.changeLogFold })
        }
        self.clock = clock
        var components: [any WebsiteDataComponent] = []
        for kind in Self.componentKinds {
            components.append(try kind.open(database: database, clock: clock))
        }
        self.components = components
        self.httpCookieStore = components.lazy.compactMap { $0 as? HTTPCookieStore }.first!
        // Made once: finding the components by dynamic casts took 3% of a memory-cache hit.
        self.httpCache = HTTPCache(
            disk: components.lazy.compactMap { $0 as? HTTPDiskCache }.first!,
            memory: components.lazy.compactMap { $0 as? HTTPMemoryCache }.first!, database: database, clock: clock)
    }

    /// A store that keeps everything in memory and writes nothing to disk.
    public static func nonPersistent() -> WebsiteDataStore {
        // An in-memory database cannot fail to open short of memory exhaustion.
        try! WebsiteDataStore(directory: nil, identifier: nil, clock: { Date() })
    }

    /// The default persistent store (`<root>/default`).
    public static func `default`() throws -> WebsiteDataStore {
        try `default`(configuration: Configuration())
    }

    /// The default persistent store (`<root>/default`), opened as `configuration` says.
    ///
    /// As WebKit's `default()`, every call returns the same object while one is in use in this
    /// process (held by anyone); once none is, the next call opens the store again.
    ///
    /// - Throws: as `init(directory:configuration:)`.
    public static func `default`(configuration: Configuration) throws -> WebsiteDataStore {
        try shared(
            directory: try rootDirectory().appendingPathComponent("default"), identifier: nil,
            readOnly: configuration.readOnly)
    }

    /// The store objects `default()` and `dataStore(forIdentifier:)` handed out, while in use.
    private struct HeldStore: Sendable {
        weak var store: WebsiteDataStore?
    }
    private static let heldStores = Locked<[String: HeldStore]>([:])

    /// The store of `directory` opened this way that is in use in this process, or a new one.
    static func shared(directory: URL, identifier: UUID?, readOnly: Bool) throws -> WebsiteDataStore {
        let key = (readOnly ? "read-only " : "") + directory.standardizedFileURL.path
        return try heldStores.withLock { held in
            if let store = held[key]?.store { return store }
            let store = try WebsiteDataStore(
                directory: directory, identifier: identifier, clock: { Date() }, readOnly: readOnly)
            held = held.filter { $0.value.store != nil }
            held[key] = HeldStore(store: store)
            return store
        }
    }

    /// The persistent store with this identifier, created when it does not exist.
    ///
    /// Every call returns the same object while one is in use in this process, as `default()`.
    public static func dataStore(forIdentifier identifier: UUID) throws -> WebsiteDataStore {
        try dataStore(forIdentifier: identifier, configuration: Configuration())
    }

    /// The persistent store with this identifier, opened as `configuration` says (read-only, it
    /// must exist).
    ///
    /// - Throws: `StoreError.noSuchStore` for a read-only open of an identifier that has no
    ///   store; otherwise as `init(directory:configuration:)`.
    public static func dataStore(forIdentifier identifier: UUID, configuration: Configuration) throws
        -> WebsiteDataStore
    {
        let directory = try rootDirectory().appendingPathComponent(identifier.uuidString.lowercased())
        if configuration.readOnly && !FileManager.default.fileExists(atPath: directory.path) {
            throw StoreError.noSuchStore(identifier: identifier)
        }
        return try shared(directory: directory, identifier: identifier, readOnly: configuration.readOnly)
    }

    /// The identifiers of every store made by `dataStore(forIdentifier:)`, sorted.
    public static func allDataStoreIdentifiers() throws -> [UUID] {
        let root = try rootDirectory()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.compactMap { UUID(uuidString: $0) }.sorted { $0.uuidString < $1.uuidString }
    }

    /// Deletes the store with this identifier and all its data, unless a store object has it
    /// open, in this process or another (as WebKit refuses while views use a store).
    ///
    /// - Parameters:
    ///   - identifier: the store's identifier.
    ///   - force: delete it even while it is open: the objects that hold it keep working on
    ///     files no longer in the directory, and what they write is lost with them; for an
    ///     operator who has stopped the crawlers, or a process known to be stuck.
    /// - Throws: `StoreError.noSuchStore` when there is none; `.storeInUse` when it is open and
    ///   `force` is not given (nothing is removed).
    public static func removeDataStore(forIdentifier identifier: UUID, force: Bool = false) throws {
        let directory = try rootDirectory().appendingPathComponent(identifier.uuidString.lowercased())
        guard FileManager.default.fileExists(atPath: directory.path) else {
            throw StoreError.noSuchStore(identifier: identifier)
        }
        // Held while the directory goes: a store opened meanwhile waits for it.
        let exclusive = StoreUseLock.exclusive(directory)
        if exclusive == nil && !force { throw StoreError.storeInUse(identifier: identifier) }
        do { try FileManager.default.removeItem(at: directory) } catch {
            throw StoreError.cannotOpen(path: directory.path, detail: FileErrorReason.text(error))
        }
        withExtendedLifetime(exclusive) {}
    }

    /// Where persistent stores live: `$XDG_DATA_HOME/wkstore`, else `~/.local/share/wkstore`.
    public static func rootDirectory() throws -> URL {
        let env = ProcessInfo.processInfo.environment
        if let xdg = env["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("wkstore")
        }
        guard let home = env["HOME"], !home.isEmpty else {
            throw StoreError.cannotOpen(path: "~/.local/share/wkstore", detail: "neither XDG_DATA_HOME nor HOME is set")
        }
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/wkstore")
    }

    static func makeDirectory(_ directory: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError.cannotOpen(
                path: directory.path, detail: "cannot create the directory (\(FileErrorReason.text(error)))")
        }
    }

    /// The kinds of data a store holds: each opens its component when the store opens. A new
    /// data type is added here, and nowhere else in the store.
    static let componentKinds: [any WebsiteDataComponent.Type] = [
        HTTPCookieStore.self,
        HTTPDiskCache.self, HTTPMemoryCache.self,
        LocalStorage.self, SessionStorage.self, WebSQLStorage.self, ApplicationCacheStorage.self,
        IndexedDBStore.self,
    ]

    /// The component of one kind.
    func component<T: WebsiteDataComponent>(_ kind: T.Type) -> T {
        components.lazy.compactMap { $0 as? T }.first!
    }

    private func components(ofTypes types: Set<WebsiteDataType>) -> [any WebsiteDataComponent] {
        components.filter { types.contains($0.dataType) }
    }

    // MARK: - Records and removal

    /// The sites that have data of the given types, each with its types and sizes, sorted by display name.
    public func dataRecords(ofTypes types: Set<WebsiteDataType>) async throws -> [WebsiteDataRecord] {
        var records: [String: WebsiteDataRecord] = [:]
        for component in components(ofTypes: types) {
            for (site, size) in try component.siteSizes() {
                records[site, default: WebsiteDataRecord(displayName: site, dataTypes: [])].dataTypes.insert(
                    component.dataType)
                records[site]!.sizes[component.dataType, default: 0] += size
            }
        }
        return records.values.sorted { $0.displayName < $1.displayName }
    }

    /// Removes data of the given types modified at or after `date`.
    ///
    /// - Returns: the records of what was removed (display names and types).
    @discardableResult
    public func removeData(ofTypes types: Set<WebsiteDataType>, modifiedSince date: Date) async throws
        -> [WebsiteDataRecord]
    {
        try removeData(ofTypes: types, matching: RemovalFilter(modifiedSince: date), dryRun: false)
    }

    /// Removes all data of the given types for the display names of `records`.
    ///
    /// - Returns: the records of what was removed.
    @discardableResult
    public func removeData(ofTypes types: Set<WebsiteDataType>, for records: [WebsiteDataRecord]) async throws
        -> [WebsiteDataRecord]
    {
        try removeData(ofTypes: types, matching: RemovalFilter(sites: Set(records.map(\.displayName))), dryRun: false)
    }

    /// Removes (or, with `dryRun`, only lists) the data of the given types that `filter` matches.
    ///
    /// - Returns: the records of what was, or would be, removed, sorted by display name.
    @discardableResult
    public func removeData(ofTypes types: Set<WebsiteDataType>, matching filter: RemovalFilter, dryRun: Bool = false)
        throws -> [WebsiteDataRecord]
    {
        // A read-only store lists what would go; it removes nothing, not even from memory.
        if !dryRun { try database.checkWritable() }
        var records: [String: WebsiteDataRecord] = [:]
        // A partition selects partitioned cookies alone: no other type's data is kept by partition.
        for component in components(ofTypes: types) where filter.partitionKey == nil || component.dataType == .cookies {
            for (site, count) in try component.removeData(matching: filter, dryRun: dryRun) {
                records[site, default: WebsiteDataRecord(displayName: site, dataTypes: [])].dataTypes.insert(
                    component.dataType)
                records[site]?.counts[component.dataType] = count
            }
        }
        return records.values.sorted { $0.displayName < $1.displayName }
    }

    /// Ends the store's browsing session in every process sharing the store: session cookies are
    /// removed, and this process's sessionStorage namespaces end.
    ///
    /// - Returns: the session cookies removed.
    @discardableResult
    public func endSession() throws -> [Cookie] {
        try database.checkWritable()
        let cookies: [Cookie] = try httpCookieStore.endSession()
        for component in components where !(component is HTTPCookieStore) { try component.endSession() }
        return cookies
    }

    // MARK: - Settings

    /// The store's settings, with defaults for those not set.
    public func settings() throws -> [StoreSetting: String] {
        let values = try database.read { try SettingsTable.values($0) }
        var result: [StoreSetting: String] = [:]
        for setting in StoreSetting.all { result[setting] = values[setting.key] ?? setting.defaultValue }
        return result
    }

    /// Sets a setting for every process using the store.
    ///
    /// - Throws: `StoreError.invalidSetting` for a value the setting does not take.
    public func set(_ setting: StoreSetting, to value: String) throws {
        try database.checkWritable()
        if let problem = setting.validate(value) { throw StoreError.invalidSetting(key: setting.key, detail: problem) }
        try database.writeSetting(setting, value)
        component(HTTPMemoryCache.self).settingsChanged()
        try httpCookieStore.settingsChanged(try database.read { try SettingsTable.values($0) })
    }

    /// Puts a setting back to its default, for every process using the store.
    ///
    /// - Parameter setting: the setting; one never set stays at its default.
    public func reset(_ setting: StoreSetting) throws {
        try database.writeSetting(setting, nil)
        component(HTTPMemoryCache.self).settingsChanged()
        try httpCookieStore.settingsChanged(try database.read { try SettingsTable.values($0) })
    }
}
