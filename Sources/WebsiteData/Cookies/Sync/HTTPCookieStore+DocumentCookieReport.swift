import Foundation

extension HTTPCookieStore {
    /// Stores a cookie that page script wrote to `document.cookie`, as a browser would.
    ///
    /// The write is a non-HTTP one (`setCookies(fromSetCookieHeaders:for:context:api:)` with
    /// `.nonHTTP`): it cannot set an HttpOnly cookie nor overwrite one, a missing path defaults
    /// from the document's URL, and every other rule of RFC 6265bis 5.7 applies; refusals are
    /// listed in the summary, not thrown. The report's URL comes from the page and a page can
    /// forge it, so pass the URL your browser says the message came from (`frameInfo.request.url`
    /// in WebKit, `source.frame.url()` in Playwright) as `frameURL`: a report whose URL is of
    /// another origin is then refused.
    ///
    /// - Parameters:
    ///   - report: the decoded report.
    ///   - frameURL: the URL of the frame that sent the report, as the browser (not the page) gives it; `nil` trusts the report.
    ///   - context: the document's context (top-level site for a frame); a top-level navigation by default.
    /// - Returns: what was stored, deleted and refused.
    /// - Throws: `CookieScriptError.Code.frameMismatch` when the report's URL is not of `frameURL`'s
    ///   origin; a `StoreError` when the change could not be committed.
    @discardableResult
    public func ingestDocumentCookieReport(
        _ report: DocumentCookieReport, frameURL: URL? = nil,
        context: CookieRequestContext = .topLevelNavigation
    ) throws -> CookieWriteSummary {
        if let frameURL, Self.origin(of: frameURL) != Self.origin(of: report.url) {
            throw CookieScriptError(
                .frameMismatch,
                detail: "the report claims \(report.url.absoluteString) but came from \(frameURL.absoluteString)")
        }
        return try setCookies(fromSetCookieHeaders: [report.cookie], for: report.url, context: context, api: .nonHTTP)
    }

    /// Scheme, host and port (default ports made explicit) of a URL.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port =
            url.port ?? (scheme == "https" || scheme == "wss" ? 443 : scheme == "http" || scheme == "ws" ? 80 : -1)
        return "\(scheme)://\(Site.canonicalHost(of: url) ?? ""):\(port)"
    }
}
