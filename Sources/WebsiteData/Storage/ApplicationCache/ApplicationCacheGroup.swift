import Foundation

/// An application cache group, keyed by its manifest URL: the newest version of an offline web
/// application's resources.
public struct ApplicationCacheGroup: Sendable, Hashable {
    /// The manifest's URL (without a fragment); the group's key.
    public let manifestURL: URL
    /// The origin of the manifest URL, which the group belongs to.
    public let origin: SecurityOrigin
    /// The manifest's bytes, as fetched.
    public let manifest: Data
    /// How many entries the group holds.
    public let entryCount: Int
    /// The bytes the group takes: the manifest's, and each entry's `size` (URL, header names and values, body).
    public let size: Int64
    /// When the group was first stored.
    public let created: Date
    /// When the group was last replaced.
    public let modified: Date

    /// The site (display name) the group is listed and removed under.
    public var site: String { origin.site }
}
