import Foundation

#if FUZZING
    /// libFuzzer's entry point; the target comes from `WKSTORE_FUZZ_TARGET`.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
        let name = ProcessInfo.processInfo.environment["WKSTORE_FUZZ_TARGET"] ?? "set-cookie"
        guard let target = FuzzTargets.all[name] else { fatalError("unknown WKSTORE_FUZZ_TARGET \(name)") }
        target(Data(bytes: bytes, count: count))
        return 0
    }
#else
    /// Replays inputs through a target: `wkstore-fuzz TARGET FILE...` (crash reproducers, corpora).
    @main struct Replay {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTargets.all[name] else {
                print(
                    "usage: wkstore-fuzz TARGET FILE...   targets: \(FuzzTargets.all.keys.sorted().joined(separator: ", "))"
                )
                exit(2)
            }
            var count = 0
            for path in arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else {
                    print("cannot read \(path)")
                    exit(1)
                }
                target(data)
                count += 1
            }
            print("\(name): \(count) inputs replayed, no crash")
        }
    }
#endif
