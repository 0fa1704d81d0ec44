import Foundation

/// What a store knows about one WebSQL-style database, as listed by `WebSQLStorage.databases(origin:)`.
public struct WebSQLDatabaseInfo: Sendable, Hashable {
    /// The origin the database belongs to.
    public let origin: SecurityOrigin
    /// The database's name, as given to `openDatabase`.
    public let name: String
    /// The display name given when it was created.
    public let displayName: String
    /// The version string (empty when none was set).
    public let version: String
    /// The size in bytes the page estimated when it created the database.
    public let estimatedSize: Int64
    /// The bytes the database takes: its file (and write-ahead log) on disk, its pages in memory,
    /// or its image in a PostgreSQL store's catalog row.
    public let size: Int64
    /// When it was created.
    public let created: Date
    /// When a write transaction last committed to it.
    public let modified: Date

    /// The site (display name) it is listed and removed under.
    public var site: String { origin.site }
}
