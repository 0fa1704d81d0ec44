import Foundation
import WebsiteData

/// How cookies, records and types read in text and in JSON.
///
/// Cookie JSON uses Playwright's field names (`name`, `value`, `domain`, `path`, `expires`,
/// `httpOnly`, `secure`, `sameSite`), so the output can feed a Playwright `storageState`, and adds
/// `sameSiteSpecified`, `hostOnly`, `partitionKey`, `created`, `lastAccess` and `modified`.
enum DataFormat {
    /// Short names of the types, in `WebsiteDataType.allCases` order.
    static func typeNames(_ types: Set<WebsiteDataType>) -> [String] {
        types.sorted().map(\.cliName)
    }

    /// Playwright's `sameSite`: `Strict`, `Lax` or `None`; an unspecified attribute is enforced as Lax.
    static func playwrightSameSite(_ sameSite: CookieSameSite) -> String {
        switch sameSite {
        case .strict: "Strict"
        case .none: "None"
        case .lax, .unspecified: "Lax"
        }
    }

    /// The domain as Playwright writes it: with a leading dot for a domain cookie, bare for a host-only one.
    static func playwrightDomain(_ cookie: Cookie) -> String {
        cookie.isHostOnly ? cookie.domain : "." + cookie.domain
    }

    /// A cookie as a JSON object.
    static func json(_ cookie: Cookie) -> JSONValue {
        .object([
            ("name", .string(cookie.name)),
            ("value", .string(cookie.value)),
            ("domain", .string(playwrightDomain(cookie))),
            ("path", .string(cookie.path)),
            ("expires", cookie.expires.map { .number($0.timeIntervalSince1970) } ?? .int(-1)),
            ("httpOnly", .bool(cookie.isHTTPOnly)),
            ("secure", .bool(cookie.isSecure)),
            ("sameSite", .string(playwrightSameSite(cookie.sameSite))),
            ("sameSiteSpecified", .bool(cookie.sameSite != .unspecified)),
            ("hostOnly", .bool(cookie.isHostOnly)),
            ("partitionKey", cookie.partitionKey.isEmpty ? .null : .string(cookie.partitionKey)),
            ("created", .date(cookie.created)),
            ("lastAccess", .date(cookie.lastAccess)),
            ("modified", .date(cookie.modified)),
        ])
    }

    /// Cookies as text, one per line: domain, path, `name=value`, expiry, attributes.
    static func lines(_ cookies: [Cookie]) -> [String] {
        Format.table(
            cookies.map { cookie in
                var flags: [String] = []
                if cookie.isSecure { flags.append("Secure") }
                if cookie.isHTTPOnly { flags.append("HttpOnly") }
                if cookie.sameSite != .unspecified { flags.append("SameSite=" + playwrightSameSite(cookie.sameSite)) }
                if !cookie.partitionKey.isEmpty { flags.append("Partitioned(\(cookie.partitionKey))") }
                return [
                    playwrightDomain(cookie), cookie.path, cut(cookie.pair),
                    cookie.expires.map(Format.iso8601Seconds) ?? "session", flags.joined(separator: " "),
                ]
            })
    }

    /// The longest `name=value` the text table shows whole; `--json` always has the whole value.
    static let pairWidth = 64

    /// `pair`, cut to `pairWidth` characters with the size of the whole: one 4 KB value would
    /// otherwise push every other column of the table off the screen.
    static func cut(_ pair: String) -> String {
        guard pair.count > pairWidth else { return pair }
        return String(pair.prefix(pairWidth - 1)) + "… (\(pair.utf8.count) bytes)"
    }

    /// A record as a JSON object; with sizes per type when asked.
    static func json(_ record: WebsiteDataRecord, sizes: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("displayName", .string(record.displayName)),
            ("types", .array(typeNames(record.dataTypes).map(JSONValue.string))),
        ]
        if sizes {
            members.append(("sizes", .object(record.sizes.keys.sorted().map { ($0.cliName, .int(record.sizes[$0]!)) })))
            members.append(("totalSize", .int(record.totalSize)))
        }
        if !record.counts.isEmpty {
            members.append(
                ("counts", .object(record.counts.keys.sorted().map { ($0.cliName, .int(Int64(record.counts[$0]!))) })))
        }
        return .object(members)
    }

    /// Records as text, one per line: display name and types.
    static func lines(_ records: [WebsiteDataRecord]) -> [String] {
        Format.table(records.map { [$0.displayName, typeNames($0.dataTypes).joined(separator: ", ")] })
    }
}
