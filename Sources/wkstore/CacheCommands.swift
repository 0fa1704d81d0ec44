import Foundation
import WebsiteData

/// `wkstore cache …`: what the store's HTTP cache holds, and why an entry is or is not fresh.
enum CacheCommands {
    /// The group.
    static var group: CommandGroup {
        CommandGroup(
            name: "cache", summary: "look into the store's HTTP cache",
            commands: [
                CommandSpec(ListCommand.self), CommandSpec(ShowCommand.self), CommandSpec(SizeCommand.self),
                CommandSpec(RemoveCommand.self),
            ])
    }

    /// `wkstore cache list`.
    struct ListCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["cache", "list"],
            summary: "list the cached responses: URL, method, status, size, when stored, freshness left",
            details: """
                Lists the responses the store's disk cache holds, one a line: URL, method, status, \
                size (URL, header fields and body, as counted against cache.max-size), when it was \
                stored or last revalidated, and how long it stays fresh ('fresh for N s') or how long \
                ago it went stale ('stale by N s'); then, when there is one, the top-level site it was \
                cached under (when not the URL's own) and the request field values it varies on. \
                Listing is not a use: no entry moves in the eviction order. With --json, an array of \
                objects with every field of the entry. 'wkstore cache show URL' explains one entry.

                Example:
                  wkstore cache list --site example.com
                """)

        @Option(
            name: "site", placeholder: "SITE", help: "only the entries of this site (display name); may be repeated",
            parse: ClearCommand.parseSite)
        var sites: [String]

        func run(_ invocation: Invocation) async throws {
            try await CacheCommands.runList(sites: ClearCommand.readSites(sites), invocation)
        }
    }

    /// `wkstore cache show`.
    struct ShowCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["cache", "show"],
            summary: "show a cached response: header fields, age, freshness left, and why",
            details: """
                Looks URL up in the store's disk cache as a GET request would (never asking the \
                server) and shows the stored response: status, header \
                fields (with its current Age), body size, its age, how long it stays fresh and why \
                (max-age, Expires, or the heuristic over Last-Modified), what a request made now \
                would get (HIT, a revalidation, or STALE), and the validators a revalidation sends. \
                Exits 1 when nothing is stored for the URL.

                Entries are partitioned by the top-level site of the page that made the request: \
                give --top-level-site for a subresource cached under another page. A response with \
                Vary is stored per value of the fields it names: give them with -H. Looking an entry \
                up is not a use of it: its place in the eviction order does not change.

                Example:
                  wkstore fetch https://www.example.com/app.js --quiet -o /dev/null
                  wkstore cache show https://www.example.com/app.js
                """)

        @Argument(
            placeholder: "URL", help: "a URL",
            parse: { text throws(CLIError) in try FetchCommand.httpURL(text, "the cached URL") })
        var url: URL
        @Option(
            name: "top-level-site", placeholder: "URL",
            help: "the page the response was fetched for (default: URL itself)",
            parse: { text throws(CLIError) in try CookiesCommands.parseURL(text, "--top-level-site") })
        var topLevelSite: URL?
        // Converted in `run` by `FetchCommand.headerField`, which names the header field type.
        @Option(
            name: "header", alias: "H", placeholder: "'NAME: VALUE'",
            help: "a request header field the response varies on; may be repeated")
        var headers: [String]

        func run(_ invocation: Invocation) async throws {
            try await CacheCommands.runShow(self, invocation)
        }
    }

    /// `wkstore cache remove`.
    struct RemoveCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["cache", "remove"],
            summary: "remove the cached responses of a URL",
            details: """
                Removes every stored response of URL (its fragment ignored): every top-level site it \
                was fetched under, every method and every Vary variant, from the disk cache. \
                Processes holding the store open drop their in-memory copies of the URL's site, \
                which they only fetch again. Prints how many responses it removed; with \
                --must-match, exits 1 when there was none. 'wkstore clear --types diskcache --site \
                SITE' removes a whole site's.

                Example:
                  wkstore cache remove https://www.example.com/app.js
                """)

        @Argument(
            placeholder: "URL", help: "a URL",
            parse: { text throws(CLIError) in try FetchCommand.httpURL(text, "the cached URL") })
        var url: URL
        @Flag(name: "must-match", help: "exit 1 when nothing was cached for URL")
        var mustMatch: Bool

        func run(_ invocation: Invocation) async throws {
            let store = try invocation.openStore(for: .remove)
            let removed = try store.httpCache.removeEntries(for: url)
            let output = invocation.output
            if output.json {
                output.write(.object([("url", .string(url.absoluteString)), ("removed", .int(Int64(removed)))]))
            } else if removed == 0 {
                output.line("nothing cached for \(url.absoluteString)")
            } else {
                output.line("removed \(Format.count(removed, "cached response")) for \(url.absoluteString)")
            }
            try CLIError.requireMatch(removed > 0, mustMatch, "nothing cached for \(url.absoluteString)")
        }
    }

    /// `wkstore cache size`.
    struct SizeCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["cache", "size"],
            summary: "show how much the disk and memory caches hold, against their limits",
            details: """
                Prints the bytes the disk cache holds (URLs, header fields and bodies) against its \
                limit, the setting cache.max-size, and the sites it holds them for; and the limit of \
                the memory cache, memorycache.max-size, which every process using the store has for \
                itself (a wkstore command holds none). 'wkstore records --sizes --types diskcache' \
                shows the sites largest first; 'wkstore config set cache.max-size 1GB' changes the limit.
                """)

        func run(_ invocation: Invocation) async throws {
            try await CacheCommands.runSize(invocation)
        }
    }

    /// Lists the entries of `sites` (of every site when `nil`).
    static func runList(sites: Set<String>?, _ invocation: Invocation) async throws {
        let store = try invocation.openStore(for: .read)
        let entries = try store.httpCache.entries(sites: sites)
        let now = Date()
        let output = invocation.output
        if output.json {
            output.write(.array(entries.map { CacheListing(entry: $0, at: now).json }))
        } else {
            output.lines(Format.table(entries.map { CacheListing(entry: $0, at: now).cells }))
        }
    }

    /// Shows the entry `cache show` asks for, and why it is or is not fresh.
    static func runShow(_ command: ShowCommand, _ invocation: Invocation) async throws {
        let url = command.url
        let topLevelSite = command.topLevelSite
        let fields = try command.headers.map(FetchCommand.headerField)
        let request = CacheRequest(url: url, headers: HTTPHeaders(fields))
        let store = try invocation.openStore(for: .read)
        // The variant a lookup would choose: the most recently received of those matching.
        let stored = try store.httpCache.entries(for: url).filter { $0.matches(request, topLevelSite: topLevelSite) }
            .max { $0.policy.responseTime < $1.policy.responseTime }
        guard let stored else {
            var message = "\(url.absoluteString) is not in the cache"
            if let topLevelSite { message += " of \(topLevelSite.absoluteString)" }
            throw CLIError.failure(message)
        }
        let now = Date()
        let entry = CacheEntryReport(request: request, entry: stored, at: now)
        let output = invocation.output
        if output.json {
            output.write(entry.json)
        } else {
            output.lines(entry.lines)
        }
    }

    /// Shows what the caches hold against their limits.
    static func runSize(_ invocation: Invocation) async throws {
        let store = try invocation.openStore(for: .read)
        let settings = try store.settings()
        let diskLimitText = settings[.cacheMaxSize] ?? StoreSetting.cacheMaxSize.defaultValue
        let memoryLimitText = settings[.memoryCacheMaxSize] ?? StoreSetting.memoryCacheMaxSize.defaultValue
        let diskLimit = byteCount(diskLimitText) ?? 0
        let memoryLimit = byteCount(memoryLimitText) ?? 0
        let disk = try store.httpCache.diskUsage()
        let sites = try await store.dataRecords(ofTypes: [.diskCache]).count
        let output = invocation.output
        if output.json {
            output.write(
                .object([
                    (
                        "disk",
                        .object([
                            ("bytes", .int(disk)),
                            ("limit", .int(diskLimit)),
                            ("setting", .string(StoreSetting.cacheMaxSize.key)),
                            ("sites", .int(Int64(sites))),
                        ])
                    ),
                    (
                        "memory",
                        .object([
                            ("bytes", .int(store.httpCache.memoryUsage)),
                            ("limit", .int(memoryLimit)),
                            ("setting", .string(StoreSetting.memoryCacheMaxSize.key)),
                            ("perProcess", .bool(true)),
                        ])
                    ),
                ]))
            return
        }
        let share = diskLimit > 0 ? String(format: "%.1f", Double(disk) * 100 / Double(diskLimit)) + "%" : "-"
        let memory =
            memoryLimit == 0
            ? "off in every process" : "up to \(Format.bytes(memoryLimit)) in each process using the store"
        output.lines(
            Format.table([
                [
                    "disk cache",
                    "\(Format.bytes(disk)) of \(Format.bytes(diskLimit)) (\(share)), \(Format.count(sites, "site"))",
                    "\(StoreSetting.cacheMaxSize.key) = \(diskLimitText)",
                ],
                ["memory cache", memory, "\(StoreSetting.memoryCacheMaxSize.key) = \(memoryLimitText)"],
            ]))
    }

    /// A size as the cache settings read it: whole bytes, or with `KB`, `MB`, `GB` (`K`, `KiB`, …),
    /// powers of 1024, case-insensitive.
    static func byteCount(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int64(digits) else { return nil }
        let multiplier: Int64
        switch trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased() {
        case "", "b": multiplier = 1
        case "k", "kb", "kib": multiplier = 1 << 10
        case "m", "mb", "mib": multiplier = 1 << 20
        case "g", "gb", "gib": multiplier = 1 << 30
        default: return nil
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : bytes
    }
}

/// A stored entry's freshness in whole seconds, as `cache list` and `cache show` print it.
struct CacheFreshness {
    let policy: CachePolicy
    let now: Date

    var age: Int { Int(policy.age(at: now).rounded(.down)) }
    var lifetime: Int { Int(policy.freshnessLifetime.rounded(.down)) }
    /// Seconds left, from the whole-second age and lifetime (so that age + left = lifetime).
    var timeToLive: Int { isFresh ? max(0, lifetime - age) : 0 }
    var isFresh: Bool { !policy.isStale(at: now) }
    /// `fresh for N s` or `stale by N s`.
    var text: String { isFresh ? "fresh for \(timeToLive) s" : "stale by \(max(0, age - lifetime)) s" }
}

/// One line (or JSON object) of `cache list`.
struct CacheListing {
    let entry: HTTPCache.StoredEntry
    let freshness: CacheFreshness

    init(entry: HTTPCache.StoredEntry, at now: Date) {
        self.entry = entry
        freshness = CacheFreshness(policy: entry.policy, now: now)
    }

    /// The top-level site the entry was cached under, when it is not the URL's own.
    var foreignPartition: String? {
        entry.matches(CacheRequest(method: "HEAD", url: entry.url, headers: requestFields)) ? nil : entry.partition
    }

    /// The request fields of the entry's variant.
    var requestFields: HTTPHeaders {
        HTTPHeaders(entry.variant.compactMap { field in field.value.map { (field.name, $0) } })
    }

    var cells: [String] {
        var extra: [String] = []
        if let foreignPartition { extra.append("under \(foreignPartition)") }
        if !entry.variant.isEmpty {
            extra.append("vary " + entry.variant.map { "\($0.name)=\($0.value ?? "(none)")" }.joined(separator: " "))
        }
        return [
            entry.url.absoluteString, entry.method, String(entry.status), Format.bytes(entry.size),
            Format.iso8601Seconds(entry.modified), freshness.text, extra.joined(separator: "; "),
        ]
    }

    var json: JSONValue {
        .object([
            ("url", .string(entry.url.absoluteString)),
            ("method", .string(entry.method)),
            ("partition", .string(entry.partition)),
            ("variant", .object(entry.variant.map { ($0.name, JSONValue.optional($0.value)) })),
            ("site", .string(entry.site)),
            ("status", .int(Int64(entry.status))),
            ("bodySize", .int(entry.bodySize)),
            ("size", .int(entry.size)),
            ("created", JSONValue.date(entry.created)),
            ("modified", JSONValue.date(entry.modified)),
            ("lastAccess", JSONValue.date(entry.lastAccess)),
            ("age", .int(Int64(freshness.age))),
            ("freshnessLifetime", .int(Int64(freshness.lifetime))),
            ("fresh", .bool(freshness.isFresh)),
            ("timeToLive", .int(Int64(freshness.timeToLive))),
            ("onDisk", .bool(entry.isOnDisk)),
            ("inMemory", .bool(entry.isInMemory)),
        ])
    }
}

/// A stored response as `cache show` explains it, from the entry's policy (its stored header
/// fields and request and response times), read without using the entry.
struct CacheEntryReport {
    let request: CacheRequest
    let entry: HTTPCache.StoredEntry
    let policy: CachePolicy
    /// The stored header fields with a current `Age`, as a hit would serve them.
    let headers: HTTPHeaders
    let control: CacheControl
    let now: Date
    let freshness: CacheFreshness

    init(request: CacheRequest, entry: HTTPCache.StoredEntry, at now: Date) {
        self.request = request
        self.entry = entry
        self.now = now
        policy = entry.policy
        headers = policy.responseHeaders(at: now)
        control = CacheControl(headers: policy.headers)
        freshness = CacheFreshness(policy: policy, now: now)
    }

    var age: Int { freshness.age }
    var lifetime: Int { freshness.lifetime }
    var timeToLive: Int { freshness.timeToLive }
    var isFresh: Bool { freshness.isFresh }

    /// Where the freshness lifetime comes from.
    var lifetimeSource: String {
        if let maxAge = control.seconds("max-age") {
            return maxAge.value.map { "Cache-Control: max-age=\($0)" }
                ?? "Cache-Control: max-age that is not a number, so stale"
        }
        if let expires = headers.first(named: "Expires") { return "Expires: \(expires), minus Date" }
        if policy.freshnessLifetime > 0 { return "heuristic: a tenth of the time from Last-Modified to Date" }
        return "no max-age, Expires or earlier Last-Modified, so stale from the start"
    }

    /// What a plain GET made now would get.
    var verdict: (outcome: String, why: String) {
        switch policy.reuse(for: request, at: now) {
        case .fresh: return ("HIT", "fresh: served from the cache without asking the server")
        case .staleAllowed: return ("STALE", "stale, but the request accepts it (max-stale)")
        case .staleWhileRevalidate:
            return ("STALE", "stale within stale-while-revalidate: served, and revalidated in the background")
        case .revalidate:
            if control.contains("no-cache") && control.argument("no-cache") == nil {
                return ("REVALIDATED or MISS", "no-cache: validated with the server before every use")
            }
            return ("REVALIDATED or MISS", "stale: validated with the server first (a 304 keeps it)")
        case .unusable: return ("MISS", "it does not answer a plain GET for this URL")
        }
    }

    /// Other directives that change how the entry is used.
    var notes: [String] {
        var notes: [String] = []
        if control.contains("must-revalidate") {
            notes.append("must-revalidate: never served stale, even when the server is unreachable")
        }
        if control.contains("immutable") { notes.append("immutable: not revalidated while fresh, even on reload") }
        if let window = control.seconds("stale-while-revalidate")?.value {
            notes.append(
                "stale-while-revalidate=\(window): may be served up to \(window) s stale while it is refreshed")
        }
        if let window = control.seconds("stale-if-error")?.value {
            notes.append("stale-if-error=\(window): may be served up to \(window) s stale when the server fails")
        }
        if headers.contains("Vary") {
            notes.append(
                "Vary: \(headers.values(named: "Vary").joined(separator: ", ")): stored per value of those request fields"
            )
        }
        return notes
    }

    /// The validators a revalidation sends.
    var validators: [String] {
        var list: [String] = []
        if let tag = headers.first(named: "ETag") { list.append("ETag \(tag) (If-None-Match)") }
        if let date = headers.first(named: "Last-Modified") { list.append("Last-Modified \(date) (If-Modified-Since)") }
        return list
    }

    var lines: [String] {
        var rows: [[String]] = [
            ["url", request.url.absoluteString],
            ["status", String(entry.status)],
            ["body", Format.count(Int(entry.bodySize), "byte")],
            ["age", "\(age) s"],
            ["lifetime", "\(lifetime) s (\(lifetimeSource))"],
            ["freshness", isFresh ? "fresh for \(timeToLive) s more" : "stale by \(age - lifetime) s"],
            ["a GET now", "\(verdict.outcome): \(verdict.why)"],
            [
                "validators",
                validators.isEmpty
                    ? "none: a stale response is fetched again in full" : validators.joined(separator: "; "),
            ],
        ]
        for note in notes { rows.append(["note", note]) }
        var text = Format.table(rows)
        text.append("")
        text += headers.map { "\($0.name): \($0.value)" }
        return text
    }

    var json: JSONValue {
        .object([
            ("url", .string(request.url.absoluteString)),
            ("status", .int(Int64(entry.status))),
            ("bodySize", .int(entry.bodySize)),
            ("age", .int(Int64(age))),
            ("freshnessLifetime", .int(Int64(lifetime))),
            ("freshnessSource", .string(lifetimeSource)),
            ("fresh", .bool(isFresh)),
            ("timeToLive", .int(Int64(timeToLive))),
            ("outcomeNow", .string(verdict.outcome)),
            ("why", .string(verdict.why)),
            ("validators", .array(validators.map(JSONValue.string))),
            ("notes", .array(notes.map(JSONValue.string))),
            ("headers", .array(headers.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })),
        ])
    }
}
