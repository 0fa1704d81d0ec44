import Foundation

/// Which cookies a listing or a deletion selects, as Playwright's `clearCookies` options: each
/// field is optional, and a cookie is selected when it matches every field given. An empty
/// filter selects every cookie.
public struct CookieFilter: Sendable, Hashable {
    /// The cookie's name, exactly.
    public var name: String?
    /// The cookie's domain, with or without a leading dot, in any case: host-only and domain
    /// cookies of it match.
    public var domain: String?
    /// Whether `domain` also selects the cookies of its subdomains (`example.com` then selects
    /// those of `www.example.com`).
    public var includesSubdomains: Bool
    /// The cookie's path, exactly.
    public var path: String?
    /// The partition: `""` for cookies that are not partitioned, or the top-level site a
    /// `Partitioned` cookie is kept for (`https://example.com`, as `Cookie.partitionKey` holds
    /// it); `nil` for cookies of every partition.
    public var partitionKey: String?

    /// Creates a filter; with no arguments it selects every cookie.
    ///
    /// - Parameters:
    ///   - name: the cookie name.
    ///   - domain: the cookie domain.
    ///   - includesSubdomains: whether `domain` selects its subdomains' cookies too.
    ///   - path: the cookie path.
    ///   - partitionKey: the partition (see `partitionKey`).
    public init(
        name: String? = nil, domain: String? = nil, includesSubdomains: Bool = false, path: String? = nil,
        partitionKey: String? = nil
    ) {
        self.name = name
        self.domain = domain
        self.includesSubdomains = includesSubdomains
        self.path = path
        self.partitionKey = partitionKey
    }

    /// Whether the filter selects `cookie`.
    public func matches(_ cookie: Cookie) -> Bool {
        if let name, cookie.name != name { return false }
        if let path, cookie.path != path { return false }
        if let partitionKey, cookie.partitionKey != partitionKey { return false }
        if let domain {
            var wanted = domain.lowercased()
            if wanted.hasPrefix(".") { wanted.removeFirst() }
            if cookie.domain != wanted && !(includesSubdomains && cookie.domain.hasSuffix("." + wanted)) {
                return false
            }
        }
        return true
    }

    /// The partition key of the cookies a page of `topLevelSite` partitions: its schemeful site
    /// (`https://www.example.com/a` gives `https://example.com`). A text without a scheme is
    /// read as an `https` site.
    ///
    /// - Parameter topLevelSite: a URL, a schemeful site, or a host.
    /// - Returns: the key, or `nil` when the text names no host.
    public static func partitionKey(forTopLevelSite topLevelSite: String) -> String? {
        let text = topLevelSite.contains("://") ? topLevelSite : "https://" + topLevelSite
        guard let url = URL(string: text) else { return nil }
        return SchemefulSite(url)?.description
    }
}

extension HTTPCookieStore {
    /// The cookies `filter` selects, in the order `allCookies()` lists them; expired ones are
    /// left out. Last-access times do not move.
    public func cookies(matching filter: CookieFilter) throws -> [Cookie] {
        try allCookies().filter(filter.matches)
    }

    /// Deletes the cookies `filter` selects (Playwright's `clearCookies`), in every process
    /// sharing the store, or with `dryRun` only lists them.
    ///
    /// - Parameters:
    ///   - filter: which cookies; an empty filter deletes every cookie.
    ///   - dryRun: list what would be deleted and delete nothing.
    /// - Returns: the cookies deleted (or that would be).
    /// - Throws: `StoreError.readOnly` for a store opened read-only (unless `dryRun`), or the
    ///   database's error.
    @discardableResult
    public func deleteCookies(matching filter: CookieFilter, dryRun: Bool = false) throws -> [Cookie] {
        if dryRun { return try cookies(matching: filter) }
        let everySite = filter.domain == nil || filter.includesSubdomains
        return try remove(cause: .explicit, everySite: everySite, where: filter.matches)
    }

    /// The cookies whose domain and path match one of `urls`, as Playwright's
    /// `context.cookies(urls)` returns them: a `Secure` cookie only for a secure URL (`https`,
    /// `wss`, or a loopback host), HttpOnly cookies included, SameSite and partitions not
    /// applied (a cookie of every partition is listed). Reading moves no last-access time. With
    /// no URLs, every cookie. For the cookies a request sends, in header order, use
    /// `cookies(for:context:api:)`.
    ///
    /// - Parameter urls: the URLs; one without a host matches nothing.
    /// - Returns: the cookies, each once, in the order `allCookies()` lists them.
    public func cookies(for urls: [URL]) throws -> [Cookie] {
        let all = try allCookies()
        guard !urls.isEmpty else { return all }
        let requests = urls.compactMap(CanonicalCookie.RequestFacts.init(url:))
        return all.filter { cookie in
            requests.contains { request in
                let domainMatches =
                    cookie.isHostOnly
                    ? request.host == cookie.domain : CanonicalCookie.domainMatches(request.host, cookie.domain)
                return domainMatches && CanonicalCookie.pathMatches(request.path, cookie.path)
                    && (!cookie.isSecure || request.isSecureOrigin)
            }
        }
    }
}
