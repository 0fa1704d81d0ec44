import Foundation

/// A cookie as the store holds it: validated against the URL that set it (RFC 6265bis 5.7).
public struct Cookie: Sendable, Hashable, Codable {
    /// The name; empty for a nameless cookie (`Set-Cookie: value`).
    public var name: String
    /// The value.
    public var value: String
    /// The domain, lower case, without a leading dot. For a host-only cookie, the host that set it.
    public var domain: String
    /// The path.
    public var path: String
    /// Whether the cookie is sent only to `domain` itself, not to its subdomains.
    public var isHostOnly: Bool
    /// Whether the cookie is sent only over secure connections.
    public var isSecure: Bool
    /// Whether the cookie is hidden from page script.
    public var isHTTPOnly: Bool
    /// The SameSite attribute.
    public var sameSite: CookieSameSite
    /// For a `Partitioned` cookie, the top-level site (`https://example.com`) it is kept for; empty otherwise.
    public var partitionKey: String
    /// When the cookie expires; `nil` for a session cookie.
    public var expires: Date?
    /// When the cookie was first created; kept when it is overwritten (RFC 6265bis 5.7 step 23).
    public var created: Date
    /// When the cookie was last sent or read.
    public var lastAccess: Date
    /// When the cookie was last written (created, overwritten, imported).
    public var modified: Date

    /// Creates a cookie. Use `HTTPCookieStore.setCookie(_:)` to store one: it applies the same rules as `Set-Cookie`.
    public init(
        name: String, value: String, domain: String, path: String = "/", isHostOnly: Bool = true,
        isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: CookieSameSite = .unspecified,
        partitionKey: String = "", expires: Date? = nil, created: Date = Date(),
        lastAccess: Date? = nil, modified: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.isHostOnly = isHostOnly
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.partitionKey = partitionKey
        self.expires = expires
        self.created = created
        self.lastAccess = lastAccess ?? created
        self.modified = modified ?? created
    }

    /// Whether the cookie lasts only until the store's session ends.
    public var isSession: Bool { expires == nil }

    /// The identity of a cookie in a store: two cookies with the same key replace each other.
    public var key: CookieKey {
        CookieKey(name: name, domain: domain, isHostOnly: isHostOnly, path: path, partitionKey: partitionKey)
    }

    /// Whether `other` has this cookie's key (byte for byte), compared in place: building the
    /// two keys to compare them copies four strings each.
    func hasSameKey(as other: Cookie) -> Bool {
        isHostOnly == other.isHostOnly && name.sameBytes(as: other.name) && domain.sameBytes(as: other.domain)
            && path.sameBytes(as: other.path) && partitionKey.sameBytes(as: other.partitionKey)
    }

    /// The site (display name) the cookie belongs to.
    public var site: String { Site.displayName(forHost: domain) }

    /// Whether the cookie has expired at `date`.
    public func isExpired(at date: Date) -> Bool {
        if let expires { return expires <= date }
        return false
    }

    /// `name=value`, or just `value` for a nameless cookie, as a `Cookie` header carries it.
    public var pair: String { name.isEmpty ? value : name + "=" + value }
}

/// What makes two cookies the same cookie: name, domain, host-only flag, path and partition.
///
/// Compared byte for byte (UTF-8), as browsers and the store's database compare them, not as
/// Swift compares strings: `"é"` and `"e\u{301}"`, or `"\u{37E}"` (Greek question mark) and
/// `";"`, are equal Swift strings but different cookie names.
public struct CookieKey: Sendable, Hashable, Codable {
    /// The cookie name.
    public var name: String
    /// The cookie domain.
    public var domain: String
    /// Whether the cookie is host-only.
    public var isHostOnly: Bool
    /// The cookie path.
    public var path: String
    /// The partition (top-level site) of a Partitioned cookie; empty otherwise.
    public var partitionKey: String

    /// Creates a key.
    public init(name: String, domain: String, isHostOnly: Bool, path: String, partitionKey: String = "") {
        self.name = name
        self.domain = domain
        self.isHostOnly = isHostOnly
        self.path = path
        self.partitionKey = partitionKey
    }

    /// Byte-for-byte equality of every part.
    public static func == (a: CookieKey, b: CookieKey) -> Bool {
        a.isHostOnly == b.isHostOnly && a.name.sameBytes(as: b.name) && a.domain.sameBytes(as: b.domain)
            && a.path.sameBytes(as: b.path) && a.partitionKey.sameBytes(as: b.partitionKey)
    }

    /// Hashes the parts' bytes, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(isHostOnly)
        for part in [name, domain, path, partitionKey] {
            hasher.combine(part.utf8.count)
            var part = part
            part.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }
}

extension String {
    /// Byte-for-byte (UTF-8) equality, as cookie rules compare names, not Swift's canonical equivalence.
    func sameBytes(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let contiguous = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
            }
        }
        return (contiguous ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}
