import Foundation

/// The syntactic content of one `Set-Cookie` header field value.
///
/// This is the output of the parsing algorithm of RFC 6265bis section 5.6
/// ("The Set-Cookie Header Field") and its attribute subsections: name,
/// value and the *last* occurrence of each recognised attribute, already
/// reduced to the form the storage model consumes. It carries no policy:
/// domain matching, public-suffix checks, cookie prefixes, the 400-day
/// expiry cap and default-path computation all happen later, in the
/// storage model, against the request URL.
package struct ParsedCookie: Sendable, Equatable {
    /// The cookie name, with surrounding spaces and tabs removed.
    ///
    /// Empty for a nameless cookie (a name-value pair without `=`).
    package var name: String

    /// The cookie value, with surrounding spaces and tabs removed.
    ///
    /// Double quotes are part of the value and kept as written.
    package var value: String

    /// The expiry from the last `Expires` attribute that parsed as a
    /// cookie-date.
    ///
    /// Unparseable `Expires` attributes are ignored, so an earlier valid
    /// one survives them. `nil` when there is none.
    package var expires: Date?

    /// The delta-seconds of the last valid `Max-Age` attribute.
    ///
    /// Zero or negative means "expire now"; the sign is kept for the
    /// caller. Values beyond the range of `Int64` are clamped to
    /// `Int64.max` / `-Int64.max`. `nil` when there is no valid `Max-Age`.
    package var maxAge: Int64?

    /// The value of the last `Domain` attribute.
    ///
    /// One leading `.` is removed and ASCII letters are lower-cased.
    /// `""` when that attribute's value was empty (the storage model then
    /// treats the cookie as host-only), `nil` when there was no `Domain`
    /// attribute at all.
    package var domain: String?

    /// The value of the last `Path` attribute, if it is usable.
    ///
    /// `nil` when the attribute is absent, or when the last one is empty or
    /// does not start with `/`; the storage model then uses the default
    /// path of the request URL.
    package var path: String?

    /// Whether a `Secure` attribute was present.
    ///
    /// Any attribute value is ignored.
    package var secure: Bool

    /// Whether an `HttpOnly` attribute was present.
    ///
    /// Any attribute value is ignored.
    package var httpOnly: Bool

    /// The enforcement named by the last `SameSite` attribute.
    ///
    /// `Strict`, `Lax` and `None` are matched case-insensitively; any other
    /// value, and the absence of the attribute, give `.unspecified`
    /// (the specification's "Default").
    package var sameSite: CookieSameSite

    /// Whether a `Partitioned` attribute was present.
    ///
    /// Any attribute value is ignored.
    package var partitioned: Bool

    /// Parses one `Set-Cookie` header field value.
    ///
    /// Implements RFC 6265bis section 5.6: the string is refused when it
    /// contains a control character other than HTAB, when the name and
    /// value are both empty, or when together they exceed 4096 octets.
    /// Attributes are split on `;`, matched case-insensitively, and an
    /// attribute whose value exceeds 1024 octets is skipped. Unknown
    /// attributes are ignored.
    ///
    /// - Parameters:
    ///   - header: The field value, without the `Set-Cookie:` name.
    /// - Returns: The parsed cookie, or `nil` when the whole `Set-Cookie`
    ///   must be ignored.
    package static func parse(_ header: String) -> ParsedCookie? {
        if let result = header.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0) }) {
            return result
        }
        var copy = header
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0) }) ?? nil
    }

    /// Parses one `Set-Cookie` header field value given as raw bytes.
    ///
    /// Behaves exactly like ``parse(_:)``; useful when the caller already
    /// holds the header bytes. Bytes that are not valid UTF-8 are replaced
    /// by U+FFFD in the resulting strings.
    ///
    /// - Parameters:
    ///   - bytes: The field value octets.
    /// - Returns: The parsed cookie, or `nil` when the whole `Set-Cookie`
    ///   must be ignored.
    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> ParsedCookie? {
        let count = bytes.count

        // Step 1: refuse CTLs other than HTAB; remember the first ";".
        var firstSemicolon = count
        var index = 0
        while index < count {
            let byte = bytes[index]
            if byte < 0x20 {
                if byte != 0x09 { return nil }
            } else if byte == 0x7F {
                return nil
            } else if byte == 0x3B && firstSemicolon == count {
                firstSemicolon = index
            }
            index += 1
        }

        // Steps 2–4: split the name-value pair and trim it.
        var nameStart = 0
        var nameEnd = 0
        var valueStart = 0
        let valueEnd = firstSemicolon
        if let equals = firstIndex(of: 0x3D, in: bytes, from: 0, to: firstSemicolon) {
            nameEnd = equals
            valueStart = equals + 1
        }
        trim(bytes, start: &nameStart, end: &nameEnd)
        var trimmedValueEnd = valueEnd
        trim(bytes, start: &valueStart, end: &trimmedValueEnd)

        let nameLength = nameEnd - nameStart
        let valueLength = trimmedValueEnd - valueStart
        if nameLength == 0 && valueLength == 0 { return nil }
        if nameLength + valueLength > CookieRules.maxNameValueBytes { return nil }

        var cookie = ParsedCookie(
            name: string(bytes, nameStart, nameEnd),
            value: string(bytes, valueStart, trimmedValueEnd),
            expires: nil,
            maxAge: nil,
            domain: nil,
            path: nil,
            secure: false,
            httpOnly: false,
            sameSite: .unspecified,
            partitioned: false
        )

        // Attribute loop.
        var position = firstSemicolon
        while position < count {
            let avStart = position + 1 // skip the ";"
            let avEnd = firstIndex(of: 0x3B, in: bytes, from: avStart, to: count) ?? count
            position = avEnd

            var attrNameStart = avStart
            var attrNameEnd = avEnd
            var attrValueStart = avEnd
            var attrValueEnd = avEnd
            if let equals = firstIndex(of: 0x3D, in: bytes, from: avStart, to: avEnd) {
                attrNameEnd = equals
                attrValueStart = equals + 1
            }
            trim(bytes, start: &attrNameStart, end: &attrNameEnd)
            trim(bytes, start: &attrValueStart, end: &attrValueEnd)
            if attrValueEnd - attrValueStart > CookieRules.maxAttributeValueBytes { continue }

            let attrName = UnsafeBufferPointer(rebasing: bytes[attrNameStart..<attrNameEnd])
            let attrValue = UnsafeBufferPointer(rebasing: bytes[attrValueStart..<attrValueEnd])
            switch AttributeName(attrName) {
            case .expires:
                if let date = CookieDate.parse(bytes: attrValue) {
                    cookie.expires = date
                }
            case .maxAge:
                if let delta = parseMaxAge(attrValue) {
                    cookie.maxAge = delta
                }
            case .domain:
                cookie.domain = domainValue(attrValue)
            case .path:
                if let first = attrValue.first, first == UInt8(ascii: "/") {
                    cookie.path = String(decoding: attrValue, as: UTF8.self)
                } else {
                    cookie.path = nil
                }
            case .secure:
                cookie.secure = true
            case .httpOnly:
                cookie.httpOnly = true
            case .sameSite:
                cookie.sameSite = sameSiteValue(attrValue)
            case .partitioned:
                cookie.partitioned = true
            case .unknown:
                break
            }
        }
        return cookie
    }

    // MARK: - Attribute names

    /// The attribute names the parser recognises.
    ///
    /// Matching is ASCII case-insensitive on the trimmed attribute name.
    private enum AttributeName {
        /// `Expires`.
        case expires
        /// `Max-Age`.
        case maxAge
        /// `Domain`.
        case domain
        /// `Path`.
        case path
        /// `Secure`.
        case secure
        /// `HttpOnly`.
        case httpOnly
        /// `SameSite`.
        case sameSite
        /// `Partitioned`.
        case partitioned
        /// Anything else; ignored.
        case unknown

        /// Classifies a trimmed attribute name.
        ///
        /// Dispatches on the length first so that at most two comparisons
        /// are made.
        ///
        /// - Parameters:
        ///   - name: The attribute-name octets.
        init(_ name: UnsafeBufferPointer<UInt8>) {
            switch name.count {
            case 4:
                self = equalsLowercase(name, "path") ? .path : .unknown
            case 6:
                if equalsLowercase(name, "domain") {
                    self = .domain
                } else if equalsLowercase(name, "secure") {
                    self = .secure
                } else {
                    self = .unknown
                }
            case 7:
                if equalsLowercase(name, "expires") {
                    self = .expires
                } else if equalsLowercase(name, "max-age") {
                    self = .maxAge
                } else {
                    self = .unknown
                }
            case 8:
                if equalsLowercase(name, "httponly") {
                    self = .httpOnly
                } else if equalsLowercase(name, "samesite") {
                    self = .sameSite
                } else {
                    self = .unknown
                }
            case 11:
                self = equalsLowercase(name, "partitioned") ? .partitioned : .unknown
            default:
                self = .unknown
            }
        }
    }

    // MARK: - Attribute values

    /// Parses a `Max-Age` attribute value (RFC 6265bis section 5.6.2).
    ///
    /// The first character must be a digit or `-` and the rest digits; a
    /// lone `-` carries no number and is rejected. Values too large for
    /// `Int64` saturate instead of overflowing.
    ///
    /// - Parameters:
    ///   - value: The trimmed attribute-value octets.
    /// - Returns: The delta-seconds, or `nil` when the attribute must be
    ///   ignored.
    private static func parseMaxAge(_ value: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let first = value.first else { return nil }
        let negative = first == UInt8(ascii: "-")
        var index = negative ? 1 : 0
        guard index < value.count else { return nil }
        var magnitude: Int64 = 0
        var saturated = false
        while index < value.count {
            let digit = value[index] &- 0x30
            guard digit < 10 else { return nil }
            if !saturated {
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit))
                if overflow1 || overflow2 {
                    saturated = true
                    magnitude = .max
                } else {
                    magnitude = sum
                }
            }
            index += 1
        }
        return negative ? -magnitude : magnitude
    }

    /// Reduces a `Domain` attribute value (RFC 6265bis section 5.6.3).
    ///
    /// Removes one leading `.` and lower-cases ASCII letters. Non-ASCII
    /// bytes are kept as written; IDNA mapping is the policy layer's job.
    ///
    /// - Parameters:
    ///   - value: The trimmed attribute-value octets.
    /// - Returns: The cookie-domain, possibly empty.
    private static func domainValue(_ value: UnsafeBufferPointer<UInt8>) -> String {
        var domain = value
        if let first = domain.first, first == UInt8(ascii: ".") {
            domain = UnsafeBufferPointer(rebasing: domain[1...])
        }
        if domain.isEmpty { return "" }
        if !domain.contains(where: { $0 &- 0x41 < 26 }) {
            return String(decoding: domain, as: UTF8.self)
        }
        let lowered = domain.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }
        return String(decoding: lowered, as: UTF8.self)
    }

    /// Maps a `SameSite` attribute value to its enforcement
    /// (RFC 6265bis section 5.6.7).
    ///
    /// `None`, `Strict` and `Lax` are matched case-insensitively; anything
    /// else is the "Default" enforcement.
    ///
    /// - Parameters:
    ///   - value: The trimmed attribute-value octets.
    /// - Returns: The enforcement.
    private static func sameSiteValue(_ value: UnsafeBufferPointer<UInt8>) -> CookieSameSite {
        switch value.count {
        case 3 where equalsLowercase(value, "lax"):
            return .lax
        case 4 where equalsLowercase(value, "none"):
            return .none
        case 6 where equalsLowercase(value, "strict"):
            return .strict
        default:
            return .unspecified
        }
    }

    // MARK: - Byte helpers

    /// Compares bytes with a lower-case ASCII literal, ignoring ASCII case.
    ///
    /// Only `A`–`Z` in the input are folded, so punctuation such as `-`
    /// must match exactly.
    ///
    /// - Parameters:
    ///   - bytes: The octets to test.
    ///   - literal: A lower-case ASCII string.
    /// - Returns: `true` when both have the same length and match.
    @inline(__always)
    private static func equalsLowercase(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        let expected = literal.utf8Start
        for offset in 0..<bytes.count {
            let byte = bytes[offset]
            let folded = byte &- 0x41 < 26 ? byte | 0x20 : byte
            if folded != expected[offset] { return false }
        }
        return true
    }

    /// Finds the first occurrence of a byte in a range.
    ///
    /// A plain forward scan; ranges are short on the hot path.
    ///
    /// - Parameters:
    ///   - target: The byte to look for.
    ///   - bytes: The buffer.
    ///   - start: The first index to examine.
    ///   - end: One past the last index to examine.
    /// - Returns: The index of the first match, or `nil`.
    @inline(__always)
    private static func firstIndex(
        of target: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int
    ) -> Int? {
        var index = start
        while index < end {
            if bytes[index] == target { return index }
            index += 1
        }
        return nil
    }

    /// Narrows `start..<end` to exclude leading and trailing SP and HTAB.
    ///
    /// These are the WSP characters RFC 6265bis trims from names, values
    /// and attributes.
    ///
    /// - Parameters:
    ///   - bytes: The buffer.
    ///   - start: The range start, advanced past leading whitespace.
    ///   - end: The range end, moved back before trailing whitespace.
    @inline(__always)
    private static func trim(_ bytes: UnsafeBufferPointer<UInt8>, start: inout Int, end: inout Int) {
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
    }

    /// Decodes `start..<end` of the buffer as UTF-8.
    ///
    /// Invalid sequences become U+FFFD.
    ///
    /// - Parameters:
    ///   - bytes: The buffer.
    ///   - start: The first index.
    ///   - end: One past the last index.
    /// - Returns: The decoded string.
    @inline(__always)
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        if start == end { return "" }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }
}
