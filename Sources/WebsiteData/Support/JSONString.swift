/// JSON string literals: `"`, `\` and control characters escaped (the short forms where JSON
/// has them, `\u00XX` otherwise), everything else as is. By default exactly as `JSON.stringify`
/// writes them (the storage-state writer and IndexedDB's JSON values); `script: true` also escapes
/// DEL, U+2028 and U+2029, so that the text is safe on a terminal and inside a script (the
/// command line's `--json` output).
package enum JSONString {
    /// `string` as a JSON string literal, quotes included.
    package static func quoted(_ string: String, script: Bool = false) -> String {
        var out = ""
        append(string, to: &out, script: script)
        return out
    }

    /// Appends `string` as a JSON string literal, quotes included.
    package static func append(_ string: String, to out: inout String, script: Bool = false) {
        let needsEscape = string.utf8.contains {
            $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || (script && ($0 == 0x7F || $0 == 0xE2))
        }
        guard needsEscape else {
            out += "\""
            out += string
            out += "\""
            return
        }
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{00}"..<"\u{20}": out += unicodeEscape(scalar)
            case "\u{7F}" where script, "\u{2028}" where script, "\u{2029}" where script: out += unicodeEscape(scalar)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `\u` and the scalar's four hex digits (for scalars below U+10000).
    package static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
