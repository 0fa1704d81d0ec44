import Foundation

extension SiteCookies {
    /// The site's records and places, reached in place during a lookup.
    struct Records {
        let stored: UnsafePointer<[Stored]>
        let places: UnsafePointer<[Place]>
    }

    /// The cookies a lookup found, in header order, read in place while the site is locked.
    struct Matches {
        /// The site's records and places, reached only for what the keys and bytes do not hold (a
        /// copy, a pair longer than `longestPairKept`): a header read from the bytes alone does
        /// not touch them, a cache miss apiece on a large store.
        fileprivate let all: Records?
        fileprivate let keys: UnsafeBufferPointer<Key>
        fileprivate let bytes: UnsafeBufferPointer<UInt8>
        /// Indices into the site's cookies.
        let indices: UnsafeBufferPointer<Int>

        init(
            all: Records?, keys: UnsafeBufferPointer<Key>, bytes: UnsafeBufferPointer<UInt8>,
            indices: UnsafeBufferPointer<Int>
        ) {
            self.all = all
            self.keys = keys
            self.bytes = bytes
            self.indices = indices
        }

        /// None.
        static var none: Matches {
            Matches(
                all: nil, keys: UnsafeBufferPointer(start: nil, count: 0),
                bytes: UnsafeBufferPointer(start: nil, count: 0), indices: UnsafeBufferPointer(start: nil, count: 0))
        }

        /// Copies of the cookies found.
        var cookies: [Cookie] {
            indices.map { i in
                SiteCookies.cookie(
                    all!.stored.pointee[i], keys[i], all!.places.pointee[Int(keys[i].place)], bytes: bytes)
            }
        }

        /// Their `Cookie` header, or `nil` for none, built in one allocation from the site's pairs.
        var header: String? {
            guard !indices.isEmpty, let bytes = bytes.baseAddress else { return nil }
            var length = 2 * (indices.count - 1)
            for i in indices {
                let key = keys[i]
                length += key.pair == Key.notKept ? all!.stored.pointee[i].longPair!.utf8.count : Int(key.pairLength)
            }
            return String(unsafeUninitializedCapacity: length) { buffer in
                var at = buffer.baseAddress!
                for (n, i) in indices.enumerated() {
                    if n > 0 {
                        at[0] = UInt8(ascii: ";")
                        at[1] = UInt8(ascii: " ")
                        at += 2
                    }
                    let key = keys[i]
                    if key.pair == Key.notKept {
                        at = Self.copy(all!.stored.pointee[i].longPair!, to: at)
                    } else {
                        at.update(from: bytes + Int(key.pair), count: Int(key.pairLength))
                        at += Int(key.pairLength)
                    }
                }
                return at - buffer.baseAddress!
            }
        }

        private static func copy(_ string: String, to destination: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<
            UInt8
        > {
            var string = string
            return string.withUTF8 { source in
                if let base = source.baseAddress { destination.update(from: base, count: source.count) }
                return destination + source.count
            }
        }
    }
}
