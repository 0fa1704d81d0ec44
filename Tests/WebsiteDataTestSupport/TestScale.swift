import Foundation

/// How much work the tests that repeat a check many times do.
///
/// Under a sanitizer (CI's AddressSanitizer pass sets `ASAN_OPTIONS`; a ThreadSanitizer run
/// `TSAN_OPTIONS`) every instruction costs several times as much, and a test that repeats one
/// check over many seeds, kills or writes finds what the sanitizer looks for in its first few
/// rounds: those tests run fewer rounds there, and all of them in the plain pass.
public enum TestScale {
    /// Whether this test process runs under a sanitizer.
    public static let isSanitized: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
    }()

    /// `plain` rounds, or `sanitized` under a sanitizer.
    public static func rounds(_ plain: Int, sanitized: Int) -> Int { isSanitized ? sanitized : plain }
}
