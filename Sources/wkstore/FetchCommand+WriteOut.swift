import Foundation
import WebsiteDataHTTP

/// `wkstore fetch -w FORMAT`: curl's `--write-out`, with its common variables.
///
/// `%{name}` is replaced by the transfer's value, `%%` is a `%`, and `\n`, `\r`, `\t` and `\\`
/// are the characters they name; anything else is written as it is. An unknown variable is a
/// usage error before the request is sent, so that a typo costs no request.
struct WriteOutFormat: Sendable {
    /// A piece of the format.
    enum Piece: Sendable, Equatable {
        /// Text written as it is.
        case text(String)
        /// A variable, by name.
        case variable(String)
    }

    /// The variables `-w` knows, in the order help lists them.
    static let variables = [
        "http_code", "response_code", "url_effective", "time_total", "size_download", "num_redirects",
        "content_type", "http_version", "method",
    ]

    /// The format, split.
    let pieces: [Piece]

    /// Reads a format.
    ///
    /// - Throws: `CLIError.usage` for an unknown or unterminated `%{…}`.
    init(_ format: String) throws(CLIError) {
        var pieces: [Piece] = []
        var text = ""
        var rest = Substring(format)
        while let character = rest.first {
            rest.removeFirst()
            switch character {
            case "%" where rest.first == "%":
                rest.removeFirst()
                text.append("%")
            case "%" where rest.first == "{":
                guard let close = rest.firstIndex(of: "}") else {
                    throw .usage("invalid -w '\(format)': '%{' without its '}'")
                }
                let name = String(rest[rest.index(after: rest.startIndex)..<close])
                guard Self.variables.contains(name) else {
                    throw .usage(
                        "unknown -w variable '\(name)'; variables: \(Self.variables.map { "%{\($0)}" }.joined(separator: ", "))"
                    )
                }
                rest = rest[rest.index(after: close)...]
                if !text.isEmpty { pieces.append(.text(text)) }
                text = ""
                pieces.append(.variable(name))
            case "\\":
                switch rest.first {
                case "n": text.append("\n")
                case "r": text.append("\r")
                case "t": text.append("\t")
                case "\\": text.append("\\")
                default:
                    text.append("\\")
                    continue
                }
                rest.removeFirst()
            default:
                text.append(character)
            }
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    /// The format with the transfer's values in it.
    ///
    /// - Parameters:
    ///   - response: the final response.
    ///   - bodySize: the bytes of the final body.
    ///   - elapsed: how long the request took, redirects included.
    /// - Returns: the text to write.
    func render(_ response: HTTPResponse, bodySize: Int64, elapsed: Duration) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let text): text
            case .variable(let name): Self.value(name, response, bodySize: bodySize, elapsed: elapsed)
            }
        }.joined()
    }

    /// One variable's value, as curl writes it (`time_total` in seconds with six decimals).
    static func value(_ name: String, _ response: HTTPResponse, bodySize: Int64, elapsed: Duration) -> String {
        switch name {
        case "http_code", "response_code": return String(format: "%03d", response.status)
        case "url_effective": return response.url.absoluteString
        case "time_total":
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return String(format: "%.6f", seconds)
        case "size_download": return String(bodySize)
        case "num_redirects": return String(response.hops.count - 1)
        case "content_type": return response.value(forHeader: "Content-Type") ?? ""
        case "http_version": return response.httpVersion
        case "method": return response.hops.last?.method ?? ""
        default: return ""
        }
    }
}
