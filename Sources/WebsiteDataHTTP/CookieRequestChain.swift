import Foundation
import WebsiteData

/// The cookie contexts of a request and of each hop of its redirect chain (RFC 6265bis 5.2).
///
/// A hop is same-site when every URL of the chain so far is same-site (schemefully) with the
/// hop's URL and, for a request made by a page, that page's site is too. A navigation stays a
/// navigation on every hop, and its top-level site is the hop's own URL (where it lands); a
/// subresource request keeps the page's top-level site on every hop. `HTTPClient` uses this for
/// every request; use it to give another HTTP client the same behaviour.
public struct CookieRequestChain: Sendable {
    /// The page making the request, or `nil` for a top-level request.
    public let topLevelSite: URL?
    /// Whether the request is a navigation.
    public let isNavigation: Bool
    /// The first hop's site, once there is one.
    private var firstSite: SchemefulSite??
    /// Whether every hop so far has `firstSite`'s site: then each hop is same-site with all the
    /// others, without keeping their sites (an array of them was an allocation per request).
    private var hopsShareOneSite = true
    /// The schemeful site of `topLevelSite`, once.
    private let topLevelSchemefulSite: SchemefulSite?
    /// The cache partition of the last hop (its top-level site's), from the sites already
    /// computed for its context: computing it again took 5% of a memory-cache hit.
    package private(set) var partition = ""

    /// Starts a chain.
    ///
    /// - Parameters:
    ///   - topLevelSite: the URL of the page making the request; `nil` for a top-level request.
    ///   - isNavigation: whether the request navigates; by default when `topLevelSite` is `nil`.
    public init(topLevelSite: URL? = nil, isNavigation: Bool? = nil) {
        self.topLevelSite = topLevelSite
        self.isNavigation = isNavigation ?? (topLevelSite == nil)
        topLevelSchemefulSite = topLevelSite.flatMap(SchemefulSite.init)
    }

    /// Adds the next hop (the first request, then each redirect target) and returns its context.
    ///
    /// - Parameters:
    ///   - url: the URL the hop requests.
    ///   - method: the method the hop uses.
    /// - Returns: the context to read the hop's `Cookie` header and store its `Set-Cookie` fields with.
    public mutating func next(_ url: URL, method: String) -> CookieRequestContext {
        next(url, site: SchemefulSite(url), method: method)
    }

    /// `next(_:method:)` for a hop whose site (`SchemefulSite(url)`) is known.
    package mutating func next(_ url: URL, site: SchemefulSite?, method: String) -> CookieRequestContext {
        if let firstSite {
            hopsShareOneSite = hopsShareOneSite && firstSite == site
        } else {
            firstSite = .some(site)
        }
        let chainIsSameSite = hopsShareOneSite
        if isNavigation {
            partition = CacheEntryKey.partition(site)
            let initiatorIsSameSite = topLevelSite == nil || topLevelSchemefulSite == site
            return CookieRequestContext(
                topLevelSite: url, method: method, isNavigation: true,
                isSameSiteChain: chainIsSameSite && initiatorIsSameSite)
        }
        partition = CacheEntryKey.partition(topLevelSite == nil ? site : topLevelSchemefulSite)
        return CookieRequestContext(
            topLevelSite: topLevelSite, method: method, isNavigation: false,
            isSameSiteChain: chainIsSameSite)
    }
}
