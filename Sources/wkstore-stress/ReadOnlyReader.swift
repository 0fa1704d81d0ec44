import Foundation
import Synchronization
import WebsiteData

/// Opens a store read-only and prints what it holds, one line each: `record SITE TYPES`,
/// `cookie NAME=VALUE`, `header URL HEADER` (for `--url`), `local KEY=VALUE` (for `--origin`),
/// `exported N` (cookies.txt to `--export FILE`), `backed-up N` (a backup into `--backup DIR`,
/// with the cookies it holds). With `--try-writes yes`, then tries each kind of change and
/// prints `refused WHAT` when it threw `StoreError.readOnly`, `changed WHAT` or `error WHAT: …`
/// otherwise. Used by tests that run it as another user or on a read-only mount.
func readOnly(store directory: URL, options: [String: String]) throws {
    let store = try WebsiteDataStore(directory: directory, configuration: .init(readOnly: true))
    var out = ""
    for record in try awaitResult({ try await store.dataRecords(ofTypes: Set(WebsiteDataType.allCases)) }) {
        out += "record \(record.displayName) \(record.dataTypes.map(\.cliName).sorted().joined(separator: ","))\n"
    }
    for cookie in try store.httpCookieStore.allCookies() { out += "cookie \(cookie.name)=\(cookie.value)\n" }
    if let url = options["url"].flatMap(URL.init(string:)) {
        out += "header \(url.absoluteString) \(try store.httpCookieStore.cookieHeader(for: url) ?? "")\n"
    }
    let origin = options["origin"].flatMap(SecurityOrigin.init(string:))
    if let origin {
        for item in try store.localStorage.items(origin: origin) { out += "local \(item.key)=\(item.value)\n" }
    }
    if let file = options["export"] {
        let summary = try CookieInterchange.exportCookies(
            from: store.httpCookieStore, format: .netscape, to: URL(fileURLWithPath: file))
        out += "exported \(summary.written)\n"
    }
    if let backup = options["backup"] {
        let destination = URL(fileURLWithPath: backup)
        try store.backup(to: destination)
        out += "backed-up \(try WebsiteDataStore(directory: destination).httpCookieStore.allCookies().count)\n"
    }
    if options["try-writes"] == "yes" {
        let site = URL(string: options["url"] ?? "https://example.com/")!
        let attempts: [(String, () throws -> Void)] = [
            ("set-cookie", { _ = try store.httpCookieStore.setCookies(fromSetCookieHeaders: ["new=1"], for: site) }),
            ("delete-cookie", { _ = try store.httpCookieStore.deleteCookies(named: "a", domain: site.host ?? "") }),
            ("end-session", { _ = try store.endSession() }),
            ("clear", { _ = try store.removeData(ofTypes: Set(WebsiteDataType.allCases), matching: RemovalFilter()) }),
            ("setting", { try store.set(.cookiesMaxTotal, to: "5") }),
            (
                "local-storage",
                { try store.localStorage.setItem("new", "1", origin: origin ?? SecurityOrigin(url: site)!) }
            ),
            ("vacuum", { _ = try store.vacuum() }),
        ]
        for (name, attempt) in attempts {
            do {
                try attempt()
                out += "changed \(name)\n"
            } catch let error as StoreError {
                if case .readOnly = error {
                    out += "refused \(name): \(error)\n"
                } else {
                    out += "error \(name): \(error)\n"
                }
            } catch {
                out += "error \(name): \(error)\n"
            }
        }
        // Dry runs list what would go.
        let wouldGo = try store.removeData(
            ofTypes: Set(WebsiteDataType.allCases), matching: RemovalFilter(), dryRun: true)
        out += "dry-run \(wouldGo.map(\.displayName).joined(separator: ","))\n"
    }
    FileHandle.standardOutput.write(Data(out.utf8))
}

/// Runs an async call to its end from synchronous top-level code.
private func awaitResult<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        let result: Result<T, Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        box.result.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return try box.result.withLock { $0! }.get()
}

/// Hands a result from a task to the thread waiting for it.
private final class ResultBox<T: Sendable>: Sendable {
    let result = Mutex<Result<T, Error>?>(nil)
}
