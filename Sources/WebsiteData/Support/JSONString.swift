/// JSON string literals, as `JSON.stringify` writes them: `"`, `\` and control characters
/// escaped (the short forms where JSON has them, `\u00XX` otherwise), everything else as is.
/// The storage-state writer and IndexedDB's JSON values both write strings this way.
enum JSONString {
    /// `string` as a JSON string literal, quotes included.
    static func quoted(_ string: String) -> String {
        let needsEscape = string.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        guard needsEscape else { return "\"" + string + "\"" }
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{00}"..<"\u{20}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
