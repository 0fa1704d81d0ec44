import Foundation

/// Why a store could not be opened or used.
///
/// Each case names what was wrong in terms a user can act on; `description` is one line.
public enum StoreError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The store was written by a newer wkstore whose schema this binary does not know; it was not changed.
    case newerSchema(path: String, found: Int, supported: Int)
    /// The file is not a wkstore store (not SQLite, damaged, or another program's database); it was not changed.
    case notAStore(detail: String)
    /// A store file is damaged or not a database; it was not changed.
    case corrupt(path: String, detail: String)
    /// The store directory or file cannot be created or opened.
    case cannotOpen(path: String, detail: String)
    /// No store has this identifier.
    case noSuchStore(identifier: UUID)
    /// A store identifier, site or path argument was refused (for example `../x` or a NUL byte).
    case invalidArgument(String)
    /// A value given for a setting is not acceptable.
    case invalidSetting(key: String, detail: String)
    /// A database operation failed.
    case database(DatabaseError)
    /// The store was opened read-only (`WebsiteDataStore.Configuration.readOnly`) and the call
    /// would change it; it was refused before anything was changed.
    case readOnly(path: String)
    /// A read-only open found a store of an older schema than this binary's; it is not upgraded
    /// without writing, so it was not read. A writable open upgrades it.
    case olderSchema(path: String, found: Int, supported: Int)
    /// `removeDataStore(forIdentifier:force:)` found the store open (in this process, another
    /// one, or on another machine of a PostgreSQL fleet) and removed nothing; `force: true`
    /// removes it anyway.
    case storeInUse(identifier: UUID)
    /// The store this object was opened on was removed (`removeDataStore(forIdentifier:force: true)`,
    /// `wkstore stores remove --force`) by this or another process; open a store again.
    case storeRemoved(path: String)

    /// A one-line message.
    public var description: String {
        switch self {
        case .newerSchema(let path, let found, let supported):
            return
                "the store at \(path) has schema version \(found), newer than this wkstore supports (\(supported)); upgrade wkstore to use it (the store was not changed)"
        case .notAStore(let detail):
            return "not a wkstore store: \(detail) (nothing was changed)"
        case .corrupt(let path, let detail):
            return "the store file \(path) is damaged or not a database: \(detail) (it was not changed)"
        case .cannotOpen(let path, let detail):
            return "cannot open the store at \(path): \(detail)"
        case .noSuchStore(let identifier):
            return "no store has the identifier \(identifier.uuidString)"
        case .invalidArgument(let detail):
            return detail
        case .invalidSetting(let key, let detail):
            return "invalid value for \(key): \(detail)"
        case .database(let error):
            return error.description
        case .readOnly(let path):
            return
                "the store at \(path) is open read-only: this would change it, so it was refused (nothing was changed)"
        case .storeInUse(let identifier):
            return
                "the store \(identifier.uuidString.lowercased()) is open in a process (this one or another): close it there first, or force the removal (nothing was removed)"
        case .storeRemoved(let path):
            return "the store at \(path) was removed while this process had it open: open a store again"
        case .olderSchema(let path, let found, let supported):
            return
                "the store at \(path) has schema version \(found), older than this wkstore's (\(supported)); a read-only open does not upgrade it: open it writable once to upgrade it (the store was not changed)"
        }
    }
}
