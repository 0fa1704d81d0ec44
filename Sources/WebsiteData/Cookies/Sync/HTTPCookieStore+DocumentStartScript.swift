import Foundation

extension HTTPCookieStore {
    /// A document-start user script that gives page script at `url` the cookies the store would let it see.
    ///
    /// The script assigns `document.cookie` once for every cookie page script may see at `url`
    /// (`cookies(for:context:api:)` with `.nonHTTP`: never an HttpOnly cookie), keeping its path, domain
    /// (for a domain cookie), expiry (none for a session cookie), `Secure`, `SameSite` and
    /// `Partitioned`, in `Cookie` header order so that `document.cookie` then reads as the store's
    /// `Cookie` header would. Every string is escaped so that no cookie value can end the string
    /// or the script. The script writes only when the page's `location.hostname` is the host of
    /// `url`, so a script left installed does not copy cookies into another site; make a new one
    /// for each navigation. Cookies that `document.cookie` cannot recreate are left out; use
    /// `documentCookieScript(for:context:messageHandler:forMainFrameOnly:)` to see which and why.
    ///
    /// With `messageHandler`, the script also reports each later `document.cookie` write by the page
    /// to `window.webkit.messageHandlers[messageHandler].postMessage({cookie, url})`, looked up at
    /// the time of the write (nothing happens when it is missing); take the reports in with
    /// `ingestDocumentCookieReport(_:frameURL:context:)`.
    ///
    /// - Parameters:
    ///   - url: the URL of the document the script is for.
    ///   - context: the document's context (top-level site for a frame); a top-level navigation by default.
    ///   - messageHandler: the name of a WebKit script message handler to report writes to, or `nil`.
    ///   - forMainFrameOnly: whether the script should run in the main frame only.
    /// - Returns: the user script, injected at document start.
    /// - Throws: `CookieScriptError.Code.invalidMessageHandlerName` for a handler name that is not a plain
    ///   JavaScript identifier; a `StoreError` when the store cannot be read.
    public func documentStartScript(
        for url: URL, context: CookieRequestContext = .topLevelNavigation,
        messageHandler: String? = nil, forMainFrameOnly: Bool = true
    ) throws -> UserScript {
        try documentCookieScript(
            for: url, context: context, messageHandler: messageHandler,
            forMainFrameOnly: forMainFrameOnly
        ).userScript
    }

    /// The document-start script for `url` as an inline HTML element, `<script>…</script>`, to
    /// insert first in the `<head>` of a page served to a browser.
    ///
    /// The element's content holds no `<`, so it cannot end early or change how the HTML parser
    /// reads what follows, whatever the cookie values are. See
    /// `documentStartScript(for:context:messageHandler:forMainFrameOnly:)` for what the script does.
    ///
    /// - Parameters:
    ///   - url: the URL of the document the script is for.
    ///   - context: the document's context; a top-level navigation by default.
    ///   - messageHandler: the name of a WebKit script message handler to report writes to, or `nil`.
    /// - Returns: the `<script>` element.
    /// - Throws: `CookieScriptError.Code.invalidMessageHandlerName` for an invalid handler name; a
    ///   `StoreError` when the store cannot be read.
    public func documentStartScriptTag(
        for url: URL, context: CookieRequestContext = .topLevelNavigation,
        messageHandler: String? = nil
    ) throws -> String {
        try documentCookieScript(for: url, context: context, messageHandler: messageHandler).scriptTag
    }

    /// The document-start script for `url` with the cookies it writes and those it leaves out.
    ///
    /// Same script as `documentStartScript(for:context:messageHandler:forMainFrameOnly:)`. A cookie
    /// is left out, and listed in `skipped`, when a `document.cookie` string cannot recreate it as
    /// stored: a TAB, `;` or other control character in it, surrounding whitespace the browser
    /// would trim, a nameless cookie whose value holds `=`, an over-long name, value or attribute,
    /// or an `__Http-` prefix that browsers accept only from HTTP.
    ///
    /// - Parameters:
    ///   - url: the URL of the document the script is for.
    ///   - context: the document's context; a top-level navigation by default.
    ///   - messageHandler: the name of a WebKit script message handler to report writes to, or `nil`.
    ///   - forMainFrameOnly: whether the script should run in the main frame only.
    /// - Returns: the script, the cookies it writes (in order) and the cookies it skips.
    /// - Throws: `CookieScriptError.Code.invalidMessageHandlerName` for an invalid handler name; a
    ///   `StoreError` when the store cannot be read.
    public func documentCookieScript(
        for url: URL, context: CookieRequestContext = .topLevelNavigation,
        messageHandler: String? = nil, forMainFrameOnly: Bool = true
    ) throws -> DocumentCookieScript {
        if let messageHandler { try Self.validateMessageHandlerName(messageHandler) }
        var written: [Cookie] = []
        var skipped: [SkippedDocumentCookie] = []
        for cookie in try cookies(for: url, context: context, api: .nonHTTP) {
            if let reason = DocumentCookieLine.skipReason(for: cookie) {
                skipped.append(SkippedDocumentCookie(cookie: cookie, reason: reason))
            } else {
                written.append(cookie)
            }
        }
        var hostname = Site.canonicalHost(of: url) ?? ""
        if hostname.contains(":") { hostname = "[" + hostname + "]" }
        let source = DocumentStartScriptSource.make(
            lines: written.map(DocumentCookieLine.line(for:)),
            hostname: hostname, messageHandler: messageHandler)
        return DocumentCookieScript(
            userScript: UserScript(source: source, injectionTime: .atDocumentStart, forMainFrameOnly: forMainFrameOnly),
            cookies: written, skipped: skipped)
    }

    /// Checks a script message handler name: an ASCII JavaScript identifier of 1 to 128 characters.
    static func validateMessageHandlerName(_ name: String) throws {
        let bytes = Array(name.utf8)
        func isIdentifierByte(_ b: UInt8) -> Bool {
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x24
        }
        guard let first = bytes.first, bytes.count <= 128, !(first >= 0x30 && first <= 0x39),
            bytes.allSatisfy(isIdentifierByte)
        else {
            throw CookieScriptError(.invalidMessageHandlerName, detail: name)
        }
    }
}
