/// Why a storage-state import was refused or stopped, naming the entry at fault.
///
/// A file is checked whole before anything is written, so for a bad file nothing is imported.
/// When a later step fails all the same (the store refused a write the check allowed: another
/// process filled the quota meanwhile, the disk is full), `imported` says what was already
/// imported; the rest of the file was not.
public struct StorageStateImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line of the file where the fault was found (for a cookie, the line of its object's
    /// `{`; for an item or database, the line it starts on), when known.
    public let line: Int?
    /// The JSON path of the entry at fault (`cookies[4]`, `origins[3].localStorage[5]`,
    /// `origins[0].indexedDB[1].stores[0].records[7]`), when the fault is in one.
    public let path: String?
    /// What was wrong.
    public let reason: String
    /// What was already imported when the import stopped; empty when nothing was.
    public let imported: [String]

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - line: the line of the file, when known.
    ///   - path: the JSON path of the entry at fault, when there is one.
    ///   - reason: what was wrong, in words a user can act on.
    ///   - imported: what was already imported; empty when nothing was.
    public init(line: Int?, path: String?, reason: String, imported: [String] = []) {
        self.line = line
        self.path = path
        self.reason = reason
        self.imported = imported
    }

    /// `line N, path: reason (nothing was imported)`, or what was imported before the fault.
    public var description: String {
        var place: [String] = []
        if let line { place.append("line \(line)") }
        if let path { place.append(path) }
        var text = place.isEmpty ? reason : place.joined(separator: ", ") + ": " + reason
        if imported.isEmpty {
            text += " (nothing was imported)"
        } else {
            text += " (already imported: " + imported.joined(separator: ", ") + "; the rest of the file was not)"
        }
        return text
    }

    /// The same error, saying what was already imported.
    func having(imported: [String]) -> StorageStateImportError {
        StorageStateImportError(line: line, path: path, reason: reason, imported: imported)
    }
}
