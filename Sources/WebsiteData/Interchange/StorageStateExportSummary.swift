/// What a storage-state export wrote.
public struct StorageStateExportSummary: Sendable, Hashable, CustomStringConvertible {
    /// Cookies written.
    public var cookies = 0
    /// Origin entries written (`origins`).
    public var origins = 0
    /// localStorage items written, over every origin.
    public var localStorageItems = 0
    /// sessionStorage items written, over every origin (0 when no namespace was named).
    public var sessionStorageItems = 0
    /// IndexedDB databases written (0 unless IndexedDB was asked for).
    public var indexedDBDatabases = 0
    /// IndexedDB records written, over every database.
    public var indexedDBRecords = 0

    /// Creates an empty summary.
    public init() {}

    /// One line: `wrote 3 cookies and 2 origins (5 localStorage items, 1 IndexedDB database with 12 records)`.
    public var description: String {
        var text =
            "wrote " + StorageStateCount.text(cookies, "cookie") + " and " + StorageStateCount.text(origins, "origin")
        let parts = StorageStateCount.storageParts(
            localStorage: localStorageItems, sessionStorage: sessionStorageItems,
            databases: indexedDBDatabases, records: indexedDBRecords)
        if !parts.isEmpty { text += " (" + parts.joined(separator: ", ") + ")" }
        return text
    }
}

/// Counted nouns for summaries.
enum StorageStateCount {
    /// `1 cookie`, `2 cookies`.
    static func text(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// The non-zero storage counts, in words.
    static func storageParts(localStorage: Int, sessionStorage: Int, databases: Int, records: Int) -> [String] {
        var parts: [String] = []
        if localStorage > 0 { parts.append(text(localStorage, "localStorage item")) }
        if sessionStorage > 0 { parts.append(text(sessionStorage, "sessionStorage item")) }
        if databases > 0 { parts.append(text(databases, "IndexedDB database") + " with " + text(records, "record")) }
        return parts
    }
}
