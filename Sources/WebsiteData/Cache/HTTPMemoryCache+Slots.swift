extension HTTPMemoryCache {
    /// The entries, each in a numbered slot of an array; a removed entry's slot is given to the
    /// next one stored. Why not a dictionary by number: a hit reads its entry, marks it used and
    /// records the time, and each of those was a hash and a probe, a tenth of a hit together.
    struct Slots {
        private var slots: [Item?] = []
        private var free: [Int] = []

        /// The item in slot `number`, or `nil` for a free slot.
        subscript(number: Int) -> Item? {
            get { number < slots.count ? slots[number] : nil }
            _modify { yield &slots[number] }
        }

        /// Puts `item` in a free slot; returns the slot's number.
        mutating func insert(_ item: Item) -> Int {
            if let number = free.popLast() {
                slots[number] = item
                return number
            }
            slots.append(item)
            return slots.count - 1
        }

        /// Empties slot `number`; returns what it held.
        mutating func removeValue(forKey number: Int) -> Item? {
            guard number < slots.count, let item = slots[number] else { return nil }
            slots[number] = nil
            free.append(number)
            return item
        }

        /// Every item held.
        var values: [Item] { slots.compactMap { $0 } }
    }
}

extension HTTPMemoryCache {
    /// The slots of a resource's variants, the first kept in place: most resources have one
    /// variant, and reading the count of an array of them, on the heap, was a cache miss in
    /// every hit, a twentieth of a memory-cache hit.
    struct VariantSlots: RandomAccessCollection {
        private var first: Int
        private var others: [Int] = []

        /// A resource's first variant.
        init(_ slot: Int) { first = slot }

        var startIndex: Int { 0 }
        var endIndex: Int { others.count + 1 }
        subscript(position: Int) -> Int { position == 0 ? first : others[position - 1] }

        /// Adds a variant's slot.
        mutating func append(_ slot: Int) { others.append(slot) }

        /// Takes `slot` out; returns whether any slot is left.
        mutating func remove(_ slot: Int) -> Bool {
            if first == slot {
                guard !others.isEmpty else { return false }
                first = others.removeFirst()
            } else {
                others.removeAll { $0 == slot }
            }
            return true
        }
    }
}

/// Slot numbers in order of use, least recent first: a doubly linked list held in an array
/// indexed by slot, so that marking a slot used is a few array writes.
struct UseOrder {
    private static let none = -1
    /// Each slot's neighbours in the order; `linked` false for a slot not in it.
    private var links: [(previous: Int, next: Int, linked: Bool)] = []
    private var least = UseOrder.none
    private var most = UseOrder.none

    /// The least recently used slot.
    var leastRecent: Int? { least == Self.none ? nil : least }

    /// Makes `slot` the most recently used (adding it when absent).
    mutating func touch(_ slot: Int) {
        if most == slot { return }
        remove(slot)
        while links.count <= slot { links.append((Self.none, Self.none, false)) }
        links[slot] = (previous: most, next: Self.none, linked: true)
        if most != Self.none { links[most].next = slot }
        most = slot
        if least == Self.none { least = slot }
    }

    /// Takes `slot` out of the order.
    mutating func remove(_ slot: Int) {
        guard slot < links.count, links[slot].linked else { return }
        let (previous, next, _) = links[slot]
        if previous != Self.none { links[previous].next = next } else { least = next }
        if next != Self.none { links[next].previous = previous } else { most = previous }
        links[slot] = (Self.none, Self.none, false)
    }
}
