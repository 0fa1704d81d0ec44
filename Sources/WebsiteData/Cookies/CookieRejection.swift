/// Why the store refused a cookie (RFC 6265bis 5.6–5.7), as a value callers can compare.
public struct CookieRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The rule that refused the cookie.
    public let reason: Reason
    /// The cookie's name, when it had one.
    public let name: String
    /// What exactly broke the rule, in words a user can act on (`its name and value are 5003
    /// bytes, over the 4096-byte limit`), when the reason alone does not say.
    public let detail: String?

    /// Creates a rejection.
    ///
    /// - Parameters:
    ///   - reason: the rule that refused the cookie.
    ///   - name: the cookie's name, when it had one.
    ///   - detail: what exactly broke the rule, when the reason alone does not say.
    public init(_ reason: Reason, name: String = "", detail: String? = nil) {
        self.reason = reason
        self.name = name
        self.detail = detail
    }

    /// A rule of the storage model.
    public struct Reason: RawRepresentable, Sendable, Hashable {
        /// A short machine-readable name of the rule.
        public let rawValue: String
        /// Creates a reason.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The header is not a cookie: control characters, empty name and value, or over 4096 bytes.
        public static let malformed = Reason(rawValue: "malformed")
        /// The Domain attribute names a public suffix (a "supercookie").
        public static let publicSuffixDomain = Reason(rawValue: "public-suffix-domain")
        /// The Domain attribute does not domain-match the host that set the cookie.
        public static let domainMismatch = Reason(rawValue: "domain-mismatch")
        /// A Secure cookie from an insecure origin.
        public static let secureFromInsecureOrigin = Reason(rawValue: "secure-from-insecure-origin")
        /// An insecure origin may not overwrite or shadow a Secure cookie.
        public static let wouldOverwriteSecure = Reason(rawValue: "would-overwrite-secure")
        /// Script may not set or overwrite an HttpOnly cookie.
        public static let httpOnlyFromScript = Reason(rawValue: "httponly-from-script")
        /// A `__Secure-` or `__Host-` prefixed cookie without the attributes its prefix needs.
        public static let prefix = Reason(rawValue: "prefix")
        /// SameSite=None without Secure, or a SameSite cookie set from a cross-site context.
        public static let sameSite = Reason(rawValue: "same-site")
        /// Partitioned without Secure.
        public static let partitioned = Reason(rawValue: "partitioned")
        /// The store's policy refuses cookies here (blocked, or third-party blocked).
        public static let policy = Reason(rawValue: "policy")
        /// The URL has no host, or is not HTTP(S) / a file.
        public static let unsupportedURL = Reason(rawValue: "unsupported-url")
    }

    /// One line: which cookie and which rule.
    public var description: String {
        let subject = name.isEmpty ? "cookie" : "cookie '\(name)'"
        switch reason {
        case .malformed: return "\(subject) refused: \(detail ?? "not a valid Set-Cookie value")"
        case .publicSuffixDomain: return "\(subject) refused: its Domain is a public suffix"
        case .domainMismatch: return "\(subject) refused: its Domain does not match the host that set it"
        case .secureFromInsecureOrigin: return "\(subject) refused: Secure cookies need a secure origin"
        case .wouldOverwriteSecure: return "\(subject) refused: an insecure origin cannot overwrite a Secure cookie"
        case .httpOnlyFromScript: return "\(subject) refused: script cannot set or overwrite an HttpOnly cookie"
        case .prefix: return "\(subject) refused: its __Secure-/__Host- prefix needs attributes it lacks"
        case .sameSite:
            return
                "\(subject) refused: SameSite rules (None needs Secure; no SameSite cookies from cross-site contexts)"
        case .partitioned: return "\(subject) refused: Partitioned needs Secure"
        case .policy: return "\(subject) refused: the store's cookie policy blocks it"
        case .unsupportedURL: return "\(subject) refused: the URL has no host"
        default: return "\(subject) refused: \(reason.rawValue)"
        }
    }
}
