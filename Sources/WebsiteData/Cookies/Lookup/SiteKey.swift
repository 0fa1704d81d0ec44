/// A site's display name with its hash worked out once.
///
/// Dictionaries keyed by it (the cookie jar's sites) hash the stored number, not the name's
/// bytes, and compare names only on a hash match; names handed out by
/// `Site.displayName(forHost:)` share one string per site, which `==` on strings finds by
/// identity, so finding a site reads none of its name (on a large store, the name is a cache miss).
typealias SiteKey = HashedKey<String>

extension HashedKey where Key == String {
    /// The display name.
    var name: String { key }
}
