import Foundation

/// What a removal takes: data modified at or after a date, of some sites, or both.
public struct RemovalFilter: Sendable, Hashable {
    /// Remove only data modified at or after this date; `nil` for any date.
    public var modifiedSince: Date?
    /// Remove only data of these display names; `nil` for every site.
    public var sites: Set<String>?
    /// Remove only the `Partitioned` cookies kept for this top-level site (`https://example.com`,
    /// as `Cookie.partitionKey` holds it; `CookieFilter.partitionKey(forTopLevelSite:)` makes
    /// it); `nil` for data of every partition. Only cookies are removed by partition: with a
    /// partition given, the other types remove nothing.
    public var partitionKey: String?

    /// Creates a filter; with no arguments it matches everything.
    public init(modifiedSince: Date? = nil, sites: Set<String>? = nil, partitionKey: String? = nil) {
        self.modifiedSince = modifiedSince
        self.sites = sites
        self.partitionKey = partitionKey
    }

    /// Whether a piece of data of `site`, last modified at `modified`, is taken.
    public func matches(site: String, modified: Date) -> Bool {
        if let modifiedSince, modified < modifiedSince { return false }
        if let sites, !sites.contains(site) { return false }
        return true
    }
}

/// One data type of a store: cookies, the disk cache, localStorage…
///
/// `WebsiteDataStore` lists and removes data by fanning out to its components; a new type
/// plugs in by conforming to this protocol and touches no other type.
protocol WebsiteDataComponent: Sendable {
    /// Opens the component of a store when the store opens.
    static func open(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws -> Self
    /// How the type folds rows it keeps in the change log into its tables; `nil` for a type
    /// that keeps none there.
    static var changeLogFold: (any ChangeLogFold)? { get }
    /// The type this component holds.
    var dataType: WebsiteDataType { get }
    /// Bytes held per display name. Sites with no data are absent.
    func siteSizes() throws -> [String: Int64]
    /// Removes (or, with `dryRun`, only finds) the data the filter matches; returns, per display
    /// name it took data from, how many items it took (cookies, cached responses, storage keys,
    /// databases, application-cache groups: `WebsiteDataType.itemName`).
    func removeData(matching filter: RemovalFilter, dryRun: Bool) throws -> [String: Int]
    /// Ends the store's browsing session for this type (session cookies, sessionStorage namespaces).
    func endSession() throws
}

extension WebsiteDataComponent {
    /// Most types keep nothing per session.
    func endSession() throws {}
    /// Most types keep no rows in the change log.
    static var changeLogFold: (any ChangeLogFold)? { nil }
}

extension HTTPCookieStore: WebsiteDataComponent {
    static func open(database: StoreDatabase, clock: @escaping @Sendable () -> Date) throws -> Self {
        try Self(database: database, clock: clock)
    }

    static var changeLogFold: (any ChangeLogFold)? { CookiePersistence.LogFold() }

    var dataType: WebsiteDataType { .cookies }

    func endSession() throws { _ = try endSession() as [Cookie] }

    func siteSizes() throws -> [String: Int64] {
        var sizes: [String: Int64] = [:]
        for cookie in try allCookies() {
            sizes[cookie.site, default: 0] += Int64(
                cookie.name.utf8.count + cookie.value.utf8.count
                    + cookie.domain.utf8.count + cookie.path.utf8.count)
        }
        return sizes
    }

    func removeData(matching filter: RemovalFilter, dryRun: Bool) throws -> [String: Int] {
        let matches: (Cookie) -> Bool = {
            filter.matches(site: $0.site, modified: $0.modified)
                && (filter.partitionKey == nil || $0.partitionKey == filter.partitionKey)
        }
        let taken =
            dryRun
            ? try allCookies().filter(matches)
            : try remove(cause: .explicit, everySite: filter.sites == nil, where: matches)
        return taken.reduce(into: [:]) { counts, cookie in counts[cookie.site, default: 0] += 1 }
    }
}
