import Foundation

@testable import WebsiteData

/// A seeded generator (SplitMix64), so a failing random test can be replayed from its seed.
struct IDBTestRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Where a test's store lives: every scenario runs on both.
enum IDBTestStoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case memory
    case file
    var description: String { rawValue }
}

/// A store for IndexedDB tests, with its directory and clock.
struct IDBTestStore {
    let directory = TemporaryDirectory()
    let clock = TestClock()
    let store: WebsiteDataStore

    init(_ kind: IDBTestStoreKind) throws {
        store = try WebsiteDataStore.testing(kind == .file ? directory.url : nil, clock: clock)
    }

    var indexedDB: IndexedDBStore { store.indexedDB }
}

/// Origins used by the tests.
func idbOrigin(_ text: String) -> SecurityOrigin { SecurityOrigin(string: text)! }

enum IDBTestGenerator {
    static let interestingDoubles: [Double] = [
        0, -0.0, 1, -1, 0.5, -0.5, 2, 1e-300, -1e-300, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity, 9_007_199_254_740_992, 1e21, 42,
        -42.25,
    ]
    static let interestingUnits: [UInt16] = [
        0x0000, 0x0001, 0x0041, 0x00FF, 0x0100, 0x7FFF, 0xD7FF, 0xE000, 0xFFFE, 0xFFFF,
    ]

    static func double<R: RandomNumberGenerator>(_ random: inout R) -> Double {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return interestingDoubles.randomElement(using: &random)!
        case 1: return Double(Int.random(in: -20...20, using: &random))
        case 2: return Double.random(in: -1e6...1e6, using: &random)
        default:
            let bits = UInt64.random(in: .min ... .max, using: &random)
            let value = Double(bitPattern: bits)
            return value.isNaN ? 7 : value
        }
    }

    static func string<R: RandomNumberGenerator>(_ random: inout R) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...5, using: &random) {
            switch Int.random(in: 0..<5, using: &random) {
            case 0: scalars.append(Unicode.Scalar(UInt8.random(in: 0x61...0x63, using: &random)))
            case 1:
                let unit = interestingUnits.randomElement(using: &random)!
                scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
            case 2:
                scalars.append(["\u{1D11E}", "\u{10000}", "\u{10FFFF}", "\u{1F600}"].randomElement(using: &random)!)
            case 3: scalars.append("\u{0}")
            default: scalars.append(Unicode.Scalar(UInt32.random(in: 0x20...0xD7FF, using: &random))!)
            }
        }
        return String(scalars)
    }

    static func key<R: RandomNumberGenerator>(_ random: inout R, depth: Int = 0) -> IDBKey {
        switch Int.random(in: 0..<(depth > 2 ? 4 : 5), using: &random) {
        case 0: return .number(double(&random))
        case 1: return .date(Date(timeIntervalSinceReferenceDate: double(&random)))
        case 2: return .string(string(&random))
        case 3:
            let bytes = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                [0x00, 0x01, 0x7F, 0xFE, 0xFF].randomElement(using: &random)! as UInt8
            }
            return .binary(Data(bytes))
        default:
            return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in key(&random, depth: depth + 1) })
        }
    }

    static func value<R: RandomNumberGenerator>(_ random: inout R, depth: Int = 0) -> IDBValue {
        switch Int.random(in: 0..<(depth > 2 ? 11 : 13), using: &random) {
        case 0: return .undefined
        case 1: return .null
        case 2: return .bool(Bool.random(using: &random))
        case 3: return .number([double(&random), .nan, -0.0].randomElement(using: &random)!)
        case 4: return .bigInt(["0", "-1", "123456789012345678901234567890"].randomElement(using: &random)!)
        case 5: return .string(string(&random))
        case 6:
            return .date(
                Date(
                    timeIntervalSince1970: Double(
                        Int64.random(in: -8_640_000_000_000...8_640_000_000_000, using: &random)) / 1000))
        case 7:
            let bytes = (0..<Int.random(in: 0...6, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random)
            }
            return .binary(Data(bytes), kind: IDBBinaryKind.allCases.randomElement(using: &random)!)
        case 8: return .regExp(pattern: string(&random), flags: "gi")
        case 9: return .error(name: "TypeError", message: string(&random), stack: "TypeError: x\n    at f")
        case 10: return .number(Double(Int.random(in: -1000...1000, using: &random)))
        case 11:
            return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in value(&random, depth: depth + 1) })
        default:
            return .object(
                IDBObject(
                    (0..<Int.random(in: 0...3, using: &random)).map { i in
                        ("p\(i)" + string(&random), value(&random, depth: depth + 1))
                    }))
        }
    }
}

extension Array where Element == UInt8 {
    /// `memcmp` order with shorter-prefix-first, as SQLite compares BLOBs.
    func precedesAsBlob(_ other: [UInt8]) -> Bool { lexicographicallyPrecedes(other) }
}

/// The IndexedDB error `body` throws, or `nil` (a test then fails on the comparison that follows).
func idbError<T>(_ body: () throws -> T) -> IDBError? {
    do {
        _ = try body()
        return nil
    } catch let error as IDBError {
        return error
    } catch {
        return nil
    }
}

/// The name of the IndexedDB error `body` throws, or `nil`.
func idbErrorName<T>(_ body: () throws -> T) -> IDBError.Name? { idbError(body)?.name }
