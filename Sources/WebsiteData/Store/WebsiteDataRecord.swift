/// The website data a store holds for one display name (site): which types, and how many bytes of each.
public struct WebsiteDataRecord: Sendable, Hashable, Codable {
    /// The site the data belongs to, by WebKit's display-name rules (see `Site.displayName(for:)`).
    public let displayName: String
    /// The types of data held for this site.
    public var dataTypes: Set<WebsiteDataType>
    /// Bytes held per type, as stored (WebKit's `dataSize`).
    public var sizes: [WebsiteDataType: Int64]
    /// Items per type (`WebsiteDataType.itemName`: cookies, cached responses, storage keys,
    /// databases, application caches) in the records `removeData` returns: what was, or with a
    /// dry run would be, removed. Empty in the records `dataRecords` lists.
    public var counts: [WebsiteDataType: Int]

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - displayName: the site.
    ///   - dataTypes: the types of data held for it.
    ///   - sizes: bytes held per type.
    ///   - counts: items per type, for a record of a removal.
    public init(
        displayName: String, dataTypes: Set<WebsiteDataType>, sizes: [WebsiteDataType: Int64] = [:],
        counts: [WebsiteDataType: Int] = [:]
    ) {
        self.displayName = displayName
        self.dataTypes = dataTypes
        self.sizes = sizes
        self.counts = counts
    }

    /// Bytes held across every type.
    public var totalSize: Int64 { sizes.values.reduce(0, +) }
}
