/// The website data a store holds for one display name (site): which types, and how many bytes of each.
public struct WebsiteDataRecord: Sendable, Hashable, Codable {
    /// The site the data belongs to, by WebKit's display-name rules (see `Site.displayName(for:)`).
    public let displayName: String
    /// The types of data held for this site.
    public var dataTypes: Set<WebsiteDataType>
    /// Bytes held per type, as stored (WebKit's `dataSize`).
    public var sizes: [WebsiteDataType: Int64]

    /// Creates a record.
    public init(displayName: String, dataTypes: Set<WebsiteDataType>, sizes: [WebsiteDataType: Int64] = [:]) {
        self.displayName = displayName
        self.dataTypes = dataTypes
        self.sizes = sizes
    }

    /// Bytes held across every type.
    public var totalSize: Int64 { sizes.values.reduce(0, +) }
}
