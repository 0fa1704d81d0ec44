import CWebsiteDataSupport

extension SiteCookies {
    /// Where the three arrays a lookup reads (the index, the keys, the bytes) were, and how many
    /// cache lines each spans, header included: each word is the address of the array's first
    /// element with the count of lines in its top 16 bits (user-space addresses fit in 48 on the
    /// platforms this runs on; where one did not, only the prefetches would be wasted).
    ///
    /// A lookup asks for all of their lines at once, up to `linesAsked` an array, before it has
    /// read the site's slot: the store's table of hosts keeps a site's hints beside each of its
    /// hosts (see `HostSiteTable`). Without them a lookup waited for the slot, then for the keys'
    /// header and the rest of the index, then for the keys and pairs the index names: each a
    /// read from memory on a large store, whose lines are not in a cache.
    ///
    /// Hints only, never read through: a copy of the site may have moved the arrays, a change
    /// freed them; the prefetch of an address no longer in use does no harm.
    struct LookupHints: Equatable {
        var index: UInt = 0
        var keys: UInt = 0
        var bytes: UInt = 0

        /// The most lines asked for from one array. A site's index and pairs mostly fit (an
        /// average site's keys are 17 lines); a large site's other lines are read as the lookup
        /// reaches them.
        static let linesAsked = 16

        /// The bytes of an array's header before its first element.
        private static let arrayHeader: UInt = 32

        /// The hints of arrays whose elements are at these addresses, with these counts.
        init<I, K, B>(index: UnsafeBufferPointer<I>, keys: UnsafeBufferPointer<K>, bytes: UnsafeBufferPointer<B>) {
            self.index = Self.word(index)
            self.keys = Self.word(keys)
            self.bytes = Self.word(bytes)
        }

        init() {}

        /// Whether the arrays whose first elements are at these addresses are the ones hinted at
        /// (a lookup's check that no copy has moved them since).
        func hold(index: UnsafeRawPointer?, keys: UnsafeRawPointer?, bytes: UnsafeRawPointer?) -> Bool {
            self.index & Self.addressBits == UInt(bitPattern: index)
                && self.keys & Self.addressBits == UInt(bitPattern: keys)
                && self.bytes & Self.addressBits == UInt(bitPattern: bytes)
        }

        /// Asks for the lines of the three arrays, up to `linesAsked` each.
        @inline(__always)
        func prefetch() {
            Self.prefetch(index)
            Self.prefetch(keys)
            Self.prefetch(bytes)
        }

        private static let addressBits: UInt = (1 << 48) - 1

        private static func word<T>(_ buffer: UnsafeBufferPointer<T>) -> UInt {
            guard let base = buffer.baseAddress else { return 0 }
            let start = UInt(bitPattern: base) - arrayHeader
            let end = UInt(bitPattern: base) + UInt(buffer.count * MemoryLayout<T>.stride)
            let lines = (((end + 63) & ~63) - (start & ~63)) / 64
            return UInt(bitPattern: base) | min(lines, 0xFFFF) << 48
        }

        @inline(__always)
        private static func prefetch(_ word: UInt) {
            let address = word & addressBits
            guard address > arrayHeader, let first = UnsafeRawPointer(bitPattern: (address - arrayHeader) & ~63) else {
                return
            }
            for line in 0..<min(Int(word >> 48), linesAsked) { wkstore_prefetch(first + 64 * line) }
        }
    }
}
