import Foundation

/// The Netscape `cookies.txt` format that curl, wget, yt-dlp and Python's `MozillaCookieJar`
/// read and write: one cookie per line, seven tab-separated fields.
///
/// ```
/// domain  include-subdomains  path  secure  expires  name  value
/// ```
///
/// How lines are read follows curl's `lib/cookie.c`: a `#HttpOnly_` prefix marks an HttpOnly
/// cookie, other `#` lines and blank lines are comments, the include-subdomains flag (not the
/// leading dot) decides between a domain and a host-only cookie, a six-field line whose third
/// field is `TRUE` or `FALSE` lacks its path (`/` is used), and any other six-field line lacks
/// its value (empty). wget's `host:port` domains are read as the host. Where curl quietly drops
/// a bad line, an import lists it with its number and reason (or, strict, refuses the file).
enum NetscapeCookieFile {
    /// The first line every writer of the format puts first (Python's `MozillaCookieJar` requires it).
    static let magicLine = "# Netscape HTTP Cookie File"

    /// The header written on export.
    static let header = """
        \(magicLine)
        # https://curl.se/docs/http-cookies.html
        # Written by wkstore. Each line: domain, include subdomains, path, secure, expires (Unix
        # seconds, 0 for a session cookie), name, value. #HttpOnly_ before the domain marks HttpOnly.


        """

    /// The prefix curl and Firefox put before the domain of an HttpOnly cookie.
    static let httpOnlyPrefix = Array("#HttpOnly_".utf8)

    // MARK: - Reading

    /// Reads one line.
    ///
    /// - Parameters:
    ///   - line: the line's bytes, without its terminator.
    ///   - number: its 1-based line number, for errors.
    ///   - created: the creation time to give the cookie.
    /// - Returns: the cookie, or `nil` for a comment or blank line.
    /// - Throws: `CookieImportError` naming the line and what is wrong with it.
    static func parse(_ line: ArraySlice<UInt8>, number: Int, created: Date) throws(CookieImportError) -> Cookie? {
        // Raw buffer access: this runs once per line of files of millions of lines.
        try line.withUnsafeBufferPointer { (bytes) throws(CookieImportError) -> Cookie? in
            try parse(bytes, number: number, created: created)
        }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, number: Int, created: Date) throws(CookieImportError)
        -> Cookie?
    {
        let count = bytes.count
        var index = 0
        while index < count && (bytes[index] == 0x20 || bytes[index] == 0x09) { index += 1 }
        if index == count { return nil }

        var start = 0
        var httpOnly = false
        if hasPrefix(bytes, httpOnlyPrefix) {
            httpOnly = true
            start = httpOnlyPrefix.count
        } else if bytes[0] == UInt8(ascii: "#") {
            return nil
        }

        var fields: [Range<Int>] = []
        fields.reserveCapacity(8)
        var fieldStart = start
        for i in start..<count where bytes[i] == 0x09 {
            fields.append(fieldStart..<i)
            fieldStart = i + 1
        }
        fields.append(fieldStart..<count)
        if fields.count == 6 {
            if equals(bytes, fields[2], "TRUE", ignoringCase: false)
                || equals(bytes, fields[2], "FALSE", ignoringCase: false)
            {
                // curl: an old variant without the path field (an empty range stands for "/").
                fields.insert(0..<0, at: 2)
            } else {
                // curl: a cookie with no value field has an empty value.
                fields.append(count..<count)
            }
        }
        guard fields.count == 7 else {
            throw CookieImportError(
                line: number,
                reason:
                    "expected 7 tab-separated fields (domain, include subdomains, path, secure, expires, name, value), found \(fields.count)"
            )
        }

        var domain = try text(bytes, fields[0], field: "domain", line: number)
        // wget writes a non-default port after the host (`127.0.0.1:8080`); cookies have none.
        if domain.utf8.contains(UInt8(ascii: ":")) { domain = ImportedCookieDomain.droppingPort(domain) }
        if domain.hasPrefix(".") { domain.removeFirst() }
        guard !domain.isEmpty else { throw CookieImportError(line: number, reason: "the domain field is empty") }
        let includeSubdomains = try flag(bytes, fields[1], field: "include subdomains (field 2)", line: number)
        let path = fields[2] == 0..<0 ? "/" : try text(bytes, fields[2], field: "path", line: number)
        let secure = try flag(bytes, fields[3], field: "secure (field 4)", line: number)
        let expires = try expiry(bytes, fields[4], line: number)
        let name = try text(bytes, fields[5], field: "name", line: number)
        let value = try text(bytes, fields[6], field: "value", line: number)

        return Cookie(
            name: name, value: value, domain: domain, path: path, isHostOnly: !includeSubdomains,
            isSecure: secure, isHTTPOnly: httpOnly, sameSite: .unspecified, expires: expires, created: created)
    }

    /// A field as text; the file must be UTF-8.
    private static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, field: String, line: Int)
        throws(CookieImportError) -> String
    {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        var ascii = true
        for i in 0..<slice.count where slice[i] >= 0x80 {
            ascii = false
            break
        }
        if ascii { return String(decoding: slice, as: UTF8.self) }
        guard let string = String(bytes: slice, encoding: .utf8) else {
            throw CookieImportError(line: line, reason: "the \(field) field is not UTF-8 text")
        }
        return string
    }

    /// `TRUE` or `FALSE`, in any case (curl compares them case-insensitively; it reads any other
    /// word as `FALSE`, which an import refuses instead).
    private static func flag(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, field: String, line: Int)
        throws(CookieImportError) -> Bool
    {
        if equals(bytes, range, "TRUE", ignoringCase: true) { return true }
        if equals(bytes, range, "FALSE", ignoringCase: true) { return false }
        throw CookieImportError(
            line: line, reason: "the \(field) must be TRUE or FALSE, found '\(excerpt(bytes, range))'")
    }

    /// Unix seconds (a fraction is allowed, as some exporters write one); `0` or an empty field
    /// (Python's `MozillaCookieJar`) is a session cookie.
    private static func expiry(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, line: Int)
        throws(CookieImportError) -> Date?
    {
        if range.isEmpty { return nil }
        var whole: Int64 = 0
        var digits = 0
        var fraction = 0
        var dot = false
        var overflow = false
        for i in range {
            let byte = bytes[i]
            if byte >= 0x30 && byte <= 0x39 {
                if dot {
                    fraction += 1
                } else {
                    digits += 1
                    let (times, o1) = whole.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times.addingReportingOverflow(Int64(byte - 0x30))
                    overflow = overflow || o1 || o2
                    whole = sum
                }
            } else if byte == UInt8(ascii: ".") && !dot {
                dot = true
            } else {
                digits = 0
                break
            }
        }
        guard digits > 0, !dot || fraction > 0 else {
            throw CookieImportError(
                line: line, reason: "the expires field (field 5) must be Unix seconds, found '\(excerpt(bytes, range))'"
            )
        }
        var seconds = Double(whole)
        if dot || overflow {
            guard let parsed = Double(excerpt(bytes, range, limit: range.count)), parsed.isFinite else {
                throw CookieImportError(
                    line: line,
                    reason: "the expires field (field 5) must be Unix seconds, found '\(excerpt(bytes, range))'")
            }
            seconds = parsed
        }
        return seconds == 0 ? nil : Date(timeIntervalSince1970: seconds)
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: [UInt8]) -> Bool {
        guard bytes.count >= prefix.count else { return false }
        for i in 0..<prefix.count where bytes[i] != prefix[i] { return false }
        return true
    }

    private static func equals(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ upperWord: StaticString, ignoringCase: Bool
    ) -> Bool {
        guard range.count == upperWord.utf8CodeUnitCount else { return false }
        let word = upperWord.utf8Start
        for i in 0..<range.count {
            let a = bytes[range.lowerBound + i]
            let b = word[i]
            if a != b && !(ignoringCase && a == b | 0x20) { return false }
        }
        return true
    }

    private static func excerpt(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, limit: Int = 40) -> String {
        String(
            decoding: UnsafeBufferPointer(
                rebasing: bytes[range.lowerBound..<min(range.upperBound, range.lowerBound + limit)]), as: UTF8.self)
    }

    // MARK: - Writing

    /// A cookie's line, or why the format cannot hold the cookie.
    enum Line {
        /// The line, with its newline.
        case text(String)
        /// The format has no way to write this cookie.
        case cannotHold(CookieExportSkip.Reason)
    }

    /// The line for a cookie, with its newline, or why the format cannot hold it.
    static func line(for cookie: Cookie) -> Line {
        if !cookie.partitionKey.isEmpty { return .cannotHold(.partitioned) }
        for field in [cookie.domain, cookie.path, cookie.name, cookie.value]
        where field.utf8.contains(where: { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            return .cannotHold(.unrepresentable)
        }
        if cookie.domain.isEmpty || cookie.domain.hasPrefix("#") || cookie.domain.hasPrefix(".") {
            return .cannotHold(.unrepresentable)
        }
        var expires = "0"
        if let date = cookie.expires {
            // Whole seconds, never 0 (which would make it a session cookie).
            expires = String(max(1, Int64(date.timeIntervalSince1970.rounded(.down))))
        }
        var line = cookie.isHTTPOnly ? "#HttpOnly_" : ""
        line += cookie.isHostOnly ? cookie.domain : "." + cookie.domain
        line += cookie.isHostOnly ? "\tFALSE\t" : "\tTRUE\t"
        line += cookie.path
        line += cookie.isSecure ? "\tTRUE\t" : "\tFALSE\t"
        line += expires
        line += "\t"
        line += cookie.name
        line += "\t"
        line += cookie.value
        line += "\n"
        return .text(line)
    }
}
