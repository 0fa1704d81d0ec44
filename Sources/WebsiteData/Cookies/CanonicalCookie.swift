import Foundation

/// Turns a parsed `Set-Cookie` into a store cookie against the request that carried it
/// (RFC 6265bis 5.7, steps that need no other cookie; the jar applies the rest).
enum CanonicalCookie {
    /// The result of canonicalising: a cookie to store, or a deletion (an expiry in the past).
    struct Outcome {
        var cookie: Cookie
        /// The expiry was in the past (Max-Age <= 0, or an Expires before now): remove, don't store.
        var deletes: Bool { cookie.expires.map { $0 <= now } ?? false }
        let now: Date
    }

    /// The request URL facts canonicalisation needs, computed once per response.
    ///
    /// The URL itself is not kept: `URL` is a type whose layout only Foundation knows, and every
    /// copy and destruction of a value holding one goes through Foundation's value witnesses,
    /// a tenth of a lookup's instructions. Callers pass the URL beside these facts.
    struct RequestFacts {
        let host: String
        let isSecureOrigin: Bool
        let path: String

        init?(url: URL) {
            if let parts = Site.requestParts(of: url) {
                self.init(host: parts.host, isSecureOrigin: parts.isSecureOrigin, path: parts.path)
            } else {
                self.init(throughFoundation: url)
            }
        }

        /// The facts through `URL`'s own accessors, for URLs `Site.requestParts` does not read.
        init?(throughFoundation url: URL) {
            guard let host = Site.foundationCanonicalHost(of: url) else { return nil }
            self.init(
                host: host, isSecureOrigin: Site.isSecureOrigin(url, host: host), path: url.path(percentEncoded: true))
        }

        private init(host: String, isSecureOrigin: Bool, path: String) {
            self.host = host
            self.isSecureOrigin = isSecureOrigin
            // An empty path (`http://example.com?q`) is "/" for matching (RFC 9110 4.2.3).
            self.path = path.isEmpty ? "/" : path
        }

        /// Calls `body` with these facts' bytes.
        func withBytes<R>(_ body: (RequestBytes) throws -> R) rethrows -> R {
            var host = host
            var path = path
            return try host.withUTF8 { host in
                try path.withUTF8 { path in
                    try body(RequestBytes(host: host, path: path, isSecureOrigin: isSecureOrigin))
                }
            }
        }
    }

    /// What a lookup reads of a request: its canonical host and its path (`/` for an empty one)
    /// as bytes, and whether its origin is secure. Valid only inside the call that hands it out.
    struct RequestBytes {
        let host: UnsafeBufferPointer<UInt8>
        let path: UnsafeBufferPointer<UInt8>
        let isSecureOrigin: Bool

        /// Calls `body` with the bytes of `url`'s request, read in place from the URL's string
        /// where `Site.withRequestBytes` can (no string is made for the host or the path), else
        /// from `RequestFacts`. `nil` when the URL has no host. Always inlined (see
        /// `Site.withRequestBytes`).
        @inline(__always)
        static func with<R>(_ url: URL, _ body: (RequestBytes) throws -> R) rethrows -> R? {
            let quick = try Site.withRequestBytes(of: url) { host, path, secure in
                try path.isEmpty
                    ? withRoot { try body(RequestBytes(host: host, path: $0, isSecureOrigin: secure)) }
                    : body(RequestBytes(host: host, path: path, isSecureOrigin: secure))
            }
            if let quick { return quick }
            guard let facts = RequestFacts(throughFoundation: url) else { return nil }
            return try facts.withBytes(body)
        }

        /// Calls `body` with the bytes of `/`.
        private static func withRoot<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
            let root: StaticString = "/"
            return try body(UnsafeBufferPointer(start: root.utf8Start, count: 1))
        }
    }

    static func make(
        _ parsed: ParsedCookie, request: RequestFacts, url: URL, context: CookieRequestContext,
        api: CookieAPI, now: Date
    ) -> Result<Outcome, CookieRejection> {
        let name = parsed.name
        func refuse(_ reason: CookieRejection.Reason) -> Result<Outcome, CookieRejection> {
            .failure(CookieRejection(reason, name: name))
        }

        // 5.7 step 3–5: expiry from Max-Age, else Expires, capped at 400 days.
        var expires: Date?
        if let maxAge = parsed.maxAge {
            expires =
                maxAge <= 0
                ? Date(timeIntervalSince1970: 0)
                : now.addingTimeInterval(min(TimeInterval(maxAge), CookieRules.maxAgeCap))
        } else if let date = parsed.expires {
            expires = min(date, now.addingTimeInterval(CookieRules.maxAgeCap))
        }

        // Steps 6–8: Domain, public suffixes, host-only.
        var domain = parsed.domain ?? ""
        if !domain.isEmpty {
            // 5.7 step 7: an internationalised Domain is compared in its ASCII form.
            guard let ascii = Site.asciiDomain(domain) else { return refuse(.domainMismatch) }
            domain = ascii
        }
        if domain.hasSuffix(".") && !request.host.hasSuffix(".") {
            // A trailing dot names another host (the absolute form); it cannot match.
            return refuse(.domainMismatch)
        }
        if !domain.isEmpty && Site.isPublicSuffix(domain) {
            if domain == request.host { domain = "" } else { return refuse(.publicSuffixDomain) }
        }
        let hostOnly: Bool
        if domain.isEmpty {
            hostOnly = true
            domain = request.host
        } else {
            guard domainMatches(request.host, domain) else { return refuse(.domainMismatch) }
            hostOnly = false
        }

        // Step 9: path.
        let path = parsed.path ?? defaultPath(request.path)

        // Step 10–11: Secure only from secure origins.
        if parsed.secure && !request.isSecureOrigin { return refuse(.secureFromInsecureOrigin) }
        // Step 12–13: HttpOnly only from HTTP.
        if parsed.httpOnly && api == .nonHTTP { return refuse(.httpOnlyFromScript) }

        // Step 15–17: SameSite.
        if parsed.sameSite == .none && !parsed.secure { return refuse(.sameSite) }
        if parsed.sameSite != .none && !context.isSameSite(url) && !(api == .http && context.isNavigation) {
            // A SameSite (or default) cookie from a cross-site context is refused unless the response
            // is to a top-level navigation (5.7 step 16).
            return refuse(.sameSite)
        }

        // Step 19–20: prefixes, compared case-insensitively (a nameless cookie's value counts as its name).
        let prefixed = name.isEmpty ? parsed.value : name
        if hasPrefix(prefixed, "__secure-") {
            if !parsed.secure { return refuse(.prefix) }
        }
        if hasPrefix(prefixed, "__host-") {
            if !parsed.secure || !hostOnly || parsed.path != "/" { return refuse(.prefix) }
        }
        if name.isEmpty && (hasPrefix(parsed.value, "__secure-") || hasPrefix(parsed.value, "__host-")) {
            return refuse(.prefix)
        }

        // CHIPS: Partitioned needs Secure; it is kept for the top-level site.
        var partitionKey = ""
        if parsed.partitioned {
            guard parsed.secure else { return refuse(.partitioned) }
            partitionKey = (context.topLevelSite.flatMap(SchemefulSite.init) ?? SchemefulSite(url))?.description ?? ""
        }

        let cookie = Cookie(
            name: name, value: parsed.value, domain: domain, path: path, isHostOnly: hostOnly,
            isSecure: parsed.secure, isHTTPOnly: parsed.httpOnly, sameSite: parsed.sameSite,
            partitionKey: partitionKey, expires: expires, created: now, lastAccess: now, modified: now)
        return .success(Outcome(cookie: cookie, now: now))
    }

    /// Validates a cookie given whole (through the API or an import) with the rules a `Set-Cookie`
    /// would meet, as if it were set over HTTPS by its own domain.
    static func validate(_ cookie: Cookie, api: CookieAPI, now: Date) -> Result<Cookie, CookieRejection> {
        var cookie = cookie
        let name = cookie.name
        cookie.domain = cookie.domain.lowercased()
        if cookie.domain.hasPrefix(".") {
            cookie.domain.removeFirst()
            cookie.isHostOnly = false
        }
        guard let ascii = Site.asciiDomain(cookie.domain) else {
            return .failure(CookieRejection(.malformed, name: name))
        }
        cookie.domain = ascii
        if let problem = CookieRules.pairProblem(name: cookie.name, value: cookie.value) {
            return .failure(CookieRejection(.malformed, name: name, detail: problem))
        }
        if cookie.domain.isEmpty || !isHostName(cookie.domain)
            || cookie.name.contains(";") || cookie.name.contains("=") || cookie.value.contains(";")
            || cookie.path.utf8.count > CookieRules.maxAttributeValueBytes
            || cookie.domain.utf8.count > CookieRules.maxAttributeValueBytes
        {
            return .failure(CookieRejection(.malformed, name: name))
        }
        if !cookie.path.hasPrefix("/") { cookie.path = "/" }
        if !cookie.isHostOnly && Site.isPublicSuffix(cookie.domain) {
            return .failure(CookieRejection(.publicSuffixDomain, name: name))
        }
        if cookie.isHTTPOnly && api == .nonHTTP { return .failure(CookieRejection(.httpOnlyFromScript, name: name)) }
        if cookie.sameSite == .none && !cookie.isSecure { return .failure(CookieRejection(.sameSite, name: name)) }
        let prefixed = name.isEmpty ? cookie.value : name
        if hasPrefix(prefixed, "__secure-") && !cookie.isSecure {
            return .failure(CookieRejection(.prefix, name: name))
        }
        if hasPrefix(prefixed, "__host-") && (!cookie.isSecure || !cookie.isHostOnly || cookie.path != "/") {
            return .failure(CookieRejection(.prefix, name: name))
        }
        if name.isEmpty && (hasPrefix(cookie.value, "__secure-") || hasPrefix(cookie.value, "__host-")) {
            return .failure(CookieRejection(.prefix, name: name))
        }
        if !cookie.partitionKey.isEmpty && !cookie.isSecure {
            return .failure(CookieRejection(.partitioned, name: name))
        }
        if let expires = cookie.expires {
            let cap = max(now, cookie.modified).addingTimeInterval(CookieRules.maxAgeCap)
            if expires > cap { cookie.expires = cap }
        }
        return .success(cookie)
    }

    // MARK: - Matching (RFC 6265bis 5.1.3, 5.1.4)

    /// 5.1.3: whether `host` domain-matches `domain`.
    @inline(__always)
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        // Compared as bytes: Foundation's `hasSuffix` goes through NSString and costs microseconds.
        let hostCount = host.utf8.count
        let domainCount = domain.utf8.count
        guard hostCount > domainCount else { return false }
        let h = host.utf8
        return h[h.index(h.startIndex, offsetBy: hostCount - domainCount - 1)] == UInt8(ascii: ".")
            && bytes(of: host, at: hostCount - domainCount, equal: domain) && !Site.isIPAddress(host)
    }

    /// Whether the UTF-8 bytes of `string` from `offset` on start with those of `other` (the
    /// caller has checked that `string` is long enough); `memcmp` when both are contiguous.
    @inline(__always)
    private static func bytes(of string: String, at offset: Int, equal other: String) -> Bool {
        let fast = string.utf8.withContiguousStorageIfAvailable { s in
            other.utf8.withContiguousStorageIfAvailable { o in
                o.isEmpty || memcmp(s.baseAddress! + offset, o.baseAddress!, o.count) == 0
            }
        }
        if let fast = fast ?? nil { return fast }
        let s = string.utf8
        return s[s.index(s.startIndex, offsetBy: offset)...].starts(with: other.utf8)
    }

    /// 5.1.4: the default path of a request path.
    static func defaultPath(_ uriPath: String) -> String {
        guard uriPath.hasPrefix("/"), let last = uriPath.lastIndex(of: "/"), last != uriPath.startIndex else {
            return "/"
        }
        return String(uriPath[..<last])
    }

    /// 5.1.4: whether a request path path-matches a cookie path.
    @inline(__always)
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        let requestCount = requestPath.utf8.count
        let cookieCount = cookiePath.utf8.count
        guard requestCount > cookieCount, bytes(of: requestPath, at: 0, equal: cookiePath) else { return false }
        if cookiePath.utf8.last == UInt8(ascii: "/") { return true }
        let r = requestPath.utf8
        return r[r.index(r.startIndex, offsetBy: cookieCount)] == UInt8(ascii: "/")
    }

    private static func hasPrefix(_ string: String, _ lowerPrefix: String) -> Bool {
        let s = string.utf8
        let p = lowerPrefix.utf8
        guard s.count >= p.count else { return false }
        return zip(s, p).allSatisfy { a, b in (a | 0x20) == b || a == b }
    }

    /// Whether a cookie's domain could be a URL's host: none of the WHATWG URL standard's
    /// forbidden domain code points (controls, space, `#`, `%`, `/`, `<`, `>`, `?`, `@`, `[`,
    /// `\`, `]`, `^`, `|`, DEL), `:` allowed in an IPv6 address only. A cookie given whole (an import,
    /// `setCookie`) is checked as if its domain had set it, so it needs a domain that can.
    private static func isHostName(_ domain: String) -> Bool {
        // `:` only in an IPv6 address: `example.com:8443` (a port, as wget writes) is no host.
        if domain.utf8.contains(UInt8(ascii: ":")) && !ImportedCookieDomain.isIPv6Address(domain) { return false }
        return !domain.utf8.contains { byte in
            byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "%")
                || byte == UInt8(ascii: "/")
                || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "?")
                || byte == UInt8(ascii: "@")
                || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "]")
                || byte == UInt8(ascii: "^")
                || byte == UInt8(ascii: "|")
        }
    }
}
