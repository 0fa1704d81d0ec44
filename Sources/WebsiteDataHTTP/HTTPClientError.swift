import Foundation
import WebsiteData

/// A request that failed for a reason of HTTP, not of libcurl: too many redirects, a redirect
/// to somewhere the client will not go, a URL it cannot request, a body file it cannot write,
/// a response that `only-if-cached` did not find in the cache.
///
/// Compare `kind` with the static constants; `message` is one line for a user.
public struct HTTPClientError: WebsiteDataError, Equatable {
    /// What went wrong, as a stable identifier.
    public struct Kind: RawRepresentable, Sendable, Hashable {
        /// The identifier.
        public let rawValue: String
        /// Creates a kind from its identifier.
        ///
        /// - Parameter rawValue: the identifier.
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    /// What went wrong.
    public let kind: Kind
    /// One line describing it.
    public let message: String
    /// The URL concerned.
    public let url: URL?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - kind: what went wrong.
    ///   - message: one line describing it.
    ///   - url: the URL concerned, if any.
    public init(_ kind: Kind, _ message: String, url: URL? = nil) {
        self.kind = kind
        self.message = message
        self.url = url
    }

    /// What went wrong: `reason` is `kind`.
    public var reason: Kind { kind }
}

extension HTTPClientError.Kind {
    /// More redirects than the limit allows.
    public static let tooManyRedirects = Self(rawValue: "too-many-redirects")
    /// A redirect whose `Location` is not a URL, or not an `http`/`https` one.
    public static let invalidRedirect = Self(rawValue: "invalid-redirect")
    /// A request URL that is not an absolute `http`/`https` URL, or a header that cannot be sent.
    public static let invalidRequest = Self(rawValue: "invalid-request")
    /// The body file could not be created or written.
    public static let cannotWriteBody = Self(rawValue: "cannot-write-body")
    /// A request in the `.onlyIfCached` cache mode found no stored response (Fetch's network error;
    /// the network was not asked).
    public static let notCached = Self(rawValue: "not-cached")
}
