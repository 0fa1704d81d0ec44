import Foundation

/// The sessionStorage of a website data store: per namespace (a top-level browsing context) and
/// origin, string keys and values held in this process's memory only, never written to disk.
///
/// A namespace lives until it is ended, by `endNamespace(_:)` or by `WebsiteDataStore.endSession()`,
/// or until the store object is released. While it lives, its data is listed in the store's
/// records (`.sessionStorage`) and removed by type, date, site and record like any other type.
///
/// A removal made by another process on the same store (`wkstore clear --types sessionstorage`)
/// is recorded in the store's database (with a change-log entry) and applied here on the next
/// call, as cookies are.
/// Each origin in each namespace may hold up to the store's quota (`localstorage.quota`),
/// counted as for localStorage. All methods are thread-safe.
public final class SessionStorage: Sendable {
    let database: StoreDatabase
    let clock: @Sendable () -> Date
    private let state: Locked<State>

    struct Item {
        var value: String
        var modified: Date
        /// The order the key was first set in (keys are listed in it).
        var order: UInt64
    }

    struct Area {
        var items: [String: Item] = [:]
        var usage: Int64 = 0
    }

    struct State {
        var namespaces: [SessionStorageNamespace: [SecurityOrigin: Area]] = [:]
        var nextOrder: UInt64 = 0
        var lastSeq: Int64 = 0
        /// What the shared change counter said when the change log was last read.
        var watch = StoreDatabase.ChangeWatch()
        /// The newest row of `session_storage_clears` applied (or made) here.
        var lastClear: Int64 = 0
    }

    /// Identifies this object's rows in `session_storage_clears`: it has applied its own clears.
    private let writer = UUID().uuidString.lowercased()

    /// Clears kept in `session_storage_clears` for processes that were idle.
    static let keptClears: Int64 = 10_000

    init(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws {
        self.database = database
        self.clock = clock
        var state = State()
        state.lastSeq = try database.newestSequence()
        state.lastClear = try database.read {
            try $0.scalar("SELECT coalesce(max(seq), 0) FROM session_storage_clears")?.int64 ?? 0
        }
        self.state = Locked(state)
    }

    // MARK: - Namespaces

    /// Makes a new, empty namespace, as opening a top-level browsing context does.
    ///
    /// - Returns: the namespace.
    public func makeNamespace() -> SessionStorageNamespace {
        let namespace = SessionStorageNamespace()
        state.withLock { $0.namespaces[namespace] = [:] }
        return namespace
    }

    /// Makes a new namespace holding a copy of another's data, as `window.open` does for the
    /// browsing context it opens. Later changes to either do not show in the other.
    ///
    /// - Parameter namespace: the namespace to copy.
    /// - Returns: the new namespace.
    /// - Throws: `SessionStorageError` when `namespace` has ended.
    public func cloneNamespace(_ namespace: SessionStorageNamespace) throws -> SessionStorageNamespace {
        let clone = SessionStorageNamespace()
        try state.withLock { s in
            try refresh(&s)
            guard let areas = s.namespaces[namespace] else { throw SessionStorageError(namespace: namespace) }
            s.namespaces[clone] = areas
        }
        return clone
    }

    /// Ends a namespace, as closing its browsing context does: its data is gone.
    ///
    /// - Parameter namespace: the namespace; ending one that has ended does nothing.
    public func endNamespace(_ namespace: SessionStorageNamespace) {
        _ = state.withLock { $0.namespaces.removeValue(forKey: namespace) }
    }

    /// Ends every namespace of this store object (this process's browsing session).
    public func endAllNamespaces() {
        state.withLock { $0.namespaces.removeAll() }
    }

    /// The namespaces that have not ended, sorted by identifier.
    public var namespaces: [SessionStorageNamespace] {
        state.withLock { $0.namespaces.keys.sorted { $0.id.uuidString < $1.id.uuidString } }
    }

    /// The namespace with an identifier, made (empty) when this store object has none (a
    /// storage-state import into a named namespace).
    ///
    /// - Parameter id: the identifier.
    /// - Returns: the namespace, and whether this call made it.
    func namespace(id: UUID) -> (namespace: SessionStorageNamespace, created: Bool) {
        let namespace = SessionStorageNamespace(id: id)
        let created = state.withLock { s in
            guard s.namespaces[namespace] == nil else { return false }
            s.namespaces[namespace] = [:]
            return true
        }
        return (namespace, created)
    }

    /// Sets several items of an origin in a namespace at once, in order, as a `setItem` call for
    /// each would; all or nothing (a storage-state import).
    ///
    /// - Parameters:
    ///   - items: keys and values, in the order to set them (a repeated key: the last value wins).
    ///   - origin: the origin whose storage to write.
    ///   - namespace: the browsing context's namespace.
    /// - Returns: how many items were new or changed.
    /// - Throws: `StorageQuotaError` when the origin would hold more than its quota in this
    ///   namespace; `SessionStorageError` when the namespace has ended; `StoreError.database` when
    ///   the store's settings cannot be read. Nothing is changed then.
    @discardableResult
    func setItems(_ items: [(key: String, value: String)], origin: SecurityOrigin, namespace: SessionStorageNamespace)
        throws -> Int
    {
        guard !items.isEmpty else { return 0 }
        let quota = try readQuota()
        let now = clock()
        return try state.withLock { s in
            try refresh(&s)
            guard s.namespaces[namespace] != nil else { throw SessionStorageError(namespace: namespace) }
            var area = s.namespaces[namespace]![origin] ?? Area()
            var nextOrder = s.nextOrder
            var changed = 0
            for (key, value) in items {
                let old = area.items[key]
                if old?.value == value { continue }
                let size = StorageItem.size(key: key, value: value)
                let replaced = old.map { StorageItem.size(key: key, value: $0.value) } ?? 0
                let required = try StorageQuota.usage(
                    storing: size, replacing: replaced, in: area.usage, quota: quota, origin: origin)
                var order = old?.order ?? 0
                if old == nil {
                    order = nextOrder
                    nextOrder += 1
                }
                area.items[key] = Item(value: value, modified: now, order: order)
                area.usage = required
                changed += 1
            }
            // Only now, when every item fitted, does the namespace change.
            s.nextOrder = nextOrder
            if changed > 0 { s.namespaces[namespace]![origin] = area }
            return changed
        }
    }

    // MARK: - Reading

    /// The value stored under a key, as `sessionStorage.getItem(key)`.
    ///
    /// - Parameters:
    ///   - key: the key.
    ///   - origin: the origin whose storage to read.
    ///   - namespace: the browsing context's namespace.
    /// - Returns: the value, or `nil` when the key is not set or the namespace has ended.
    /// - Throws: `StoreError.database` when the change log cannot be read.
    public func getItem(_ key: String, origin: SecurityOrigin, namespace: SessionStorageNamespace) throws -> String? {
        try withArea(origin, namespace) { $0?.items[key]?.value }
    }

    /// The keys of an origin in a namespace, in the order they were first set.
    ///
    /// - Parameters:
    ///   - origin: the origin whose storage to read.
    ///   - namespace: the browsing context's namespace.
    /// - Returns: the keys; empty when there are none or the namespace has ended.
    /// - Throws: `StoreError.database` when the change log cannot be read.
    public func keys(origin: SecurityOrigin, namespace: SessionStorageNamespace) throws -> [String] {
        try items(origin: origin, namespace: namespace).map(\.key)
    }

    /// The key at a position, as `sessionStorage.key(index)`.
    ///
    /// - Parameters:
    ///   - index: the position, from 0, in the order keys were first set.
    ///   - origin: the origin whose storage to read.
    ///   - namespace: the browsing context's namespace.
    /// - Returns: the key, or `nil` when `index` is out of range.
    /// - Throws: `StoreError.database` when the change log cannot be read.
    public func key(at index: Int, origin: SecurityOrigin, namespace: SessionStorageNamespace) throws -> String? {
        let keys = try keys(origin: origin, namespace: namespace)
        return keys.indices.contains(index) ? keys[index] : nil
    }

    /// The number of items of an origin in a namespace, as `sessionStorage.length`.
    ///
    /// - Parameters:
    ///   - origin: the origin whose storage to read.
    ///   - namespace: the browsing context's namespace.
    /// - Returns: how many keys are set.
    /// - Throws: `StoreError.database` when the change log cannot be read.
    public func length(origin: SecurityOrigin, namespace: SessionStorageNamespace) throws -> Int {
        try withArea(origin, namespace) { $0?.items.count ?? 0 }
    }

    /// Every item of an origin in a namespace, with its modification time, in the order first set.
    ///
    /// - Parameters:
    ///   - origin: the origin whose storage to read.
    ///   - namespace: the browsing context's namespace.
    /// - Returns: the items.
    /// - Throws: `StoreError.database` when the change log cannot be read.
    public func items(origin: SecurityOrigin, namespace: SessionStorageNamespace) throws -> [StorageItem] {
        try withArea(origin, namespace) { area in
            (area?.items ?? [:]).sorted { $0.value.order < $1.value.order }
                .map { StorageItem(key: $0.key, value: $0.value.value, modified: $0.value.modified) }
        }
    }

    /// The origins holding data in a namespace, sorted by serialization.
    ///
    /// - Parameter namespace: the browsing context's namespace.
    /// - Returns: the origins.
    /// - Throws: `StoreError.database` when the change log cannot be read.
    public func origins(namespace: SessionStorageNamespace) throws -> [SecurityOrigin] {
        try state.withLock { s in
            try refresh(&s)
            return (s.namespaces[namespace] ?? [:]).filter { !$0.value.items.isEmpty }.keys.sorted()
        }
    }

    // MARK: - Writing

    /// Stores a value under a key, as `sessionStorage.setItem(key, value)`.
    ///
    /// Setting the value a key already holds changes nothing, its modification time included.
    ///
    /// - Parameters:
    ///   - key: the key.
    ///   - value: the value.
    ///   - origin: the origin whose storage to write.
    ///   - namespace: the browsing context's namespace.
    /// - Throws: `StorageQuotaError` when the origin would hold more than its quota in this
    ///   namespace (nothing is changed then); `SessionStorageError` when the namespace has ended;
    ///   `StoreError.database` when the store's settings cannot be read.
    public func setItem(_ key: String, _ value: String, origin: SecurityOrigin, namespace: SessionStorageNamespace)
        throws
    {
        let quota = try readQuota()
        let now = clock()
        try state.withLock { s in
            try refresh(&s)
            guard s.namespaces[namespace] != nil else { throw SessionStorageError(namespace: namespace) }
            var area = s.namespaces[namespace]![origin] ?? Area()
            let old = area.items[key]
            if old?.value == value { return }
            let size = StorageItem.size(key: key, value: value)
            let replaced = old.map { StorageItem.size(key: key, value: $0.value) } ?? 0
            let required = try StorageQuota.usage(
                storing: size, replacing: replaced, in: area.usage, quota: quota, origin: origin)
            var order = old?.order ?? 0
            if old == nil {
                order = s.nextOrder
                s.nextOrder += 1
            }
            area.items[key] = Item(value: value, modified: now, order: order)
            area.usage = required
            s.namespaces[namespace]![origin] = area
        }
    }

    /// Removes a key, as `sessionStorage.removeItem(key)`.
    ///
    /// - Parameters:
    ///   - key: the key; removing a key that is not set does nothing.
    ///   - origin: the origin whose storage to write.
    ///   - namespace: the browsing context's namespace.
    /// - Throws: `SessionStorageError` when the namespace has ended; `StoreError.database` when
    ///   the change log cannot be read.
    public func removeItem(_ key: String, origin: SecurityOrigin, namespace: SessionStorageNamespace) throws {
        try state.withLock { s in
            try refresh(&s)
            guard s.namespaces[namespace] != nil else { throw SessionStorageError(namespace: namespace) }
            guard var area = s.namespaces[namespace]![origin], let old = area.items.removeValue(forKey: key) else {
                return
            }
            area.usage -= StorageItem.size(key: key, value: old.value)
            s.namespaces[namespace]![origin] = area.items.isEmpty ? nil : area
        }
    }

    /// Removes every item of an origin in a namespace, as `sessionStorage.clear()`.
    ///
    /// - Parameters:
    ///   - origin: the origin whose storage to empty.
    ///   - namespace: the browsing context's namespace.
    /// - Throws: `SessionStorageError` when the namespace has ended; `StoreError.database` when
    ///   the change log cannot be read.
    public func clear(origin: SecurityOrigin, namespace: SessionStorageNamespace) throws {
        try state.withLock { s in
            try refresh(&s)
            guard s.namespaces[namespace] != nil else { throw SessionStorageError(namespace: namespace) }
            s.namespaces[namespace]![origin] = nil
        }
    }

    // MARK: - Internals

    private func withArea<T>(_ origin: SecurityOrigin, _ namespace: SessionStorageNamespace, _ body: (Area?) -> T)
        throws -> T
    {
        try state.withLock { s in
            try refresh(&s)
            return body(s.namespaces[namespace]?[origin])
        }
    }

    private func readQuota() throws -> Int64 {
        do { return try database.read { try StorageQuota.bytes($0) } } catch { throw StorageRemoval.storeError(error) }
    }

    /// Applies removals other store objects (here or in other processes) made since the last call.
    ///
    /// The change log says when something changed; the clears themselves are read from
    /// `session_storage_clears`, which keeps them even when the change log was trimmed past
    /// this object's position (`changes.everything`).
    private func refresh(_ s: inout State) throws {
        do {
            guard let changes = try database.foreignChanges(since: s.lastSeq, watch: &s.watch) else { return }
            // The position moves on once the clears it announced are applied: a failed read
            // leaves the next call to read them again.
            guard
                changes.everything
                    || changes.entries.contains(where: { $0.isAbout(.sessionStorage) })
            else {
                s.lastSeq = changes.newestSeq
                return
            }
            let clears = try database.read { db in
                try db.rows(
                    "SELECT seq, writer, site, since FROM session_storage_clears WHERE seq > ? ORDER BY seq",
                    [.integer(s.lastClear)]
                ) { ($0.int(0), $0.string(1), $0.string(2), $0.optionalDouble(3)) }
            }
            for (seq, writer, site, since) in clears {
                s.lastClear = seq
                guard writer != self.writer else { continue }
                Self.remove(
                    &s,
                    matching: RemovalFilter(
                        modifiedSince: since.map { Date(timeIntervalSince1970: $0) },
                        sites: site == "*" ? nil : [site]))
            }
            s.lastSeq = changes.newestSeq
        } catch {
            throw StorageRemoval.storeError(error)
        }
    }

    /// Removes the items the filter matches from every namespace; returns the sites they were of.
    @discardableResult
    /// Removes (or, with `dryRun`, only counts) the items `filter` matches; returns how many per display name.
    private static func remove(_ s: inout State, matching filter: RemovalFilter, dryRun: Bool = false) -> [String: Int]
    {
        var counts: [String: Int] = [:]
        for (namespace, areas) in s.namespaces {
            for (origin, area) in areas {
                let site = origin.site
                if let allowed = filter.sites, !allowed.contains(site) { continue }
                let removed = area.items.filter { filter.matches(site: site, modified: $0.value.modified) }
                guard !removed.isEmpty else { continue }
                counts[site, default: 0] += removed.count
                if dryRun { continue }
                var kept = area
                for (key, item) in removed {
                    kept.items[key] = nil
                    kept.usage -= StorageItem.size(key: key, value: item.value)
                }
                s.namespaces[namespace]![origin] = kept.items.isEmpty ? nil : kept
            }
        }
        return counts
    }
}

extension SessionStorage: WebsiteDataComponent {
    static func open(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws -> Self {
        try Self(database: database, clock: clock)
    }

    var dataType: WebsiteDataType { .sessionStorage }

    func siteSizes() throws -> [String: Int64] {
        try state.withLock { s in
            try refresh(&s)
            var sizes: [String: Int64] = [:]
            for areas in s.namespaces.values {
                for (origin, area) in areas where !area.items.isEmpty { sizes[origin.site, default: 0] += area.usage }
            }
            return sizes
        }
    }

    /// Removes from this object's namespaces, and records the removal in the store (a row of
    /// `session_storage_clears` and change-log entries) so that other store objects, in this
    /// process or others, remove the same on their next call.
    func removeData(matching filter: RemovalFilter, dryRun: Bool) throws -> [String: Int] {
        if filter.sites?.isEmpty == true { return [:] }
        let sites = try state.withLock { s in
            try refresh(&s)
            return Self.remove(&s, matching: filter, dryRun: dryRun)
        }
        if !dryRun {
            let changes = StorageRemoval.changes(.sessionStorage, filter)
            let writer = self.writer
            let now = clock().timeIntervalSince1970
            do {
                try database.write(changes: changes) { db in
                    for change in changes {
                        try db.execute(
                            "INSERT INTO session_storage_clears (writer, site, since, modified) VALUES (?, ?, ?, ?)",
                            [.text(writer), .text(change.site), change.since.map { .real($0) } ?? .null, .real(now)])
                    }
                    try db.execute(
                        "DELETE FROM session_storage_clears WHERE seq <= (SELECT max(seq) FROM session_storage_clears) - ?",
                        [.integer(Self.keptClears)])
                }
            } catch {
                throw StorageRemoval.storeError(error)
            }
        }
        return sites
    }

    func endSession() throws {
        endAllNamespaces()
    }
}
