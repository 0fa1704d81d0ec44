import Foundation
import WebsiteData

/// `wkstore demo`: the tool's main job, shown on a throwaway store.
struct DemoCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["demo"],
        summary: "show what the tool does, on a throwaway store in a temporary directory",
        details: """
            Creates a store of its own in a fresh temporary directory (never touching yours), sets \
            cookies from sample Set-Cookie headers (one of them a refused supercookie), prints the \
            Cookie header for a URL and the records, clears cookies set since a moment, prints the \
            records again, and deletes the directory. Each step is printed as the wkstore command \
            that does the same.
            """)

    private struct Response {
        let url: URL
        let headers: [String]
    }

    private static let firstResponse = Response(
        url: URL(string: "https://www.example.com/")!,
        headers: [
            "sid=31d4d96e407aad42; Path=/; Secure; HttpOnly; SameSite=Lax",
            "theme=dark; Domain=example.com; Path=/; Max-Age=31536000",
            "lang=en-US; Path=/account; Max-Age=86400",
            "tracker=1; Domain=com; Path=/",
        ])
    private static let secondResponse = Response(
        url: URL(string: "https://shop.example.co.uk/")!,
        headers: [
            "cart=3-items; Path=/; Max-Age=3600; SameSite=Strict"
        ])
    private static let requestURL = URL(string: "https://www.example.com/account/settings")!

    func run(_ invocation: Invocation) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("wkstore-demo-\(UUID().uuidString.lowercased())", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (text, json) = try await Self.demo(in: directory)
        try? FileManager.default.removeItem(at: directory)
        let deleted = !FileManager.default.fileExists(atPath: directory.path)
        let output = invocation.output
        if output.json {
            output.write(.object(json + [("deleted", .bool(deleted))]))
        } else {
            output.lines(
                text + ["", deleted ? "(the demo store was deleted)" : "(could not delete \(directory.path))"])
        }
    }

    /// Runs the demo on a store in `directory`; the store is closed when this returns.
    private static func demo(in directory: URL) async throws -> (text: [String], json: [(String, JSONValue)]) {
        let store = try WebsiteDataStore(directory: directory)
        let cookies = store.httpCookieStore
        var text = ["wkstore demo: a throwaway store in \(directory.path)"]
        var json: [(String, JSONValue)] = [("directory", .string(directory.path))]

        func set(_ response: Response) throws -> JSONValue {
            let summary = try cookies.setCookies(fromSetCookieHeaders: response.headers, for: response.url)
            let arguments = response.headers.map { " \\\n    '\($0)'" }.joined()
            text += ["", "$ wkstore cookies set --url \(response.url.absoluteString)" + arguments]
            text += summary.rejected.map { "wkstore: \($0.description)" }
            text.append(CookiesCommands.summaryLine(summary))
            return .object([
                ("url", .string(response.url.absoluteString)),
                ("setCookie", .array(response.headers.map(JSONValue.string))),
                ("stored", .int(Int64(summary.stored))),
                ("refused", .array(summary.rejected.map { .string($0.description) })),
            ])
        }

        let first = try set(firstResponse)
        let since = Date()
        let second = try set(secondResponse)
        json.append(("responses", .array([first, second])))

        let header = try cookies.cookieHeader(for: requestURL)
        text += ["", "$ wkstore cookies header \(requestURL.absoluteString)", header ?? ""]
        json.append(
            ("cookieHeader", .object([("url", .string(requestURL.absoluteString)), ("cookie", .optional(header))])))

        let before = try await store.dataRecords(ofTypes: WebsiteDataType.all)
        text += ["", "$ wkstore records"] + DataFormat.lines(before)
        json.append(("recordsBefore", .array(before.map { DataFormat.json($0, sizes: true) })))

        let removed = try store.removeData(ofTypes: [.cookies], matching: RemovalFilter(modifiedSince: since))
        text += [
            "",
            "$ wkstore clear --types cookies --since \(Format.iso8601(since))   # a moment before the shop's cookie was set",
        ]
        text += ClearCommand.lines(removed, dryRun: false)
        json.append(
            (
                "clear",
                .object([
                    ("types", .array([.string(WebsiteDataType.cookies.cliName)])),
                    ("since", .date(since)),
                    ("removed", .array(removed.map { DataFormat.json($0, sizes: false) })),
                ])
            ))

        let after = try await store.dataRecords(ofTypes: WebsiteDataType.all)
        text += ["", "$ wkstore records"] + DataFormat.lines(after)
        json.append(("recordsAfter", .array(after.map { DataFormat.json($0, sizes: true) })))
        return (text, json)
    }
}
