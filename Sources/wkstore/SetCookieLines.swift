import Foundation

/// The `Set-Cookie` values of raw response header lines, as `cookies set --headers-file` reads them.
///
/// Lines are split on LF and a trailing CR is stripped; a line's header name runs up to its first
/// colon and is matched case-insensitively; leading spaces and tabs of the value are dropped, the
/// rest is kept byte for byte. Other header lines, a status line (`HTTP/1.1 200 OK`) and blank
/// lines are skipped. A value that is valid UTF-8 is read as UTF-8, any other one byte per
/// character (ISO 8859-1, as Fetch's isomorphic decoding does), so no byte is lost.
enum SetCookieLines {
    /// The `Set-Cookie` values in `data`, in order.
    static func values(in data: Data) -> [String] {
        let name = Array("set-cookie".utf8)
        var values: [String] = []
        for var line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let field = line[line.startIndex..<colon]
            guard field.count == name.count,
                zip(field, name).allSatisfy({ lowercased($0) == $1 })
            else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            values.append(decode(Array(value)))
        }
        return values
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }

    private static func decode(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
