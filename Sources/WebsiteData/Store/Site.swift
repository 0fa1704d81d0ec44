import CPSL
import Foundation

/// Sites and display names, by WebKit's rules, through libpsl's built-in public suffix list.
///
/// A display name is the registrable domain of a host (`www.example.co.uk` → `example.co.uk`).
/// IP addresses and `localhost` keep their host; every `file:` origin shares one name,
/// `Site.localFilesDisplayName`. Unlike WebKit, a host that is itself a public suffix
/// (`github.io`) is its own display name, so data set there can be listed and removed.
public enum Site {
    /// The display name every `file:` URL shares (WebKit's wording).
    public static let localFilesDisplayName = "Local documents on your computer"

    /// The display name for a URL, or `nil` when it has no host and is not a `file:` URL.
    public static func displayName(for url: URL) -> String? {
        if lowercasedScheme(of: url) == "file" { return localFilesDisplayName }
        guard let host = canonicalHost(of: url) else { return nil }
        return displayName(forHost: host)
    }

    /// The display name for a canonical (lower-case, no trailing dot) host name.
    public static func displayName(forHost host: String) -> String {
        if host.isEmpty { return host }
        if let known = displayNames.read({ $0[host] }) { return known }
        let computed = uncachedDisplayName(forHost: host)
        return displayNames.write { cache in
            if cache.count >= displayNameCacheLimit { cache.removeAll(keepingCapacity: true) }
            // One string per site: every host of a site gets the site's own entry's string, so
            // dictionaries keyed by site (the cookie jar) find it by identity, without reading
            // its bytes (on a large store, a cache miss).
            let name: String
            if let shared = cache[computed] {
                name = shared
            } else {
                name = computed
                cache[computed] = computed
            }
            cache[host] = name
            return name
        }
    }

    /// The display name for a canonical host, worked out again (libpsl), without the cache of
    /// display names: for a caller that keeps what it gets by host itself.
    static func uncachedDisplayName(forHost host: String) -> String {
        if host.isEmpty { return host }
        return isIPAddress(host) || host == "localhost" ? host : pslRegistrableDomain(host) ?? host
    }

    /// Display names already worked out, by host. Every cookie written or sent needs its site,
    /// several times; a lookup here costs about a tenth of asking libpsl again (about 0.8 µs).
    /// Emptied when it reaches `displayNameCacheLimit` hosts.
    private static let displayNames = ReadMostlyLocked<[String: String]>([:])
    private static let displayNameCacheLimit = 50_000

    /// The registrable domain (eTLD+1) of a host, or `nil` when the host is a public suffix or an IP.
    public static func registrableDomain(_ host: String) -> String? {
        if isIPAddress(host) { return nil }
        return pslRegistrableDomain(host)
    }

    /// libpsl's registrable domain of a host that is not an IP address.
    private static func pslRegistrableDomain(_ host: String) -> String? {
        host.withCString { pointer -> String? in
            guard let result = psl_registrable_domain(psl_builtin(), pointer) else { return nil }
            return String(cString: result)
        }
    }

    /// Whether `domain` is a public suffix (`com`, `co.uk`, `github.io`), per libpsl's built-in list.
    public static func isPublicSuffix(_ domain: String) -> Bool {
        domain.withCString { psl_is_public_suffix2(psl_builtin(), $0, Int32(PSL_TYPE_ANY)) != 0 }
    }

    /// The host of a URL as cookies and sites use it: lower case, IDN in ASCII form as the URL
    /// holds it, IPv6 without brackets, one trailing dot kept (a trailing-dot host is another host).
    public static func canonicalHost(of url: URL) -> String? {
        withRequestBytes(of: url) { host, _, _ in String(decoding: host, as: UTF8.self) }
            ?? foundationCanonicalHost(of: url)
    }

    /// The URL's scheme in lower case, read from its string's bytes, the common schemes
    /// without making a string: `URL.scheme` makes one, which `lowercased()` copies, and every
    /// request asks for its URL's scheme two or three times.
    package static func lowercasedScheme(of url: URL) -> String? {
        guard url.baseURL == nil else { return url.scheme?.lowercased() }
        var string = url.relativeString
        let known = string.withUTF8 { bytes -> String? in
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let scheme = UnsafeBufferPointer(rebasing: bytes[..<colon])
            return knownSchemes.first { equalsIgnoringASCIICase(scheme, $0.bytes) }?.name
        }
        return known ?? url.scheme?.lowercased()
    }

    /// The schemes `lowercasedScheme(of:)` names without making a string.
    private static let knownSchemes: [(bytes: StaticString, name: String)] = [
        ("http", "http"), ("https", "https"), ("file", "file"), ("ws", "ws"), ("wss", "wss"),
    ]

    /// `canonicalHost(of:)` through `URL`'s own accessors.
    static func foundationCanonicalHost(of url: URL) -> String? {
        // The host as the URL holds it, decoded only when it has escapes (decoding costs more
        // than the rest of a cookie lookup).
        guard var host = url.host(percentEncoded: true), !host.isEmpty else { return nil }
        var facts = byteFacts(host)
        if facts.escaped {
            guard let decoded = url.host(percentEncoded: false), !decoded.isEmpty else { return nil }
            host = decoded
            facts = byteFacts(host)
        }
        if facts.bracketed { host = String(host.dropFirst().dropLast()) }
        // Most hosts are lower case already: no new string then.
        return facts.needsLowering ? host.lowercased() : host
    }

    /// The canonical host (as `canonicalHost(of:)` gives it), the path (as
    /// `path(percentEncoded: true)` gives it) and whether the origin is secure, read in one
    /// pass over the bytes of the URL's string. `nil` unless the URL has no base and its string
    /// is `scheme://authority…` with a host of ASCII bytes and no escapes; callers then ask `URL`.
    ///
    /// Asking `URL` for its host, scheme and path makes a new string from each, a fifth of a
    /// cookie lookup's instructions. The URL's string is the one its parser checked (and
    /// escaped where needed), so its parts are where RFC 3986 puts them: the scheme up to the
    /// first `:`; after `//`, the authority up to the first `/`, `?` or `#`; in it, the host
    /// after the last `@` and before the port's `:` (or up to the `]` of an IP literal); the
    /// path up to the first `?` or `#`.
    static func requestParts(of url: URL) -> (host: String, path: String, isSecureOrigin: Bool)? {
        withRequestBytes(of: url) { host, path, secure in
            (String(decoding: host, as: UTF8.self), String(decoding: path, as: UTF8.self), secure)
        }
    }

    /// `requestParts(of:)` without making strings: `body` gets the host's and the path's bytes
    /// in place in the URL's string (the host lowered first when it has upper-case letters).
    /// `nil`, and `body` not called, when the URL is not read the quick way.
    ///
    /// Always inlined, as `CanonicalCookie.RequestBytes.with` is: called through, the closures
    /// of a lookup copied its context (a `URL` and a string) at each level, through Foundation's
    /// value witnesses, which cost more than the strings this saves.
    @inline(__always)
    static func withRequestBytes<R>(
        of url: URL,
        _ body: (
            _ host: UnsafeBufferPointer<UInt8>, _ path: UnsafeBufferPointer<UInt8>,
            _ isSecureOrigin: Bool
        ) throws -> R
    ) rethrows -> R? {
        guard url.baseURL == nil else { return nil }
        var string = url.relativeString
        return try string.withUTF8 { bytes -> R? in
            let slash = UInt8(ascii: "/")
            let question = UInt8(ascii: "?")
            let hash = UInt8(ascii: "#")
            let n = bytes.count
            var i = 0
            while i < n && bytes[i] != UInt8(ascii: ":") {
                if bytes[i] == slash || bytes[i] == question || bytes[i] == hash { return nil }
                i += 1
            }
            guard i > 0, i + 2 < n, bytes[i + 1] == slash, bytes[i + 2] == slash else { return nil }
            let scheme = UnsafeBufferPointer(rebasing: bytes[..<i])
            let authorityStart = i + 3
            var authorityEnd = authorityStart
            var hostStart = authorityStart
            while authorityEnd < n && bytes[authorityEnd] != slash && bytes[authorityEnd] != question
                && bytes[authorityEnd] != hash
            {
                if bytes[authorityEnd] == UInt8(ascii: "@") { hostStart = authorityEnd + 1 }
                authorityEnd += 1
            }
            guard hostStart < authorityEnd else { return nil }
            var hostEnd = hostStart
            var needsLowering = false
            let bracketed = bytes[hostStart] == UInt8(ascii: "[")
            while hostEnd < authorityEnd {
                let byte = bytes[hostEnd]
                if byte == UInt8(ascii: "%") || byte >= 0x80 { return nil }
                if bracketed {
                    if byte == UInt8(ascii: "]") {
                        hostEnd += 1
                        break
                    }
                } else if byte == UInt8(ascii: ":") {
                    break
                }
                if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { needsLowering = true }
                hostEnd += 1
            }
            if bracketed {
                // An IP literal ends with its `]`, and only a port may follow it.
                guard hostEnd - hostStart > 2, bytes[hostEnd - 1] == UInt8(ascii: "]"),
                    hostEnd == authorityEnd || bytes[hostEnd] == UInt8(ascii: ":")
                else { return nil }
            }
            let host =
                bracketed
                ? UnsafeBufferPointer(rebasing: bytes[(hostStart + 1)..<(hostEnd - 1)])
                : UnsafeBufferPointer(rebasing: bytes[hostStart..<hostEnd])
            guard !host.isEmpty else { return nil }
            var pathEnd = authorityEnd
            while pathEnd < n && bytes[pathEnd] != question && bytes[pathEnd] != hash { pathEnd += 1 }
            let path = UnsafeBufferPointer(rebasing: bytes[authorityEnd..<pathEnd])
            let secureScheme = equalsIgnoringASCIICase(scheme, "https") || equalsIgnoringASCIICase(scheme, "wss")
            guard needsLowering else { return try body(host, path, secureScheme || isLoopback(host)) }
            var lowered = String(unsafeUninitializedCapacity: host.count) { buffer in
                for (k, byte) in host.enumerated() {
                    buffer[k] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                }
                return host.count
            }
            return try lowered.withUTF8 { try body($0, path, secureScheme || isLoopback($0)) }
        }
    }

    /// What one pass over a host's bytes says: it has escapes, it is an IPv6 literal in
    /// brackets, it has upper-case or non-ASCII bytes. (Over the string's own storage: a closure
    /// over `utf8` is not specialised, and stepping its indices costs a tenth of a cookie lookup.)
    private static func byteFacts(_ host: String) -> (escaped: Bool, bracketed: Bool, needsLowering: Bool) {
        var host = host
        return host.withUTF8 { bytes in
            var escaped = false
            var needsLowering = false
            for byte in bytes {
                if byte == UInt8(ascii: "%") { escaped = true }
                if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") || byte >= 0x80 { needsLowering = true }
            }
            let bracketed = bytes.count >= 2 && bytes.first == UInt8(ascii: "[") && bytes.last == UInt8(ascii: "]")
            return (escaped, bracketed, needsLowering)
        }
    }

    /// The ASCII (punycode) form of an internationalised domain name, lower case; ASCII names are
    /// only lowered. `nil` when the name is not a valid host.
    public static func asciiDomain(_ domain: String) -> String? {
        if domain.utf8.allSatisfy({ $0 < 0x80 }) { return domain.lowercased() }
        // Foundation's URL parser applies IDNA (UTS #46) to hosts.
        guard !domain.contains(where: { "/?#@:[]%\\ ".contains($0) }),
            let host = URL(string: "http://\(domain)/")?.host(percentEncoded: false),
            host.utf8.allSatisfy({ $0 < 0x80 })
        else { return nil }
        return host.lowercased()
    }

    /// Whether a host is an IPv4 or IPv6 literal.
    public static func isIPAddress(_ host: String) -> Bool {
        var host = host
        return host.withUTF8(isIPAddress)
    }

    /// `isIPAddress(_:)` on a host's bytes (the string's own storage: stepping `utf8` through
    /// a closure is not specialised, and this runs on every request's secure-origin test).
    static func isIPAddress(_ host: UnsafeBufferPointer<UInt8>) -> Bool {
        // IPv6 literal; DNS names never contain ':'.
        if host.contains(UInt8(ascii: ":")) { return true }
        // Four dot-separated parts of 1 to 3 digits, each at most 255 (one pass, no allocation).
        var parts = 1
        var digits = 0
        var value = 0
        for byte in host {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                parts += 1
                digits = 0
                value = 0
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits += 1
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                guard digits <= 3, value <= 255 else { return false }
            } else {
                return false
            }
        }
        return digits > 0 && parts == 4
    }

    /// Whether a URL is a potentially trustworthy (secure) origin for cookies: `https`/`wss`,
    /// or a loopback host (`localhost`, `*.localhost`, `127.0.0.0/8`, `::1`).
    public static func isSecureOrigin(_ url: URL) -> Bool {
        isSecureOrigin(url, host: canonicalHost(of: url))
    }

    /// `isSecureOrigin(_:)` for a URL whose canonical host is known already.
    static func isSecureOrigin(_ url: URL, host: String?) -> Bool {
        if var scheme = url.scheme,
            scheme.withUTF8({ equalsIgnoringASCIICase($0, "https") || equalsIgnoringASCIICase($0, "wss") })
        {
            return true
        }
        guard let host else { return false }
        return isLoopback(host)
    }

    /// Whether `bytes` spell `lower` (lower-case ASCII) in any case.
    private static func equalsIgnoringASCIICase(_ bytes: UnsafeBufferPointer<UInt8>, _ lower: StaticString) -> Bool {
        guard bytes.count == lower.utf8CodeUnitCount else { return false }
        let expected = lower.utf8Start
        for i in 0..<bytes.count where bytes[i] | 0x20 != expected[i] { return false }
        return true
    }

    /// Whether a host is loopback: `localhost`, a `.localhost` name, `127.0.0.0/8` or `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        var host = host
        // On bytes: `hasSuffix` and `hasPrefix` compare Unicode text, several times slower, and
        // this runs on every plain-http request.
        return host.withUTF8(isLoopback)
    }

    /// `isLoopback(_:)` on a host's bytes.
    static func isLoopback(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Compared with `memcmp`: `elementsEqual` and `starts(with:)` step through both
        // sequences generically.
        guard let base = bytes.baseAddress else { return false }
        let name: StaticString = "localhost"
        let count = name.utf8CodeUnitCount
        if bytes.count >= count && memcmp(base + (bytes.count - count), name.utf8Start, count) == 0
            && (bytes.count == count || bytes[bytes.count - count - 1] == UInt8(ascii: "."))
        {
            return true
        }
        let ipv6: StaticString = "::1"
        let ipv4: StaticString = "127."
        if bytes.count == 3 && memcmp(base, ipv6.utf8Start, 3) == 0 { return true }
        return bytes.count > 4 && memcmp(base, ipv4.utf8Start, 4) == 0 && isIPAddress(bytes)
    }

    /// Checks a site argument given by a user: a display name, never a path.
    ///
    /// - Throws: `StoreError.invalidArgument` for empty names, `/`, `\`, `..` or control characters.
    public static func validateDisplayName(_ name: String) throws(StoreError) {
        if name == localFilesDisplayName { return }
        if name.isEmpty || name.contains("/") || name.contains("\\") || name.contains("..")
            || name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        {
            throw StoreError.invalidArgument("'\(name)' is not a site: give a display name such as example.com")
        }
    }
}

/// A schemeful site, as SameSite compares them: a scheme and a registrable domain (or host).
public struct SchemefulSite: Hashable, Sendable, CustomStringConvertible {
    /// `http` or `https` (`ws`/`wss` are folded into them).
    public let scheme: String
    /// The display name of the host.
    public let site: String

    /// The schemeful site of a URL or origin, or `nil` when the URL has no host.
    public init?(_ url: URL) {
        self.init(url, lowercasedScheme: Site.lowercasedScheme(of: url) ?? "")
    }

    /// `init(_:)` for a URL whose lower-case scheme (`Site.lowercasedScheme(of:)`) is known.
    package init?(_ url: URL, lowercasedScheme: String) {
        var scheme = lowercasedScheme
        let site =
            scheme == "file" ? Site.localFilesDisplayName : Site.canonicalHost(of: url).map(Site.displayName(forHost:))
        guard let site else { return nil }
        if scheme == "wss" { scheme = "https" }
        if scheme == "ws" { scheme = "http" }
        self.scheme = scheme
        self.site = site
    }

    /// Creates a schemeful site from its parts.
    public init(scheme: String, site: String) {
        self.scheme = scheme
        self.site = site
    }

    /// `scheme://site`.
    public var description: String { "\(scheme)://\(site)" }
}
