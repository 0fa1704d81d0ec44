import CPostgreSQL
import Foundation

/// What the engine may say about a libpq connection string (a `postgresql://` URI or a
/// `key=value` string), and the passwords it must never say.
///
/// libpq accepts a password in the string (the `password` keyword, a URI's user information or
/// its `password` query parameter), from `PGPASSWORD`, or from the password file, and a client
/// key's passphrase as `sslpassword`. Every error
/// message the engine builds goes through `redact`, which replaces each of those it can know with
/// `[redacted]`: the parsed value, the raw text of the string that held it (a URI holds it
/// percent-encoded), and the environment's. A string libpq cannot parse is never quoted; the
/// text after a `password` keyword or in a URI's user information is treated as a password all
/// the same.
struct PostgreSQLConnectionString: Sendable {
    /// The string as given, passed to libpq and never to a message.
    let raw: String
    /// The passwords a message must not hold, longest first (so a password that contains
    /// another is replaced whole).
    let secrets: [String]
    /// The connection's target for messages: host, port, database and user, as libpq parsed them.
    let summary: String
    /// The server options the string gives (libpq's `options`), if any.
    let options: String?

    init(_ raw: String) {
        self.raw = raw
        var secrets = Self.textualSecrets(raw)
        var shown: [String: String] = [:]
        var serverOptions: String?
        var errorMessage: UnsafeMutablePointer<CChar>?
        if let options = PQconninfoParse(raw, &errorMessage) {
            var option = options
            while let keyword = option.pointee.keyword {
                let name = String(cString: keyword)
                if let value = option.pointee.val.map({ String(cString: $0) }), !value.isEmpty {
                    if name == "options" { serverOptions = value }
                    if Self.secretKeywords.contains(name) {
                        secrets.append(value)
                    } else if Self.shownKeywords.contains(name) {
                        shown[name] = value
                    }
                }
                option += 1
            }
            PQconninfoFree(options)
        }
        if let errorMessage { PQfreemem(errorMessage) }
        self.options = serverOptions
        if let environment = ProcessInfo.processInfo.environment["PGPASSWORD"], !environment.isEmpty {
            secrets.append(environment)
        }
        self.secrets = Array(Set(secrets.filter { !$0.isEmpty })).sorted { $0.count > $1.count }
        // The password keyword may itself be misparsed into another value (a quoting mistake):
        // the summary is redacted too.
        let parts = Self.shownKeywords.compactMap { name in shown[name].map { "\(name)=\($0)" } }
        let summary = parts.isEmpty ? "the default server" : parts.joined(separator: " ")
        self.summary = Self.redact(summary, secrets: self.secrets)
    }

    /// The settings that hold secrets: the password, and the passphrase of the client key.
    static let secretKeywords: Set<String> = ["password", "sslpassword"]
    /// The settings a message names the connection by, in this order.
    static let shownKeywords = ["host", "hostaddr", "port", "dbname", "user"]

    /// `text` with every password this string names replaced by `[redacted]`.
    func redact(_ text: String) -> String { Self.redact(text, secrets: secrets) }

    /// `text` with every one of `secrets` replaced by `[redacted]`.
    static func redact(_ text: String, secrets: [String]) -> String {
        var text = text
        for secret in secrets where !secret.isEmpty {
            text = text.replacingOccurrences(of: secret, with: "[redacted]")
        }
        return text
    }

    /// Text that stands where a password would in `raw`, found without libpq's parser: the value
    /// after a `password` keyword (quoted or not), a URI's `password` query parameter, and the
    /// part after the colon of a URI's user information.
    private static func textualSecrets(_ raw: String) -> [String] {
        let patterns = [
            #"(?i)\b(?:ssl)?password\s*=\s*'((?:[^'\\]|\\.)*)'"#,
            #"(?i)\b(?:ssl)?password\s*=\s*'?([^\s'&]+)"#,
            #"(?i)^postgres(?:ql)?://[^/?#@]*?:([^/?#@]*)@"#,
        ]
        var found: [String] = []
        for pattern in patterns {
            guard let expression = try? NSRegularExpression(pattern: pattern) else { continue }
            let range = NSRange(raw.startIndex..., in: raw)
            for match in expression.matches(in: raw, range: range) {
                guard let group = Range(match.range(at: 1), in: raw) else { continue }
                let value = String(raw[group])
                found.append(value)
                // The forms libpq decodes it to: percent-encoding in a URI, backslash escapes
                // in a quoted value.
                if let decoded = value.removingPercentEncoding { found.append(decoded) }
                found.append(value.replacingOccurrences(of: #"\\(.)"#, with: "$1", options: .regularExpression))
            }
        }
        return found
    }
}
