/// A site's display name with its hash worked out once.
///
/// Dictionaries keyed by it (the cookie jar's sites) hash the stored number, not the name's
/// bytes, and compare names by identity first: names handed out by `Site.displayName(forHost:)`
/// share one string per site, so finding a site reads none of its name (on a large store, the
/// name is a cache miss).
struct SiteKey: Hashable, Sendable {
    /// The display name.
    let name: String
    /// `name.hashValue`.
    let hash: Int

    init(_ name: String) {
        self.name = name
        self.hash = name.hashValue
    }

    static func == (a: SiteKey, b: SiteKey) -> Bool { a.hash == b.hash && a.name == b.name }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}
