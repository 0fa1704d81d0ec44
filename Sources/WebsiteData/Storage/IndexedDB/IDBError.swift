/// An IndexedDB error: one of the spec's `DOMException` names, and a message.
///
/// The name says what went wrong in the terms of the IndexedDB specification, so callers
/// can catch one kind: `catch let error as IDBError where error.name == .constraint`.
/// Errors that abort a transaction (`ConstraintError` from a write, `AbortError`) leave
/// nothing of it behind.
public struct IDBError: WebsiteDataError, Hashable {
    /// The name of an IndexedDB error, as the specification spells it.
    public struct Name: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The name (`ConstraintError`).
        public let rawValue: String
        /// Creates a name.
        ///
        /// - Parameter rawValue: the name as the specification spells it.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        public var description: String { rawValue }

        /// A write broke a constraint: `add` of an existing key, a unique index holding the
        /// key already, a store or index name in use, or a key generator past 2^53. Aborts the transaction.
        public static let constraint = Name(rawValue: "ConstraintError")
        /// A key, key range or key path value is not valid (NaN, a value with no key where one is needed…).
        public static let data = Name(rawValue: "DataError")
        /// A value cannot be stored (nested too deeply, or an invalid date in a key).
        public static let dataClone = Name(rawValue: "DataCloneError")
        /// The database is at a higher version than the one asked for.
        public static let version = Name(rawValue: "VersionError")
        /// No object store, index or database has that name.
        public static let notFound = Name(rawValue: "NotFoundError")
        /// The operation is not allowed now: a schema change outside an upgrade, a transaction
        /// started inside another, a database changed by another connection.
        public static let invalidState = Name(rawValue: "InvalidStateError")
        /// The arguments cannot work together (an array key path with `autoIncrement` or `multiEntry`…).
        public static let invalidAccess = Name(rawValue: "InvalidAccessError")
        /// A write in a read-only transaction.
        public static let readOnly = Name(rawValue: "ReadOnlyError")
        /// The transaction is over (aborted, or used after its closure returned).
        public static let transactionInactive = Name(rawValue: "TransactionInactiveError")
        /// The transaction was aborted by `abort()`.
        public static let abort = Name(rawValue: "AbortError")
        /// A key path is not a valid key path.
        public static let syntax = Name(rawValue: "SyntaxError")
        /// An argument has the wrong type or range (a version of 0).
        public static let type = Name(rawValue: "TypeError")
        /// The stored data could not be read (damaged bytes in the store file).
        public static let unknown = Name(rawValue: "UnknownError")
    }

    /// What kind of error it is.
    public let name: Name
    /// What went wrong, in words.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - name: the kind of error.
    ///   - message: what went wrong.
    public init(_ name: Name, _ message: String) {
        self.name = name
        self.message = message
    }

    /// The DOMException name: `reason` is `name`.
    public var reason: Name { name }

    /// `Name: message`.
    public var description: String { "\(name.rawValue): \(message)" }
}
