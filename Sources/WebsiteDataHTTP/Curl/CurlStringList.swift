import CCurl

/// A libcurl string list (`curl_slist`) that owns its nodes and frees them in `deinit`.
///
/// Immutable once made, so one list (the client's `--resolve` entries) can be handed to many
/// transfers at once: libcurl only reads it.
final class CurlStringList: Sendable {
    /// The head of the list; `nil` for an empty list. Never changed after `init`.
    nonisolated(unsafe) let head: UnsafeMutablePointer<curl_slist>?

    /// Makes a list of `strings`, in order.
    ///
    /// - Throws: `HTTPClientError.invalidRequest` when a string holds a NUL, CR or LF (it could
    ///   not be sent as one header or option), or libcurl ran out of memory.
    init(_ strings: [String]) throws(HTTPClientError) {
        var list: UnsafeMutablePointer<curl_slist>?
        for string in strings {
            if Self.hasLineBreakOrNUL(string) {
                curl_slist_free_all(list)
                throw HTTPClientError(.invalidRequest, "'\(string.debugDescription)' contains a NUL, CR or LF")
            }
            guard let appended = curl_slist_append(list, string) else {
                curl_slist_free_all(list)
                throw HTTPClientError(.invalidRequest, "out of memory building a libcurl list")
            }
            list = appended
        }
        head = list
    }

    deinit { curl_slist_free_all(head) }

    /// Whether `string` holds a NUL, CR or LF, over its bytes (stepping `utf8` took a byte's
    /// index checks per byte, and a request's `Cookie` header is hundreds of bytes).
    static func hasLineBreakOrNUL(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { bytes in
            for byte in bytes where byte <= 13 && (byte == 0 || byte == 10 || byte == 13) { return true }
            return false
        }
    }
}
