import Foundation
import WebsiteData

/// Where a command writes: results on standard output (text or JSON), messages on standard error.
struct Output: Sendable {
    /// Whether `--json` was given.
    let json: Bool

    /// Writes a line of text output.
    func line(_ text: String) {
        print(text)
    }

    /// Writes lines of text output.
    func lines(_ texts: [String]) {
        for text in texts { print(text) }
    }

    /// Writes a JSON document.
    func write(_ value: JSONValue) {
        print(value.rendered())
    }

    /// Writes a JSON value on one line (JSON lines output).
    func writeLine(_ value: JSONValue) {
        print(value.renderedCompact())
    }

    /// Writes bytes to standard output as they are, after any text written before them.
    func raw(_ data: Data) {
        Self.flush()
        FileHandle.standardOutput.write(data)
    }

    /// Writes out what `print` has buffered, before bytes go to the standard output file itself.
    static func flush() {
        // `fflush(nil)` flushes every stream; naming C's `stdout` is not concurrency-safe in Swift 6.
        fflush(nil)
    }

    /// Writes `wkstore: message` as one line on standard error.
    static func message(_ text: String) {
        let line = "wkstore: " + oneLine(text) + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// The text with line breaks and other control characters turned into spaces.
    static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }
}

/// A JSON value whose objects keep their keys in the order written.
enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// A number: written as an integer when it is whole.
    static func number(_ value: Double) -> JSONValue {
        if value.rounded() == value, abs(value) < 9_007_199_254_740_992 { return .int(Int64(value)) }
        return .double(value)
    }

    /// A date as ISO 8601 in UTC with milliseconds (`2026-11-01T08:00:30.125Z`).
    static func date(_ date: Date) -> JSONValue { .string(Format.iso8601(date)) }

    /// A string, or `null` for `nil`.
    static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// The value as indented JSON text.
    func rendered() -> String {
        var text = ""
        write(into: &text, indent: 0)
        return text
    }

    /// The value as JSON text on one line, without spaces (as `JSON.stringify` writes it).
    func renderedCompact() -> String {
        var text = ""
        writeCompact(into: &text)
        return text
    }

    private func writeCompact(into text: inout String) {
        switch self {
        case .array(let items):
            text += "["
            for (offset, item) in items.enumerated() {
                if offset > 0 { text += "," }
                item.writeCompact(into: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (offset, (key, value)) in members.enumerated() {
                if offset > 0 { text += "," }
                Self.quote(key, into: &text)
                text += ":"
                value.writeCompact(into: &text)
            }
            text += "}"
        default:
            write(into: &text, indent: 0)
        }
    }

    private func write(into text: inout String, indent: Int) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .int(let value): text += String(value)
        case .double(let value): text += value.isFinite ? "\(value)" : "null"
        case .string(let value): Self.quote(value, into: &text)
        case .array(let items):
            if items.isEmpty {
                text += "[]"
                return
            }
            text += "[\n"
            for (offset, item) in items.enumerated() {
                text += String(repeating: " ", count: indent + 2)
                item.write(into: &text, indent: indent + 2)
                text += offset == items.count - 1 ? "\n" : ",\n"
            }
            text += String(repeating: " ", count: indent) + "]"
        case .object(let members):
            if members.isEmpty {
                text += "{}"
                return
            }
            text += "{\n"
            for (offset, (key, value)) in members.enumerated() {
                text += String(repeating: " ", count: indent + 2)
                Self.quote(key, into: &text)
                text += ": "
                value.write(into: &text, indent: indent + 2)
                text += offset == members.count - 1 ? "\n" : ",\n"
            }
            text += String(repeating: " ", count: indent) + "}"
        }
    }

    private static func quote(_ value: String, into text: inout String) {
        // Also DEL, U+2028 and U+2029 escaped: safe on a terminal and pasted into a script.
        JSONString.append(value, to: &text, script: true)
    }
}

/// Text formatting shared by the commands.
enum Format {
    /// ISO 8601 in UTC with milliseconds.
    static func iso8601(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    /// ISO 8601 in UTC, whole seconds.
    static func iso8601Seconds(_ date: Date) -> String {
        Date.ISO8601FormatStyle().format(date)
    }

    /// A byte count for people: `512 B`, `1.5 KB`, `12.3 MB`, `2.0 GB` (powers of 1024, as the
    /// size settings such as `cache.max-size` read them).
    static func bytes(_ count: Int64) -> String {
        let units = ["KB", "MB", "GB", "TB"]
        guard count >= 1024 else { return "\(count) B" }
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024 - 0.05 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f", value) + " " + units[unit]
    }

    /// A bar of `width` cells, filled in proportion to `fraction` (0 to 1): `████████░░`.
    /// Anything above zero fills at least one cell, so no site with data shows an empty bar.
    static func bar(_ fraction: Double, width: Int = 10) -> String {
        let clamped = min(max(fraction, 0), 1)
        var filled = Int((clamped * Double(width)).rounded())
        if clamped > 0 && filled == 0 { filled = 1 }
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    }

    /// `1 cookie`, `2 cookies`.
    static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }

    /// Rows as columns padded to their widest cell; the last column is not padded.
    static func table(_ rows: [[String]]) -> [String] {
        guard let columns = rows.map(\.count).max(), columns > 0 else { return [] }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            var line = ""
            for (i, cell) in row.enumerated() {
                if i == row.count - 1 {
                    line += cell
                } else {
                    line += cell + String(repeating: " ", count: widths[i] - cell.count + 2)
                }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}
