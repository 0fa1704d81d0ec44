import Foundation
import WebsiteData

/// `wkstore cookies script` and `wkstore cookies ingest-report`: the store's cookies for page
/// script, and `document.cookie` writes reported back.
extension CookiesCommands {
    /// `wkstore cookies script`.
    struct ScriptCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["cookies", "script"],
            summary: "print the document-start script that gives page script the store's cookies",
            details: """
                Prints a JavaScript user script to inject at document start (WKUserScript, Playwright's \
                addInitScript, CDP's Page.addScriptToEvaluateOnNewDocument) in the page at URL: it sets \
                document.cookie for every cookie page script may see there (never HttpOnly ones), with \
                its path, domain, expiry, Secure and SameSite, in Cookie header order, escaped so that \
                no value can break out of the script. It writes only when the page's host is URL's: \
                make a new script for every navigation.

                --inline prints it as a <script>…</script> element to put first in the page's <head>. \
                --message-handler NAME makes the script report every later document.cookie write to \
                window.webkit.messageHandlers.NAME.postMessage({cookie, url}); feed the reports to \
                'wkstore cookies ingest-report'. --top-level-site makes the script for a frame of that \
                page (SameSite applies; the script is then meant for every frame).

                Cookies document.cookie cannot recreate (a TAB or ';' in them, surrounding spaces, an \
                __Http- name, …) are left out and named on standard error. --json prints the script \
                with the cookies it writes and those it leaves out.

                Example:
                  wkstore cookies script https://shop.example.com/cart --message-handler wkstoreCookies > init.js
                """)

        @Argument(
            placeholder: "URL", help: "a URL", parse: { text throws(CLIError) in try parseURL(text, "the page URL") })
        var url: URL
        @Option(
            name: "message-handler", placeholder: "NAME",
            help: "report page writes of document.cookie to this WebKit message handler")
        var messageHandler: String?
        @Flag(name: "inline", help: "print a <script> element for the page's <head>")
        var inline: Bool
        @Option(
            name: "top-level-site", placeholder: "URL", help: "the page URL is a frame of (for SameSite)",
            parse: { text throws(CLIError) in try parseURL(text, "--top-level-site") })
        var topLevelSite: URL?

        func run(_ invocation: Invocation) async throws {
            try await CookiesCommands.runScript(self, invocation)
        }
    }

    /// `wkstore cookies ingest-report`.
    struct IngestReportCommand: Command {
        static let configuration = CommandConfiguration(
            path: ["cookies", "ingest-report"],
            summary: "store document.cookie writes that a page's script reported",
            usage: ["cookies ingest-report [FILE | -]"],
            details: """
                Reads JSON lines, each a report the script of 'wkstore cookies script \
                --message-handler' posts: {"cookie": "name=value; path=/", "url": "https://…/page"}, \
                and stores each cookie as a document.cookie write from that page: a non-HTTP write, \
                which cannot set or overwrite an HttpOnly cookie. A line may also carry \
                "frameURL": the URL the browser (not the page) says the report came from; a report \
                claiming another origin is then refused. Reads standard input without FILE or for -, \
                one line at a time, so a browser's reports can be piped in as they come. Blank lines \
                are skipped.

                Prints how many reports were read and cookies stored; each refused cookie and each \
                malformed line (with its number) goes to standard error. Exits 1 when a line was \
                malformed, or when cookies were refused and none was stored or deleted.

                Example:
                  echo '{"cookie":"theme=dark; path=/","url":"https://www.example.com/"}' | wkstore cookies ingest-report
                """)

        @Argument(placeholder: "FILE", help: "a file of JSON lines")
        var file: String?

        func run(_ invocation: Invocation) async throws {
            try await CookiesCommands.runIngestReport(path: file ?? "-", invocation)
        }
    }

    /// Prints the script `cookies script` asks for.
    static func runScript(_ command: ScriptCommand, _ invocation: Invocation) async throws {
        let url = command.url
        let topLevelSite = command.topLevelSite
        let context =
            topLevelSite.map { CookieRequestContext(topLevelSite: $0, isNavigation: false) } ?? .topLevelNavigation
        let store = try invocation.openStore(for: .read)
        let script = try store.httpCookieStore.documentCookieScript(
            for: url, context: context, messageHandler: command.messageHandler,
            forMainFrameOnly: topLevelSite == nil)
        for skipped in script.skipped { Output.message(skipped.description) }
        let output = invocation.output
        if output.json {
            output.write(
                .object([
                    ("url", .string(url.absoluteString)),
                    ("source", .string(script.userScript.source)),
                    ("scriptTag", .string(script.scriptTag)),
                    ("injectionTime", .string(script.userScript.injectionTime.rawValue)),
                    ("forMainFrameOnly", .bool(script.userScript.forMainFrameOnly)),
                    ("messageHandler", .optional(command.messageHandler)),
                    ("cookies", .array(script.cookies.map(DataFormat.json))),
                    (
                        "skipped",
                        .array(
                            script.skipped.map { skipped in
                                .object([
                                    ("name", .string(skipped.cookie.name)),
                                    ("domain", .string(DataFormat.playwrightDomain(skipped.cookie))),
                                    ("path", .string(skipped.cookie.path)),
                                    ("reason", .string(skipped.reason.rawValue)),
                                    ("message", .string(skipped.description)),
                                ])
                            })
                    ),
                ]))
        } else {
            let text = command.inline ? script.scriptTag : script.userScript.source
            output.raw(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
        }
    }

    /// Stores the reports of the file at `path` (standard input for `-`), one a line.
    static func runIngestReport(path: String, _ invocation: Invocation) async throws {
        let lines: AnySequence<String>
        if path == "-" {
            lines = AnySequence(AnyIterator { readLine(strippingNewline: true) })
        } else {
            let data = try read(path)
            lines = AnySequence(
                data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                    .map { String(decoding: $0, as: UTF8.self) })
        }
        let store = try invocation.openStore(for: .write)
        var tally = IngestTally()
        for (offset, line) in lines.enumerated() {
            let text = line.hasSuffix("\r") ? String(line.dropLast()) : line
            if text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            tally.reports += 1
            do {
                let (report, frameURL) = try decodeReport(text)
                let summary = try store.httpCookieStore.ingestDocumentCookieReport(report, frameURL: frameURL)
                tally.stored += summary.stored
                tally.deleted += summary.deleted
                for rejection in summary.rejected {
                    tally.refused.append("line \(offset + 1): \(rejection.description)")
                    Output.message("line \(offset + 1): \(rejection.description)")
                }
            } catch let error as CookieScriptError where error.code == .frameMismatch {
                tally.refused.append("line \(offset + 1): \(error.description)")
                Output.message("line \(offset + 1): \(error.description)")
            } catch let error as CookieScriptError {
                tally.malformed.append("line \(offset + 1): \(error.description)")
                Output.message("line \(offset + 1): \(error.description)")
            }
        }
        let output = invocation.output
        if output.json {
            output.write(
                .object([
                    ("reports", .int(Int64(tally.reports))),
                    ("stored", .int(Int64(tally.stored))),
                    ("deleted", .int(Int64(tally.deleted))),
                    ("refused", .array(tally.refused.map(JSONValue.string))),
                    ("malformed", .array(tally.malformed.map(JSONValue.string))),
                ]))
        } else {
            var parts = [
                "read \(Format.count(tally.reports, "report")): stored \(Format.count(tally.stored, "cookie"))"
            ]
            if tally.deleted > 0 { parts.append("deleted \(tally.deleted)") }
            parts.append("refused \(tally.refused.count)")
            if !tally.malformed.isEmpty { parts.append("malformed \(tally.malformed.count)") }
            output.line(parts.joined(separator: ", "))
        }
        if !tally.malformed.isEmpty || (tally.stored == 0 && tally.deleted == 0 && !tally.refused.isEmpty) {
            throw CLIError.failure(nil)
        }
    }

    /// What `ingest-report` did.
    private struct IngestTally {
        var reports = 0
        var stored = 0
        var deleted = 0
        var refused: [String] = []
        var malformed: [String] = []
    }

    /// A report line, and the `frameURL` it may carry.
    ///
    /// - Throws: `CookieScriptError` `.malformedReport` for a line that is not such an object.
    static func decodeReport(_ line: String) throws -> (DocumentCookieReport, URL?) {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])
        } catch {
            throw CookieScriptError(.malformedReport, detail: "not JSON")
        }
        guard let fields = object as? [String: Any] else {
            throw CookieScriptError(.malformedReport, detail: "the JSON is not an object")
        }
        var frameURL: URL?
        if let value = fields["frameURL"], !(value is NSNull) {
            guard let text = value as? String, let url = URL(string: text), url.scheme != nil else {
                throw CookieScriptError(.malformedReport, detail: "\"frameURL\" is not an absolute URL")
            }
            frameURL = url
        }
        return (try DocumentCookieReport(messageBody: fields), frameURL)
    }
}
