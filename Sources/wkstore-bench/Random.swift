/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny seeded generator, so every run of the
/// bench builds exactly the same data, independent of the standard library's algorithms.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (the modulo bias is negligible for the small bounds used here).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// `true` with probability `percent`/100.
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// One element of a non-empty array.
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)

    /// A random alphanumeric string of `count` characters.
    mutating func token(_ count: Int) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        for _ in 0..<count { bytes.append(Self.alphabet[below(Self.alphabet.count)]) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
