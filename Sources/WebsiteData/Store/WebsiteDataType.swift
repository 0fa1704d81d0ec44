import Foundation

/// A kind of website data a store holds, spelled as WebKit spells it.
///
/// `rawValue` is WebKit's constant (`WKWebsiteDataTypeCookies`, …); `cliName` is the short name
/// the `wkstore` command takes (`cookies`, `diskcache`, …).
public enum WebsiteDataType: String, CaseIterable, Sendable, Hashable, Codable, Comparable {
    /// HTTP cookies.
    case cookies = "WKWebsiteDataTypeCookies"
    /// The HTTP disk cache.
    case diskCache = "WKWebsiteDataTypeDiskCache"
    /// The in-process HTTP memory cache.
    case memoryCache = "WKWebsiteDataTypeMemoryCache"
    /// Offline web application caches (HTML5 application cache).
    case offlineWebApplicationCache = "WKWebsiteDataTypeOfflineWebApplicationCache"
    /// `sessionStorage`.
    case sessionStorage = "WKWebsiteDataTypeSessionStorage"
    /// `localStorage`.
    case localStorage = "WKWebsiteDataTypeLocalStorage"
    /// WebSQL databases.
    case webSQLDatabases = "WKWebsiteDataTypeWebSQLDatabases"
    /// IndexedDB databases.
    case indexedDBDatabases = "WKWebsiteDataTypeIndexedDBDatabases"

    /// Every type, as `WKWebsiteDataStore.allWebsiteDataTypes()` gives.
    public static var all: Set<WebsiteDataType> { Set(allCases) }

    /// The short name used on the command line.
    public var cliName: String {
        switch self {
        case .cookies: "cookies"
        case .diskCache: "diskcache"
        case .memoryCache: "memorycache"
        case .offlineWebApplicationCache: "appcache"
        case .sessionStorage: "sessionstorage"
        case .localStorage: "localstorage"
        case .webSQLDatabases: "websql"
        case .indexedDBDatabases: "indexeddb"
        }
    }

    /// What one item of this type is, as `WebsiteDataRecord.counts` counts them (singular).
    public var itemName: String {
        switch self {
        case .cookies: "cookie"
        case .diskCache, .memoryCache: "cached response"
        case .offlineWebApplicationCache: "application cache"
        case .sessionStorage, .localStorage: "storage key"
        case .webSQLDatabases, .indexedDBDatabases: "database"
        }
    }

    /// Finds a type by its short command-line name or its WebKit name.
    ///
    /// - Parameter name: `cookies`, `diskcache`, … or `WKWebsiteDataTypeCookies`, …; case-insensitive.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let match = Self.allCases.first(where: { $0.cliName == lowered || $0.rawValue.lowercased() == lowered })
        else { return nil }
        self = match
    }

    /// Parses a comma-separated list of type names; `all` names every type.
    ///
    /// - Throws: `WebsiteDataTypeError` naming the unknown word and listing the valid names.
    public static func parseList(_ list: String) throws(WebsiteDataTypeError) -> Set<WebsiteDataType> {
        var result: Set<WebsiteDataType> = []
        for word in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = word.trimmingCharacters(in: .whitespaces)
            if name.lowercased() == "all" {
                result.formUnion(all)
                continue
            }
            guard let type = WebsiteDataType(name: name) else { throw WebsiteDataTypeError(name: name) }
            result.insert(type)
        }
        return result
    }

    /// Orders types as `allCases` lists them.
    public static func < (lhs: WebsiteDataType, rhs: WebsiteDataType) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// An unknown website data type name.
public struct WebsiteDataTypeError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The name that was not recognised.
    public let name: String
    /// The message: the unknown name and the valid ones.
    public var description: String {
        "unknown data type '\(name)'; valid types: all, "
            + WebsiteDataType.allCases.map(\.cliName).joined(separator: ", ")
    }
}

extension Set where Element == WebsiteDataType {
    /// Every website data type: `store.dataRecords(ofTypes: .all)`.
    public static var all: Set<WebsiteDataType> { WebsiteDataType.all }
}
