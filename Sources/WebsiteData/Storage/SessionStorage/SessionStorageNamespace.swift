import Foundation

/// A sessionStorage namespace: what one top-level browsing context (a tab, a window) shares.
///
/// Pages of one origin in one namespace see the same sessionStorage; the same origin in another
/// namespace sees other storage. Make one with `SessionStorage.makeNamespace()`, copy one as
/// `window.open` does with `SessionStorage.cloneNamespace(_:)`, and end it with
/// `SessionStorage.endNamespace(_:)` when the browsing context closes.
public struct SessionStorageNamespace: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The namespace's identifier, unique in the process.
    public let id: UUID

    init(id: UUID = UUID()) {
        self.id = id
    }

    /// The identifier, in lower case.
    public var description: String { id.uuidString.lowercased() }
}

/// A sessionStorage call named a namespace that has ended (or was never made by this store).
///
/// Reads of an ended namespace find nothing; writes throw this error, as a closed browsing
/// context can no longer write.
public struct SessionStorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The namespace named.
    public let namespace: SessionStorageNamespace

    /// Creates the error.
    ///
    /// - Parameter namespace: the namespace that has ended.
    public init(namespace: SessionStorageNamespace) {
        self.namespace = namespace
    }

    /// One line naming the namespace.
    public var description: String {
        "the sessionStorage namespace \(namespace) has ended (or was not made by this store)"
    }
}
