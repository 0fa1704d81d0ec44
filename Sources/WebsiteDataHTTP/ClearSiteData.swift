import Foundation
import WebsiteData

/// The `Clear-Site-Data` response header (W3C Clear Site Data): which types of website data a
/// response asks the client to remove for its site.
///
/// The header is a comma-separated list of quoted strings: `"cookies"`, `"cache"`,
/// `"storage"`, `"executionContexts"`, `"*"`. Unquoted or unknown entries are ignored, as the
/// specification says; `"executionContexts"` has nothing to act on here. It is honoured from
/// secure origins only (`https`, and loopback hosts, which count as secure).
public enum ClearSiteData {
    /// The website data types the header values ask to remove.
    ///
    /// `"cookies"` maps to cookies; `"cache"` to the disk and memory caches; `"storage"` to
    /// localStorage, sessionStorage, IndexedDB, WebSQL and the offline application cache;
    /// `"*"` to every type.
    ///
    /// - Parameter values: the values of every `Clear-Site-Data` field of one response.
    /// - Returns: the types to remove; empty when nothing applies.
    public static func dataTypes(forHeaderValues values: [String]) -> Set<WebsiteDataType> {
        var types: Set<WebsiteDataType> = []
        for value in values {
            for item in value.split(separator: ",") {
                switch item.trimmingCharacters(in: .whitespaces) {
                case "\"cookies\"": types.insert(.cookies)
                case "\"cache\"": types.formUnion([.diskCache, .memoryCache])
                case "\"storage\"":
                    types.formUnion([
                        .localStorage, .sessionStorage, .indexedDBDatabases, .webSQLDatabases,
                        .offlineWebApplicationCache,
                    ])
                case "\"*\"": types.formUnion(WebsiteDataType.all)
                default: break
                }
            }
        }
        return types
    }

    /// Applies a response's `Clear-Site-Data` fields to `store`: removes the named types of data
    /// of the response URL's site (display name), when the URL is a secure origin.
    ///
    /// Call it after the response's `Set-Cookie` fields were stored, as Fetch does: cookies the
    /// same response sets for its own site are then removed with the rest.
    ///
    /// - Parameters:
    ///   - headers: the response's header fields.
    ///   - url: the URL of the response.
    ///   - store: the store to clear.
    /// - Returns: the records of what was removed; empty when the header was absent, ignored or named nothing known.
    /// - Throws: a `StoreError` when the store could not commit the removal.
    @discardableResult
    public static func apply(_ headers: [HTTPHeaderField], from url: URL, to store: WebsiteDataStore) throws
        -> [WebsiteDataRecord]
    {
        let values = headers.values(named: "Clear-Site-Data")
        guard !values.isEmpty, Site.isSecureOrigin(url), let site = Site.displayName(for: url) else { return [] }
        let types = dataTypes(forHeaderValues: values)
        guard !types.isEmpty else { return [] }
        return try store.removeData(ofTypes: types, matching: RemovalFilter(sites: [site]))
    }
}
