import CCurl
import Foundation
import Synchronization
import WebsiteData

/// What one hop of a request asks libcurl for: everything `CurlTransfer` sets on its easy handle.
struct HopRequest: Sendable {
    var url: URL
    var method: String
    /// The header fields to send, the `Cookie` field included.
    var headers: [HTTPHeaderField]
    var body: Data?
    var credentials: HTTPCredentials?
    /// What is left of the request's time limit, in milliseconds.
    var timeoutMilliseconds: Int?
    /// Where the body of a final (non-redirect) response goes.
    var sink: BodySink
    /// Whether a redirect response (3xx with a `Location`) will be followed, so its body is dropped.
    var followsRedirects: Bool
    var progress: (@Sendable (HTTPTransferProgress) -> Void)?
}

/// Where a transfer puts the body of a response it does not drop (a followed redirect's body is dropped).
enum BodySink: Sendable {
    /// In memory, whatever its size.
    case memory
    /// Straight into this file as it arrives: replaced, created empty for an empty body,
    /// removed when the transfer fails after writing to it.
    case destination(URL)
    /// In memory up to `limit` bytes; past that, into a file `makeFile` returns (the bytes
    /// so far first), which the hop's result then names and its receiver owns. `limit` 0
    /// sends any non-empty body to a file. The file is removed when the transfer fails.
    case spill(limit: Int, makeFile: @Sendable () throws -> URL)
}

/// What libcurl received for one hop.
struct HopResult: Sendable {
    var status: Int
    var httpVersion: String
    /// The reason phrase of the final status line (empty when the server sent none, as in HTTP/2).
    var reasonPhrase: String
    var headers: [HTTPHeaderField]
    /// The request header fields sent (see `CurlTransfer.requestHeaders(for:configuration:)`).
    var requestHeaders: [HTTPHeaderField]
    /// The body when it stayed in memory; empty when it went to `bodyFile`.
    var body: Data
    /// The file the body went to: the destination, or the spill file.
    var bodyFile: URL?
}

/// Set from any thread when the task awaiting a transfer is cancelled; read by the transfer thread.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}

/// A transfer on its way from the task that configured it to the transfer thread.
///
/// `CurlTransfer` is not `Sendable`: one thread at a time owns it. The submitting task gives it
/// up when it wraps it here (it keeps no other reference it uses afterwards), and the transfer
/// thread is its only user from then on; the engine's lock orders the handover.
struct TransferHandoff: @unchecked Sendable {
    let transfer: CurlTransfer
}

/// One libcurl easy handle and what it owns: its header list, error buffer, response state and
/// body file. Freed in `deinit`. Configured on the caller's task, then handed to the transfer
/// thread, which alone touches it from then on (libcurl's callbacks run there, and find this
/// object through their user-data pointer, passed unretained).
final class CurlTransfer {
    let id: UInt64
    let easy: UnsafeMutableRawPointer
    let cancellation: CancellationFlag
    private let url: URL
    private let headerList: CurlStringList
    private let resolve: CurlStringList?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let sink: BodySink
    private let followsRedirects: Bool
    private let progress: (@Sendable (HTTPTransferProgress) -> Void)?
    private var continuation: CheckedContinuation<HopResult, any Error>?

    private var status = 0
    private var reasonPhrase = ""
    private let requestHeaders: [HTTPHeaderField]
    private var headers: [HTTPHeaderField] = []
    private var discardsBody = false
    private var body = Data()
    private var fileDescriptor: Int32 = -1
    private var fileError: String?
    /// The file the body is being written to, once opened.
    private var bodyFile: URL?

    /// Makes an easy handle for `hop` with the client's options.
    ///
    /// - Throws: `CurlError` when libcurl refuses an option, `HTTPClientError` for a header that
    ///   cannot be sent.
    init(
        id: UInt64, hop: HopRequest, configuration: HTTPClientConfiguration, resolve: CurlStringList?,
        cancellation: CancellationFlag
    ) throws {
        var lines: [String] = []
        lines.reserveCapacity(hop.headers.count + 2)
        for field in hop.headers {
            if field.name.isEmpty || field.name.utf8.contains(where: { $0 <= 32 || $0 == 58 || $0 >= 127 }) {
                throw HTTPClientError(.invalidRequest, "'\(field.name)' is not a header field name", url: hop.url)
            }
            // "Name:" alone would tell libcurl to remove its own header; "Name;" sends it empty.
            lines.append(field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value)
        }
        // Browsers never send `Expect: 100-continue`; nor do we unless asked, to avoid a wait.
        if hop.headers.first(named: "Expect") == nil { lines.append("Expect:") }
        // libcurl adds a form Content-Type to bodies; send only what the caller gave.
        if hop.body != nil && hop.headers.first(named: "Content-Type") == nil { lines.append("Content-Type:") }
        headerList = try CurlStringList(lines)

        // Nothing may throw between taking these resources and the end of initialisation:
        // `deinit`, which frees them, runs only for a fully initialised object.
        guard let easy = curl_easy_init() else { throw CurlError(code: CURLE_OUT_OF_MEMORY) }
        self.id = id
        self.easy = easy
        self.cancellation = cancellation
        self.url = hop.url
        self.resolve = resolve
        self.sink = hop.sink
        self.followsRedirects = hop.followsRedirects
        self.progress = hop.progress
        self.requestHeaders = Self.requestHeaders(for: hop, configuration: configuration)
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))

        try configure(hop, configuration)
    }

    deinit {
        curl_easy_cleanup(easy)
        errorBuffer.deallocate()
        if fileDescriptor >= 0 { close(fileDescriptor) }
    }

    private func set(_ option: CURLoption, _ value: Int) throws(CurlError) {
        try CurlError.check(wk_easy_setopt_long(easy, option, value))
    }

    private func set(_ option: CURLoption, _ value: String) throws(CurlError) {
        try CurlError.check(wk_easy_setopt_string(easy, option, value))
    }

    private func configure(_ hop: HopRequest, _ configuration: HTTPClientConfiguration) throws {
        try set(CURLOPT_URL, hop.url.absoluteString)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_NOSIGNAL, 1)
        // curl's cookie engine and redirect following stay off: every hop goes through the store.
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        try CurlError.check(wk_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer)))
        let me = Unmanaged.passUnretained(self).toOpaque()

        switch hop.method {
        case "GET" where hop.body == nil:
            try set(CURLOPT_HTTPGET, 1)
        case "HEAD" where hop.body == nil:
            try set(CURLOPT_NOBODY, 1)
        case "POST":
            try set(CURLOPT_POST, 1)
        default:
            try set(CURLOPT_CUSTOMREQUEST, hop.method)
        }
        if let body = hop.body, !body.isEmpty {
            try CurlError.check(wk_easy_setopt_int64(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            let code = body.withUnsafeBytes { bytes in
                wk_easy_setopt_pointer(
                    easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            }
            try CurlError.check(code)
        } else if hop.body != nil || hop.method == "POST" {
            try CurlError.check(wk_easy_setopt_int64(easy, CURLOPT_POSTFIELDSIZE_LARGE, 0))
            try set(CURLOPT_COPYPOSTFIELDS, "")
        }
        try CurlError.check(wk_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList.head))

        if let credentials = hop.credentials {
            try set(CURLOPT_USERNAME, credentials.user)
            try set(CURLOPT_PASSWORD, credentials.password)
        }
        if let userAgent = configuration.userAgent, !userAgent.isEmpty, hop.headers.first(named: "User-Agent") == nil {
            try set(CURLOPT_USERAGENT, userAgent)
        }
        if configuration.acceptsCompressedResponses { try set(CURLOPT_ACCEPT_ENCODING, "") }
        let version: Int
        switch configuration.httpVersion {
        case .http1_1: version = Int(CURL_HTTP_VERSION_1_1)
        case .http2OverTLS: version = Int(CURL_HTTP_VERSION_2TLS)
        case .http2: version = Int(CURL_HTTP_VERSION_2_0)
        case .http2PriorKnowledge: version = Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        }
        try set(CURLOPT_HTTP_VERSION, version)
        if let connect = configuration.connectTimeout {
            try set(CURLOPT_CONNECTTIMEOUT_MS, max(1, Int((connect * 1000).rounded(.up))))
        }
        if let total = hop.timeoutMilliseconds { try set(CURLOPT_TIMEOUT_MS, max(1, total)) }
        if configuration.insecure {
            try set(CURLOPT_SSL_VERIFYPEER, 0)
            try set(CURLOPT_SSL_VERIFYHOST, 0)
        } else {
            try set(CURLOPT_SSL_VERIFYPEER, 1)
            try set(CURLOPT_SSL_VERIFYHOST, 2)
        }
        if let ca = configuration.caCertificateFile { try set(CURLOPT_CAINFO, ca.path) }
        if let proxy = configuration.proxy { try set(CURLOPT_PROXY, proxy) }
        if let resolve { try CurlError.check(wk_easy_setopt_slist(easy, CURLOPT_RESOLVE, resolve.head)) }

        try CurlError.check(
            wk_easy_setopt_data_callback(
                easy, CURLOPT_HEADERFUNCTION,
                { data, size, count, user in
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
                    let length = size * count
                    transfer.received(headerLine: UnsafeRawBufferPointer(start: data, count: length))
                    return length
                }))
        try CurlError.check(wk_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me))
        try CurlError.check(
            wk_easy_setopt_data_callback(
                easy, CURLOPT_WRITEFUNCTION,
                { data, size, count, user in
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
                    return transfer.received(body: UnsafeRawBufferPointer(start: data, count: size * count))
                }))
        try CurlError.check(wk_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me))
        try CurlError.check(
            wk_easy_setopt_xferinfo_callback(
                easy,
                { user, downloadTotal, downloaded, uploadTotal, uploaded in
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
                    return transfer.progressed(
                        received: downloaded, expected: downloadTotal, sent: uploaded, toSend: uploadTotal)
                }))
        try CurlError.check(wk_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, me))
        try set(CURLOPT_NOPROGRESS, 0)
    }

    /// Keeps the continuation to resume when the transfer ends.
    func start(_ continuation: CheckedContinuation<HopResult, any Error>) {
        self.continuation = continuation
    }

    // MARK: - Callbacks (transfer thread)

    private func received(headerLine raw: UnsafeRawBufferPointer) {
        var bytes = raw[...]
        while let last = bytes.last, last == 10 || last == 13 { bytes.removeLast() }
        if bytes.isEmpty {
            // End of a header block; 1xx blocks are followed by another.
            if status >= 200 {
                discardsBody =
                    followsRedirects && HTTPRedirect.isRedirect(status) && headers.first(named: "Location") != nil
            }
            return
        }
        let line = String(decoding: UnsafeRawBufferPointer(rebasing: bytes), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers.removeAll(keepingCapacity: true)
            discardsBody = false
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            reasonPhrase = parts.count > 2 ? Self.trimmed(parts[2]) : ""
            return
        }
        if let first = line.utf8.first, first == 32 || first == 9 {
            // Obsolete line folding (RFC 9112 5.2): the line continues the previous value.
            if !headers.isEmpty {
                headers[headers.count - 1].value += " " + Self.trimmed(Substring(line))
            }
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        headers.append(HTTPHeaderField(String(line[..<colon]), Self.trimmed(line[line.index(after: colon)...])))
    }

    static func trimmed(_ text: Substring) -> String {
        var view = text.unicodeScalars[...]
        while let first = view.first, first == " " || first == "\t" { view.removeFirst() }
        while let last = view.last, last == " " || last == "\t" { view.removeLast() }
        return String(view)
    }

    private func received(body bytes: UnsafeRawBufferPointer) -> Int {
        if discardsBody || bytes.isEmpty { return bytes.count }
        if fileDescriptor < 0 {
            switch sink {
            case .memory:
                body.append(contentsOf: bytes)
                return bytes.count
            case .destination(let url):
                guard openBodyFile(url, creating: true) else { return 0 }
            case .spill(let limit, let makeFile):
                if body.count + bytes.count <= limit {
                    body.append(contentsOf: bytes)
                    return bytes.count
                }
                let url: URL
                do {
                    url = try makeFile()
                } catch {
                    fileError = "cannot create a body file: \(error.localizedDescription)"
                    return 0
                }
                guard openBodyFile(url, creating: false) else {
                    try? FileManager.default.removeItem(at: url)
                    return 0
                }
                let held = body
                body = Data()
                guard held.withUnsafeBytes({ writeAll($0) }) else { return 0 }
            }
        }
        return writeAll(bytes) ? bytes.count : 0
    }

    /// Opens the body file for writing (truncating it); records the failure and returns `false` when it cannot.
    private func openBodyFile(_ url: URL, creating: Bool) -> Bool {
        fileDescriptor = open(url.path, O_WRONLY | O_TRUNC | O_CLOEXEC | (creating ? O_CREAT : 0), 0o644)
        if fileDescriptor < 0 {
            fileError = "cannot create \(url.path): \(String(cString: strerror(errno)))"
            return false
        }
        bodyFile = url
        return true
    }

    /// Writes every byte to the body file; records the failure and returns `false` when it cannot.
    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                fileError = "cannot write \(bodyFile?.path ?? ""): \(String(cString: strerror(errno)))"
                return false
            }
            offset += written
        }
        return true
    }

    private func progressed(received: curl_off_t, expected: curl_off_t, sent: curl_off_t, toSend: curl_off_t) -> Int32 {
        if cancellation.isSet { return 1 }
        if let progress, !discardsBody {
            progress(
                HTTPTransferProgress(
                    url: url, received: Int64(received), expectedToReceive: Int64(expected),
                    sent: Int64(sent), expectedToSend: Int64(toSend)))
        }
        return 0
    }

    // MARK: - Completion (transfer thread)

    /// Resumes the waiting task with the transfer's outcome. Called once, after the handle left the multi handle.
    func finish(_ code: CURLcode) {
        guard let continuation else { return }
        self.continuation = nil
        if fileDescriptor >= 0 {
            if close(fileDescriptor) != 0 && fileError == nil && code == CURLE_OK {
                fileError = "cannot write \(bodyFile?.path ?? ""): \(String(cString: strerror(errno)))"
            }
            fileDescriptor = -1
        }
        if cancellation.isSet {
            removePartialFile()
            continuation.resume(throwing: CancellationError())
            return
        }
        if let fileError {
            removePartialFile()
            continuation.resume(throwing: HTTPClientError(.cannotWriteBody, fileError, url: url))
            return
        }
        guard code == CURLE_OK else {
            removePartialFile()
            let detail = String(cString: errorBuffer)
            continuation.resume(throwing: CurlError(code: code, detail: detail))
            return
        }
        if case .destination(let destination) = sink, !discardsBody, bodyFile == nil {
            // An empty body still makes an (empty) file, replacing what was there.
            let fd = open(destination.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            if fd < 0 {
                continuation.resume(
                    throwing: HTTPClientError(
                        .cannotWriteBody, "cannot create \(destination.path): \(String(cString: strerror(errno)))",
                        url: url))
                return
            }
            close(fd)
            bodyFile = destination
        }
        var responseCode = 0
        _ = wk_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &responseCode)
        var version = 0
        _ = wk_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        continuation.resume(
            returning: HopResult(
                status: responseCode != 0 ? responseCode : status,
                httpVersion: Self.versionName(version), reasonPhrase: reasonPhrase, headers: headers,
                requestHeaders: requestHeaders, body: body, bodyFile: bodyFile))
    }

    /// Resumes the waiting task with `error` (the transfer never ran to its end).
    func fail(_ error: any Error) {
        guard let continuation else { return }
        self.continuation = nil
        if fileDescriptor >= 0 {
            close(fileDescriptor)
            fileDescriptor = -1
        }
        removePartialFile()
        continuation.resume(throwing: error)
    }

    private func removePartialFile() {
        guard let bodyFile else { return }
        // Only a regular file is ours to remove: a destination may be a device or a pipe
        // (`-o /dev/null`), which must never be unlinked.
        if BodyFiles.isRegularFile(bodyFile) { try? FileManager.default.removeItem(at: bodyFile) }
        self.bodyFile = nil
    }

    static func versionName(_ version: Int) -> String {
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): "1.0"
        case Int(CURL_HTTP_VERSION_1_1): "1.1"
        case Int(CURL_HTTP_VERSION_2_0): "2"
        case Int(CURL_HTTP_VERSION_3): "3"
        default: "1.1"
        }
    }
}
