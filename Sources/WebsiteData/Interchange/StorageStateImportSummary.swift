/// What a storage-state import did.
public struct StorageStateImportSummary: Sendable, Hashable, CustomStringConvertible {
    /// The cookies read, imported, skipped as expired and evicted.
    public var cookies = CookieImportSummary()
    /// Origin entries imported (`origins`).
    public var origins = 0
    /// localStorage items read from the file, over every origin (items whose value the store
    /// already held count too: they are in the store as the file says).
    public var localStorageItems = 0
    /// sessionStorage items imported into the namespace, over every origin.
    public var sessionStorageItems = 0
    /// sessionStorage items in the file that were not imported because no namespace was named.
    public var ignoredSessionStorageItems = 0
    /// IndexedDB databases imported (each replaces the origin's database of that name).
    public var indexedDBDatabases = 0
    /// IndexedDB records imported, over every database.
    public var indexedDBRecords = 0
    /// The sessionStorage namespace imported into, when one was named.
    public var sessionStorageNamespace: SessionStorageNamespace?

    /// Creates an empty summary.
    public init() {}

    /// One line: the cookies as `CookieImportSummary` says them, then the origins.
    ///
    /// `read 4 cookies: imported 4; 2 origins: 5 localStorage items, 1 IndexedDB database with 12 records`
    public var description: String {
        var text = cookies.description + "; " + StorageStateCount.text(origins, "origin")
        var parts = StorageStateCount.storageParts(
            localStorage: localStorageItems, sessionStorage: sessionStorageItems,
            databases: indexedDBDatabases, records: indexedDBRecords)
        if ignoredSessionStorageItems > 0 {
            parts.append(
                "left out " + StorageStateCount.text(ignoredSessionStorageItems, "sessionStorage item")
                    + " (name a sessionStorage namespace to import them)")
        }
        if !parts.isEmpty { text += ": " + parts.joined(separator: ", ") }
        return text
    }
}
