import Foundation

#if canImport(WebsiteData)
    import WebsiteData
#endif

/// The document-start script generator.
extension FuzzTargets {
    static let scriptStore = WebsiteDataStore.nonPersistent()
    static let scriptLock = Locked(0)

    /// Bytes become a page URL, a message handler name and cookies (`Set-Cookie` lines; lines
    /// starting with `!` are written by script). The script for the page is printable ASCII with
    /// no `<`; it writes exactly the cookies page script may see (never HttpOnly), each as a
    /// string literal that decodes to a `document.cookie` string a browser reads back as the
    /// cookie. With `WKSTORE_FUZZ_SAMPLES=DIR`, every 64th script is written to `DIR` (at most
    /// 4000) with the writes it must make, for `node --check` and a run in node (scripts/fuzz.sh).
    static func userScript(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.first else { return }
        let hosts = [
            "example.com", "www.example.com", "a.b.example.co.uk", "localhost", "127.0.0.1", "x.github.io", "[::1]",
            "xn--bcher-kva.example",
        ]
        let host = hosts[Int(first.utf8.first ?? 0) % hosts.count]
        let scheme = first.utf8.count % 3 == 0 ? "http" : "https"
        let path = first.dropFirst().prefix(40).unicodeScalars.filter { $0.properties.isAlphabetic || $0 == "/" }.map(
            String.init
        ).joined()
        guard let url = URL(string: "\(scheme)://\(host)/\(path)") else { return }
        let handler = lines.count > 1 && !lines[1].isEmpty ? String(lines[1]) : nil
        scriptLock.withLock { count in
            count += 1
            let cookies = scriptStore.httpCookieStore
            _ = try? scriptStore.removeData(ofTypes: [.cookies], matching: RemovalFilter())
            for line in lines.dropFirst(2) {
                if line.hasPrefix("!") {
                    _ = try? cookies.setCookies(
                        fromSetCookieHeaders: [String(line.dropFirst())], for: url, api: .nonHTTP)
                } else {
                    _ = try? cookies.setCookies(fromSetCookieHeaders: [String(line)], for: url)
                }
            }
            let details: DocumentCookieScript
            do {
                details = try cookies.documentCookieScript(for: url, messageHandler: handler)
            } catch is CookieScriptError {
                precondition(handler != nil, "only a handler name is refused")
                guard let plain = try? cookies.documentCookieScript(for: url) else { preconditionFailure("no script") }
                details = plain
            } catch {
                preconditionFailure("\(error)")
            }
            let source = details.userScript.source
            precondition(
                source.utf8.allSatisfy { ($0 >= 0x20 && $0 <= 0x7E) || $0 == 0x0A },
                "a character outside printable ASCII")
            precondition(!source.contains("<"), "a '<' in the script")
            let tag = details.scriptTag
            precondition(
                tag.hasPrefix("<script>") && tag.hasSuffix("</script>")
                    && tag.utf8.filter { $0 == UInt8(ascii: "<") }.count == 2)
            let visible = (try? cookies.cookies(for: url, api: .nonHTTP)) ?? []
            precondition(details.cookies.count + details.skipped.count == visible.count)
            precondition(
                details.cookies.allSatisfy { !$0.isHTTPOnly } && details.skipped.allSatisfy { !$0.cookie.isHTTPOnly })
            // The literals decode (as JSON: they are JSON strings too) to strings that parse back to each cookie.
            let written = decodedCookieStrings(source)
            precondition(
                written.count == details.cookies.count, "\(written.count) literals for \(details.cookies.count) cookies"
            )
            for (line, cookie) in zip(written, details.cookies) {
                guard let parsed = ParsedCookie.parse(line) else {
                    preconditionFailure("the browser would refuse \(line)")
                }
                precondition(
                    parsed.name == cookie.name && parsed.value == cookie.value,
                    "\(line) is not \(cookie.name)=\(cookie.value)")
                precondition(
                    parsed.path == cookie.path && parsed.secure == cookie.isSecure && !parsed.httpOnly, "\(line)")
                precondition(cookie.isHostOnly ? parsed.domain == nil : parsed.domain == cookie.domain, "\(line)")
            }
            if let samples = ProcessInfo.processInfo.environment["WKSTORE_FUZZ_SAMPLES"], !samples.isEmpty,
                count % 64 == 1, count / 64 < 4000
            {
                let base = URL(fileURLWithPath: samples).appendingPathComponent("sample-\(count / 64)")
                let expected: [String: Any] = ["hostname": host, "href": url.absoluteString, "writes": written]
                try? details.userScript.source.write(
                    to: base.appendingPathExtension("js"), atomically: false, encoding: .utf8)
                try? JSONSerialization.data(withJSONObject: expected).write(to: base.appendingPathExtension("json"))
            }
        }
    }

    /// The string literals of the script's `var cookies = [...]` array, decoded.
    static func decodedCookieStrings(_ source: String) -> [String] {
        guard let start = source.range(of: "var cookies = ["),
            let end = source[start.upperBound...].range(of: "\n  ];") ?? source[start.upperBound...].range(of: "];")
        else { preconditionFailure("no cookie array in the script") }
        let array = "[" + source[start.upperBound..<end.lowerBound] + "]"
        guard let decoded = try? JSONSerialization.jsonObject(with: Data(array.utf8)) as? [String] else {
            preconditionFailure("the cookie array is not a list of string literals: \(array)")
        }
        return decoded
    }
}
