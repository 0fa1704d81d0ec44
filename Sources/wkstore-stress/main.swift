// wkstore-stress: a writer process for crash-safety and side-by-side tests.
//
//   wkstore-stress cookies --store DIR [--batches N] [--per-batch K] [--prefix P]
//   wkstore-stress clear --store DIR
//   wkstore-stress nonpersistent [--batches N]
//
// Ingests batches of Set-Cookie headers (one response per batch, one transaction each) and
// prints `committed BATCH` on stdout after each call returned, flushing at once, so a driver
// that kills the process with SIGKILL knows exactly which batches were acknowledged.
import Foundation
import WebsiteData

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("wkstore-stress: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first else { fail("usage: wkstore-stress cookies --store DIR [--batches N] [--per-batch K] [--prefix P]") }
arguments.removeFirst()
var options: [String: String] = [:]
while let flag = arguments.first {
    arguments.removeFirst()
    guard flag.hasPrefix("--"), let value = arguments.first else { fail("expected --option value, got \(flag)") }
    arguments.removeFirst()
    options[String(flag.dropFirst(2))] = value
}
let storePath = options["store"] ?? ""
if storePath.isEmpty && mode != "nonpersistent" { fail("--store DIR is required") }
let batches = Int(options["batches"] ?? "1000") ?? 1000
let perBatch = Int(options["per-batch"] ?? "5") ?? 5
let prefix = options["prefix"] ?? "c"


switch mode {
case "cookies":
    do {
        let store = try WebsiteDataStore(directory: URL(fileURLWithPath: storePath))
        try store.set(.cookiesMaxTotal, to: "10000000")
        try store.set(.cookiesMaxPerSite, to: "1000000")
        for batch in 0..<batches {
            let headers = (0..<perBatch).map { "\(prefix)\(batch)_\($0)=v\(batch); Max-Age=86400; Path=/" }
            try store.httpCookieStore.setCookies(fromSetCookieHeaders: headers, for: URL(string: "https://site\(batch % 17).example/")!)
            FileHandle.standardOutput.write(Data("committed \(batch)\n".utf8))
        }
    } catch {
        fail("\(error)")
    }
case "clear":
    // Removes every cookie of the store, as `wkstore clear --types cookies` does.
    do {
        let store = try WebsiteDataStore(directory: URL(fileURLWithPath: storePath))
        let removed = try store.removeData(ofTypes: [.cookies], matching: RemovalFilter())
        FileHandle.standardOutput.write(Data("cleared \(removed.count)\n".utf8))
    } catch {
        fail("\(error)")
    }
case "nonpersistent":
    // Uses a non-persistent store for a while; the driver checks that nothing was written anywhere.
    let store = WebsiteDataStore.nonPersistent()
    do {
        for batch in 0..<batches {
            try store.httpCookieStore.setCookies(fromSetCookieHeaders: ["a\(batch)=1; Max-Age=600", "s\(batch)=1"],
                                                 for: URL(string: "https://example.com/")!)
        }
        _ = try store.httpCookieStore.cookieHeader(for: URL(string: "https://example.com/")!)
        try store.set(.cookiesMaxTotal, to: "5000")
        try store.httpCookieStore.endSession()
        FileHandle.standardOutput.write(Data("cookies \(try store.httpCookieStore.allCookies().count)\n".utf8))
    } catch {
        fail("\(error)")
    }
default:
    fail("unknown mode \(mode)")
}
