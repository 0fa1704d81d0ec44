import Foundation

#if canImport(WebsiteData)
    import WebsiteData
#endif

/// The IndexedDB key and value decoders, which read what the database holds.
extension FuzzTargets {
    /// Keys: only canonical encodings decode (re-encoding gives the same bytes), and the byte
    /// order of two encodings is the specification's order of their keys. Values: what decodes
    /// encodes to bytes that decode to the same value.
    static func idbKey(_ data: Data) {
        let bytes = [UInt8](data)
        if let key = try? IDBKey(encoded: bytes) {
            precondition((try? key.encoded()) == bytes, "a non-canonical encoding decoded: \(key)")
        }
        // Two encodings: the first byte says where the input splits.
        if let first = bytes.first {
            let split = min(bytes.count, 1 + Int(first) % max(1, bytes.count))
            let a = Array(bytes[1..<split])
            let b = Array(bytes[split...])
            if let x = try? IDBKey(encoded: a), let y = try? IDBKey(encoded: b) {
                let byKeys = IDBKey.compare(x, y).signum()
                let byBytes = a.lexicographicallyPrecedes(b) ? -1 : (a == b ? 0 : 1)
                precondition(byKeys == byBytes, "key order \(byKeys) but byte order \(byBytes): \(x) vs \(y)")
            }
        }
        if let value = try? IDBValue(encoded: bytes) {
            // A value the store would refuse (too deep) is not written back.
            guard let again = try? value.encoded() else { return }
            guard let decoded = try? IDBValue(encoded: again) else {
                preconditionFailure("a re-encoded value does not decode: \(value)")
            }
            precondition(decoded == value, "\(value) -> \(decoded)")
            precondition((try? decoded.encoded()) == again, "encoding is not stable")
        }
    }
}
