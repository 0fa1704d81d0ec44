extension CookieImportSummary: CustomStringConvertible {
    /// One line: what was read, imported, skipped as expired, evicted (naming the settings that
    /// keep evicted cookies), refused, and read as no SameSite. The refused lines themselves are
    /// in `refusals`, one `description` each.
    ///
    /// `read 5 cookies: imported 3, refused 2 (lines below); 1 SameSite=None cookie without Secure imported with no SameSite (sent on same-site requests and top-level navigations)`
    public var description: String {
        var text = "read \(read) cookie\(read == 1 ? "" : "s"): imported \(imported)"
        if expired > 0 { text += ", skipped \(expired) already expired" }
        if evicted > 0 {
            text +=
                ", evicted \(evicted) to stay within the store's limits (raise cookies.max-total and cookies.max-per-site with `wkstore config set` to keep more)"
        }
        if refused > 0 { text += ", refused \(refused)" }
        if sameSiteNoneWithoutSecure > 0 {
            let count = sameSiteNoneWithoutSecure
            text +=
                "; \(count) SameSite=None cookie\(count == 1 ? "" : "s") without Secure imported with no SameSite (sent on same-site requests and top-level navigations)"
        }
        return text
    }
}
