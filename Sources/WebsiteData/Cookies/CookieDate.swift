import Foundation

/// Parsing and formatting of the dates used in the `Expires` cookie attribute.
///
/// ``parse(_:)-(Substring)`` implements the cookie-date algorithm of
/// RFC 6265bis section 5.1.1 ("Dates") exactly: the input is split into
/// date-tokens on the specification's delimiter set, the first token that
/// matches each of the time, day-of-month, month and year productions is
/// used (in that priority order), two-digit years are expanded
/// (70–99 → 19xx, 0–69 → 20xx) and the result is validated (day 1–31,
/// year ≥ 1601, hour ≤ 23, minute ≤ 59, second ≤ 59, and the day must exist
/// in the month). All arithmetic is done on the UTF-8 bytes with a
/// days-from-civil computation in UTC; no `DateFormatter`, calendar or
/// regular expression is involved.
///
/// ``format(_:)`` produces the IMF-fixdate form
/// (`Sun, 06 Nov 1994 08:49:37 GMT`) used by HTTP.
package enum CookieDate {
    // MARK: - Parsing

    /// Parses a cookie-date with the RFC 6265bis algorithm.
    ///
    /// The whole substring is the cookie-date; leading and trailing
    /// delimiters are permitted by the grammar. Any text the algorithm does
    /// not recognise (weekday names, time-zone names, offsets such as
    /// `-0400`) is skipped; the result is always interpreted as UTC.
    ///
    /// - Parameters:
    ///   - string: The attribute value to parse, for example
    ///     `Wed, 09 Jun 2021 10:18:14 GMT`.
    /// - Returns: The parsed instant, or `nil` when the algorithm fails
    ///   (a component is missing or out of range, or the date does not
    ///   exist).
    static func parse(_ string: Substring) -> Date? {
        if let result = string.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0) }) {
            return result
        }
        let copy = Array(string.utf8)
        return copy.withUnsafeBufferPointer { parse(bytes: $0) }
    }

    /// Parses a cookie-date with the RFC 6265bis algorithm.
    ///
    /// This is a convenience for ``parse(_:)-(Substring)`` on a whole string;
    /// the behaviour is identical.
    ///
    /// - Parameters:
    ///   - string: The attribute value to parse.
    /// - Returns: The parsed instant, or `nil` when the algorithm fails.
    package static func parse(_ string: String) -> Date? {
        parse(string[...])
    }

    /// Parses a cookie-date given as raw bytes.
    ///
    /// This is the allocation-free core shared by the `String` and
    /// `Substring` entry points and by the `Set-Cookie` parser, which hands
    /// over the attribute value without materialising a `String`.
    ///
    /// - Parameters:
    ///   - bytes: The cookie-date octets.
    /// - Returns: The parsed instant, or `nil` when the algorithm fails.
    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let seconds = parseSeconds(bytes: bytes) else { return nil }
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// Parses a cookie-date into seconds since the Unix epoch.
    ///
    /// Implements steps 1–6 of RFC 6265bis section 5.1.1.
    ///
    /// - Parameters:
    ///   - bytes: The cookie-date octets.
    /// - Returns: Whole seconds since 1970-01-01T00:00:00Z, or `nil` when
    ///   the algorithm fails.
    static func parseSeconds(bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var foundTime = false
        var foundDay = false
        var foundMonth = false
        var foundYear = false
        var hour = 0
        var minute = 0
        var second = 0
        var day = 0
        var month = 0
        var year = 0

        let count = bytes.count
        var index = 0
        while index < count {
            // Skip delimiters.
            while index < count && isDelimiter(bytes[index]) { index += 1 }
            if index == count { break }
            let start = index
            while index < count && !isDelimiter(bytes[index]) { index += 1 }
            let token = UnsafeBufferPointer(rebasing: bytes[start..<index])

            // Step 2: the first matching production wins for each token.
            if !foundTime, let time = matchTime(token) {
                foundTime = true
                (hour, minute, second) = time
                continue
            }
            if !foundDay, let value = matchDigits(token, minCount: 1, maxCount: 2) {
                foundDay = true
                day = value
                continue
            }
            if !foundMonth, let value = matchMonth(token) {
                foundMonth = true
                month = value
                continue
            }
            if !foundYear, let value = matchDigits(token, minCount: 2, maxCount: 4) {
                foundYear = true
                year = value
                continue
            }
        }

        // Steps 3–4: two-digit year expansion.
        if year >= 70 && year <= 99 {
            year += 1900
        } else if year >= 0 && year <= 69 {
            year += 2000
        }

        // Step 5: validation.
        guard foundTime, foundDay, foundMonth, foundYear,
            day >= 1, day <= 31,
            year >= 1601,
            hour <= 23, minute <= 59, second <= 59
        else { return nil }

        // Step 6: the date must exist (e.g. no 31 April, no 29 Feb 2023).
        guard day <= Int(GregorianCalendar.daysInMonth(Int64(month), year: Int64(year))) else { return nil }

        let days = GregorianCalendar.days(year: Int64(year), month: Int64(month), day: Int64(day))
        return days * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
    }

    // MARK: - Formatting

    /// Formats an instant as an IMF-fixdate.
    ///
    /// The output has the fixed shape `Sun, 06 Nov 1994 08:49:37 GMT`
    /// (RFC 9110 section 5.6.7). Fractional seconds are truncated towards
    /// the past. Years outside 0–9999 are written with as many digits as
    /// needed, and non-finite or absurdly distant instants are clamped to
    /// about ±31 million years, so the function never traps.
    ///
    /// - Parameters:
    ///   - date: The instant to format.
    /// - Returns: The IMF-fixdate string in GMT.
    package static func format(_ date: Date) -> String {
        let limit = 1.0e15
        var interval = date.timeIntervalSince1970
        if interval.isNaN {
            interval = 0
        } else if interval > limit {
            interval = limit
        } else if interval < -limit {
            interval = -limit
        }
        let total = Int64(interval.rounded(.down))
        var days = total / 86_400
        var secondsOfDay = total % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let date = GregorianCalendar.date(days: days)
        let civil = (year: Int(date.year), month: Int(date.month), day: Int(date.day))
        var weekdayIndex = (days + 4) % 7 // 1970-01-01 was a Thursday.
        if weekdayIndex < 0 { weekdayIndex += 7 }

        let hour = Int(secondsOfDay / 3_600)
        let minute = Int(secondsOfDay / 60 % 60)
        let second = Int(secondsOfDay % 60)

        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        bytes.append(contentsOf: weekdayNames[Int(weekdayIndex)])
        bytes.append(UInt8(ascii: ","))
        bytes.append(UInt8(ascii: " "))
        appendTwoDigits(civil.day, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: monthNames[civil.month - 1])
        bytes.append(UInt8(ascii: " "))
        if civil.year >= 0 && civil.year <= 9_999 {
            appendTwoDigits(civil.year / 100, to: &bytes)
            appendTwoDigits(civil.year % 100, to: &bytes)
        } else {
            bytes.append(contentsOf: String(civil.year).utf8)
        }
        bytes.append(UInt8(ascii: " "))
        appendTwoDigits(hour, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendTwoDigits(minute, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendTwoDigits(second, to: &bytes)
        bytes.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: "G"), UInt8(ascii: "M"), UInt8(ascii: "T")])
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: - Token productions

    /// Tells whether a byte is a `delimiter` of the cookie-date grammar.
    ///
    /// `delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E`.
    ///
    /// - Parameters:
    ///   - byte: The octet to classify.
    /// - Returns: `true` for a delimiter, `false` for a non-delimiter.
    @inline(__always)
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x20...0x2F, 0x3B...0x40, 0x5B...0x60, 0x7B...0x7E:
            return true
        default:
            return false
        }
    }

    /// Tells whether a byte is an ASCII digit.
    ///
    /// Used for the `DIGIT` / `non-digit` distinction of the grammar.
    ///
    /// - Parameters:
    ///   - byte: The octet to classify.
    /// - Returns: `true` for `0`–`9`.
    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- 0x30 < 10
    }

    /// Reads a run of `minCount...maxCount` digits starting at `start`.
    ///
    /// The run is read greedily up to `maxCount` digits, so a longer run of
    /// digits leaves a digit at the returned end position, which callers
    /// reject where the grammar demands a non-digit.
    ///
    /// - Parameters:
    ///   - token: The date-token.
    ///   - start: Index of the first digit.
    ///   - minCount: The minimum number of digits.
    ///   - maxCount: The maximum number of digits.
    /// - Returns: The value and the index after the last digit read, or
    ///   `nil` when fewer than `minCount` digits are present.
    @inline(__always)
    private static func readDigits(
        _ token: UnsafeBufferPointer<UInt8>, from start: Int, minCount: Int, maxCount: Int
    ) -> (value: Int, end: Int)? {
        var index = start
        var value = 0
        while index < token.count && index - start < maxCount && isDigit(token[index]) {
            value = value * 10 + Int(token[index] &- 0x30)
            index += 1
        }
        guard index - start >= minCount else { return nil }
        return (value, index)
    }

    /// Matches `minCount*maxCountDIGIT [ non-digit *OCTET ]` against a whole
    /// token.
    ///
    /// With `1...2` this is the `day-of-month` production, with `2...4` the
    /// `year` production.
    ///
    /// - Parameters:
    ///   - token: The date-token.
    ///   - minCount: The minimum number of leading digits.
    ///   - maxCount: The maximum number of leading digits.
    /// - Returns: The numeric value of the leading digits, or `nil` if the
    ///   token does not match.
    private static func matchDigits(
        _ token: UnsafeBufferPointer<UInt8>, minCount: Int, maxCount: Int
    ) -> Int? {
        guard let (value, end) = readDigits(token, from: 0, minCount: minCount, maxCount: maxCount),
            end == token.count || !isDigit(token[end])
        else { return nil }
        return value
    }

    /// Matches the `time` production against a whole token.
    ///
    /// `time = hms-time [ non-digit *OCTET ]`,
    /// `hms-time = time-field ":" time-field ":" time-field`,
    /// `time-field = 1*2DIGIT`.
    ///
    /// - Parameters:
    ///   - token: The date-token.
    /// - Returns: Hour, minute and second values (not yet range-checked),
    ///   or `nil` if the token does not match.
    private static func matchTime(_ token: UnsafeBufferPointer<UInt8>) -> (Int, Int, Int)? {
        let colon = UInt8(ascii: ":")
        guard let hour = readDigits(token, from: 0, minCount: 1, maxCount: 2),
            hour.end < token.count, token[hour.end] == colon,
            let minute = readDigits(token, from: hour.end + 1, minCount: 1, maxCount: 2),
            minute.end < token.count, token[minute.end] == colon,
            let second = readDigits(token, from: minute.end + 1, minCount: 1, maxCount: 2),
            second.end == token.count || !isDigit(token[second.end])
        else { return nil }
        return (hour.value, minute.value, second.value)
    }

    /// Matches the `month` production against a whole token.
    ///
    /// The token must start with a case-insensitive three-letter English
    /// month abbreviation; anything may follow (`April`, `Januar`).
    ///
    /// - Parameters:
    ///   - token: The date-token.
    /// - Returns: The month number 1–12, or `nil` if the token does not
    ///   match.
    private static func matchMonth(_ token: UnsafeBufferPointer<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let a = lowercase(token[0])
        let b = lowercase(token[1])
        let c = lowercase(token[2])
        switch (a, b, c) {
        case (0x6A, 0x61, 0x6E): return 1 // jan
        case (0x66, 0x65, 0x62): return 2 // feb
        case (0x6D, 0x61, 0x72): return 3 // mar
        case (0x61, 0x70, 0x72): return 4 // apr
        case (0x6D, 0x61, 0x79): return 5 // may
        case (0x6A, 0x75, 0x6E): return 6 // jun
        case (0x6A, 0x75, 0x6C): return 7 // jul
        case (0x61, 0x75, 0x67): return 8 // aug
        case (0x73, 0x65, 0x70): return 9 // sep
        case (0x6F, 0x63, 0x74): return 10 // oct
        case (0x6E, 0x6F, 0x76): return 11 // nov
        case (0x64, 0x65, 0x63): return 12 // dec
        default: return nil
        }
    }

    /// Lower-cases an ASCII letter, leaving every other byte unchanged.
    ///
    /// Only `A`–`Z` are mapped, so no non-letter can collide with a letter.
    ///
    /// - Parameters:
    ///   - byte: The octet to fold.
    /// - Returns: The folded octet.
    @inline(__always)
    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    // MARK: - Formatting helpers

    /// The weekday abbreviations, indexed from Sunday.
    private static let weekdayNames: [[UInt8]] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        .map { Array($0.utf8) }

    /// The month abbreviations, indexed from January.
    private static let monthNames: [[UInt8]] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ].map { Array($0.utf8) }

    /// Appends a number 0–99 as exactly two ASCII digits.
    ///
    /// Used for every fixed-width field of the IMF-fixdate.
    ///
    /// - Parameters:
    ///   - value: The number to write, 0–99.
    ///   - bytes: The output buffer.
    @inline(__always)
    private static func appendTwoDigits(_ value: Int, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: 0x30 + value / 10))
        bytes.append(UInt8(truncatingIfNeeded: 0x30 + value % 10))
    }
}
