import Synchronization

/// The cookie jar's sites: each site's cookies in a slot of an array, found by key through a
/// dictionary of slot numbers, or by slot number alone.
///
/// A store's table of hosts (`HostSiteTable`) remembers the slot of each host's site, so that a
/// lookup goes from the host to the site's cookies without hashing the site's name or reading
/// the dictionary's bucket, key and value (each a cache miss on a large store). A slot number
/// is only a hint: each slot has a stamp, drawn from a counter shared by every table in the
/// process when a site takes the slot, and a hint holds the stamp it was given with. A site
/// removed (its slot freed, perhaps taken again) or a table replaced changes the stamp, and the
/// hint no longer matches. A host whose site had no cookies is remembered with `lastStamp`,
/// which changes whenever a site is added.
struct SiteTable {
    /// One site's cookies, or a free slot (`key == nil`). The stamp beside the cookies: a
    /// lookup reads the two, not the key.
    struct Slot {
        var stamp: UInt64
        var cookies: SiteCookies
        var key: SiteKey?
    }

    private var slotOf: [SiteKey: Int] = [:]
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    /// The stamp of the newest slot taken (or of the table, when new): a host remembered as
    /// having no site is remembered with it.
    private(set) var lastStamp: UInt64

    /// Stamps for every table of the process: one never repeats.
    private static let stamps = Atomic<UInt64>(0)

    private static func nextStamp() -> UInt64 {
        stamps.wrappingAdd(1, ordering: .relaxed).newValue
    }

    init() { lastStamp = Self.nextStamp() }

    /// A table of these sites (none empty).
    init(_ sites: [SiteKey: SiteCookies]) {
        self.init()
        slotOf.reserveCapacity(sites.count)
        slots.reserveCapacity(sites.count)
        for (key, cookies) in sites where !cookies.isEmpty { take(key, cookies) }
    }

    /// The cookies of a site, or `nil` when it has none.
    subscript(key: SiteKey) -> SiteCookies? {
        slotOf[key].map { slots[$0].cookies }
    }

    /// Every site with its cookies, in slot order.
    func forEach(_ body: (SiteKey, SiteCookies) throws -> Void) rethrows {
        for slot in slots { if let key = slot.key { try body(key, slot.cookies) } }
    }

    /// The slot and stamp of a site, or `nil` when it has no cookies.
    func slot(of key: SiteKey) -> (index: Int, stamp: UInt64)? {
        slotOf[key].map { ($0, slots[$0].stamp) }
    }

    /// Whether slot `index` still holds the site it held when its stamp was `stamp` (a free
    /// slot's stamp is 0, which no site has).
    func holds(_ index: Int, stamp: UInt64) -> Bool {
        index < slots.count && slots[index].stamp == stamp
    }

    /// Where the arrays a lookup of the site in slot `index` reads are (see `SiteCookies.hints`).
    func hints(inSlot index: Int) -> SiteCookies.LookupHints { slots[index].cookies.hints }

    /// Reads the cookies of slot `index` in place, where a lookup may move their last-access
    /// times on but removes none (so the site stays, and its cookies are not counted).
    mutating func withCookies<R>(inSlot index: Int, _ body: (inout SiteCookies) throws -> R) rethrows -> R {
        try body(&slots[index].cookies)
    }

    /// A site's cookies taken out of the table (see `checkOut`), to be changed without copying
    /// them, then put back by `checkIn`.
    struct CheckedOut {
        let key: SiteKey
        /// The site's slot; `nil` for a site without cookies, which takes one only if it gets some.
        let slot: Int?
        var cookies: SiteCookies
    }

    /// Takes a site's cookies out of its slot (none for a new site, which has no slot yet).
    mutating func checkOut(_ key: SiteKey) -> CheckedOut {
        guard let index = slotOf[key] else { return CheckedOut(key: key, slot: nil, cookies: SiteCookies()) }
        return checkOut(slot: index)
    }

    /// Takes the cookies of slot `index` out of it.
    mutating func checkOut(slot index: Int) -> CheckedOut {
        guard let key = slots[index].key else { preconditionFailure("a free slot") }
        var cookies = SiteCookies()
        swap(&cookies, &slots[index].cookies)
        return CheckedOut(key: key, slot: index, cookies: cookies)
    }

    /// Puts cookies taken out by `checkOut` back: a new site with cookies takes a slot (and a
    /// stamp), a site left without cookies is removed, and one that stays without takes nothing
    /// (so hosts remembered without a site stay valid).
    mutating func checkIn(_ site: CheckedOut) {
        guard let index = site.slot else {
            if !site.cookies.isEmpty { take(site.key, site.cookies) }
            return
        }
        slots[index].cookies = site.cookies
        if site.cookies.isEmpty { release(index) }
    }

    /// Changes the cookies in slot `index` in place (through `checkOut` and `checkIn`).
    mutating func update<R>(slot index: Int, _ body: (inout SiteCookies) throws -> R) rethrows -> R {
        var site = checkOut(slot: index)
        defer { checkIn(site) }
        return try body(&site.cookies)
    }

    /// Removes a site; returns its cookies.
    mutating func removeValue(forKey key: SiteKey) -> SiteCookies? {
        guard let index = slotOf[key] else { return nil }
        let cookies = slots[index].cookies
        release(index)
        return cookies
    }

    /// Slots in use, in order, for passes over every site (`update(slot:)` may free them).
    var occupiedSlots: [Int] { slots.indices.filter { slots[$0].key != nil } }

    /// The cookies in slot `index`.
    func cookies(inSlot index: Int) -> SiteCookies { slots[index].cookies }

    @discardableResult
    private mutating func take(_ key: SiteKey, _ cookies: SiteCookies) -> Int {
        let stamp = Self.nextStamp()
        lastStamp = stamp
        let slot = Slot(stamp: stamp, cookies: cookies, key: key)
        let index: Int
        if let free = freeSlots.popLast() {
            index = free
            slots[index] = slot
        } else {
            index = slots.count
            slots.makeRoom(for: 1)
            slots.append(slot)
        }
        slotOf[key] = index
        return index
    }

    private mutating func release(_ index: Int) {
        guard let key = slots[index].key else { return }
        slotOf.removeValue(forKey: key)
        slots[index] = Slot(stamp: 0, cookies: SiteCookies(), key: nil)
        freeSlots.append(index)
    }
}
