import Foundation

/// HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate every sender uses, and the two obsolete
/// forms, RFC 850 and asctime, that recipients must still read.
///
/// Parsing is strict about structure (one space between parts, a comma after the day name,
/// two-digit hours, a four-digit year in IMF-fixdate, `GMT` and nothing else) and lenient
/// about letter case (`THU`, `AUG`, `gmt`), as the cache-tests suite expects. A value that
/// does not parse is `nil`: for `Expires` that means "already expired" (RFC 9111 §5.3).
public enum HTTPDate {
    /// Formats a date as an IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
    ///
    /// - Parameter date: the date; fractions of a second are dropped.
    /// - Returns: the formatted date.
    public static func format(_ date: Date) -> String {
        // The same IMF-fixdate as a cookie's Expires.
        CookieDate.format(date)
    }

    /// Parses an HTTP date in any of its three forms.
    ///
    /// - Parameters:
    ///   - text: the field value; surrounding whitespace is ignored.
    ///   - now: the present, to place an RFC 850 two-digit year: a year more than 50 years
    ///     ahead is taken as the most recent past year with those digits.
    /// - Returns: the date, or `nil` when the value is not a valid HTTP date.
    public static func parse(_ text: String, now: Date = Date()) -> Date? {
        let bytes = Array(text.utf8)
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 32 || bytes[start] == 9 { start += 1 }
        while end > start, bytes[end - 1] == 32 || bytes[end - 1] == 9 { end -= 1 }
        let s = Array(bytes[start..<end])
        if let date = imfFixdate(s) ?? asctime(s) { return date }
        return rfc850(s, now: now)
    }

    // MARK: - The three forms

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func imfFixdate(_ s: [UInt8]) -> Date? {
        guard s.count == 29, index(of: s[0..<3], in: dayNames) != nil, s[3] == 44, s[4] == 32,
            let day = number(s[5..<7]), s[7] == 32,
            let month = index(of: s[8..<11], in: monthNames), s[11] == 32,
            let year = number(s[12..<16]), s[16] == 32,
            let seconds = timeOfDay(s[17..<25]), s[25] == 32,
            matches(s[26..<29], "gmt")
        else { return nil }
        return make(year: year, month: month + 1, day: day, seconds: seconds)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    private static func rfc850(_ s: [UInt8], now: Date) -> Date? {
        guard let comma = s.firstIndex(of: 44), index(of: s[0..<comma], in: longDayNames) != nil else { return nil }
        let rest = Array(s[(comma + 1)...])
        guard rest.count == 23, rest[0] == 32, let day = number(rest[1..<3]), rest[3] == 45,
            let month = index(of: rest[4..<7], in: monthNames), rest[7] == 45,
            let shortYear = number(rest[8..<10]), rest[10] == 32,
            let seconds = timeOfDay(rest[11..<19]), rest[19] == 32,
            matches(rest[20..<23], "gmt")
        else { return nil }
        // RFC 9110 §5.6.7: more than 50 years ahead means the most recent past year with these digits.
        let (currentYear, _, _) = GregorianCalendar.date(
            days: GregorianCalendar.floorDivide(Int64(now.timeIntervalSince1970), 86400))
        var year = Int(currentYear) / 100 * 100 + shortYear
        if year > Int(currentYear) + 50 { year -= 100 }
        return make(year: year, month: month + 1, day: day, seconds: seconds)
    }

    /// `Sun Nov  6 08:49:37 1994`
    private static func asctime(_ s: [UInt8]) -> Date? {
        guard s.count == 24, index(of: s[0..<3], in: dayNames) != nil, s[3] == 32,
            let month = index(of: s[4..<7], in: monthNames), s[7] == 32
        else { return nil }
        let day: Int
        if s[8] == 32, let d = number(s[9..<10]) {
            day = d
        } else if let d = number(s[8..<10]) {
            day = d
        } else {
            return nil
        }
        guard s[10] == 32, let seconds = timeOfDay(s[11..<19]), s[19] == 32, let year = number(s[20..<24]) else {
            return nil
        }
        return make(year: year, month: month + 1, day: day, seconds: seconds)
    }

    // MARK: - Pieces

    private static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// `HH:MM:SS` as seconds of the day.
    private static func timeOfDay(_ s: ArraySlice<UInt8>) -> Int? {
        let b = s.startIndex
        guard let h = number(s[b..<b + 2]), s[b + 2] == 58, let m = number(s[b + 3..<b + 5]), s[b + 5] == 58,
            let sec = number(s[b + 6..<b + 8]), h < 24, m < 60, sec <= 60
        else { return nil }
        return h * 3600 + m * 60 + min(sec, 59)
    }

    private static func number(_ s: ArraySlice<UInt8>) -> Int? {
        var n = 0
        for c in s {
            guard c >= 48 && c <= 57 else { return nil }
            n = n * 10 + Int(c - 48)
        }
        return s.isEmpty ? nil : n
    }

    private static func matches(_ s: ArraySlice<UInt8>, _ lowercase: String) -> Bool {
        s.count == lowercase.utf8.count && zip(s, lowercase.utf8).allSatisfy { ($0 | 0x20) == $1 }
    }

    private static func index(of s: ArraySlice<UInt8>, in names: [String]) -> Int? {
        names.firstIndex { matches(s, $0.lowercased()) }
    }

    private static func make(year: Int, month: Int, day: Int, seconds: Int) -> Date? {
        guard (1...12).contains(month), day >= 1,
            day <= GregorianCalendar.daysInMonth(Int64(month), year: Int64(year))
        else { return nil }
        let days = GregorianCalendar.days(year: Int64(year), month: Int64(month), day: Int64(day))
        return Date(timeIntervalSince1970: TimeInterval(days * 86400 + Int64(seconds)))
    }
}
