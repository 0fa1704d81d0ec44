import CWebsiteDataSupport

extension SiteCookies {
    /// Where the three arrays a lookup reads (the index, the keys, the bytes) were: the address
    /// of each one's first element.
    ///
    /// A lookup asks for `linesAsked` lines of each, from its header on, before it has read the
    /// site's slot: the store's table of hosts keeps a site's hints beside each of its hosts (see
    /// `HostSiteTable`). Without them a lookup waits for the slot, then for the keys' header and
    /// the rest of the index, then for the keys and pairs the index names: each a read from
    /// memory on a large store, whose lines are not in a cache.
    ///
    /// Hints only, never read through: a copy of the site may have moved the arrays, a change
    /// freed them; the prefetch of an address no longer in use, or past an array's end, does no
    /// harm.
    struct LookupHints: Equatable {
        var index: UInt = 0
        var keys: UInt = 0
        var bytes: UInt = 0

        /// The lines asked for from each array. A site's index and pairs mostly fit (an average
        /// site's keys are 17 lines); a large site's other lines are read as the lookup reaches
        /// them.
        static let linesAsked = 16

        /// The bytes of an array's header before its first element.
        private static let arrayHeader: UInt = 32

        /// The hints of arrays whose first elements are at these addresses.
        init(index: UnsafeRawPointer?, keys: UnsafeRawPointer?, bytes: UnsafeRawPointer?) {
            self.index = UInt(bitPattern: index)
            self.keys = UInt(bitPattern: keys)
            self.bytes = UInt(bitPattern: bytes)
        }

        init() {}

        /// Whether the arrays whose first elements are at these addresses are the ones hinted at
        /// (a lookup's check that no copy has moved them since).
        func hold(index: UnsafeRawPointer?, keys: UnsafeRawPointer?, bytes: UnsafeRawPointer?) -> Bool {
            self == LookupHints(index: index, keys: keys, bytes: bytes)
        }

        /// Asks for `linesAsked` lines of each of the three arrays.
        @inline(__always)
        func prefetch() {
            Self.prefetch(index)
            Self.prefetch(keys)
            Self.prefetch(bytes)
        }

        @inline(__always)
        private static func prefetch(_ address: UInt) {
            guard address > arrayHeader, let first = UnsafeRawPointer(bitPattern: (address - arrayHeader) & ~63) else {
                return
            }
            for line in 0..<linesAsked { wkstore_prefetch(first + 64 * line) }
        }
    }
}
