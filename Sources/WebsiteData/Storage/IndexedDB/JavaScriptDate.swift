import Foundation

/// JavaScript's date strings: `Date.prototype.toISOString` (what `toJSON` writes) and its parser.
///
/// JavaScript dates are whole milliseconds since 1970 within ±8.64e15; years outside
/// 0...9999 are written with a sign and six digits (`+275760-09-13T00:00:00.000Z`).
enum JavaScriptDate {
    /// The largest time value a JavaScript date holds, in milliseconds either side of 1970.
    static let maxMilliseconds = 8.64e15

    /// Whole milliseconds since 1970, or `nil` for NaN or a date JavaScript cannot hold.
    static func milliseconds(_ date: Date) -> Double? {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        guard ms.isFinite, abs(ms) <= maxMilliseconds else { return nil }
        return ms == 0 ? 0 : ms
    }

    /// The date for a number of milliseconds since 1970.
    static func date(milliseconds ms: Double) -> Date { Date(timeIntervalSince1970: ms / 1000) }

    /// `YYYY-MM-DDTHH:mm:ss.sssZ`, or `nil` for a date JavaScript would call invalid.
    static func isoString(_ date: Date) -> String? {
        guard let ms = milliseconds(date) else { return nil }
        let total = Int64(ms)
        var days = total / 86_400_000
        var rest = total % 86_400_000
        if rest < 0 {
            rest += 86_400_000
            days -= 1
        }
        let (year, month, day) = GregorianCalendar.date(days: days)
        let yearText: String
        if (0...9999).contains(year) {
            yearText = String(year).leftPadded(to: 4)
        } else {
            yearText = (year < 0 ? "-" : "+") + String(abs(year)).leftPadded(to: 6)
        }
        let hours = rest / 3_600_000
        let minutes = rest / 60_000 % 60
        let seconds = rest / 1000 % 60
        let millis = rest % 1000
        return
            "\(yearText)-\(two(month))-\(two(day))T\(two(hours)):\(two(minutes)):\(two(seconds)).\(String(millis).leftPadded(to: 3))Z"
    }

    /// Parses the ISO form `toISOString` writes, also accepting fewer or more fraction digits,
    /// no fraction, a date without a time (UTC midnight) and a `±hh:mm` offset instead of `Z`.
    ///
    /// - Returns: the date, or `nil` when the text is not in that form or out of JavaScript's range.
    static func parse(_ text: String) -> Date? {
        var scanner = Array(text.utf8)[...]
        func number(_ digits: Int) -> Int64? {
            guard scanner.count >= digits else { return nil }
            var value: Int64 = 0
            for byte in scanner.prefix(digits) {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            scanner = scanner.dropFirst(digits)
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard scanner.first == character.asciiValue else { return false }
            scanner = scanner.dropFirst()
            return true
        }
        var year: Int64
        if scanner.first == UInt8(ascii: "+") || scanner.first == UInt8(ascii: "-") {
            let negative = scanner.first == UInt8(ascii: "-")
            scanner = scanner.dropFirst()
            guard let value = number(6) else { return nil }
            year = negative ? -value : value
        } else {
            guard let value = number(4) else { return nil }
            year = value
        }
        guard expect("-"), let month = number(2), expect("-"), let day = number(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var ms: Int64 = 0
        var offset: Int64 = 0
        if expect("T") {
            guard let hours = number(2), expect(":"), let minutes = number(2), hours < 24, minutes < 60 else {
                return nil
            }
            var seconds: Int64 = 0
            if expect(":") {
                guard let value = number(2), value < 60 else { return nil }
                seconds = value
                if expect(".") {
                    var digits = 0
                    var fraction: Int64 = 0
                    while let byte = scanner.first, (48...57).contains(byte) {
                        if digits < 3 { fraction = fraction * 10 + Int64(byte - 48) }
                        digits += 1
                        scanner = scanner.dropFirst()
                    }
                    guard digits > 0 else { return nil }
                    if digits < 3 { for _ in digits..<3 { fraction *= 10 } }
                    ms = fraction
                }
            }
            ms += ((hours * 60 + minutes) * 60 + seconds) * 1000
            if expect("Z") {
            } else if let sign = scanner.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                scanner = scanner.dropFirst()
                guard let h = number(2), expect(":"), let m = number(2) else { return nil }
                offset = (h * 60 + m) * 60_000 * (sign == UInt8(ascii: "-") ? -1 : 1)
            } else {
                return nil
            }
        }
        guard scanner.isEmpty else { return nil }
        let total =
            Double(GregorianCalendar.days(year: year, month: month, day: day)) * 86_400_000 + Double(ms - offset)
        guard abs(total) <= maxMilliseconds else { return nil }
        return date(milliseconds: total)
    }

    private static func two(_ value: Int64) -> String { String(value).leftPadded(to: 2) }
}
