/// What an export wrote, and which cookies the format could not hold.
public struct CookieExportSummary: Sendable, Hashable, CustomStringConvertible {
    /// Cookies written.
    public var written = 0
    /// Cookies left out, each with why.
    public var skipped: [CookieExportSkip] = []

    /// Creates an empty summary.
    public init() {}

    /// `wrote N cookies` and, when some were left out, how many and why.
    public var description: String {
        var text = "wrote \(written) cookie\(written == 1 ? "" : "s")"
        if !skipped.isEmpty {
            let partitioned = skipped.filter { $0.reason == .partitioned }.count
            let other = skipped.count - partitioned
            var parts: [String] = []
            if partitioned > 0 {
                parts.append("\(partitioned) partitioned (the format has no partition; use storage-state)")
            }
            if other > 0 { parts.append("\(other) with a tab or line break the format cannot hold") }
            text += "; left out " + parts.joined(separator: " and ")
        }
        return text
    }
}

/// A cookie an export left out.
public struct CookieExportSkip: Sendable, Hashable {
    /// The cookie.
    public var cookie: Cookie
    /// Why the format cannot hold it.
    public var reason: Reason

    /// Creates a skip record.
    ///
    /// - Parameters:
    ///   - cookie: the cookie left out.
    ///   - reason: why.
    public init(cookie: Cookie, reason: Reason) {
        self.cookie = cookie
        self.reason = reason
    }

    /// Why a format cannot hold a cookie.
    public enum Reason: String, Sendable, Hashable {
        /// A partitioned (CHIPS) cookie: `cookies.txt` has no field for its partition, and
        /// writing it unpartitioned would send it to every top-level site.
        case partitioned
        /// A field holds a tab or line break, which `cookies.txt` uses as separators.
        case unrepresentable
    }
}
