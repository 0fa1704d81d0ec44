import Foundation
import WebsiteData

/// The floor for lookups: the same cookies in a plain dictionary from site to `[Cookie]`,
/// matched by domain, path, Secure and expiry and ordered as a `Cookie` header wants them.
///
/// It computes the site and extracts host and path exactly as the engine does
/// (`Site.canonicalHost(of:)`, `url.path(percentEncoded: true)`, `Site.isSecureOrigin`,
/// `Site.displayName(forHost:)`), so the difference from the engine is the engine alone:
/// its lock, its cross-process coherence check, SameSite and partition rules, access times.
///
/// The domain and path matching below is the floor's own, on purpose, not a copy to replace
/// with the engine's: the bench checks that engine and floor send the same cookies for every
/// URL, which proves nothing if both match through the same function. It is written to cost
/// what the engine's matching costs (bytes compared, no Foundation string calls), so the
/// comparison stays fair; the library keeps its matcher internal.
struct DictionaryFloor {
    private(set) var sites: [String: [Cookie]] = [:]

    init(_ cookies: [Cookie]) {
        for cookie in cookies { add(cookie) }
    }

    mutating func add(_ cookie: Cookie) {
        sites[Site.displayName(forHost: cookie.domain), default: []].append(cookie)
    }

    var count: Int { sites.values.reduce(0) { $0 + $1.count } }

    func cookieHeader(for url: URL) -> String? {
        guard let host = Site.canonicalHost(of: url) else { return nil }
        guard let bucket = sites[Site.displayName(forHost: host)] else { return nil }
        let path = url.path(percentEncoded: true)
        let secure = Site.isSecureOrigin(url)
        let now = Date()
        return bucket.withUnsafeBufferPointer { cookies -> String? in
            var matched: [Int] = []
            for i in cookies.indices {
                if cookies[i].isHostOnly ? cookies[i].domain != host : !Self.domainMatches(host, cookies[i].domain) {
                    continue
                }
                if !Self.pathMatches(path, cookies[i].path) { continue }
                if cookies[i].isSecure && !secure { continue }
                if let expires = cookies[i].expires, expires <= now { continue }
                matched.append(i)
            }
            guard !matched.isEmpty else { return nil }
            matched.sort { a, b in
                let pa = cookies[a].path.utf8.count
                let pb = cookies[b].path.utf8.count
                return pa != pb ? pa > pb : cookies[a].created < cookies[b].created
            }
            var header = ""
            header.reserveCapacity(
                matched.reduce(0) { $0 + cookies[$1].name.utf8.count + cookies[$1].value.utf8.count + 3 })
            for (n, i) in matched.enumerated() {
                if n > 0 { header += "; " }
                if !cookies[i].name.isEmpty {
                    header += cookies[i].name
                    header += "="
                }
                header += cookies[i].value
            }
            return header
        }
    }

    /// RFC 6265bis 5.1.3, comparing bytes as the engine does.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        let hostCount = host.utf8.count
        let domainCount = domain.utf8.count
        guard hostCount > domainCount else { return false }
        let h = host.utf8
        return h[h.index(h.startIndex, offsetBy: hostCount - domainCount - 1)] == UInt8(ascii: ".")
            && bytes(of: host, at: hostCount - domainCount, equal: domain) && !Site.isIPAddress(host)
    }

    /// RFC 6265bis 5.1.4.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        let requestCount = requestPath.utf8.count
        let cookieCount = cookiePath.utf8.count
        guard requestCount > cookieCount, bytes(of: requestPath, at: 0, equal: cookiePath) else { return false }
        if cookiePath.utf8.last == UInt8(ascii: "/") { return true }
        let r = requestPath.utf8
        return r[r.index(r.startIndex, offsetBy: cookieCount)] == UInt8(ascii: "/")
    }

    @inline(__always)
    static func bytes(of string: String, at offset: Int, equal other: String) -> Bool {
        let fast = string.utf8.withContiguousStorageIfAvailable { s in
            other.utf8.withContiguousStorageIfAvailable { o in
                o.isEmpty || memcmp(s.baseAddress! + offset, o.baseAddress!, o.count) == 0
            }
        }
        if let fast = fast ?? nil { return fast }
        let s = string.utf8
        return s[s.index(s.startIndex, offsetBy: offset)...].starts(with: other.utf8)
    }
}
