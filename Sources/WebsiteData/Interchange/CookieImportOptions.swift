/// How a cookie import treats lines and entries it cannot import.
///
/// By default an import is **lenient**: every cookie that can be imported is, in one
/// transaction, and each line (`cookies.txt`) or entry (JSON) that cannot is listed in
/// `CookieImportSummary.refusals` with its number and the reason. A **strict** import refuses
/// the whole file at its first bad line or entry, as a `CookieImportError`, and leaves the store
/// unchanged.
///
/// In either mode a file that is not a file of its format at all (JSON that does not parse, a
/// document of the wrong shape) is refused whole: past a JSON syntax error no entry can be told
/// from the next.
public struct CookieImportOptions: Sendable, Hashable {
    /// Whether the first bad line or entry refuses the whole file (nothing is imported).
    public var isStrict: Bool

    /// Creates options.
    ///
    /// - Parameter strict: `true` to refuse the whole file at its first bad line or entry.
    public init(strict: Bool = false) {
        self.isStrict = strict
    }

    /// Imports what can be imported and lists the rest (the default).
    public static let lenient = CookieImportOptions(strict: false)
    /// All or nothing: the first bad line or entry refuses the whole file; the store is unchanged.
    public static let strict = CookieImportOptions(strict: true)
}
