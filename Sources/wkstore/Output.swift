import Foundation

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

    private func write(into text: inout String, indent: Int) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .int(let value): text += String(value)
        case .double(let value): text += value.isFinite ? "\(value)" : "null"
        case .string(let value): Self.quote(value, into: &text)
        case .array(let items):
            if items.isEmpty { text += "[]"; return }
            text += "[\n"
            for (offset, item) in items.enumerated() {
                text += String(repeating: " ", count: indent + 2)
                item.write(into: &text, indent: indent + 2)
                text += offset == items.count - 1 ? "\n" : ",\n"
            }
            text += String(repeating: " ", count: indent) + "]"
        case .object(let members):
            if members.isEmpty { text += "{}"; return }
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
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{2028}" || scalar == "\u{2029}" {
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
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
                if i == row.count - 1 { line += cell } else {
                    line += cell + String(repeating: " ", count: widths[i] - cell.count + 2)
                }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}
