/// One entry of a storage state's `origins`, as read from the file and not yet checked.
///
/// Each member is `nil` when the entry does not have it (or has `null`).
struct StorageStateOriginEntry {
    /// Its position in `origins`, from 0.
    let index: Int
    /// The line its `{` is on.
    let line: Int
    /// `origin`, as written.
    var origin: String?
    /// `localStorage`, in order.
    var localStorage: [StorageStateItem]?
    /// `sessionStorage` (wkstore's), in order.
    var sessionStorage: [StorageStateItem]?
    /// `indexedDB`: each database as JSON, with the line it starts on.
    var indexedDB: [(json: IDBJSONValue, line: Int)]?

    init(index: Int, line: Int) {
        self.index = index
        self.line = line
    }

    /// `origins[N]`.
    var path: String { "origins[\(index)]" }
}

/// One `{"name": ..., "value": ...}` item of `localStorage` or `sessionStorage`.
struct StorageStateItem {
    /// The key.
    var name: String
    /// The value.
    var value: String
    /// The line its `{` is on.
    var line: Int
}
