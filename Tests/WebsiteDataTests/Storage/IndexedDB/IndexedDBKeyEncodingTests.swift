import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

@Suite(.ownThreads) struct IndexedDBKeyEncodingTests {
    // MARK: The specification's order

    @Test func typesSortNumberDateStringBinaryArray() throws {
        let keys: [IDBKey] = [
            .array([]), .binary(Data()), .string(""), .date(Date(timeIntervalSince1970: -1e12)), .number(.infinity),
        ]
        let sorted = keys.sorted()
        #expect(
            sorted == [
                .number(.infinity), .date(Date(timeIntervalSince1970: -1e12)), .string(""), .binary(Data()), .array([]),
            ])
        for key in keys {
            #expect(try key.encoded().first.map { [0x10, 0x20, 0x30, 0x40, 0x50].contains($0) } == true)
        }
    }

    @Test func specExamplesCompareAsTheSpecSays() throws {
        // Arrays element by element, a prefix first.
        #expect(IDBKey.compare([1], [1, 2]) == -1)
        #expect(IDBKey.compare([1, "a"], [2]) == -1)
        #expect(IDBKey.compare([[]], [1]) == 1)
        // Strings by UTF-16 code units: U+1D11E is D834 DD1E, below U+FFFF.
        #expect(IDBKey.compare("\u{1D11E}", "\u{FFFF}") == -1)
        #expect(IDBKey.compare("a", "a\u{0}") == -1)
        // Not by canonical equivalence: precomposed and decomposed é are two keys.
        #expect(IDBKey.string("\u{E9}") != IDBKey.string("e\u{301}"))
        #expect(Set([IDBKey.string("\u{E9}"), .string("e\u{301}")]).count == 2)
        // -0 is 0; NaN is no key.
        #expect(IDBKey.number(-0.0) == .number(0))
        #expect(try IDBKey.number(-0.0).encoded() == IDBKey.number(0).encoded())
        #expect(!IDBKey.number(.nan).isValid)
        #expect(!IDBKey.array([1, .number(.nan)]).isValid)
        #expect(throws: IDBError.self) { try IDBKey.date(Date(timeIntervalSinceReferenceDate: .nan)).encoded() }
        // Binary byte by byte.
        #expect(IDBKey.compare(.binary(Data([0x00])), .binary(Data([0x00, 0x00]))) == -1)
        #expect(IDBKey.compare(.binary(Data([0x01])), .binary(Data([0x00, 0xFF]))) == 1)
    }

    /// Random keys of every kind sort the same by the specification's comparison and by their encodings.
    @Test func encodedOrderAgreesWithTheSpecification() throws {
        let seed: UInt64 = 0x1DB_5EED
        var random = IDBTestRandom(seed: seed)
        var keys: [IDBKey] = IDBTestGenerator.interestingDoubles.map { .number($0) }
        keys += ["", "a", "a\u{0}", "a\u{0}\u{0}", "a\u{1}", "\u{FFFF}", "\u{1D11E}", "\u{0}", "ab", "b"].map {
            IDBKey.string($0)
        }
        keys += [
            .binary(Data()), .binary(Data([0])), .binary(Data([0, 0])), .binary(Data([0, 0xFF])), .binary(Data([0xFF])),
            .binary(Data([1])),
        ]
        keys += [[], [[]], [[], []], [0], [0, 0], ["a"], ["a", []], [.binary(Data([0]))]]
        for _ in 0..<3000 { keys.append(IDBTestGenerator.key(&random)) }
        let encodings = try keys.map { try $0.encoded() }

        let bySpec = keys.indices.sorted { IDBKey.compare(keys[$0], keys[$1]) < 0 }
        let byBytes = keys.indices.sorted { encodings[$0].precedesAsBlob(encodings[$1]) }
        // Equal keys may come in either order; compare the keys, not the indices.
        #expect(bySpec.map { keys[$0] } == byBytes.map { keys[$0] }, "seed \(seed)")
        // Pairwise, including equality.
        var disagreements = 0
        for _ in 0..<20_000 {
            let i = Int.random(in: 0..<keys.count, using: &random)
            let j = Int.random(in: 0..<keys.count, using: &random)
            let spec = IDBKey.compare(keys[i], keys[j])
            let bytes = encodings[i] == encodings[j] ? 0 : (encodings[i].precedesAsBlob(encodings[j]) ? -1 : 1)
            if spec != bytes { disagreements += 1 }
        }
        #expect(disagreements == 0, "seed \(seed)")
        print(
            "IndexedDB key order: \(keys.count) keys sorted alike by the specification and by their encodings; 20000 pairs agree"
        )
    }

    /// SQLite itself orders the encodings as the specification orders the keys.
    @Test(arguments: IDBTestStoreKind.allCases)
    func theDatabaseSortsKeysInSpecificationOrder(_ kind: IDBTestStoreKind) throws {
        var random = IDBTestRandom(seed: 77)
        var keys = Set<IDBKey>()
        while keys.count < 500 { keys.insert(IDBTestGenerator.key(&random)) }
        let test = try IDBTestStore(kind)
        let db = try test.indexedDB.open(origin: idbOrigin("https://example.com"), name: "keys", version: 1) {
            tx, _ throws in
            try tx.createObjectStore("s")
        }
        try db.transaction("s", mode: .readwrite) { tx throws in
            for key in keys { try tx.objectStore("s").put("v", key: key) }
        }
        let stored = try db.transaction("s") { try $0.objectStore("s").getAllKeys() }
        #expect(stored == keys.sorted())
        let descending = try db.transaction("s") { tx throws -> [IDBKey] in
            var seen: [IDBKey] = []
            if let cursor = try tx.objectStore("s").openCursor(direction: .prev) {
                repeat { seen.append(cursor.key) } while try cursor.continue()
            }
            return seen
        }
        #expect(descending == keys.sorted().reversed())
    }

    // MARK: Decoding

    @Test func decodingRoundTripsEveryKey() throws {
        var random = IDBTestRandom(seed: 0xDEC0DE)
        for _ in 0..<5000 {
            let key = IDBTestGenerator.key(&random)
            let bytes = try key.encoded()
            let decoded = try IDBKey(encoded: bytes)
            #expect(decoded == key)
            #expect(decoded.encodedUnchecked == bytes)
            // Exact, not only equal by comparison: same type, same bits.
            if case .number(let a) = key, case .number(let b) = decoded { #expect(a == b) }
        }
    }

    @Test func decodingArbitraryBytesNeverTraps() throws {
        var random = IDBTestRandom(seed: 0xF022)
        var accepted = 0
        var refused = 0
        func check(_ bytes: [UInt8]) {
            do {
                let key = try IDBKey(encoded: bytes)
                // Only canonical encodings are accepted.
                #expect(key.encodedUnchecked == bytes)
                accepted += 1
            } catch {
                refused += 1
            }
        }
        for _ in 0..<30_000 {
            let count = Int.random(in: 0...24, using: &random)
            let alphabet: [UInt8] = [0x00, 0xFF, 0x10, 0x20, 0x30, 0x40, 0x50, 0x01, 0x7F, 0x80, 0xD8, 0xDC]
            check(
                (0..<count).map { _ in
                    Bool.random(using: &random)
                        ? alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
                })
        }
        // Mutations of valid encodings: truncated, a byte changed, a byte inserted.
        for _ in 0..<10_000 {
            var bytes = try IDBTestGenerator.key(&random).encoded()
            switch Int.random(in: 0..<3, using: &random) {
            case 0: bytes.removeLast(Int.random(in: 0...bytes.count, using: &random))
            case 1: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            default:
                bytes.insert(
                    UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...bytes.count, using: &random))
            }
            check(bytes)
        }
        #expect(accepted > 0 && refused > 0)
        #expect(throws: IDBDecodingError(.tooDeep, at: IDBKey.maxDepth)) {
            try IDBKey(encoded: [UInt8](repeating: 0x50, count: 100_000))
        }
        #expect(throws: IDBDecodingError(.truncated, at: 0)) { try IDBKey(encoded: []) }
        #expect(throws: IDBDecodingError(.notANumber, at: 0)) {
            try IDBKey(encoded: [0x10, 0xFF, 0xF8, 0, 0, 0, 0, 0, 0])
        }
        #expect(throws: IDBDecodingError(.nonCanonical, at: 0)) {
            try IDBKey(encoded: [0x10, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        }
        #expect(throws: IDBDecodingError(.invalidText, at: 0)) { try IDBKey(encoded: [0x30, 0xF6, 0x0D, 0x00, 0x00]) }
        #expect(throws: IDBDecodingError(.trailingBytes, at: 2)) { try IDBKey(encoded: [0x30, 0x00, 0x00]) }
        // A unit in a longer form than it needs, or a binary byte above 0xFF, is not canonical.
        #expect(throws: IDBDecodingError(.nonCanonical, at: 1)) { try IDBKey(encoded: [0x30, 0xC0, 0x00, 0x40, 0x00]) }
        #expect(throws: IDBDecodingError(.nonCanonical, at: 1)) { try IDBKey(encoded: [0x40, 0xBF, 0xFF, 0x00]) }
        // ASCII costs a byte a character.
        #expect(try IDBKey.string("abc").encoded() == [0x30, 0x62, 0x63, 0x64, 0x00])
        print("IndexedDB key decoder: \(accepted) inputs decoded canonically, \(refused) refused with an error")
    }

    // MARK: Values

    @Test func valuesRoundTripThroughTheirEncoding() throws {
        var random = IDBTestRandom(seed: 0x7A1)
        for _ in 0..<3000 {
            let value = IDBTestGenerator.value(&random)
            #expect(try IDBValue(encoded: value.encoded()) == value)
        }
        // Dates and binary stay distinct from numbers and strings.
        #expect(try IDBValue(encoded: IDBValue.date(Date(timeIntervalSince1970: 5)).encoded()) != .number(5))
        #expect(try IDBValue(encoded: IDBValue.binary(Data("ab".utf8), kind: .uint8).encoded()) != .string("ab"))
        #expect(try IDBValue(encoded: IDBValue.number(-0.0).encoded()) != .number(0))
        #expect(try IDBValue(encoded: IDBValue.number(.nan).encoded()) == .number(.nan))
        // Small integers take few bytes.
        #expect(try IDBValue.number(5).encoded().count == 3)
    }

    @Test func decodingArbitraryValueBytesNeverTraps() throws {
        var random = IDBTestRandom(seed: 0xBAD)
        var refused = 0
        for _ in 0..<20_000 {
            var bytes = try IDBTestGenerator.value(&random).encoded()
            if Bool.random(using: &random) {
                bytes =
                    [1]
                    + (0..<Int.random(in: 0...20, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random)
                    }
            } else if !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            do { _ = try IDBValue(encoded: bytes) } catch { refused += 1 }
        }
        #expect(refused > 0)
        let deep: [UInt8] = [1] + (0..<50_000).flatMap { _ in [UInt8(9), UInt8(1)] }
        #expect(throws: IDBDecodingError.self) { try IDBValue(encoded: deep) }
        #expect(throws: IDBDecodingError(.badLength, at: 2)) {
            try IDBValue(encoded: [1, 6, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
        }
    }

    @Test func valuesNestedTooDeeplyAreRefused() throws {
        var value = IDBValue.null
        for _ in 0..<300 { value = .array([value]) }
        #expect(throws: IDBError.self) { try value.encoded() }
    }

    // MARK: JSON dumps

    @Test func valuesDumpToJSONAndBack() throws {
        func sorted(_ value: IDBValue) -> IDBValue {
            switch value {
            case .array(let elements): return .array(elements.map(sorted))
            case .object(let object):
                return .object(
                    IDBObject(object.properties.sorted { $0.name < $1.name }.map { ($0.name, sorted($0.value)) }))
            default: return value
            }
        }
        var random = IDBTestRandom(seed: 0x15_0)
        var values: [IDBValue] = [
            ["$date": "not a date"], ["$weird": 1], ["a": .date(Date(timeIntervalSince1970: 1.5))],
        ]
        for _ in 0..<2000 { values.append(IDBTestGenerator.value(&random)) }
        let data = try JSONEncoder().encode(values)
        let decoded = try JSONDecoder().decode([IDBValue].self, from: data)
        #expect(decoded.map(sorted) == values.map(sorted))
        let text = String(
            decoding: try JSONEncoder().encode([
                IDBValue.date(Date(timeIntervalSince1970: 0)), .binary(Data([1]), kind: .uint8), .number(.nan),
            ]), as: UTF8.self)
        #expect(text.contains(#"{"$date":"1970-01-01T00:00:00.000Z"}"#))
        #expect(
            text.contains(#""$binary""#) && text.contains(#""kind":"Uint8Array""#) && text.contains(#""base64":"AQ==""#)
        )
        #expect(text.contains(#"{"$number":"NaN"}"#))
    }
}
