import CCurl

/// A libcurl failure: the result code and curl's message for it.
public struct CurlError: Error, Sendable, CustomStringConvertible, Equatable {
    /// libcurl's `CURLcode` number.
    public let code: Int32
    /// libcurl's message, with detail from the transfer's error buffer when there was any.
    public let message: String

    /// Creates an error from a result code and, when present, the transfer's error buffer.
    public init(code: CURLcode, detail: String? = nil) {
        self.code = Int32(code.rawValue)
        let text = String(cString: curl_easy_strerror(code))
        self.message = detail.map { $0.isEmpty ? text : "\(text): \($0)" } ?? text
    }

    /// One line.
    public var description: String { message }

    /// The version string of the libcurl in use (`libcurl/7.88.1 OpenSSL/3.0.x …`).
    public static var libcurlVersion: String { String(cString: curl_version()) }
}
