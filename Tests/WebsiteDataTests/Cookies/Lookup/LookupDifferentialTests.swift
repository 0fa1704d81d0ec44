import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// The store's `Cookie` headers, served by the fast path, are those the plain reference
/// (`ReferenceCookieLookup`) finds over the cookies the store holds, after random sets, deletes,
/// expiries, evictions and lookups over 1,000 sites, from fixed seeds. After each set, the cookie
/// it stored is in the jar, whatever the set evicted: the jar never evicts the cookie it stores.
///
/// Cookies are set from `Set-Cookie` strings through the store, so canonicalisation and the
/// jar's rules decide what is stored; the reference holds a copy of what the jar holds (the
/// cookies `SiteCookies.cookie(at:)` makes, which `SiteCookiesTests` checks byte for byte
/// against what was stored; never the lookup's keys or index) after each change, and answers
/// lookups from it.
@Suite(.ownThreads) struct LookupDifferentialTests {
    /// SplitMix64: the same operations from the same seed on every run.
    struct SeededRandom: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let tlds = ["com", "org", "co.uk", "github.io"]
    /// 1,000 sites, and loopback hosts.
    static let sites: [String] =
        (0..<997).map { "s\($0).\(tlds[$0 % tlds.count])" } + [
            "localhost", "127.0.0.1", "[::1]",
        ]
    /// Sites that get many cookies (more than a site keeps).
    static let bigSites = 2
    /// Lookups sending more than this many cookies are counted (`manySent`): the big sites are
    /// looked up with many.
    static let many = 32
    static let requestPaths = ["/", "", "/a", "/a/", "/a/b", "/a/b/c.html", "/ab", "/b/", "/b/x", "/a/bc"]
    static let cookiePaths = ["/", "/a", "/a/", "/a/b", "/b", "/ab", "/b/"]

    /// What the reference holds: the jar's cookies by site, and by domain for lookups.
    struct Mirror {
        var bySite: [String: [Cookie]] = [:]
        var byDomain: [String: [Cookie]] = [:]
        var count = 0

        mutating func replace(site: String, with cookies: [Cookie]) {
            for old in bySite[site] ?? [] { byDomain[old.domain] = nil }
            count += cookies.count - (bySite[site]?.count ?? 0)
            bySite[site] = cookies.isEmpty ? nil : cookies
            for cookie in cookies { byDomain[cookie.domain, default: []].append(cookie) }
        }

        func candidates(for url: URL) -> [Cookie] {
            guard let host = ReferenceCookieLookup.host(of: url) else { return [] }
            return ReferenceCookieLookup.candidateDomains(ofHost: host).flatMap { byDomain[$0] ?? [] }
        }
    }

    /// The jar's count and the cookies of `site` (as `cookie(at:)` makes them, expired ones included).
    static func jar(_ store: HTTPCookieStore, site: String?) throws -> (Int, [Cookie]) {
        try store.withExclusiveWrite { jar, _, _ in
            (jar.count, site.flatMap { jar.sites[SiteKey($0)]?.cookies } ?? [])
        }
    }

    /// Every site's cookies, as the jar holds them.
    static func resyncAll(_ store: HTTPCookieStore, into mirror: inout Mirror) throws {
        let all = try store.withExclusiveWrite { jar, _, _ in jar.all }
        mirror = Mirror()
        for (site, cookies) in Dictionary(grouping: all, by: \.site) { mirror.replace(site: site, with: cookies) }
    }

    struct Counts {
        var ops = 0, sets = 0, stored = 0, deletes = 0, expiries = 0, lookups = 0, sent = 0, manySent = 0
        var siteEvictions = 0, globalEvictions = 0
        /// Sets that stored a cookie and evicted others, in its site or elsewhere.
        var storedWhileEvicting = 0
    }

    /// The cookie a set of `header` from `url` stores, canonicalised as the store does, or `nil`
    /// when it is refused or deletes.
    static func accepted(_ header: String, for url: URL, context: CookieRequestContext, now: Date) -> Cookie? {
        guard let parsed = ParsedCookie.parse(header), let request = CanonicalCookie.RequestFacts(url: url),
            case .success(let outcome) = CanonicalCookie.make(
                parsed, request: request, url: url, context: context, api: .http, now: now),
            !outcome.deletes
        else { return nil }
        return outcome.cookie
    }

    static func host(_ site: String, _ random: inout SeededRandom) -> String {
        if site.hasPrefix("[") || site.first!.isNumber { return site }
        switch Int.random(in: 0..<6, using: &random) {
        case 0, 1: return site
        case 2: return "www." + site
        case 3: return "a.b." + site
        case 4: return "b." + site
        default: return site == "localhost" ? "x.localhost" : "api." + site
        }
    }

    static func pickSite(_ random: inout SeededRandom) -> Int {
        Int.random(in: 0..<3, using: &random) == 0
            ? Int.random(in: 0..<bigSites, using: &random) : Int.random(in: 0..<sites.count, using: &random)
    }

    static func url(_ random: inout SeededRandom) -> (URL, String, Int) {
        let s = pickSite(&random)
        let host = host(sites[s], &random)
        let scheme = Int.random(in: 0..<5, using: &random) < 3 ? "https" : "http"
        let path = requestPaths.randomElement(using: &random)!
        let query = Int.random(in: 0..<8, using: &random) == 0 ? "?q=1" : ""
        return (URL(string: "\(scheme)://\(host)\(path)\(query)")!, host, s)
    }

    static func setCookie(site: Int, host: String, _ random: inout SeededRandom) -> String {
        let names = site < bigSites ? 400 : 6
        var parts: [String] = []
        let r = Int.random(in: 0..<40, using: &random)
        let name =
            r == 0
            ? "" : r == 1 ? "__Secure-n\(r)" : r == 2 ? "__Host-h" : "n\(Int.random(in: 0..<names, using: &random))"
        let value =
            Int.random(in: 0..<30, using: &random) == 0
            ? String(repeating: "L", count: 300) + "\(Int.random(in: 0..<1000, using: &random))"
            : "v\(Int.random(in: 0..<100_000, using: &random))"
        parts.append(name.isEmpty ? value : name + "=" + value)
        let s = sites[site]
        switch Int.random(in: 0..<8, using: &random) {
        case 0, 1: parts.append("Domain=" + s)
        case 2: parts.append("Domain=." + s.uppercased())
        case 3: if host.hasPrefix("a.b.") { parts.append("Domain=" + host.dropFirst(2)) }
        case 4:
            if Int.random(in: 0..<4, using: &random) == 0 { parts.append("Domain=" + sites[(site + 1) % sites.count]) }
        default: break
        }
        if Int.random(in: 0..<4, using: &random) != 0 {
            parts.append("Path=" + cookiePaths.randomElement(using: &random)!)
        }
        let secure = Int.random(in: 0..<3, using: &random) == 0
        if secure { parts.append("Secure") }
        if Int.random(in: 0..<5, using: &random) == 0 { parts.append("HttpOnly") }
        switch Int.random(in: 0..<6, using: &random) {
        case 0: parts.append("SameSite=Lax")
        case 1: parts.append("SameSite=Strict")
        case 2: parts.append("SameSite=None")
        default: break
        }
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1, 2: parts.append("Max-Age=\(Int.random(in: 1...20_000, using: &random))")
        case 3: parts.append("Max-Age=0")
        case 4: parts.append("Expires=Thu, 01 Jan 1970 00:00:01 GMT")
        default: break
        }
        if secure && Int.random(in: 0..<20, using: &random) == 0 { parts.append("Partitioned") }
        return parts.joined(separator: "; ")
    }

    static func context(for url: URL, _ random: inout SeededRandom) -> CookieRequestContext {
        let other = URL(string: "https://" + sites.randomElement(using: &random)! + "/")!
        let sameSite = URL(string: "/", relativeTo: url)!.absoluteURL
        switch Int.random(in: 0..<8, using: &random) {
        case 0, 1, 2: return .topLevelNavigation
        case 3: return CookieRequestContext(topLevelSite: sameSite, isNavigation: false)
        case 4: return CookieRequestContext(topLevelSite: other, isNavigation: false)
        case 5: return CookieRequestContext(topLevelSite: other, isNavigation: true)
        case 6: return CookieRequestContext(topLevelSite: other, method: "POST", isNavigation: true)
        default: return CookieRequestContext(topLevelSite: sameSite, isSameSiteChain: false)
        }
    }

    /// Runs `operations` random operations from `seed`; returns what they did.
    static func run(seed: UInt64, operations: Int) throws -> Counts {
        var random = SeededRandom(state: seed)
        let clock = TestClock()
        let store = try WebsiteDataStore.testing(clock: clock).httpCookieStore
        var mirror = Mirror()
        var counts = Counts()
        for op in 0..<operations {
            counts.ops += 1
            let kind = Int.random(in: 0..<100, using: &random)
            if kind < 45 {
                // A response's Set-Cookie, from a top-level navigation or a cross-site subresource.
                let (url, host, s) = url(&random)
                let header = setCookie(site: s, host: host, &random)
                let context =
                    Int.random(in: 0..<6, using: &random) == 0 ? Self.context(for: url, &random) : .topLevelNavigation
                let summary = try store.setCookies(fromSetCookieHeaders: [header], for: url, context: context)
                counts.sets += 1
                counts.stored += summary.stored
                let site = Site.displayName(forHost: ReferenceCookieLookup.host(of: url)!)
                let (total, cookies) = try jar(store, site: site)
                mirror.replace(site: site, with: cookies)
                if summary.evicted > 0 { counts.siteEvictions += 1 }
                if mirror.count != total {
                    // Another site's cookies went too: evicted to keep the store's total.
                    counts.globalEvictions += 1
                    try resyncAll(store, into: &mirror)
                }
                #expect(mirror.count == total && total <= 3000)
                // The cookie just stored is there, even when the set evicted others to make room.
                if summary.stored == 1, let stored = Self.accepted(header, for: url, context: context, now: clock.now) {
                    let held = stored.site == site ? cookies : try jar(store, site: stored.site).1
                    #expect(
                        held.contains { $0.key == stored.key && $0.value == stored.value },
                        "seed \(seed), op \(op): \(stored.key) stored, then evicted (\(summary.evicted) evicted)")
                    if summary.evicted > 0 { counts.storedWhileEvicting += 1 }
                }
                #expect(cookies.count <= 180)
                #expect(Set(cookies.map(\.key)).count == cookies.count, "one cookie per key in \(site)")
            } else if kind < 50 {
                // A cookie deleted by the API.
                let s = pickSite(&random)
                let site = Site.displayName(
                    forHost: ReferenceCookieLookup.host(of: URL(string: "http://\(sites[s])/")!)!)
                if let victim = mirror.bySite[site]?.randomElement(using: &random) {
                    if Bool.random(using: &random) {
                        try store.delete(victim)
                    } else {
                        try store.deleteCookies(named: victim.name, domain: victim.domain)
                    }
                    counts.deletes += 1
                    let (total, cookies) = try jar(store, site: site)
                    mirror.replace(site: site, with: cookies)
                    if mirror.count != total { try resyncAll(store, into: &mirror) }
                }
            } else if kind < 53 {
                // Time passes: some cookies expire.
                clock.advance(
                    Int.random(in: 0..<10, using: &random) == 0
                        ? 3_600 : Double(Int.random(in: 1...300, using: &random)))
                counts.expiries += 1
            } else {
                let (url, _, _) = url(&random)
                let context = Self.context(for: url, &random)
                let now = clock.now
                let candidates = mirror.candidates(for: url)
                counts.lookups += 1
                if Int.random(in: 0..<5, using: &random) == 0 {
                    let api: CookieAPI = Bool.random(using: &random) ? .nonHTTP : .http
                    let found = try store.cookies(for: url, context: context, api: api).map(\.key)
                    let expected = ReferenceCookieLookup.cookies(
                        candidates, for: url, context: context, api: api, now: now
                    )
                    .map(\.key)
                    guard found == expected else {
                        Issue.record("seed \(seed), op \(op): \(url) \(context) \(api): \(found) != \(expected)")
                        return counts
                    }
                } else {
                    let found = try store.cookieHeader(for: url, context: context)
                    let reference = ReferenceCookieLookup.cookies(
                        candidates, for: url, context: context, api: .http, now: now)
                    let expected = ReferenceCookieLookup.header(reference)
                    guard found == expected else {
                        Issue.record(
                            "seed \(seed), op \(op): \(url) \(context): \(found ?? "nil") != \(expected ?? "nil")")
                        return counts
                    }
                    if !reference.isEmpty { counts.sent += 1 }
                    if reference.count > Self.many { counts.manySent += 1 }
                }
            }
            // Once, a site is filled with Secure cookies, then given one that is not: the set
            // evicts a Secure cookie, never the one it stores (which eviction's order puts first).
            if op == 10_000 {
                let url = URL(string: "https://\(sites[1])/")!
                try store.setCookies(fromSetCookieHeaders: (0..<180).map { "full\($0)=v; Secure" }, for: url)
                let summary = try store.setCookies(fromSetCookieHeaders: ["fresh=v"], for: url)
                let stored = try #require(
                    Self.accepted("fresh=v", for: url, context: .topLevelNavigation, now: clock.now))
                let held = try jar(store, site: stored.site).1
                #expect(summary.stored == 1 && summary.evicted == 1)
                #expect(held.contains { $0.key == stored.key }, "seed \(seed): the cookie stored was evicted")
                try resyncAll(store, into: &mirror)
            }
            // Rarely, the session ends: every session cookie goes.
            if op == 20_000 {
                let _: [Cookie] = try store.endSession()
                try resyncAll(store, into: &mirror)
            }
        }
        return counts
    }

    /// The seeds: four, or one under a sanitizer (`TestScale`), where each takes about 35 s.
    static let seeds: [UInt64] = Array(1...UInt64(TestScale.rounds(4, sanitized: 1)))

    @Test(arguments: seeds)
    func theFastPathSendsWhatTheReferenceSends(seed: UInt64) throws {
        let started = Date()
        let counts = try Self.run(seed: seed, operations: 25_000)
        print("lookup differential, seed \(seed): \(counts) in \(Date().timeIntervalSince(started)) s")
        #expect(counts.ops == 25_000)
        #expect(counts.sent > 1_000 && counts.manySent > 10)
        #expect(
            counts.siteEvictions > 10 && counts.storedWhileEvicting > 10 && counts.deletes > 100
                && counts.expiries > 100)
    }
}
