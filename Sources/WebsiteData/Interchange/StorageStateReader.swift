import Foundation

/// Reads a Playwright `storageState` JSON file as it streams: its `cookies` one cookie at a
/// time and, when asked, its `origins` one origin entry at a time, so a file of any size is
/// read in bounded memory (one cookie, or one origin entry, at a time).
///
/// The whole document is checked to be valid JSON (members it does not read are checked, not
/// kept). Each cookie object is decoded on its own; its line is the line of its opening brace.
///
/// Cookie fields (Playwright's `NetworkCookie`): `name`, `value`, `domain` (a leading dot makes
/// a domain cookie, none a host-only one), `path` (default `/`), `expires` (Unix seconds, maybe
/// fractional; `-1`, `0` or missing for a session cookie), `httpOnly`, `secure`, `sameSite`
/// (`Strict`, `Lax` or `None`; missing for none given), `partitionKey` (the top-level site of
/// a partitioned cookie), and wkstore's `sameSiteSpecified` (`false` when the cookie had no
/// SameSite attribute; `sameSite` then says `Lax`, as Playwright reports such cookies).
/// `null` stands for a missing member. Other members (`_crHasCrossSiteAncestor`, `size`, and
/// `hostOnly`, `created`, … of `wkstore cookies list --json`) are ignored.
///
/// Origin entries (`StorageStateOriginEntry`): `origin`, `localStorage` and wkstore's
/// `sessionStorage` (`[{"name", "value"}]`), and `indexedDB` (Playwright 1.51+), each
/// database kept as JSON for the caller to decode. Other members are ignored.
struct StorageStateReader {
    /// Strings of a cookie object longer than this are refused: no valid cookie field is this long.
    static let maxFieldBytes = 1 << 16
    /// Deeper nesting than this is refused rather than followed. An IndexedDB value in `origins`
    /// may nest 256 deep, and Playwright's serialized form (`{"o": [{"k", "v"}]}`) takes three
    /// JSON levels for one, below the few levels of the document around it.
    static let maxDepth = 3 * IDBValue.maxDepth + 32

    /// The document a reader reads.
    enum Layout {
        /// Playwright's `{"cookies": [...], "origins": [...]}`.
        case storageState
        /// A top-level array of cookie objects, as browser extensions and `chrome.cookies.getAll`
        /// give them (`CookieFileFormat.extensionJSON`).
        case cookieArray
    }

    /// What the reader meets next.
    enum Event {
        /// A cookie, the line its object starts on, and its position in `cookies`; `sameSiteMapped`
        /// when its `SameSite=None` without Secure was read as no SameSite.
        case cookie(Cookie, line: Int, index: Int, sameSiteMapped: Bool)
        /// A cookie object that is JSON but not a cookie (a member missing or of the wrong type,
        /// a value out of range); the reader has read past it.
        case refusedCookie(CookieImportRefusal)
        /// The end of the `cookies` array (also when it was skipped).
        case endOfCookies
        /// An origin entry (only when `readsOrigins`).
        case origin(StorageStateOriginEntry)
        /// The end of the document.
        case end
    }

    let source: ByteSource
    /// The document's shape.
    let layout: Layout
    /// Whether cookie objects are decoded; when `false`, `cookies` is checked as JSON and skipped.
    var readsCookies = true
    /// Whether origin entries are decoded; when `false`, `origins` is checked as JSON and skipped.
    var readsOrigins = false
    /// An `origins` member was skipped (while `readsOrigins` was `false`).
    private(set) var skippedOrigins = false
    /// The current line (1-based): newlines consumed so far, plus one.
    private(set) var line = 1
    private var state = State.start
    private var sawCookies = false
    private var sawOrigins = false
    private var firstMember = true
    private var index = 0
    private var originIndex = 0
    /// The first fault of the cookie object being read.
    private var fault: CookieImportRefusal?

    private enum State {
        case start
        case members
        case cookies(first: Bool)
        case origins(first: Bool)
        case finished
    }

    init(source: ByteSource, layout: Layout = .storageState) {
        self.source = source
        self.layout = layout
    }

    /// The next cookie, or cookie object that is not one, or `nil` after the end of the document.
    ///
    /// - Parameter created: the creation time to give the cookie.
    /// - Throws: `CookieImportError` for a JSON syntax error or a document of the wrong shape;
    ///   `CookieFileError` when the file cannot be read.
    mutating func next(created: Date) throws -> CookieImportItem? {
        while true {
            switch try nextEvent(created: created) {
            case .cookie(let cookie, let line, let index, let mapped):
                return .cookie(cookie, line: line, index: index, path: entryPath(index), sameSiteMapped: mapped)
            case .refusedCookie(let refusal): return .refused(refusal)
            case .endOfCookies, .origin: continue
            case .end: return nil
            }
        }
    }

    /// The JSON path of the cookie object at `index`: `cookies[3]`, or `[3]` in a cookie array.
    func entryPath(_ index: Int) -> String {
        layout == .storageState ? "cookies[\(index)]" : "[\(index)]"
    }

    /// The next cookie, origin entry or end.
    ///
    /// - Parameter created: the creation time to give a cookie.
    /// - Throws: `CookieImportError` for a JSON syntax error or a cookie object that is not a
    ///   cookie; `StorageStateImportError` naming the JSON path of an origin entry that is not
    ///   one; `CookieFileError` when the file cannot be read.
    mutating func nextEvent(created: Date) throws -> Event {
        while true {
            switch state {
            case .start where layout == .cookieArray:
                guard let byte = try skipSpace() else {
                    throw error(
                        "a cookie array file is a JSON array of cookie objects ([{\"name\": ...}]), but the file is empty"
                    )
                }
                guard byte == UInt8(ascii: "[") else {
                    throw error(
                        "a cookie array file is a JSON array of cookie objects ([{\"name\": ...}]); found \(describe(byte))"
                    )
                }
                advance()
                state = .cookies(first: true)
            case .start:
                guard let byte = try skipSpace() else {
                    throw error(
                        "a storage state file is a JSON object ({\"cookies\": [...], \"origins\": [...]}), but the file is empty"
                    )
                }
                guard byte == UInt8(ascii: "{") else {
                    throw error(
                        "a storage state file is a JSON object ({\"cookies\": [...], \"origins\": [...]}); found \(describe(byte))"
                    )
                }
                advance()
                state = .members
            case .members:
                var first = firstMember
                let member = try nextKey(first: &first)
                firstMember = first
                guard let key = member else {
                    if let byte = try skipSpace() {
                        throw error("unexpected \(describe(byte)) after the end of the JSON document")
                    }
                    state = .finished
                    return .end
                }
                if key == "cookies" {
                    if sawCookies { throw error("the document has two \"cookies\" members") }
                    sawCookies = true
                    guard try skipSpace() == UInt8(ascii: "[") else {
                        throw error("\"cookies\" must be an array of cookie objects")
                    }
                    if readsCookies {
                        advance()
                        state = .cookies(first: true)
                    } else {
                        try skipValue(depth: 1)
                        return .endOfCookies
                    }
                } else if key == "origins" && readsOrigins {
                    if sawOrigins { throw error("the document has two \"origins\" members") }
                    sawOrigins = true
                    guard try skipSpace() == UInt8(ascii: "[") else {
                        throw error(
                            "\"origins\" must be an array of origin objects ({\"origin\": ..., \"localStorage\": [...]})"
                        )
                    }
                    advance()
                    state = .origins(first: true)
                } else {
                    if key == "origins" { skippedOrigins = true }
                    try skipValue(depth: 1)
                }
            case .cookies(let first):
                guard var byte = try skipSpace() else { throw endOfFile() }
                if byte == UInt8(ascii: "]") {
                    advance()
                    if layout == .cookieArray {
                        if let after = try skipSpace() {
                            throw error("unexpected \(describe(after)) after the end of the JSON document")
                        }
                        state = .finished
                    } else {
                        state = .members
                    }
                    return .endOfCookies
                }
                if !first {
                    guard byte == UInt8(ascii: ",") else {
                        throw error("expected ',' or ']' after \(entryPath(index - 1)), found \(describe(byte))")
                    }
                    advance()
                    guard let after = try skipSpace() else { throw endOfFile() }
                    byte = after
                }
                guard byte == UInt8(ascii: "{") else {
                    // JSON, but not a cookie object: read through, and refused on its own.
                    let at = line
                    let found = describe(byte)
                    try skipValue(depth: 2)
                    index += 1
                    state = .cookies(first: false)
                    return .refusedCookie(
                        CookieImportRefusal(
                            line: at, index: index - 1, path: entryPath(index - 1),
                            reason: "must be a cookie object, found \(found)"))
                }
                let start = line
                let read = try readCookie(startLine: start, created: created)
                index += 1
                state = .cookies(first: false)
                switch read {
                case .cookie(let cookie, let mapped):
                    return .cookie(cookie, line: start, index: index - 1, sameSiteMapped: mapped)
                case .fault(let refusal):
                    return .refusedCookie(refusal)
                }
            case .origins(let first):
                guard var byte = try skipSpace() else { throw endOfFile() }
                if byte == UInt8(ascii: "]") {
                    advance()
                    state = .members
                    continue
                }
                if !first {
                    guard byte == UInt8(ascii: ",") else {
                        throw error("expected ',' or ']' after origins[\(originIndex - 1)], found \(describe(byte))")
                    }
                    advance()
                    guard let after = try skipSpace() else { throw endOfFile() }
                    byte = after
                }
                let path = "origins[\(originIndex)]"
                guard byte == UInt8(ascii: "{") else {
                    throw StorageStateImportError(
                        line: line, path: path,
                        reason:
                            "an origin entry must be an object ({\"origin\": ..., \"localStorage\": [...]}), found \(describe(byte))"
                    )
                }
                let entry = try readOrigin(path: path)
                originIndex += 1
                state = .origins(first: false)
                return .origin(entry)
            case .finished:
                return .end
            }
        }
    }

    // MARK: - Origin entries

    /// Reads one origin entry (the current byte is its `{`). Errors name the JSON path of the
    /// member or item at fault and the line where it was found.
    private mutating func readOrigin(path: String) throws -> StorageStateOriginEntry {
        var entry = StorageStateOriginEntry(index: originIndex, line: line)
        var current = path
        do {
            advance() // {
            var first = true
            var seen = Set<String>()
            while let key = try nextKey(first: &first) {
                current = path + "." + key
                if ["origin", "localStorage", "sessionStorage", "indexedDB"].contains(key) {
                    if !seen.insert(key).inserted { throw error("the entry has two \"\(key)\" members") }
                }
                switch key {
                case "origin":
                    guard let byte = try skipSpace() else { throw endOfFile() }
                    if try readNull(byte) { continue }
                    guard byte == UInt8(ascii: "\"") else {
                        throw error("must be a string (\"https://example.com\"), found \(describe(byte))")
                    }
                    entry.origin = try readString(limit: Self.maxFieldBytes)
                    if entry.origin == nil {
                        throw error("is longer than \(Self.maxFieldBytes) bytes, more than any origin")
                    }
                case "localStorage":
                    entry.localStorage = try readItems(path: current)
                case "sessionStorage":
                    entry.sessionStorage = try readItems(path: current)
                case "indexedDB":
                    guard let byte = try skipSpace() else { throw endOfFile() }
                    if try readNull(byte) { continue }
                    guard byte == UInt8(ascii: "[") else {
                        throw error("must be an array of databases, found \(describe(byte))")
                    }
                    advance()
                    var databases: [(json: IDBJSONValue, line: Int)] = []
                    var firstItem = true
                    while try nextItem(first: &firstItem) {
                        current = path + ".indexedDB[\(databases.count)]"
                        _ = try skipSpace()
                        let start = line
                        databases.append((try readValue(depth: 4), start))
                    }
                    entry.indexedDB = databases
                default:
                    try skipValue(depth: 3)
                }
                current = path
            }
        } catch let failure as CookieImportError {
            throw StorageStateImportError(line: failure.line, path: current, reason: failure.reason)
        }
        return entry
    }

    /// Reads `[{"name": ..., "value": ...}, ...]` (or `null`, as missing).
    private mutating func readItems(path: String) throws -> [StorageStateItem]? {
        guard let byte = try skipSpace() else { throw endOfFile() }
        if try readNull(byte) { return nil }
        guard byte == UInt8(ascii: "[") else {
            throw StorageStateImportError(
                line: line, path: path,
                reason: "must be an array of {\"name\": ..., \"value\": ...} objects, found \(describe(byte))")
        }
        advance()
        var items: [StorageStateItem] = []
        var first = true
        while try nextItem(first: &first) {
            let itemPath = path + "[\(items.count)]"
            do {
                items.append(try readItem(path: itemPath))
            } catch let failure as CookieImportError {
                throw StorageStateImportError(line: failure.line, path: itemPath, reason: failure.reason)
            }
        }
        return items
    }

    /// Reads one `{"name": ..., "value": ...}` object; other members are checked and ignored.
    private mutating func readItem(path: String) throws -> StorageStateItem {
        guard try skipSpace() == UInt8(ascii: "{") else {
            throw StorageStateImportError(
                line: line, path: path, reason: "must be a {\"name\": ..., \"value\": ...} object")
        }
        let start = line
        advance()
        var name: String?
        var value: String?
        var first = true
        while let key = try nextKey(first: &first) {
            guard key == "name" || key == "value" else {
                try skipValue(depth: 6)
                continue
            }
            guard let next = try skipSpace() else { throw endOfFile() }
            guard next == UInt8(ascii: "\"") else {
                throw StorageStateImportError(
                    line: line, path: path + "." + key, reason: "must be a string, found \(describe(next))")
            }
            let text = try readString(limit: Int.max) ?? ""
            if key == "name" { name = text } else { value = text }
        }
        guard let name else { throw StorageStateImportError(line: start, path: path, reason: "has no \"name\"") }
        guard let value else { throw StorageStateImportError(line: start, path: path, reason: "has no \"value\"") }
        return StorageStateItem(name: name, value: value, line: start)
    }

    /// Moves to the next element of an array whose `[` was consumed; `false` at its `]`.
    private mutating func nextItem(first: inout Bool) throws -> Bool {
        guard let byte = try skipSpace() else { throw endOfFile() }
        if byte == UInt8(ascii: "]") {
            advance()
            return false
        }
        if !first {
            guard byte == UInt8(ascii: ",") else {
                throw error("expected ',' or ']' in an array, found \(describe(byte))")
            }
            advance()
        }
        first = false
        return true
    }

    /// Reads a JSON value, keeping the order of object members.
    private mutating func readValue(depth: Int) throws -> IDBJSONValue {
        guard depth <= Self.maxDepth else { throw error("the JSON is nested more than \(Self.maxDepth) levels deep") }
        guard let byte = try skipSpace() else { throw endOfFile() }
        switch byte {
        case UInt8(ascii: "{"):
            advance()
            var members: [IDBJSONValue.Member] = []
            var first = true
            while let key = try nextKey(first: &first, keyLimit: Int.max) {
                members.append(IDBJSONValue.Member(key, try readValue(depth: depth + 1)))
            }
            return .object(members)
        case UInt8(ascii: "["):
            advance()
            var elements: [IDBJSONValue] = []
            var first = true
            while try nextItem(first: &first) {
                elements.append(try readValue(depth: depth + 1))
            }
            return .array(elements)
        case UInt8(ascii: "\""):
            return .string(try readString(limit: Int.max) ?? "")
        case UInt8(ascii: "t"):
            try readLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try readLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try readLiteral("null")
            return .null
        case UInt8(ascii: "-"), 0x30...0x39:
            return .number(try readNumber())
        default:
            throw error("expected a JSON value, found \(describe(byte))")
        }
    }

    // MARK: - Cookie objects

    /// A cookie object read: the cookie, or why it is not one.
    private enum CookieRead {
        case cookie(Cookie, sameSiteMapped: Bool)
        case fault(CookieImportRefusal)
    }

    /// Reads one cookie object (the current byte is its `{`) to its `}`.
    ///
    /// Members of the wrong type are read through, so that the next object can be read; the
    /// first fault is what the object is refused for. Members are Playwright's and, in any
    /// layout, those of `chrome.cookies` and the extensions that export it (`expirationDate`,
    /// `session`, `sameSite` as `no_restriction` / `unspecified`, `partitionKey` as
    /// `{"topLevelSite": ...}`); `hostOnly` is read in a cookie array only (a storage state's
    /// domain says it with its dot). `SameSite=None` without Secure is read as no SameSite.
    private mutating func readCookie(startLine: Int, created: Date) throws -> CookieRead {
        advance() // {
        fault = nil
        var name: String?
        var value: String?
        var domain: String?
        var path: String?
        var sameSite: String?
        var partitionKey: String?
        var expires: Double?
        var expirationDate: Double?
        var session: Bool?
        var hostOnly: Bool?
        var httpOnly = false
        var secure = false
        var sameSiteSpecified = true
        var first = true
        while let key = try nextKey(first: &first) {
            switch key {
            case "name": name = try stringField(key)
            case "value": value = try stringField(key)
            case "domain": domain = try stringField(key)
            case "path": path = try stringField(key)
            case "sameSite": sameSite = try stringField(key)
            case "partitionKey": partitionKey = try partitionKeyField(key)
            case "expires": expires = try numberField(key)
            case "expirationDate": expirationDate = try numberField(key)
            case "session": session = try boolField(key)
            case "hostOnly" where layout == .cookieArray: hostOnly = try boolField(key)
            case "httpOnly": httpOnly = try boolField(key) ?? false
            case "secure": secure = try boolField(key) ?? false
            case "sameSiteSpecified": sameSiteSpecified = try boolField(key) ?? true
            default: try skipValue(depth: 3)
            }
        }
        if let fault { return .fault(fault) }
        let entry = entryPath(index)
        func refuse(_ reason: String) -> CookieRead {
            .fault(CookieImportRefusal(line: startLine, index: index, path: entry, reason: reason))
        }
        guard let name else { return refuse("has no \"name\"") }
        guard let value else { return refuse("has no \"value\"") }
        guard var domain else { return refuse("has no \"domain\"") }
        if domain.utf8.contains(UInt8(ascii: ":")) { domain = ImportedCookieDomain.droppingPort(domain) }
        var isHostOnly = true
        if domain.hasPrefix(".") {
            domain.removeFirst()
            isHostOnly = false
        }
        if let hostOnly { isHostOnly = hostOnly }
        var date: Date?
        let member = expirationDate != nil ? "expirationDate" : "expires"
        if session != true, let seconds = expirationDate ?? expires, seconds != -1, seconds != 0 {
            // Playwright refuses other negative values.
            guard seconds > 0 else {
                return refuse("has \"\(member)\": \(seconds); expected Unix seconds, or -1 for a session cookie")
            }
            date = Date(timeIntervalSince1970: seconds)
        }
        var policy = CookieSameSite.unspecified
        if let sameSite {
            switch sameSite.lowercased() {
            case "strict": policy = .strict
            case "lax": policy = .lax
            case "none", "no_restriction": policy = .none
            case "unspecified": policy = .unspecified
            default:
                let expected =
                    layout == .storageState
                    ? "\"Strict\", \"Lax\" or \"None\""
                    : "\"strict\", \"lax\", \"no_restriction\" or \"unspecified\" (or \"Strict\", \"Lax\", \"None\")"
                return refuse("has \"sameSite\": \"\(sameSite.prefix(40))\"; expected \(expected)")
            }
        }
        if !sameSiteSpecified { policy = .unspecified }
        // Firefox and WebKit keep SameSite=None without Secure (a cookie set with no SameSite on
        // plain HTTP shows as None); the store, as RFC 6265bis and Chromium, does not: such a
        // cookie is kept as one with no SameSite, not Secure (Docs/interchange.md).
        var mapped = false
        if policy == .none && !secure {
            policy = .unspecified
            mapped = true
        }
        let cookie = Cookie(
            name: name, value: value, domain: domain, path: path ?? "/", isHostOnly: isHostOnly,
            isSecure: secure, isHTTPOnly: httpOnly, sameSite: policy, partitionKey: partitionKey ?? "",
            expires: date, created: created)
        return .cookie(cookie, sameSiteMapped: mapped)
    }

    /// Records the first fault of the cookie object being read, at the current line.
    private mutating func note(_ key: String, _ reason: String, line at: Int) {
        if fault == nil {
            fault = CookieImportRefusal(line: at, index: index, path: entryPath(index) + "." + key, reason: reason)
        }
    }

    /// A string member; `nil` for `null` (which `wkstore cookies list --json` writes for no
    /// partition), or after noting a fault (another type, or too long).
    private mutating func stringField(_ key: String) throws -> String? {
        guard let byte = try skipSpace() else { throw endOfFile() }
        if try readNull(byte) { return nil }
        let at = line
        guard byte == UInt8(ascii: "\"") else {
            try skipValue(depth: 3)
            note(key, "must be a string, found \(describe(byte))", line: at)
            return nil
        }
        guard let string = try readString(limit: Self.maxFieldBytes) else {
            note(key, "is longer than \(Self.maxFieldBytes) bytes", line: at)
            return nil
        }
        return string
    }

    /// `partitionKey`: Playwright's string (`"https://example.net"`), or `chrome.cookies`'
    /// object (`{"topLevelSite": "https://example.net", "hasCrossSiteAncestor": false}`).
    private mutating func partitionKeyField(_ key: String) throws -> String? {
        guard let byte = try skipSpace() else { throw endOfFile() }
        guard byte == UInt8(ascii: "{") else { return try stringField(key) }
        advance()
        var site: String?
        var first = true
        while let member = try nextKey(first: &first) {
            if member == "topLevelSite" {
                site = try stringField(key + ".topLevelSite")
            } else {
                try skipValue(depth: 4)
            }
        }
        return site
    }

    private mutating func numberField(_ key: String) throws -> Double? {
        guard let byte = try skipSpace() else { throw endOfFile() }
        if try readNull(byte) { return nil }
        guard byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39) else {
            let at = line
            try skipValue(depth: 3)
            note(key, "must be a number, found \(describe(byte))", line: at)
            return nil
        }
        return try readNumber()
    }

    private mutating func boolField(_ key: String) throws -> Bool? {
        guard let byte = try skipSpace() else { throw endOfFile() }
        if try readNull(byte) { return nil }
        switch byte {
        case UInt8(ascii: "t"):
            try readLiteral("true")
            return true
        case UInt8(ascii: "f"):
            try readLiteral("false")
            return false
        default:
            let at = line
            try skipValue(depth: 3)
            note(key, "must be true or false, found \(describe(byte))", line: at)
            return nil
        }
    }

    /// Reads `null` when `byte` starts it.
    private mutating func readNull(_ byte: UInt8) throws -> Bool {
        guard byte == UInt8(ascii: "n") else { return false }
        try readLiteral("null")
        return true
    }

    // MARK: - Tokens

    /// Reads the next member key of an object and its `:`; `nil` at the object's `}`.
    private mutating func nextKey(first: inout Bool, keyLimit: Int = 64) throws -> String? {
        guard var byte = try skipSpace() else { throw endOfFile() }
        if byte == UInt8(ascii: "}") {
            advance()
            return nil
        }
        if !first {
            guard byte == UInt8(ascii: ",") else {
                throw error("expected ',' or '}' after an object member, found \(describe(byte))")
            }
            advance()
            guard let after = try skipSpace() else { throw endOfFile() }
            byte = after
        }
        first = false
        guard byte == UInt8(ascii: "\"") else {
            throw error("expected a member name in double quotes, found \(describe(byte))")
        }
        // A key longer than any we know is read through and reported as unknown.
        let key = try readString(limit: keyLimit) ?? ""
        guard let colon = try skipSpace() else { throw endOfFile() }
        guard colon == UInt8(ascii: ":") else {
            throw error("expected ':' after a member name, found \(describe(colon))")
        }
        advance()
        return key
    }

    /// Reads and checks a value without keeping it.
    private mutating func skipValue(depth: Int) throws {
        guard depth <= Self.maxDepth else { throw error("the JSON is nested more than \(Self.maxDepth) levels deep") }
        guard let byte = try skipSpace() else { throw endOfFile() }
        switch byte {
        case UInt8(ascii: "{"):
            advance()
            var first = true
            while try nextKey(first: &first) != nil {
                try skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "["):
            advance()
            var first = true
            while true {
                guard let next = try skipSpace() else { throw endOfFile() }
                if next == UInt8(ascii: "]") {
                    advance()
                    break
                }
                if !first {
                    guard next == UInt8(ascii: ",") else {
                        throw error("expected ',' or ']' in an array, found \(describe(next))")
                    }
                    advance()
                }
                first = false
                try skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "\""):
            _ = try readString(limit: 0)
        case UInt8(ascii: "t"):
            try readLiteral("true")
        case UInt8(ascii: "f"):
            try readLiteral("false")
        case UInt8(ascii: "n"):
            try readLiteral("null")
        case UInt8(ascii: "-"), 0x30...0x39:
            _ = try readNumber()
        default:
            throw error("expected a JSON value, found \(describe(byte))")
        }
    }

    /// Reads a string (the current byte is its opening quote), decoding escapes.
    ///
    /// - Parameter limit: the most UTF-8 bytes kept; a longer string is read through and `nil`
    ///   returned. With `0`, the string is only checked.
    private mutating func readString(limit: Int) throws -> String? {
        advance() // "
        var bytes: [UInt8] = []
        var overflow = limit == 0
        func keep(_ byte: UInt8) {
            if overflow { return }
            if bytes.count >= limit {
                overflow = true
                bytes = []
            } else {
                bytes.append(byte)
            }
        }
        while true {
            // Runs of plain bytes are scanned in the buffer and kept in one piece: strings in a
            // skipped `origins` section may be megabytes long.
            if source.position >= source.buffer.count {
                guard try source.refill() else { throw endOfFile() }
            }
            let from = source.position
            let stop = source.buffer.withUnsafeBufferPointer { buffer -> Int in
                var i = from
                while i < buffer.count {
                    let byte = buffer[i]
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                    i += 1
                }
                return i
            }
            if !overflow && stop > from {
                if bytes.count + (stop - from) > limit {
                    overflow = true
                    bytes = []
                } else {
                    bytes.append(contentsOf: source.buffer[from..<stop])
                }
            }
            source.position = stop
            guard stop < source.buffer.count else { continue }
            let byte = source.buffer[stop]
            advance()
            switch byte {
            case UInt8(ascii: "\""):
                if overflow { return nil }
                guard let string = String(bytes: bytes, encoding: .utf8) else {
                    throw error("a string is not valid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"):
                guard let escape = try peek() else { throw endOfFile() }
                advance()
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): keep(escape)
                case UInt8(ascii: "b"): keep(0x08)
                case UInt8(ascii: "f"): keep(0x0C)
                case UInt8(ascii: "n"): keep(0x0A)
                case UInt8(ascii: "r"): keep(0x0D)
                case UInt8(ascii: "t"): keep(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try readHex4()
                    if scalar >= 0xD800 && scalar <= 0xDBFF {
                        guard try peek() == UInt8(ascii: "\\") else {
                            throw error("a \\u escape is half a surrogate pair")
                        }
                        advance()
                        guard try peek() == UInt8(ascii: "u") else {
                            throw error("a \\u escape is half a surrogate pair")
                        }
                        advance()
                        let low = try readHex4()
                        guard low >= 0xDC00 && low <= 0xDFFF else {
                            throw error("a \\u escape is half a surrogate pair")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                        throw error("a \\u escape is half a surrogate pair")
                    }
                    for unit in String(Character(Unicode.Scalar(scalar)!)).utf8 { keep(unit) }
                default:
                    throw error("invalid escape in a string: a backslash followed by \(describe(escape))")
                }
            default:
                throw error("a control character (0x\(String(byte, radix: 16))) in a string must be escaped")
            }
        }
    }

    private mutating func readHex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try peek() else { throw endOfFile() }
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw error("a \\u escape needs four hex digits, found \(describe(byte))")
            }
            advance()
            value = value << 4 | digit
        }
        return value
    }

    /// Reads a JSON number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func readNumber() throws -> Double {
        var text: [UInt8] = []
        while let byte = try peek(), text.count <= 64,
            (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
        {
            text.append(byte)
            advance()
        }
        let string = String(decoding: text, as: UTF8.self)
        guard Self.isJSONNumber(text), let number = Double(string), number.isFinite else {
            throw error("'\(string.prefix(40))' is not a JSON number")
        }
        return number
    }

    static func isJSONNumber(_ text: [UInt8]) -> Bool {
        var i = 0
        func digits() -> Int {
            let start = i
            while i < text.count && text[i] >= 0x30 && text[i] <= 0x39 { i += 1 }
            return i - start
        }
        if i < text.count && text[i] == UInt8(ascii: "-") { i += 1 }
        guard i < text.count else { return false }
        if text[i] == 0x30 { i += 1 } else if digits() == 0 { return false }
        if i < text.count && text[i] == UInt8(ascii: ".") {
            i += 1
            if digits() == 0 { return false }
        }
        if i < text.count && (text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E")) {
            i += 1
            if i < text.count && (text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-")) { i += 1 }
            if digits() == 0 { return false }
        }
        return i == text.count
    }

    private mutating func readLiteral(_ word: StaticString) throws {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard let next = try peek(), next == byte else {
                throw error("expected '\(word)'")
            }
            advance()
        }
    }

    // MARK: - Bytes

    @inline(__always)
    private mutating func peek() throws -> UInt8? {
        if source.position < source.buffer.count { return source.buffer[source.position] }
        guard try source.refill() else { return nil }
        return source.buffer[source.position]
    }

    @inline(__always)
    private mutating func advance() {
        source.position += 1
    }

    /// Skips white space, counting lines; returns the next byte without consuming it.
    private mutating func skipSpace() throws -> UInt8? {
        while let byte = try peek() {
            guard ByteSource.isSpace(byte) else { return byte }
            if byte == 0x0A { line += 1 }
            advance()
        }
        return nil
    }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16))"
    }

    private func error(_ reason: String) -> CookieImportError {
        CookieImportError(line: line, reason: reason)
    }

    private func endOfFile() -> CookieImportError {
        CookieImportError(line: line, reason: "the JSON ends before the document is complete")
    }
}
