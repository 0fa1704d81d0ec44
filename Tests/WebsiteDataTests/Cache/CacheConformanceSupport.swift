import Foundation
import Testing

@testable import WebsiteData

/// The http-tests/cache-tests suite as data (Fixtures/http-cache-tests), and a replay of it
/// against `HTTPCache` with an in-process mock origin and a test clock, as the suite's
/// FORMAT.md describes and upstream's test engine (test-engine/client/test.mjs and
/// test-engine/server/handle-test.mjs) does.
enum CacheSuite {
    /// A header value in the suite: text, or an integer (a date delta in seconds for date fields).
    enum Value: Sendable, Hashable {
        case text(String)
        case integer(Int)

        init(_ any: Any) {
            if !(any is String), let n = any as? NSNumber, let i = Int(exactly: n.doubleValue) {
                self = .integer(i)
            } else {
                self = .text(any as? String ?? "\(any)")
            }
        }

        var text: String {
            switch self {
            case .text(let s): return s
            case .integer(let i): return String(i)
            }
        }
    }

    /// `[name, value]` or `[name, value, checked]`.
    struct HeaderSpec: Sendable {
        var name: String
        var value: Value
        var checked: Bool
    }

    /// An `expected_response_headers` entry.
    enum Expectation: Sendable {
        case present(String)
        case equals(String, Value)
        case sameAs(String, String)
        case greaterThan(String, Double)
    }

    /// Absent key, JSON null, or a value.
    enum Optional3<T: Sendable>: Sendable {
        case absent
        case null
        case value(T)
    }

    struct Request: Sendable {
        var method: String?
        var requestHeaders: [(String, Value)] = []
        var requestBody: String?
        var filename: String?
        var queryArg: String?
        var magicIMS = false
        var magicLocations = false
        var rfc850date: [String] = []
        var cache: String?
        var responseStatus: (Int, String)?
        var responseHeaders: [HeaderSpec] = []
        var responseBody: Optional3<String> = .absent
        var expectedType: String?
        var expectedStatus: Optional3<Int> = .absent
        var expectedResponseHeaders: [Expectation] = []
        var expectedResponseHeadersMissing: [(String, String?)] = []
        var expectedRequestHeaders: [(String, String?)] = []
        var expectedRequestHeadersMissing: [(String, String?)] = []
        var expectedMethod: String?
        var expectedResponseText: Optional3<String> = .absent
        var checkBody = true
        var setup = false
        var setupTests: [String] = []
        var pauseAfter = false
        var disconnect = false
        var responsePause: Double?
        var hasInterim = false

        func isSetup(_ member: String) -> Bool { setup || setupTests.contains(member) }
    }

    struct Test: Sendable {
        var suite: String
        var id: String
        var kind: String
        var requests: [Request]
        var dependsOn: [String]
        var browserSkip: Bool
        var cdnOnly: Bool
        var privateProfile: Bool { !browserSkip && !cdnOnly }
    }

    static var fixtures: URL {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("http-cache-tests")
    }

    /// Every test of tests.json, in suite order.
    static func load() throws -> [Test] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("tests.json"))
        let suites = try JSONSerialization.jsonObject(with: data) as! [[String: Any]]
        var tests: [Test] = []
        for suite in suites {
            for test in suite["tests"] as! [[String: Any]] {
                tests.append(
                    Test(
                        suite: suite["id"] as! String, id: test["id"] as! String,
                        kind: test["kind"] as? String ?? "required",
                        requests: (test["requests"] as! [[String: Any]]).map(parseRequest),
                        dependsOn: test["depends_on"] as? [String] ?? [],
                        browserSkip: test["browser_skip"] as? Bool ?? false,
                        cdnOnly: test["cdn_only"] as? Bool ?? false))
            }
        }
        return tests
    }

    /// Per browser, the ids of the tests it passed (results/*.json).
    static func browserResults() throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for browser in ["chrome", "firefox", "safari"] {
            let data = try Data(contentsOf: fixtures.appendingPathComponent("results/\(browser).json"))
            let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
            result[browser] = Set(object.filter { ($0.value as? Bool) == true }.map(\.key))
        }
        return result
    }

    private static func parseRequest(_ r: [String: Any]) -> Request {
        var q = Request()
        q.method = r["request_method"] as? String
        q.requestHeaders = (r["request_headers"] as? [[Any]] ?? []).map { ($0[0] as! String, Value($0[1])) }
        q.requestBody = r["request_body"] as? String
        q.filename = r["filename"] as? String
        q.queryArg = r["query_arg"] as? String
        q.magicIMS = r["magic_ims"] as? Bool ?? false
        q.magicLocations = r["magic_locations"] as? Bool ?? false
        q.rfc850date = (r["rfc850date"] as? [String] ?? []).map { $0.lowercased() }
        q.cache = r["cache"] as? String
        if let status = r["response_status"] as? [Any] {
            q.responseStatus = ((status[0] as! NSNumber).intValue, status[1] as? String ?? "")
        }
        q.responseHeaders = (r["response_headers"] as? [[Any]] ?? []).map {
            HeaderSpec(name: $0[0] as! String, value: Value($0[1]), checked: $0.count < 3 || ($0[2] as? Bool ?? true))
        }
        q.responseBody = optional3(r, "response_body") { $0 as? String }
        q.expectedType = r["expected_type"] as? String
        q.expectedStatus = optional3(r, "expected_status") { ($0 as? NSNumber)?.intValue }
        q.expectedResponseHeaders = (r["expected_response_headers"] as? [Any] ?? []).map { item in
            if let name = item as? String { return .present(name) }
            let a = item as! [Any]
            if a.count > 2 {
                if a[1] as? String == "=" { return .sameAs(a[0] as! String, a[2] as! String) }
                return .greaterThan(a[0] as! String, (a[2] as! NSNumber).doubleValue)
            }
            return .equals(a[0] as! String, Value(a[1]))
        }
        q.expectedResponseHeadersMissing = pairs(r["expected_response_headers_missing"])
        q.expectedRequestHeaders = pairs(r["expected_request_headers"])
        q.expectedRequestHeadersMissing = pairs(r["expected_request_headers_missing"])
        q.expectedMethod = r["expected_method"] as? String
        q.expectedResponseText = optional3(r, "expected_response_text") { $0 as? String }
        q.checkBody = r["check_body"] as? Bool ?? true
        q.setup = r["setup"] as? Bool ?? false
        q.setupTests = r["setup_tests"] as? [String] ?? []
        q.pauseAfter = r["pause_after"] as? Bool ?? false
        q.disconnect = r["disconnect"] as? Bool ?? false
        q.responsePause = (r["response_pause"] as? NSNumber)?.doubleValue
        q.hasInterim = r["interim_responses"] != nil || r["expected_interim_responses"] != nil
        return q
    }

    private static func pairs(_ any: Any?) -> [(String, String?)] {
        (any as? [Any] ?? []).map { item in
            if let name = item as? String { return (name, nil) }
            let a = item as! [Any]
            return (a[0] as! String, Value(a[1]).text)
        }
    }

    private static func optional3<T>(_ r: [String: Any], _ key: String, _ read: (Any) -> T?) -> Optional3<T> {
        guard let value = r[key] else { return .absent }
        if value is NSNull { return .null }
        return read(value).map { .value($0) } ?? .null
    }

    // MARK: - Fix-ups (test-engine/lib/header-fixup.mjs)

    static let dateFields: Set<String> = [
        "date", "expires", "last-modified", "if-modified-since", "if-unmodified-since",
    ]
    static let locationFields: Set<String> = ["location", "content-location"]

    /// An integer date field becomes an HTTP date `delta` seconds from `Server-Now`; a location
    /// field becomes a URL on the test base with `magic_locations`.
    static func fixup(name: String, value: Value, serverNowMs: Int64?, baseURL: String?, request: Request) -> String {
        let lower = name.lowercased()
        if dateFields.contains(lower), case .integer(let delta) = value, let serverNowMs {
            let date = Date(timeIntervalSince1970: (Double(serverNowMs) + Double(delta) * 1000) / 1000)
            return request.rfc850date.contains(lower) ? rfc850(date) : HTTPDate.format(date)
        }
        if locationFields.contains(lower), request.magicLocations, let baseURL {
            return value.text.isEmpty ? baseURL : baseURL + "/" + value.text
        }
        return value.text
    }

    static func rfc850(_ date: Date) -> String {
        // Sunday, 06-Nov-94 08:49:37 GMT, from the IMF-fixdate's parts.
        let imf = HTTPDate.format(date) // "Sun, 06 Nov 1994 08:49:37 GMT"
        let parts = imf.split(separator: " ")
        let days = [
            "Sun": "Sunday", "Mon": "Monday", "Tue": "Tuesday", "Wed": "Wednesday", "Thu": "Thursday",
            "Fri": "Friday", "Sat": "Saturday",
        ]
        let day = days[String(parts[0].dropLast())]!
        return "\(day), \(parts[1])-\(parts[2])-\(parts[3].suffix(2)) \(parts[4]) GMT"
    }
}

/// The outcome of one test.
enum CacheTestResult: Sendable, Equatable {
    case pass
    case fail(String)
    /// A check the test marks as setup failed (upstream's 🔹): neither a pass nor a failure of the cache.
    case setupFailed(String)

    var passed: Bool { self == .pass }
}

/// A failed check.
struct CacheCheckFailure: Error {
    var setup: Bool
    var message: String
}

/// The mock origin of one test: test-engine/server/handle-test.mjs, in process.
final class CacheMockOrigin: Sendable {
    struct Record: Sendable {
        var requestNumber: Int?
        var method: String
        var requestHeaders: [String: String]
        var savedHeaders: [(String, String)]
    }

    struct State {
        var records: [Record] = []
        /// The response header fields each configured request produced, fixed up, once the origin answered it.
        var produced: [Int: [(String, String)]] = [:]
    }

    struct Disconnect: Error {}

    let requests: [CacheSuite.Request]
    let uuid: String
    let clock: TestClock
    let state = Locked(State())

    init(requests: [CacheSuite.Request], uuid: String, clock: TestClock) {
        self.requests = requests
        self.uuid = uuid
        self.clock = clock
    }

    var records: [Record] { state.withLock { $0.records } }

    func respond(_ request: CacheRequest) async throws -> OriginResponse {
        let clientNumber = request.headers.first(named: "Req-Num").flatMap { Int($0) }
        let serverNumber = state.withLock { $0.records.count + 1 }
        let number = clientNumber ?? serverNumber
        guard number >= 1, number <= requests.count else {
            return OriginResponse(
                status: 409, headers: ["Content-Type": "text/plain"], body: .data(Data("config not found".utf8)))
        }
        let config = requests[number - 1]
        if let pause = config.responsePause { clock.advance(pause) }
        let nowMs = Int64((clock.now.timeIntervalSince1970 * 1000).rounded())

        var status = config.responseStatus?.0 ?? 200
        if let type = config.expectedType, type.hasSuffix("validated") {
            let previous = number >= 2 ? previousHeaders(number - 2) : []
            let lastModified = previous.first { $0.0.lowercased() == "last-modified" }?.1
            let etag = previous.first { $0.0.lowercased() == "etag" }?.1
            if let lastModified, request.headers["If-Modified-Since"] == lastModified { status = 304 }
            if let etag, request.headers["If-None-Match"] == etag { status = 304 }
            if status != 304 { status = 999 }
        }

        let base = request.url.absoluteString
        var headers = HTTPHeaders()
        headers.append("Server-Base-Url", base)
        headers.append("Server-Request-Count", String(serverNumber))
        headers.append("Client-Request-Count", clientNumber.map(String.init) ?? "NaN")
        headers.append("Server-Now", String(nowMs))
        var saved: [(String, String)] = []
        var produced: [(String, String)] = []
        for spec in config.responseHeaders {
            let value = CacheSuite.fixup(
                name: spec.name, value: spec.value, serverNowMs: nowMs, baseURL: base, request: config)
            headers.append(spec.name, value)
            produced.append((spec.name, value))
            if spec.checked {
                let combined = headers.values(named: spec.name).joined(separator: ", ")
                if let index = saved.firstIndex(where: { $0.0 == spec.name }) {
                    saved[index].1 = combined
                } else {
                    saved.append((spec.name, combined))
                }
            }
        }
        if !headers.contains("Content-Type") { headers.append("Content-Type", "text/plain") }
        var requestHeaders: [String: String] = [:]
        for field in request.headers {
            let name = field.name.lowercased()
            requestHeaders[name] = requestHeaders[name].map { $0 + ", " + field.value } ?? field.value
        }
        let numbers = state.withLock { s -> String in
            s.records.append(
                Record(
                    requestNumber: clientNumber, method: request.normalizedMethod,
                    requestHeaders: requestHeaders, savedHeaders: saved))
            s.produced[number - 1] = produced
            return s.records.map { $0.requestNumber.map(String.init) ?? "NaN" }.joined(separator: " ")
        }
        headers.append("Request-Numbers", numbers)
        // Node's HTTP server adds Date (and a length) when the handler did not.
        if !headers.contains("Date") {
            headers.append("Date", HTTPDate.format(Date(timeIntervalSince1970: Double(nowMs) / 1000)))
        }
        if config.disconnect { throw Disconnect() }
        var body = Data()
        if status != 204 && status != 304 {
            if case .value(let text) = config.responseBody, !text.isEmpty {
                body = Data(text.utf8)
            } else {
                body = Data(uuid.utf8)
            }
            // Node sends the length of what it was given, and for HEAD no body.
            if !headers.contains("Content-Length") { headers.append("Content-Length", String(body.count)) }
            if request.normalizedMethod == "HEAD" { body = Data() }
        }
        return OriginResponse(status: status, headers: headers, body: .data(body))
    }

    /// The response header fields of configured request `index`: as the origin produced them
    /// when it answered it, else as configured (an integer date that was never fixed up matches nothing).
    private func previousHeaders(_ index: Int) -> [(String, String)] {
        if let produced = state.withLock({ $0.produced[index] }) { return produced }
        return requests[index].responseHeaders.compactMap { spec in
            if case .text(let text) = spec.value { return (spec.name, text) }
            return nil
        }
    }
}

/// Runs tests against one cache configuration.
struct CacheSuiteRunner {
    let store: WebsiteDataStore
    let clock: TestClock

    /// Replays one test; returns its result.
    func run(_ test: CacheSuite.Test) async -> CacheTestResult {
        let uuid = UUID().uuidString.lowercased()
        let origin = CacheMockOrigin(requests: test.requests, uuid: uuid, clock: clock)
        let cache = store.httpCache
        var responses: [(status: Int, headers: HTTPHeaders, body: Data)] = []
        do {
            for (index, config) in test.requests.enumerated() {
                let number = index + 1
                var url = "http://cache-tests.example/test/\(uuid)"
                if let filename = config.filename { url += "/" + filename }
                if let query = config.queryArg { url += "?" + query }
                var headers = HTTPHeaders()
                let previousNow = responses.last.flatMap { $0.headers["Server-Now"] }.flatMap { Int64($0) }
                for (name, value) in config.requestHeaders {
                    if config.magicIMS && name.lowercased() == "if-modified-since" {
                        headers.append(
                            name,
                            CacheSuite.fixup(
                                name: name, value: value, serverNowMs: previousNow, baseURL: nil, request: config))
                    } else {
                        headers.append(name, value.text)
                    }
                }
                headers.append("Test-ID", test.id)
                headers.append("Req-Num", String(number))
                let request = CacheRequest(
                    method: config.method ?? "GET", url: URL(string: url)!, headers: headers,
                    body: config.requestBody.map { Data($0.utf8) })
                let mode: CacheMode = config.cache.flatMap(CacheMode.init(rawValue:)) ?? .default
                let response: CachedResponse
                do {
                    response = try await cache.send(request, mode: mode, origin: { try await origin.respond($0) })
                } catch {
                    throw CacheCheckFailure(setup: false, message: "Request \(number): fetch failed (\(error))")
                }
                await cache.waitForBackgroundRevalidations()
                let body = try response.body.data()
                response.body.discardIfFile()
                responses.append((response.status, response.headers, body))
                try checkResponse(
                    config, number: number, status: response.status, headers: response.headers, body: body,
                    uuid: uuid, method: request.normalizedMethod)
                if config.pauseAfter { clock.advance(3) }
            }
            try checkServer(test.requests, responses: responses, records: origin.records)
            return .pass
        } catch let failure as CacheCheckFailure {
            return failure.setup ? .setupFailed(failure.message) : .fail(failure.message)
        } catch {
            return .fail("\(error)")
        }
    }

    private func check(_ setup: Bool, _ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw CacheCheckFailure(setup: setup, message: message()) }
    }

    /// test-engine/client/test.mjs checkResponse.
    private func checkResponse(
        _ config: CacheSuite.Request, number: Int, status: Int, headers: HTTPHeaders, body: Data,
        uuid: String, method: String
    ) throws {
        let servedNumber = headers["Server-Request-Count"].flatMap { Int($0) }
        if let type = config.expectedType {
            let setup = config.isSetup("expected_type")
            if type == "cached" && !(status == 304 && servedNumber == nil) {
                try check(
                    setup, servedNumber.map { $0 < number } ?? false, "Response \(number) does not come from cache")
            }
            if type == "not_cached" {
                try check(setup, servedNumber == number, "Response \(number) comes from cache")
            }
        }
        switch config.expectedStatus {
        case .value(let expected):
            try check(
                config.isSetup("expected_status"), status == expected,
                "Response \(number) status is \(status), not \(expected)")
        case .null:
            break
        case .absent:
            if let configured = config.responseStatus {
                try check(true, status == configured.0, "Response \(number) status is \(status), not \(configured.0)")
            } else if status == 999 {
                try check(
                    config.isSetup("expected_type"), false,
                    "Request \(number) should have been conditional, but it was not.")
            } else {
                try check(true, status == 200, "Response \(number) status is \(status), not 200")
            }
        }
        let setupPresent = config.isSetup("expected_response_headers")
        let serverNow = headers["Server-Now"].flatMap { Int64($0) }
        let base = headers["Server-Base-Url"]
        for expectation in config.expectedResponseHeaders {
            switch expectation {
            case .present(let name):
                try check(setupPresent, headers.contains(name), "Response \(number) \(name) header not present.")
            case .equals(let name, let value):
                let expected = CacheSuite.fixup(
                    name: name, value: value, serverNowMs: serverNow, baseURL: base, request: config)
                try check(
                    setupPresent, headers[name] == expected,
                    "Response \(number) header \(name) is \"\(headers[name] ?? "null")\", not \"\(expected)\"")
            case .sameAs(let name, let other):
                try check(setupPresent, headers.contains(name), "Response \(number) \(name) header not present.")
                try check(
                    setupPresent, headers[name] == headers[other],
                    "Response \(number) header \(name) is \(headers[name] ?? "null"), should match \(other)")
            case .greaterThan(let name, let bound):
                try check(setupPresent, headers.contains(name), "Response \(number) \(name) header not present.")
                let value = headers[name].flatMap { Double($0.prefix { $0.isNumber }) } ?? -.infinity
                try check(
                    setupPresent, value > bound,
                    "Response \(number) header \(name) is \(headers[name] ?? "null"), should be bigger than \(bound)")
            }
        }
        let setupMissing = config.isSetup("expected_response_headers_missing")
        for (name, value) in config.expectedResponseHeadersMissing {
            if let value {
                try check(
                    setupMissing, !(headers[name]?.contains(value) ?? false),
                    "Response \(number) header \(name) still has value \"\(value)\"")
            } else {
                try check(
                    setupMissing, !headers.contains(name),
                    "Response \(number) includes unexpected header \(name): \"\(headers[name] ?? "")\"")
            }
        }
        // The body.
        let text = String(decoding: body, as: UTF8.self)
        if !config.checkBody { return }
        switch config.expectedResponseText {
        case .value(let expected):
            try check(
                config.isSetup("expected_response_text"), text == expected,
                "Response body is \"\(text)\", not \"\(expected)\"")
            return
        case .null:
            return
        case .absent:
            break
        }
        if case .value(let expected) = config.responseBody {
            try check(true, text == expected, "Response body is \"\(text)\", not \"\(expected)\"")
        } else if status != 204 && status != 304 && method != "HEAD" {
            try check(true, text == uuid, "Response body is \"\(text)\", not \"\(uuid)\"")
        }
    }

    /// test-engine/client/test.mjs checkServerRequests.
    private func checkServer(
        _ requests: [CacheSuite.Request], responses: [(status: Int, headers: HTTPHeaders, body: Data)],
        records: [CacheMockOrigin.Record]
    ) throws {
        var recordIndex = 0
        for (index, config) in requests.enumerated() {
            let number = index + 1
            let response = responses[index]
            let record = recordIndex < records.count ? records[recordIndex] : nil
            let setup = config.isSetup("expected_type")
            var validators: [String] = []
            if let type = config.expectedType {
                if type == "cached" { continue }
                if type == "not_cached" {
                    guard let record else {
                        throw CacheCheckFailure(setup: false, message: "Request \(number) never reached the origin")
                    }
                    try check(
                        setup, record.requestNumber == number,
                        "Response \(number) comes from cache (\(record.requestNumber.map(String.init) ?? "NaN") on server)"
                    )
                }
                if type == "etag_validated" { validators.append("if-none-match") }
                if type == "lm_validated" { validators.append("if-modified-since") }
            }
            recordIndex += 1
            for name in validators {
                try check(setup, record != nil, "request \(number) wasn't sent to server")
                try check(setup, record?.requestHeaders[name] != nil, "request \(number) doesn't have \(name) header")
            }
            if !config.expectedRequestHeaders.isEmpty {
                guard let record else {
                    throw CacheCheckFailure(setup: false, message: "Request \(number) never reached the origin")
                }
                let setupPresent = config.isSetup("expected_request_headers")
                for (name, value) in config.expectedRequestHeaders {
                    let received = record.requestHeaders[name.lowercased()]
                    if let value {
                        try check(
                            setupPresent, received == value,
                            "Request \(number) header \(name) is \"\(received ?? "undefined")\", not \"\(value)\"")
                    } else {
                        try check(setupPresent, received != nil, "Request \(number) \(name) header not present.")
                    }
                }
            }
            if !config.expectedRequestHeadersMissing.isEmpty {
                guard let record else {
                    throw CacheCheckFailure(setup: false, message: "Request \(number) never reached the origin")
                }
                let setupMissing = config.isSetup("expected_request_headers_missing")
                for (name, value) in config.expectedRequestHeadersMissing {
                    let received = record.requestHeaders[name.lowercased()]
                    if let value {
                        try check(setupMissing, received != value, "Request \(number) header \(name) is \"\(value)\"")
                    } else {
                        try check(setupMissing, received == nil, "Request \(number) \(name) header present.")
                    }
                }
            }
            if let record {
                for (name, value) in record.savedHeaders where name.lowercased() != "date" {
                    try check(
                        true, response.headers[name] == value,
                        "Response \(number) header \(name) is \"\(response.headers[name] ?? "null")\", not \"\(value)\""
                    )
                }
            }
            if let expected = config.expectedMethod {
                try check(
                    config.isSetup("expected_method"), record?.method == expected,
                    "Request \(number) had method \(record?.method ?? "none"), not \(expected)")
            }
        }
    }
}
