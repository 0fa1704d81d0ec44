import Foundation

/// Reads the `WHEN` of `clear --since WHEN`.
///
/// Four forms are accepted:
/// - an ISO 8601 date, `2026-11-01`: local midnight;
/// - an ISO 8601 date-time, `2026-11-01T08:00`, `2026-11-01T08:00:30` (optionally with a
///   fraction): local time, unless it ends in `Z` or an offset (`+02:00`, `-0530`, `+02`);
/// - a duration back from now: a whole number followed by `s`, `m`, `h` or `d` (`90s`, `15m`, `2h`, `7d`);
/// - a Unix timestamp: digits only (`1767225600`). ISO dates need their dashes: `20261101` is a timestamp.
enum SinceDate {
    /// The forms, for the message of a `WHEN` that is none of them.
    static let acceptedForms =
        "an ISO 8601 date (2026-11-01, local midnight) or date-time (2026-11-01T08:00, "
        + "2026-11-01T08:00:30, local time unless it ends in Z or an offset such as +02:00), a duration back "
        + "from now (90s, 15m, 2h, 7d) or a Unix timestamp (digits only, such as 1767225600)"

    /// The date `text` names, or `nil` when it is none of the accepted forms.
    ///
    /// - Parameters:
    ///   - text: the argument.
    ///   - now: the moment durations count back from.
    ///   - timeZone: the zone of dates and date-times that carry no offset.
    static func parse(_ text: String, now: Date, timeZone: TimeZone = .current) -> Date? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        if bytes.allSatisfy(isDigit) {
            guard let seconds = Int64(text) else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        if bytes.count >= 2, bytes.dropLast().allSatisfy(isDigit), let unit = unitSeconds(bytes.last!) {
            guard let amount = Int64(text.dropLast()) else { return nil }
            let (seconds, overflow) = amount.multipliedReportingOverflow(by: unit)
            guard !overflow else { return nil }
            return now.addingTimeInterval(-TimeInterval(seconds))
        }
        return parseISO8601(bytes, timeZone: timeZone)
    }

    private static func unitSeconds(_ byte: UInt8) -> Int64? {
        switch byte {
        case UInt8(ascii: "s"): 1
        case UInt8(ascii: "m"): 60
        case UInt8(ascii: "h"): 3600
        case UInt8(ascii: "d"): 86400
        default: nil
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `YYYY-MM-DD`, then optionally `THH:MM[:SS[.fff]]` and a zone (`Z`, `±HH:MM`, `±HHMM`, `±HH`).
    private static func parseISO8601(_ bytes: [UInt8], timeZone: TimeZone) -> Date? {
        var scanner = Scanner(bytes: bytes)
        guard let year = scanner.number(digits: 4), scanner.take("-"),
            let month = scanner.number(digits: 2), scanner.take("-"),
            let day = scanner.number(digits: 2)
        else { return nil }
        guard year >= 1, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else {
            return nil
        }
        var components = DateComponents(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
        var fraction = 0.0
        var zone = timeZone
        if !scanner.atEnd {
            guard scanner.take("T") || scanner.take("t") || scanner.take(" "),
                let hour = scanner.number(digits: 2), scanner.take(":"),
                let minute = scanner.number(digits: 2),
                (0...23).contains(hour), (0...59).contains(minute)
            else { return nil }
            components.hour = hour
            components.minute = minute
            if scanner.take(":") {
                guard let second = scanner.number(digits: 2), (0...59).contains(second) else { return nil }
                components.second = second
                if scanner.take(".") || scanner.take(",") {
                    let digits = scanner.digits()
                    guard !digits.isEmpty, let value = Double("0." + digits) else { return nil }
                    fraction = value
                }
            }
            if scanner.take("Z") || scanner.take("z") {
                zone = TimeZone(secondsFromGMT: 0)!
            } else if let sign = scanner.sign() {
                guard let hours = scanner.number(digits: 2), hours <= 23 else { return nil }
                var minutes = 0
                if !scanner.atEnd {
                    _ = scanner.take(":")
                    guard let value = scanner.number(digits: 2), value <= 59 else { return nil }
                    minutes = value
                }
                guard let fixed = TimeZone(secondsFromGMT: sign * (hours * 3600 + minutes * 60)) else { return nil }
                zone = fixed
            }
        }
        guard scanner.atEnd else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard let date = calendar.date(from: components) else { return nil }
        return date.addingTimeInterval(fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Reads ASCII bytes left to right.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        mutating func number(digits count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard SinceDate.isDigit(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }

        mutating func digits() -> String {
            let start = index
            while index < bytes.count, SinceDate.isDigit(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func sign() -> Int? {
            if take("+") { return 1 }
            if take("-") { return -1 }
            return nil
        }
    }
}
