/// JavaScript string literals that no string can break out of, in a script file or in an inline
/// HTML `<script>` element.
///
/// Every UTF-16 code unit outside printable ASCII, and each of `"` `'` `\` `<` `>` `&` `/`, is written
/// as a `\uXXXX` escape. What remains is printable ASCII without quotes, backslashes or angle
/// brackets, so the literal cannot end early, cannot contain `</script`, `<!--` or `]]>`, and
/// carries no line terminator (U+2028 and U+2029 included) and no NUL. Characters outside the
/// Basic Multilingual Plane become surrogate pairs. The result is valid JSON as well.
enum JavaScriptStringLiteral {
    /// The literal for `string`, with its double quotes.
    static func quoted(_ string: String) -> String {
        var out = "\""
        out.reserveCapacity(string.utf16.count + 2)
        for unit in string.utf16 {
            if unit >= 0x20 && unit <= 0x7E && !needsEscape(unit) {
                out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            } else {
                out += "\\u"
                for shift in stride(from: 12, through: 0, by: -4) {
                    out.unicodeScalars.append(Unicode.Scalar(hexDigits[Int((unit >> UInt16(shift)) & 0xF)]))
                }
            }
        }
        out += "\""
        return out
    }

    /// An array literal of string literals, one per line after the opening bracket.
    static func array(_ strings: [String], indent: String) -> String {
        guard !strings.isEmpty else { return "[]" }
        return "[\n" + strings.map { indent + "  " + quoted($0) }.joined(separator: ",\n") + "\n" + indent + "]"
    }

    private static func needsEscape(_ unit: UInt16) -> Bool {
        switch unit {
        case 0x22, 0x26, 0x27, 0x2F, 0x3C, 0x3E, 0x5C: true // " & ' / < > \
        default: false
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
