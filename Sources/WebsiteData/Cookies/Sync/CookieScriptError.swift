/// Why a document-start cookie script could not be made, or a `document.cookie` report not taken in.
///
/// Compare `code` with the static constants; `message` (and `description`) is one line naming what was wrong.
public struct CookieScriptError: WebsiteDataError, Hashable {
    /// What went wrong.
    public let code: Code
    /// The offending value or a short explanation.
    public let detail: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - detail: the offending value or a short explanation.
    public init(_ code: Code, detail: String) {
        self.code = code
        self.detail = detail
    }

    /// A kind of failure.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// A short machine-readable name.
        public let rawValue: String

        /// Creates a code.
        ///
        /// - Parameters:
        ///   - rawValue: the machine-readable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A message handler name that is not a JavaScript identifier of at most 128 ASCII characters
        /// (letters, digits, `_`, `$`; not starting with a digit).
        public static let invalidMessageHandlerName = Code(rawValue: "invalid-message-handler-name")
        /// A report whose body is not `{"cookie": String, "url": String}` with an absolute URL.
        public static let malformedReport = Code(rawValue: "malformed-report")
        /// A report whose URL is not of the origin of the frame the browser says sent it.
        public static let frameMismatch = Code(rawValue: "frame-mismatch")
    }

    /// What went wrong: `reason` is `code`.
    public var reason: Code { code }

    /// One line: what was wrong and with what.
    public var message: String {
        switch code {
        case .invalidMessageHandlerName:
            return
                "invalid message handler name \(detail.debugDescription): use letters, digits, '_' or '$', not starting with a digit, at most 128 characters"
        case .malformedReport:
            return "malformed document.cookie report: \(detail)"
        case .frameMismatch:
            return "document.cookie report refused: \(detail)"
        default:
            return "\(code.rawValue): \(detail)"
        }
    }
}
