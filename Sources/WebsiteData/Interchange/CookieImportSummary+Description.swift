extension CookieImportSummary: CustomStringConvertible {
    /// One line: what was read, imported, skipped as expired and evicted, naming the settings
    /// that keep evicted cookies when there were any.
    public var description: String {
        var text = "read \(read) cookie\(read == 1 ? "" : "s"): imported \(imported)"
        if expired > 0 { text += ", skipped \(expired) already expired" }
        if evicted > 0 {
            text +=
                ", evicted \(evicted) to stay within the store's limits (raise cookies.max-total and cookies.max-per-site with `wkstore config set` to keep more)"
        }
        return text
    }
}
