// wkstore-stress: a writer process for crash-safety and side-by-side tests.
//
//   wkstore-stress cookies --store DIR [--batches N] [--per-batch K] [--prefix P] [--reopen yes]
//   wkstore-stress clear --store DIR [--sites a,b]
//   wkstore-stress mixed --store DIR|URI [--identifier UUID] [--tasks 8] [--duration 5] [--prefix P]
//       [--cache yes] [--stop-file FILE] [--settle-file FILE]
//   wkstore-stress nonpersistent [--batches N]
//   wkstore-stress shared
//   wkstore-stress import --store DIR --file FILE
//   wkstore-stress bigbody --store DIR|URI [--identifier UUID] [--megabytes 200]
//   wkstore-stress diskcache|indexeddb|localstorage|websql|appcache --store DIR [--batches N] [--per-batch K] [--prefix P]
//   wkstore-stress fill --store DIR [--per-batch K]
//   wkstore-stress read --store DIR [--url URL] [--origin ORIGIN] [--export FILE] [--backup DIR] [--try-writes yes]
//
// Ingests batches of Set-Cookie headers (one response per batch, one transaction each) and
// prints `committed BATCH` on stdout after each call returned, flushing at once, so a driver
// that kills the process with SIGKILL knows exactly which batches were acknowledged. The other
// data types' writers (CrashWriters.swift) do the same; `fill` writes until the disk is full.
// `read` opens a store read-only (ReadOnlyReader.swift) and prints what it holds.
import Foundation
import WebsiteData

struct MixedStats {
    var keepAcknowledged = 0
    var operations = 0
    var errors = 0
    var outageErrors = 0
    var ambiguous = 0
    var longestWait: TimeInterval = 0
    mutating func add(_ other: MixedStats) {
        keepAcknowledged += other.keepAcknowledged
        operations += other.operations
        errors += other.errors
        outageErrors += other.outageErrors
        ambiguous += other.ambiguous
        longestWait = max(longestWait, other.longestWait)
    }
}

/// A field of /proc/self/status, in kB.
func residentKilobytes(_ field: String) -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("wkstore-stress: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first else {
    fail(
        "usage: wkstore-stress cookies|diskcache|indexeddb|localstorage|websql|appcache|fill|read|clear|mixed|import|nonpersistent|shared --store DIR [options]"
    )
}
arguments.removeFirst()
var options: [String: String] = [:]
while let flag = arguments.first {
    arguments.removeFirst()
    guard flag.hasPrefix("--"), let value = arguments.first else { fail("expected --option value, got \(flag)") }
    arguments.removeFirst()
    options[String(flag.dropFirst(2))] = value
}
let storePath = options["store"] ?? ""
if storePath.isEmpty && mode != "nonpersistent" && mode != "shared" { fail("--store DIR is required") }
let batches = Int(options["batches"] ?? "1000") ?? 1000
let perBatch = Int(options["per-batch"] ?? "5") ?? 5
let prefix = options["prefix"] ?? "c"

/// The store `--store` names: a directory, or a `postgresql://` URI (with `--identifier`, that
/// identifier's store in the database).
@MainActor func openStore() throws -> WebsiteDataStore {
    let identifier = try options["identifier"].map { text in
        guard let uuid = UUID(uuidString: text) else { throw StoreError.invalidArgument("not a UUID: \(text)") }
        return uuid
    }
    if WebsiteDataStore.isPostgreSQLURI(storePath) {
        return try WebsiteDataStore(url: URL(string: storePath)!, identifier: identifier)
    }
    return try WebsiteDataStore(url: URL(fileURLWithPath: storePath, isDirectory: true), identifier: identifier)
}

switch mode {
case "cookies":
    do {
        var store = try openStore()
        try store.set(.cookiesMaxTotal, to: "10000000")
        try store.set(.cookiesMaxPerSite, to: "1000000")
        for batch in 0..<batches {
            // `--reopen yes`: each batch in a store opened for it, closed before the next opens.
            if options["reopen"] == "yes" && batch > 0 { store = try openStore() }
            let headers = (0..<perBatch).map { "\(prefix)\(batch)_\($0)=v\(batch); Max-Age=86400; Path=/" }
            try store.httpCookieStore.setCookies(
                fromSetCookieHeaders: headers, for: URL(string: "https://site\(batch % 17).example/")!)
            FileHandle.standardOutput.write(Data("committed \(batch)\n".utf8))
        }
    } catch {
        fail("\(error)")
    }
case "clear":
    // Removes the cookies of the store (of `--sites a,b` only, if given), as `wkstore clear --types cookies` does.
    do {
        let store = try openStore()
        let sites = options["sites"].map { Set($0.split(separator: ",").map(String.init)) }
        let removed = try store.removeData(ofTypes: [.cookies], matching: RemovalFilter(sites: sites))
        FileHandle.standardOutput.write(Data("cleared \(removed.count)\n".utf8))
    } catch {
        fail("\(error)")
    }
case "nonpersistent":
    // Uses a non-persistent store for a while; the driver checks that nothing was written anywhere.
    let store = WebsiteDataStore.nonPersistent()
    do {
        for batch in 0..<batches {
            try store.httpCookieStore.setCookies(
                fromSetCookieHeaders: ["a\(batch)=1; Max-Age=600", "s\(batch)=1"],
                for: URL(string: "https://example.com/")!)
        }
        _ = try store.httpCookieStore.cookieHeader(for: URL(string: "https://example.com/")!)
        try store.set(.cookiesMaxTotal, to: "5000")
        try store.httpCookieStore.endSession()
        FileHandle.standardOutput.write(Data("cookies \(try store.httpCookieStore.allCookies().count)\n".utf8))
    } catch {
        fail("\(error)")
    }
case "shared":
    // Asks for the default store, and for the store of a new identifier, twice each while the
    // first object is held, and prints whether the same object came back. A process of its own:
    // those stores live under XDG_DATA_HOME, which the driver sets for it alone.
    do {
        let first = try WebsiteDataStore.default()
        let again = try WebsiteDataStore.default()
        let identifier = UUID()
        let named = try WebsiteDataStore.dataStore(forIdentifier: identifier)
        let namedAgain = try WebsiteDataStore.dataStore(forIdentifier: identifier)
        FileHandle.standardOutput.write(Data("default \(first === again ? "same" : "different")\n".utf8))
        FileHandle.standardOutput.write(Data("identifier \(named === namedAgain ? "same" : "different")\n".utf8))
        FileHandle.standardOutput.write(Data("default and identifier \(first === named ? "same" : "different")\n".utf8))
    } catch {
        fail("\(error)")
    }
case "mixed":
    // Side by side: `--tasks` threads write and read for `--duration` seconds (and at least two
    // writes each). Cookies of the
    // sites `keep0..3.example` are never cleared by the driver; those of `clear0..3.example` are.
    // Prints what was acknowledged so the driver can check nothing acknowledged was lost.
    // With `--stop-file F`, the writing also ends once F exists. `--cache yes` stores a disk-cache entry of the same site with each cookie. A PostgreSQL
    // outage's errors (server unavailable, connection lost) are counted apart; a write that
    // lost its connection may or may not have committed (`ambiguous`). With `--settle-file F`,
    // once the writing ends and F exists, the process checks that its lookups agree with a
    // store object opened afresh from the database (`disagreements`).
    let tasks = Int(options["tasks"] ?? "8") ?? 8
    let duration = Double(options["duration"] ?? "5") ?? 5
    let writesCache = options["cache"] == "yes"
    let stopFile = options["stop-file"]
    do {
        let store = try openStore()
        let deadline = Date().addingTimeInterval(duration)
        let stats = Locked(MixedStats())
        // One thread per task, so that `--tasks` writers run at once on any number of cores.
        // Each task writes at least twice (a kept site and a cleared one), however slow the
        // machine, so that a side-by-side check never passes on nothing.
        let finished = DispatchGroup()
        for task in 0..<tasks {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
                var local = MixedStats()
                var i = 0
                while (Date() < deadline || i < 2)
                    && !(stopFile.map { FileManager.default.fileExists(atPath: $0) } ?? false)
                {
                    i += 1
                    let keep = i % 2 == 0
                    let site = keep ? "keep\(task % 4).example" : "clear\(i % 4).example"
                    let name = "\(prefix)t\(task)_\(i)"
                    let started = Date()
                    do {
                        try store.httpCookieStore.setCookies(
                            fromSetCookieHeaders: ["\(name)=1; Max-Age=3600"],
                            for: URL(string: "https://\(site)/")!)
                        if keep { local.keepAcknowledged += 1 }
                        _ = try store.httpCookieStore.cookieHeader(for: URL(string: "https://keep\(i % 4).example/")!)
                        local.operations += 2
                        if writesCache {
                            let cache = store.httpCache
                            let url = URL(string: "https://\(site)/\(name)")!
                            _ = try runBlocking {
                                try await cache.send(CacheRequest(url: url)) { _ in
                                    OriginResponse(
                                        status: 200, headers: ["Cache-Control": "max-age=3600"],
                                        body: .data(Data(name.utf8)))
                                }
                            }
                            local.operations += 1
                        }
                    } catch let error as PostgreSQLError
                        where error.reason == .serverUnavailable || error.reason == .connectionLost
                    {
                        local.outageErrors += 1
                        if keep && error.reason == .connectionLost { local.ambiguous += 1 }
                    } catch {
                        local.errors += 1
                        FileHandle.standardError.write(Data("wkstore-stress: \(type(of: error)): \(error)\n".utf8))
                    }
                    local.longestWait = max(local.longestWait, Date().timeIntervalSince(started))
                }
                stats.withLock { $0.add(local) }
            }
        }
        finished.wait()
        let total = stats.withLock { $0 }
        var disagreements = -1
        if let settle = options["settle-file"] {
            FileHandle.standardOutput.write(Data("written\n".utf8))
            while !FileManager.default.fileExists(atPath: settle) { usleep(50_000) }
            // Another process's last change reaches this one's lookups within the feed's delay.
            for attempt in 0..<50 {
                disagreements = 0
                do {
                    let fresh = try openStore()
                    for site in (0..<4).flatMap({ ["keep\($0).example", "clear\($0).example"] }) {
                        let url = URL(string: "https://\(site)/")!
                        let own = try store.httpCookieStore.cookieHeader(for: url)
                        let theirs = try fresh.httpCookieStore.cookieHeader(for: url)
                        if own != theirs {
                            disagreements += 1
                            guard attempt == 49 else { continue }
                            let a = Set(
                                (own ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
                            let b = Set(
                                (theirs ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
                            FileHandle.standardError.write(
                                Data(
                                    "wkstore-stress: \(site): only here \(a.subtracting(b).sorted()), only in the database \(b.subtracting(a).sorted())\n"
                                        .utf8))
                        }
                    }
                } catch {
                    FileHandle.standardError.write(Data("wkstore-stress: comparing lookups: \(error)\n".utf8))
                    disagreements = -1
                }
                if disagreements == 0 { break }
                usleep(100_000)
            }
        }
        FileHandle.standardOutput.write(
            Data(
                """
                keep-acknowledged \(total.keepAcknowledged)
                operations \(total.operations)
                errors \(total.errors)
                outage-errors \(total.outageErrors)
                ambiguous \(total.ambiguous)
                disagreements \(disagreements)
                longest-wait-ms \(Int(total.longestWait * 1000))

                """.utf8))
    } catch {
        fail("mixed: \(error)")
    }
case "import":
    // Imports a cookie file and reports the peak resident memory it took, measured in a process
    // of its own so that nothing else running inflates it.
    do {
        guard let file = options["file"] else { fail("--file FILE is required") }
        let store = try openStore()
        let before = residentKilobytes("VmRSS")
        let summary = try CookieInterchange.importCookies(from: URL(fileURLWithPath: file), into: store.httpCookieStore)
        let peak = residentKilobytes("VmHWM")
        FileHandle.standardOutput.write(
            Data(
                """
                read \(summary.read)
                imported \(summary.imported)
                evicted \(summary.evicted)
                kept \(try store.httpCookieStore.allCookies().count)
                peak-growth-kb \(peak - before)

                """.utf8))
    } catch {
        fail("\(error)")
    }
case "bigbody":
    // Stores one response of `--megabytes` MiB through the disk cache, then serves it from a
    // new store object, and reports the bytes served, whether they match and the peak resident
    // memory it took: a body is streamed, never whole in memory.
    do {
        let megabytes = Int(options["megabytes"] ?? "200") ?? 200
        try reportBigBody(megabytes: megabytes, open: openStore)
    } catch {
        fail("\(error)")
    }
case "diskcache", "indexeddb", "localstorage", "websql", "appcache":
    // Crash-safety writers of the other data types (CrashWriters.swift): `committed N` after each write.
    do {
        let store = try openStore()
        switch mode {
        case "diskcache": try crashWriteDiskCache(store: store, prefix: prefix, count: batches)
        case "indexeddb":
            try crashWriteIndexedDB(store: store, prefix: prefix, count: batches, perTransaction: perBatch)
        case "localstorage": try crashWriteLocalStorage(store: store, prefix: prefix, count: batches)
        case "websql": try crashWriteWebSQL(store: store, prefix: prefix, count: batches, perTransaction: perBatch)
        default: try crashWriteApplicationCache(store: store, prefix: prefix, count: batches)
        }
    } catch {
        fail("\(error)")
    }
case "fill":
    // Writes cookie batches until a write fails (a full disk): prints `committed N` after each
    // acknowledged batch and the failure as `error <description>`, then exits 0.
    do {
        let store = try openStore()
        try store.set(.cookiesMaxTotal, to: "10000000")
        try store.set(.cookiesMaxPerSite, to: "10000000")
        var batch = 0
        while true {
            let headers = (0..<perBatch).map {
                "\(prefix)\(batch)_\($0)=\(String(repeating: "f", count: 2000)); Max-Age=86400"
            }
            do {
                try store.httpCookieStore.setCookies(
                    fromSetCookieHeaders: headers, for: URL(string: "https://fill\(batch % 50).example/")!)
            } catch {
                FileHandle.standardOutput.write(Data("error \(type(of: error)): \(error)\n".utf8))
                // The refused batch must not be visible in this process either.
                let visible = try store.httpCookieStore.allCookies().filter { $0.name.hasPrefix("\(prefix)\(batch)_") }
                    .count
                FileHandle.standardOutput.write(Data("visible-after-error \(visible)\n".utf8))
                break
            }
            acknowledge(batch)
            batch += 1
        }
    } catch {
        fail("\(error)")
    }
case "read":
    do {
        try readOnly(store: URL(fileURLWithPath: storePath), options: options)
    } catch {
        fail("\(error)")
    }
default:
    fail("unknown mode \(mode)")
}
