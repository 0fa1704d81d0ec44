/// When a user script runs in a document, as WebKit's `WKUserScriptInjectionTime`.
public enum UserScriptInjectionTime: String, Sendable, Hashable, Codable, CaseIterable {
    /// Before any of the document's own content loads or runs: after the document element is
    /// created, before any other script.
    case atDocumentStart
    /// After the document has finished parsing, before subresources such as images may have loaded.
    case atDocumentEnd
}

/// A script to inject into the documents of a web view or a headless browser, as WebKit's `WKUserScript`.
///
/// The store makes these (see `HTTPCookieStore.documentStartScript(for:context:messageHandler:forMainFrameOnly:)`);
/// hand one to the browser that shows the page: `WKUserScript(source:injectionTime:forMainFrameOnly:)` in a
/// WebKit app, Playwright's `addInitScript`, or Chrome DevTools' `Page.addScriptToEvaluateOnNewDocument`.
public struct UserScript: Sendable, Hashable, Codable {
    /// The JavaScript source.
    public var source: String
    /// When the script runs in a document.
    public var injectionTime: UserScriptInjectionTime
    /// Whether the script runs in the main frame only (`true`) or in every frame (`false`).
    public var forMainFrameOnly: Bool

    /// Creates a user script.
    ///
    /// The arguments are those of WebKit's `WKUserScript(source:injectionTime:forMainFrameOnly:)`.
    ///
    /// - Parameters:
    ///   - source: the JavaScript source.
    ///   - injectionTime: when the script runs in a document.
    ///   - forMainFrameOnly: whether the script runs in the main frame only.
    public init(source: String, injectionTime: UserScriptInjectionTime, forMainFrameOnly: Bool) {
        self.source = source
        self.injectionTime = injectionTime
        self.forMainFrameOnly = forMainFrameOnly
    }
}
