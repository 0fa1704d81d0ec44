import Foundation

/// The caching rules for one stored response, as a private (single-user) cache applies them:
/// RFC 9111 with the RFC 5861 extensions `stale-while-revalidate` and `stale-if-error`.
///
/// Usable on its own, with no store, in the manner of `http-cache-semantics`: make a policy
/// from a request and the response it got, ask `isStorable`; later, for a new request, ask
/// `satisfiesWithoutRevalidation(_:at:)` (or `reuse(for:at:)` for the whole verdict), send
/// `revalidationHeaders(for:)` when it must be validated, and fold the answer in with
/// `revalidated(request:status:headers:requestTime:responseTime:)`. `responseHeaders(at:)`
/// gives the header fields to serve, with a current `Age`.
///
/// As a private cache: `s-maxage`, `proxy-revalidate` and `private` do not limit it, and a
/// request's `Authorization` does not prevent storing. `Pragma` is ignored (RFC 9111 §5.4
/// deprecates it). The header fields kept (`headers`) exclude hop-by-hop fields, the fields
/// `Connection` lists, the fields a qualified `no-cache="…"` names, and, unless
/// `Options.storesCookieHeaders`, `Set-Cookie`, `Set-Cookie2` and `Clear-Site-Data`, so
/// that a stored response never replays them (Chromium's rule).
public struct CachePolicy: Sendable, Hashable {
    /// Choices a cache makes where the RFC leaves room.
    public struct Options: Sendable, Hashable {
        /// Keep `Set-Cookie`, `Set-Cookie2` and `Clear-Site-Data` in stored responses (RFC 9111
        /// §3.1 to the letter). Off by default: like Chromium, the cache drops them, so cookie
        /// values are never written to the cache and a hit never replays them.
        public var storesCookieHeaders: Bool
        /// The fraction of the time since `Last-Modified` used as heuristic freshness (RFC 9111 §4.2.2).
        public var heuristicFraction: Double

        /// Creates options.
        ///
        /// - Parameters:
        ///   - storesCookieHeaders: keep cookie and `Clear-Site-Data` fields in stored responses.
        ///   - heuristicFraction: the heuristic freshness fraction; 10% by default.
        public init(storesCookieHeaders: Bool = false, heuristicFraction: Double = 0.1) {
            self.storesCookieHeaders = storesCookieHeaders
            self.heuristicFraction = heuristicFraction
        }
    }

    /// How a stored response can be used for a request.
    public enum Reuse: Sendable, Hashable {
        /// Fresh enough for the request: serve it.
        case fresh
        /// Stale, but the request's `max-stale` accepts it: serve it.
        case staleAllowed
        /// Stale within its `stale-while-revalidate` window: serve it and revalidate in the background.
        case staleWhileRevalidate
        /// It must be validated with the origin first.
        case revalidate
        /// It does not answer this request (another method, URL or `Vary` variant).
        case unusable
    }

    /// The method of the stored response's request (`GET`; a `POST` response stored for its
    /// `Content-Location` is stored as `GET`).
    public var method: String { storage.method }
    /// The URL the response answers, without fragment.
    public var url: URL { storage.url }
    /// The status code.
    public var status: Int { storage.status }
    /// The header fields as stored.
    public var headers: HTTPHeaders { storage.headers }
    /// When the request was sent.
    public var requestTime: Date { storage.requestTime }
    /// When the response was received.
    public var responseTime: Date { storage.responseTime }
    /// The request header values the response's `Vary` nominates, normalised; empty without `Vary`.
    public var variantKey: String { storage.variantKey }
    /// Whether a private cache may store the response (RFC 9111 §3).
    public var isStorable: Bool { storage.isStorable }
    /// The options the policy was made with.
    public internal(set) var options: Options
    var cacheControl: CacheControl { storage.cacheControl }
    /// The `Date` field's time, or the response time when it has none that parses.
    var dateValue: Date { storage.dateValue }
    /// The corrected initial age (RFC 9111 §4.2.3): the larger of the apparent age and `Age`
    /// plus the response delay.
    var initialAge: TimeInterval { storage.initialAge }
    /// Where `freshnessLifetime` comes from.
    var lifetimeBasis: LifetimeBasis { storage.lifetimeBasis }
    /// The lower-case names the `Vary` fields list.
    var varyNames: [String] { storage.varyNames }
    /// Whether the response must be validated before every use (an unqualified `no-cache`).
    var requiresValidation: Bool { storage.requiresValidation }

    /// Everything but the options, in one immutable object. A hit passes its policy along and
    /// copies it several times; a copy of a dozen fields retained each of their references, and
    /// on a large cache each retain is a cache miss.
    private let storage: Storage

    private final class Storage: Sendable {
        let method: String
        let url: URL
        let status: Int
        let headers: HTTPHeaders
        let requestTime: Date
        let responseTime: Date
        let variantKey: String
        let isStorable: Bool
        let cacheControl: CacheControl
        let dateValue: Date
        let initialAge: TimeInterval
        let lifetimeBasis: LifetimeBasis
        let varyNames: [String]
        let requiresValidation: Bool
        let hasAgeField: Bool

        init(
            method: String, url: URL, status: Int, headers: HTTPHeaders, requestTime: Date, responseTime: Date,
            variantKey: String, isStorable: Bool
        ) {
            self.method = method
            self.url = url
            self.status = status
            self.headers = headers
            self.requestTime = requestTime
            self.responseTime = responseTime
            self.variantKey = variantKey
            self.isStorable = isStorable
            let cacheControl = CacheControl(headers: headers)
            self.cacheControl = cacheControl
            let dateValue =
                headers.first(named: "Date").flatMap { HTTPDate.parse($0, now: responseTime) } ?? responseTime
            self.dateValue = dateValue
            let apparentAge = max(0, responseTime.timeIntervalSince(dateValue))
            let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
            self.initialAge = max(apparentAge, TimeInterval(CachePolicy.ageValue(headers)) + responseDelay)
            self.lifetimeBasis = CachePolicy.lifetimeBasis(
                status: status, headers: headers, control: cacheControl, dateValue: dateValue,
                responseTime: responseTime)
            self.varyNames = CachePolicy.varyNames(headers)
            self.requiresValidation = cacheControl.contains("no-cache") && cacheControl.argument("no-cache") == nil
            self.hasAgeField = headers.contains("Age")
        }
    }

    /// Policies are equal when what they were made from and their options are.
    public static func == (lhs: CachePolicy, rhs: CachePolicy) -> Bool {
        guard lhs.options == rhs.options else { return false }
        if lhs.storage === rhs.storage { return true }
        let (l, r) = (lhs.storage, rhs.storage)
        return l.method == r.method && l.url == r.url && l.status == r.status && l.headers == r.headers
            && l.requestTime == r.requestTime && l.responseTime == r.responseTime && l.variantKey == r.variantKey
            && l.isStorable == r.isStorable
    }

    /// Hashes what the policy was made from and its options.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(options)
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(status)
        hasher.combine(headers)
        hasher.combine(requestTime)
        hasher.combine(responseTime)
        hasher.combine(variantKey)
        hasher.combine(isStorable)
    }

    /// The source of the freshness lifetime, read from the header fields once: each use of a
    /// stored response asks its lifetime and age, and parsing `Date`, `Expires` and `Age` again
    /// for each was a tenth of a memory-cache hit.
    enum LifetimeBasis: Sendable, Hashable {
        /// `max-age`, or `Expires` minus `Date`: seconds.
        case seconds(TimeInterval)
        /// The heuristic: the time from `Last-Modified` to `Date`, of which the lifetime is `Options.heuristicFraction`.
        case sinceLastModified(TimeInterval)
    }

    // MARK: - Making a policy

    /// Makes the policy of a response to a request.
    ///
    /// - Parameters:
    ///   - request: the request that was sent.
    ///   - status: the response's status code.
    ///   - headers: the response's header fields, as received.
    ///   - requestTime: when the request was sent.
    ///   - responseTime: when the response was received.
    ///   - options: the cache's choices.
    public init(
        request: CacheRequest, status: Int, headers: HTTPHeaders, requestTime: Date, responseTime: Date,
        options: Options = Options()
    ) {
        let responseControl = CacheControl(headers: headers)
        let requestControl = CacheControl(headers: request.headers)
        let requestMethod = request.normalizedMethod
        let url = Self.cacheURL(request.url)
        let varyNames = Self.varyNames(headers)
        var method = requestMethod
        var storable = Self.storable(
            method: requestMethod, status: status, headers: headers, control: responseControl,
            requestControl: requestControl, varyNames: varyNames)
        if storable && requestMethod == "POST" {
            // RFC 9110 §9.3.3: a POST response is reusable for GET only with explicit freshness
            // and a Content-Location naming the request's own URI.
            let explicit = responseControl.seconds("max-age") != nil || headers.contains("Expires")
            let location = headers.first(named: "Content-Location").flatMap {
                URL(string: $0, relativeTo: request.url)?.absoluteURL
            }
            storable = explicit && location.map { Self.cacheURL($0) == url } == true
            method = "GET"
        }
        self.init(
            method: method, url: url, status: status,
            headers: Self.storedHeaders(headers, control: responseControl, options: options),
            requestTime: requestTime, responseTime: responseTime,
            variantKey: Self.variantKey(varyNames, request.headers), isStorable: storable, options: options)
        if storable, freshnessLifetime <= age(at: responseTime), !hasValidator, !hasExplicitFreshness,
            cacheControl.seconds("stale-if-error") == nil, cacheControl.seconds("stale-while-revalidate") == nil
        {
            // No freshness information and nothing to validate with: storing it could save no request
            // (a response the origin gave a lifetime to is kept even when stale: max-stale may use it).
            self = CachePolicy(
                method: method, url: url, status: status, headers: self.headers, requestTime: requestTime,
                responseTime: responseTime, variantKey: variantKey, isStorable: false, options: options)
        }
    }

    /// A policy rebuilt from what a store kept.
    init(
        method: String, url: URL, status: Int, headers: HTTPHeaders, requestTime: Date, responseTime: Date,
        variantKey: String, isStorable: Bool = true, options: Options
    ) {
        self.storage = Storage(
            method: method, url: url, status: status, headers: headers, requestTime: requestTime,
            responseTime: responseTime, variantKey: variantKey, isStorable: isStorable)
        self.options = options
    }

    // MARK: - Freshness (RFC 9111 §4.2)

    /// The freshness lifetime in seconds: `max-age`, else `Expires` minus `Date`, else the
    /// heuristic (a tenth of the time since `Last-Modified`) for heuristically cacheable
    /// statuses and `public` responses, else 0. An invalid `max-age` or `Expires` gives 0.
    public var freshnessLifetime: TimeInterval {
        switch lifetimeBasis {
        case .seconds(let seconds): return seconds
        case .sinceLastModified(let interval): return interval * options.heuristicFraction
        }
    }

    /// `freshnessLifetime`'s source: `max-age`, else `Expires` minus `Date`, else for
    /// heuristically cacheable statuses and `public` responses the time since `Last-Modified`,
    /// else none (0 seconds). An invalid `max-age` or `Expires` gives 0.
    fileprivate static func lifetimeBasis(
        status: Int, headers: HTTPHeaders, control: CacheControl, dateValue: Date, responseTime: Date
    ) -> LifetimeBasis {
        if let maxAge = control.seconds("max-age") { return .seconds(TimeInterval(maxAge.value ?? 0)) }
        if let expires = headers.first(named: "Expires") {
            // RFC 9111 §5.3: an invalid date, notably "0", is in the past.
            guard let date = HTTPDate.parse(expires, now: responseTime) else { return .seconds(0) }
            return .seconds(max(0, date.timeIntervalSince(dateValue)))
        }
        if heuristicallyCacheable.contains(status) || control.contains("public"),
            let text = headers.first(named: "Last-Modified"),
            let lastModified = HTTPDate.parse(text, now: responseTime),
            lastModified < dateValue
        {
            return .sinceLastModified(dateValue.timeIntervalSince(lastModified))
        }
        return .seconds(0)
    }

    /// The response's current age in seconds (RFC 9111 §4.2.3): the corrected initial age
    /// (the larger of the apparent age and `Age` plus the response delay) plus the time resident in the cache.
    ///
    /// - Parameter now: the present.
    /// - Returns: the age.
    public func age(at now: Date) -> TimeInterval {
        initialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// Seconds left before the response is stale; 0 when it is.
    ///
    /// - Parameter now: the present.
    /// - Returns: the time to live.
    public func timeToLive(at now: Date) -> TimeInterval { max(0, freshnessLifetime - age(at: now)) }

    /// Whether the response is stale.
    ///
    /// - Parameter now: the present.
    /// - Returns: `true` when its age has reached its freshness lifetime.
    public func isStale(at now: Date) -> Bool { freshnessLifetime <= age(at: now) }

    /// The `Age` field in seconds (RFC 9111 §5.1): the first value only, clamped to 2^31; an invalid value counts as 0.
    static func ageValue(_ headers: HTTPHeaders) -> Int64 {
        guard let field = headers.first(named: "Age") else { return 0 }
        let first =
            field.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first.map {
                $0.trimmingHTTPWhitespace()
            } ?? ""
        guard !first.isEmpty, first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return 0 }
        var value: Int64 = 0
        for c in first.utf8 { value = min(value * 10 + Int64(c - 48), DeltaSeconds.maximum) }
        return value
    }

    var hasValidator: Bool { headers.contains("ETag") || headers.contains("Last-Modified") }

    var hasExplicitFreshness: Bool { cacheControl.contains("max-age") || headers.contains("Expires") }

    /// Whether the response may never be served stale (`must-revalidate`, or `no-cache`).
    var forbidsStale: Bool { requiresValidation || cacheControl.contains("must-revalidate") }

    /// Whether the response says it will not change while fresh (`immutable`, RFC 8246).
    var isImmutable: Bool { cacheControl.contains("immutable") }

    // MARK: - Reuse (RFC 9111 §4)

    /// How this stored response can be used for `request`.
    ///
    /// - Parameters:
    ///   - request: the presented request.
    ///   - now: the present.
    /// - Returns: the verdict.
    public func reuse(for request: CacheRequest, at now: Date) -> Reuse {
        guard matches(request) else { return .unusable }
        let requestControl = CacheControl(headers: request.headers)
        if requiresValidation || requestControl.contains("no-cache") { return .revalidate }
        let age = age(at: now)
        let lifetime = freshnessLifetime
        if let maxAge = requestControl.seconds("max-age"), age > TimeInterval(maxAge.value ?? 0) { return .revalidate }
        if let minFresh = requestControl.seconds("min-fresh"), lifetime - age < TimeInterval(minFresh.value ?? 0) {
            return .revalidate
        }
        if lifetime > age { return .fresh }
        if forbidsStale { return .revalidate }
        if let maxStale = requestControl.directives["max-stale"] {
            if maxStale == nil { return .staleAllowed }
            if let allowed = requestControl.seconds("max-stale")?.value, age - lifetime <= TimeInterval(allowed) {
                return .staleAllowed
            }
        }
        if let window = cacheControl.seconds("stale-while-revalidate")?.value,
            !requestControl.contains("max-age"), !requestControl.contains("min-fresh"),
            age - lifetime <= TimeInterval(window)
        {
            return .staleWhileRevalidate
        }
        return .revalidate
    }

    /// Whether this stored response answers `request` without asking the origin: it matches,
    /// and it is fresh enough or stale within what the request accepts.
    ///
    /// - Parameters:
    ///   - request: the presented request.
    ///   - now: the present.
    /// - Returns: `true` when it can be served as is.
    public func satisfiesWithoutRevalidation(_ request: CacheRequest, at now: Date) -> Bool {
        let verdict = reuse(for: request, at: now)
        return verdict == .fresh || verdict == .staleAllowed
    }

    /// Whether the stored response answers `request` at all: same URL, a `GET` or `HEAD` for a
    /// stored `GET`, and the request header fields its `Vary` nominates equal (RFC 9111 §4.1).
    ///
    /// - Parameter request: the presented request.
    /// - Returns: `true` when it matches.
    public func matches(_ request: CacheRequest) -> Bool {
        matchesVariant(of: request) && Self.cacheURL(request.url) == url
    }

    /// `matches(_:)` for a response found by the request's resource key (`CacheResourceKey`),
    /// whose URL is the response's: the method and the `Vary` fields only. Comparing the URLs
    /// again was a twentieth of a memory-cache hit.
    package func matchesVariant(of request: CacheRequest) -> Bool {
        let requestMethod = request.normalizedMethod
        guard requestMethod == method || (requestMethod == "HEAD" && method == "GET") else { return false }
        if varyNames.contains("*") { return false }
        return Self.variantKey(varyNames, request.headers) == variantKey
    }

    /// Whether a stale response may be served because validation failed with a network error
    /// or an error status: within `stale-if-error` (of the response or the request), or, for a
    /// network error (`disconnected`), whenever no directive forbids serving stale (RFC 9111 §4.2.4).
    ///
    /// - Parameters:
    ///   - request: the presented request.
    ///   - now: the present.
    ///   - disconnected: whether the origin could not be reached at all.
    /// - Returns: `true` when the stored response may be served.
    public func allowsStaleOnError(_ request: CacheRequest, at now: Date, disconnected: Bool) -> Bool {
        guard matches(request) else { return false }
        let requestControl = CacheControl(headers: request.headers)
        if forbidsStale || requestControl.contains("no-cache") { return false }
        let staleness = age(at: now) - freshnessLifetime
        let window = max(
            cacheControl.seconds("stale-if-error")?.value ?? -1,
            requestControl.seconds("stale-if-error")?.value ?? -1)
        if window >= 0 && staleness <= TimeInterval(window) { return true }
        return disconnected
    }

    // MARK: - Validation (RFC 9111 §4.3)

    /// The header fields of a request that validates this stored response: the request's own
    /// fields with `If-None-Match` set to the stored `ETag` and `If-Modified-Since` to the stored
    /// `Last-Modified`, when it has them.
    ///
    /// - Parameter request: the presented request.
    /// - Returns: the fields to send.
    public func revalidationHeaders(for request: CacheRequest) -> HTTPHeaders {
        var fields = request.headers
        if let etag = headers.first(named: "ETag") { fields.set("If-None-Match", etag) }
        if let lastModified = headers.first(named: "Last-Modified") { fields.set("If-Modified-Since", lastModified) }
        return fields
    }

    /// Folds the origin's answer to a validation request in.
    ///
    /// A `304` updates the stored header fields (RFC 9111 §3.2: each field the `304` carries
    /// replaces the stored ones of that name, except `Content-Length` and what is never
    /// stored) and restarts the response's age; any other status is a new response.
    ///
    /// - Parameters:
    ///   - request: the request sent.
    ///   - status: the answer's status code.
    ///   - headers: the answer's header fields.
    ///   - requestTime: when the validation request was sent.
    ///   - responseTime: when the answer was received.
    /// - Returns: the policy to keep, and whether the response was modified (not a `304`).
    public func revalidated(
        request: CacheRequest, status: Int, headers: HTTPHeaders, requestTime: Date,
        responseTime: Date
    ) -> (policy: CachePolicy, modified: Bool) {
        guard status == 304 else {
            return (
                CachePolicy(
                    request: request, status: status, headers: headers, requestTime: requestTime,
                    responseTime: responseTime, options: options), true
            )
        }
        return (updated(with: headers, requestTime: requestTime, responseTime: responseTime), false)
    }

    /// The policy after a `200` response to `HEAD` for the stored `GET` response (RFC 9111
    /// §4.3.5), or `nil` when the `HEAD` response describes another representation (a
    /// different `ETag`, `Last-Modified` or `Content-Length`) or is not a `200`.
    ///
    /// - Parameters:
    ///   - status: the `HEAD` response's status.
    ///   - headers: its header fields.
    ///   - requestTime: when the `HEAD` request was sent.
    ///   - responseTime: when its response was received.
    /// - Returns: the updated policy, or `nil`.
    public func updated(
        byHEADStatus status: Int, headers fields: HTTPHeaders, requestTime: Date,
        responseTime: Date
    ) -> CachePolicy? {
        guard status == 200 else { return nil }
        for name in ["ETag", "Last-Modified", "Content-Length"] {
            if let new = fields.first(named: name), let old = headers.first(named: name), new != old { return nil }
        }
        return updated(with: fields, requestTime: requestTime, responseTime: responseTime)
    }

    private func updated(with fields: HTTPHeaders, requestTime: Date, responseTime: Date) -> CachePolicy {
        let incoming = Self.storedHeaders(fields, control: CacheControl(headers: fields), options: options)
        var merged = headers
        var replaced = Set<String>()
        for field in incoming.fields {
            let name = field.name.lowercased()
            if name == "content-length" { continue }
            if replaced.insert(name).inserted { merged.remove(name) }
            merged.append(field.name, field.value)
        }
        return CachePolicy(
            method: method, url: url, status: status, headers: merged, requestTime: requestTime,
            responseTime: responseTime, variantKey: variantKey, options: options)
    }

    // MARK: - Serving

    /// The header fields to serve the stored response with: as stored, with `Age` set to its
    /// current age in whole seconds (RFC 9111 §5.1).
    ///
    /// - Parameter now: the present.
    /// - Returns: the fields.
    public func responseHeaders(at now: Date) -> HTTPHeaders {
        responseHeaders(age: age(at: now))
    }

    /// The header fields to serve at the age given: the stored ones with `Age` set.
    func responseHeaders(age: TimeInterval) -> HTTPHeaders {
        var fields = headers
        let value = String(Int64(age.rounded(.down)))
        // Without a stored `Age` (most responses) the field is appended: no search of the fields.
        if storage.hasAgeField { fields.set("Age", value) } else { fields.append("Age", value) }
        return fields
    }

    /// Whether the caller's own conditional request (`If-None-Match`, else `If-Modified-Since`)
    /// is satisfied by this stored response, so a `304` answers it (RFC 9111 §4.3.2, RFC 9110
    /// §13.2.2); `nil` when the request has no condition the cache evaluates.
    ///
    /// - Parameter request: the presented request.
    /// - Returns: `true` for "not modified", `false` for "send the full response", `nil` for "no condition".
    public func conditionIsNotModified(_ request: CacheRequest) -> Bool? {
        if let ifNoneMatch = request.headers["If-None-Match"] {
            let tags = Self.entityTags(ifNoneMatch)
            if tags.contains("*") { return true }
            guard let etag = headers.first(named: "ETag") else { return false }
            let stored = Self.weakTag(etag)
            return tags.contains { Self.weakTag($0) == stored }
        }
        if let text = request.headers.first(named: "If-Modified-Since"),
            let since = HTTPDate.parse(text, now: responseTime)
        {
            let modified =
                headers.first(named: "Last-Modified").flatMap { HTTPDate.parse($0, now: responseTime) } ?? dateValue
            return modified <= since
        }
        return nil
    }

    /// The header fields of a `304` generated for a caller's conditional request (RFC 9110 §15.4.5).
    ///
    /// - Parameter now: the present.
    /// - Returns: the stored `Cache-Control`, `Content-Location`, `Date`, `ETag`, `Expires`,
    ///   `Last-Modified` and `Vary` fields, and `Age`.
    public func notModifiedHeaders(at now: Date) -> HTTPHeaders {
        let kept: Set<String> = [
            "cache-control", "content-location", "date", "etag", "expires", "last-modified", "vary",
        ]
        var fields = HTTPHeaders(headers.fields.filter { kept.contains($0.name.lowercased()) })
        fields.set("Age", String(Int64(age(at: now).rounded(.down))))
        return fields
    }

    // MARK: - Rules

    /// Statuses a cache may give heuristic freshness (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Final statuses this cache understands (RFC 9110 §15), for `must-understand`. `206` is
    /// left out: partial responses are not stored.
    static let understoodStatuses: Set<Int> = Set([
        200, 201, 202, 203, 204, 205, 300, 301, 302, 303, 304, 307, 308,
        421, 422, 426, 500, 501, 502, 503, 504, 505,
    ]).union(400...417)

    /// Fields never stored: hop-by-hop fields (RFC 9110 §7.6.1) and the proxy fields RFC 9111 §3.1 names.
    static let unstoredFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding",
        "upgrade", "trailer", "proxy-authenticate", "proxy-authentication-info",
        "proxy-authorization",
    ]

    /// Fields a stored response must not replay: cookies and `Clear-Site-Data`.
    static let cookieFields: Set<String> = ["set-cookie", "set-cookie2", "clear-site-data"]

    static func storable(
        method: String, status: Int, headers: HTTPHeaders, control: CacheControl,
        requestControl: CacheControl, varyNames: [String]
    ) -> Bool {
        guard method == "GET" || method == "POST" else { return false }
        guard status >= 200, status != 206, status != 304, status <= 999 else { return false }
        if requestControl.contains("no-store") { return false }
        if control.contains("must-understand") {
            // RFC 9111 §5.2.2.3: understood statuses may ignore no-store; others may not be stored.
            guard understoodStatuses.contains(status) else { return false }
        } else if control.contains("no-store") {
            return false
        }
        if varyNames.contains("*") { return false }
        return headers.contains("Expires") || control.contains("max-age") || control.contains("public")
            || control.contains("private") || heuristicallyCacheable.contains(status)
    }

    static func storedHeaders(_ headers: HTTPHeaders, control: CacheControl, options: Options) -> HTTPHeaders {
        var removed = unstoredFields
        for value in headers.values(named: "Connection") {
            for name in value.split(separator: ",") { removed.insert(name.trimmingHTTPWhitespace().lowercased()) }
        }
        for name in control.fieldNames("no-cache") { removed.insert(name) }
        if !options.storesCookieHeaders { removed.formUnion(cookieFields) }
        var kept = headers
        kept.remove(lowercasedNames: removed)
        return kept
    }

    /// The URL a response is stored under: the request URL without its fragment.
    static func cacheURL(_ url: URL) -> URL {
        let text = url.absoluteString
        // Searched as bytes: `firstIndex(of:)` walks Characters, a tenth of a memory-cache hit.
        let hasFragment =
            text.utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: "#")) }
            ?? text.utf8.contains(UInt8(ascii: "#"))
        guard hasFragment, let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) else { return url }
        return URL(string: String(text[..<hash])) ?? url
    }

    /// The lower-case names a response's `Vary` fields list (`*` included as is).
    package static func varyNames(_ headers: HTTPHeaders) -> [String] {
        var names: [String] = []
        for value in headers.values(named: "Vary") {
            for name in value.split(separator: ",") {
                let trimmed = name.trimmingHTTPWhitespace().lowercased()
                if !trimmed.isEmpty && !names.contains(trimmed) { names.append(trimmed) }
            }
        }
        return names
    }

    /// The request's values of the nominated fields, each normalised: repeated fields combined,
    /// list members trimmed and joined by commas; an absent field differs from an empty one.
    package static func variantKey(_ names: [String], _ fields: HTTPHeaders) -> String {
        guard !names.isEmpty else { return "" }
        return names.map { name -> String in
            let values = fields.values(named: name)
            guard !values.isEmpty else { return name }
            let members = values.joined(separator: ",").split(separator: ",", omittingEmptySubsequences: false)
            return name + ":" + members.map { $0.trimmingHTTPWhitespace() }.joined(separator: ",")
        }.joined(separator: "\u{1F}")
    }

    /// The entity tags of an `If-None-Match` list (commas inside quotes do not split).
    static func entityTags(_ value: String) -> [String] {
        var tags: [String] = []
        var current = ""
        var inQuotes = false
        for c in value {
            if c == "\"" { inQuotes.toggle() }
            if c == "," && !inQuotes {
                tags.append(current.trimmingHTTPWhitespace())
                current = ""
            } else {
                current.append(c)
            }
        }
        tags.append(current.trimmingHTTPWhitespace())
        return tags.filter { !$0.isEmpty }
    }

    /// An entity tag for weak comparison: without `W/` and without its quotes.
    static func weakTag(_ tag: String) -> String {
        var t = Substring(tag.trimmingHTTPWhitespace())
        if t.hasPrefix("W/") { t = t.dropFirst(2) }
        if t.count >= 2, t.hasPrefix("\""), t.hasSuffix("\"") { t = t.dropFirst().dropLast() }
        return String(t)
    }
}
