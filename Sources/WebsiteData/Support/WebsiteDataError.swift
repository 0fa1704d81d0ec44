/// An error that says what went wrong twice: as a constant a program can compare with (its
/// `reason`) and in words for a person (its `message`).
///
/// The reason is one of the type's static constants (`DatabaseError.Code.busy`,
/// `IDBError.Name.constraint`, `CurlError.couldNotConnect`, …), so that cases can be added
/// without breaking callers. Each type also keeps the name its domain gives the reason (SQLite's
/// `code`, the DOMException `name`, the client's `kind`). `description`, the one line a tool
/// prints, is the message, unless the type's line says more (SQLite's result code, the
/// DOMException name, the SQL).
///
/// ```swift
/// } catch let error as any WebsiteDataError {
///     log("\(error.reason)", error.message)
/// }
/// ```
public protocol WebsiteDataError: Error, Sendable, CustomStringConvertible {
    /// The type of the reason: a struct of static constants, or the integer codes of a C library.
    associatedtype Reason: Hashable, Sendable

    /// What went wrong, as a constant to compare with.
    var reason: Reason { get }

    /// What went wrong, in words, on one line.
    var message: String { get }
}

extension WebsiteDataError {
    /// The message.
    public var description: String { message }
}
