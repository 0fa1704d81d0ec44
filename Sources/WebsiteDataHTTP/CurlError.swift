import CCurl
import WebsiteData

/// A libcurl failure: the result code and curl's message for it.
///
/// Every libcurl result code that is not success becomes this error, in one place (the
/// initialisers below); compare `code` with the static constants to act on a kind of failure:
/// `catch let error as CurlError where error.code == CurlError.operationTimedOut`.
public struct CurlError: WebsiteDataError, Equatable {
    /// libcurl's `CURLcode` number (or, for a multi-handle failure, its `CURLMcode` number).
    public let code: Int32
    /// libcurl's message, with detail from the transfer's error buffer when there was any.
    public let message: String

    /// Creates an error from a result code and, when present, the transfer's error buffer.
    ///
    /// - Parameters:
    ///   - code: the transfer's result code.
    ///   - detail: the text of the transfer's error buffer, if any.
    public init(code: CURLcode, detail: String? = nil) {
        self.code = Int32(code.rawValue)
        let text = String(cString: curl_easy_strerror(code))
        self.message = detail.map { $0.isEmpty ? text : "\(text): \($0)" } ?? text
    }

    /// Creates an error from a multi-handle result code.
    ///
    /// - Parameter multiCode: the `CURLMcode` libcurl returned.
    public init(multiCode: CURLMcode) {
        self.code = Int32(multiCode.rawValue)
        self.message = "libcurl multi interface: " + String(cString: curl_multi_strerror(multiCode))
    }

    /// The libcurl result code: `reason` is `code`, compared with the static constants below.
    public var reason: Int32 { code }

    /// The version string of the libcurl in use (`libcurl/7.88.1 OpenSSL/3.0.x …`).
    public static var libcurlVersion: String { String(cString: curl_version()) }

    /// `CURLE_UNSUPPORTED_PROTOCOL`: the URL's scheme is not one the client speaks.
    public static let unsupportedProtocol = Int32(CURLE_UNSUPPORTED_PROTOCOL.rawValue)
    /// `CURLE_COULDNT_RESOLVE_HOST`: the host name did not resolve.
    public static let couldNotResolveHost = Int32(CURLE_COULDNT_RESOLVE_HOST.rawValue)
    /// `CURLE_COULDNT_CONNECT`: no connection could be made.
    public static let couldNotConnect = Int32(CURLE_COULDNT_CONNECT.rawValue)
    /// `CURLE_OPERATION_TIMEDOUT`: a connect or total time limit was reached.
    public static let operationTimedOut = Int32(CURLE_OPERATION_TIMEDOUT.rawValue)
    /// `CURLE_PEER_FAILED_VERIFICATION`: the server's certificate or name did not verify.
    public static let peerFailedVerification = Int32(CURLE_PEER_FAILED_VERIFICATION.rawValue)
    /// `CURLE_SSL_CACERT_BADFILE`: the certificate authority file could not be read.
    public static let badCACertificateFile = Int32(CURLE_SSL_CACERT_BADFILE.rawValue)
    /// `CURLE_WRITE_ERROR`: the body could not be written (see the message for the file error).
    public static let writeError = Int32(CURLE_WRITE_ERROR.rawValue)

    /// Throws unless `code` is `CURLE_OK`.
    static func check(_ code: CURLcode, detail: @autoclosure () -> String? = nil) throws(CurlError) {
        if code != CURLE_OK { throw CurlError(code: code, detail: detail()) }
    }

    /// Throws unless `code` is `CURLM_OK`.
    static func check(_ code: CURLMcode) throws(CurlError) {
        if code != CURLM_OK { throw CurlError(multiCode: code) }
    }
}
