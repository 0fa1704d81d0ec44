// Writers for the crash-safety tests (Tests/WebsiteDataTests/Database/CrashSafetyTests.swift): each
// performs numbered writes of one data type and prints `committed N` on stdout after write N's
// call returned, so a driver that kills the process with SIGKILL at any moment knows exactly
// which writes were acknowledged. What each write contains is a pure function of N (and the
// prefix), so the driver can check every acknowledged write byte for byte, and that a write in
// flight when the process died is either whole or absent.
import Foundation
import WebsiteData

/// Prints the acknowledgement of write `n` (one `write(2)`, no buffering).
func acknowledge(_ n: Int) {
    FileHandle.standardOutput.write(Data("committed \(n)\n".utf8))
}

/// Runs async work to completion from synchronous code.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Locked<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let value = try await body()
            result.withLock { $0 = .success(value) }
        } catch { result.withLock { $0 = .failure(error) } }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}

/// The shapes of the crash writers' data, shared with the tests that check it (which keep a copy
/// of these rules; both sides must agree).
enum CrashData {
    /// Deterministic bytes: `count` bytes derived from `seed`.
    static func bytes(seed: Int, count: Int) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            let p = raw.bindMemory(to: UInt8.self)
            var x = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
            for i in 0..<count {
                x ^= x << 13
                x ^= x >> 7
                x ^= x << 17
                p[i] = UInt8(truncatingIfNeeded: x)
            }
        }
        return data
    }

    /// Disk-cache write `n`: every tenth (`n % 10 == 9`) stores a second version of the entry of
    /// write `n - 5`; the others store a new entry `n`. Returns (entry, version).
    static func cacheTarget(_ n: Int) -> (entry: Int, version: Int) {
        n % 10 == 9 ? (n - 5, 2) : (n, 1)
    }

    /// The body size of an entry version: by `entry % 3`, small (kept in the row), large (a body
    /// file, handed over as bytes), or large handed over as a file.
    static func cacheBodySize(entry: Int, version: Int) -> Int {
        switch entry % 3 {
        case 0: return 200 + (entry * 7919 + version * 31) % 4000
        default: return 64 * 1024 + 1 + (entry * 7919 + version * 104_729) % 150_000
        }
    }

    static func cacheURL(prefix: String, entry: Int) -> URL {
        URL(string: "https://site\(entry % 17).example/\(prefix)\(entry)")!
    }

    static func cacheBody(entry: Int, version: Int) -> Data {
        bytes(seed: entry * 10 + version, count: cacheBodySize(entry: entry, version: version))
    }
}

/// `diskcache`: disk-cache entries stored through `HTTPCache.send` with an origin that answers
/// cacheable responses. Storing is best effort in `send`, and small bodies are written behind
/// (committed after `send` returned), so each write is acknowledged only once a `only-if-cached`
/// request (with the memory cache off) has read the stored body back from disk, whole: a kill
/// may land while a row written behind is being committed, which must then be whole or absent.
func crashWriteDiskCache(store: WebsiteDataStore, prefix: String, count: Int) throws {
    try store.set(.memoryCacheMaxSize, to: "0")
    try store.set(.cacheMaxSize, to: "64GB")
    let cache = store.httpCache
    for n in 0..<count {
        let (entry, version) = CrashData.cacheTarget(n)
        let url = CrashData.cacheURL(prefix: prefix, entry: entry)
        let body = CrashData.cacheBody(entry: entry, version: version)
        let headers: HTTPHeaders = [
            "Cache-Control": "max-age=86400", "Content-Type": "application/octet-stream",
            "Content-Length": String(body.count), "X-Entry": String(entry), "X-Version": String(version),
        ]
        var handedFile: URL?
        let originBody: CacheBody
        if entry % 3 == 2 {
            // A large body received into a file of the cache's own (stored by a hard link).
            let file = try cache.makeTemporaryBodyFile()
            try body.write(to: file)
            handedFile = file
            originBody = .file(file)
        } else {
            originBody = .data(body)
        }
        let response = OriginResponse(status: 200, headers: headers, body: originBody)
        let sent = try runBlocking {
            try await cache.send(CacheRequest(url: url), mode: .reload) { _ in response }
        }
        guard sent.status == 200 else { fail("write \(n): the origin's answer came back as \(sent.status)") }
        if let handedFile { try? FileManager.default.removeItem(at: handedFile) }
        let readBack = try runBlocking {
            try await cache.send(CacheRequest(url: url), mode: .onlyIfCached) { _ in throw CancellationError() }
        }
        guard readBack.status == 200, readBack.headers.first(named: "X-Version") == String(version) else {
            fail("write \(n): the entry was not stored (status \(readBack.status))")
        }
        let stored = try readBack.body.data()
        if case .file(let copy) = readBack.body { try? FileManager.default.removeItem(at: copy) }
        guard stored == body else { fail("write \(n): the stored body differs") }
        acknowledge(n)
    }
}

/// `indexeddb`: read-write transactions of `perTransaction` puts into `items` (indexed by `tx`)
/// and one put into `meta` (`last` = the transaction number), all or none.
func crashWriteIndexedDB(store: WebsiteDataStore, prefix: String, count: Int, perTransaction: Int) throws {
    let origin = SecurityOrigin(string: "https://app.example")!
    let db = try store.indexedDB.open(origin: origin, name: "crash-\(prefix)", version: 1) { tx, old in
        if old < 1 {
            let items = try tx.createObjectStore("items")
            _ = try items.createIndex("byTx", keyPath: "tx")
            _ = try tx.createObjectStore("meta")
        }
    }
    for n in 0..<count {
        try db.transaction(["items", "meta"], mode: .readwrite) { tx in
            let items = try tx.objectStore("items")
            for i in 0..<perTransaction {
                let payload = String(repeating: "\(n).\(i);", count: 1 + (n * 31 + i) % 400)
                _ = try items.put(
                    ["tx": .number(Double(n)), "i": .number(Double(i)), "payload": .string(payload)],
                    key: .string("\(n)_\(i)"))
            }
            _ = try tx.objectStore("meta").put(["last": .number(Double(n))], key: "last")
        }
        acknowledge(n)
    }
}

/// `localstorage`: one item a write, `K<n>` = a value made from `n`.
func crashWriteLocalStorage(store: WebsiteDataStore, prefix: String, count: Int) throws {
    let origin = SecurityOrigin(string: "https://local.example")!
    for n in 0..<count {
        try store.localStorage.setItem("\(prefix)\(n)", String(repeating: "v\(n)|", count: 1 + n % 300), origin: origin)
        acknowledge(n)
    }
}

/// `websql`: SQL transactions of `perTransaction` inserts and one update of a counter row.
func crashWriteWebSQL(store: WebsiteDataStore, prefix: String, count: Int, perTransaction: Int) throws {
    let origin = SecurityOrigin(string: "https://sql.example")!
    let db = try store.webSQLDatabases.open(origin: origin, name: "crash-\(prefix)", version: "1.0")
    try db.transaction { tx in
        _ = try tx.executeSql(
            "CREATE TABLE IF NOT EXISTS items (tx INTEGER, i INTEGER, payload TEXT, PRIMARY KEY (tx, i))")
        _ = try tx.executeSql("CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY, last INTEGER)")
        _ = try tx.executeSql("INSERT OR IGNORE INTO meta VALUES (1, -1)")
    }
    for n in 0..<count {
        try db.transaction { tx in
            for i in 0..<perTransaction {
                let payload = String(repeating: "\(n).\(i);", count: 1 + (n * 31 + i) % 400)
                _ = try tx.executeSql(
                    "INSERT INTO items VALUES (?, ?, ?)", [.integer(Int64(n)), .integer(Int64(i)), .text(payload)])
            }
            _ = try tx.executeSql("UPDATE meta SET last = ? WHERE id = 1", [.integer(Int64(n))])
        }
        acknowledge(n)
    }
}

/// `appcache`: each write replaces the group `n % 5` with version `n`: a manifest and three
/// entries, every one of them naming `n`.
func crashWriteApplicationCache(store: WebsiteDataStore, prefix: String, count: Int) throws {
    for n in 0..<count {
        let base = "https://app\(n % 5).example/\(prefix)"
        let entries = (0..<3).map { i in
            ApplicationCacheEntry(
                url: URL(string: "\(base)/file\(i).js")!,
                headers: [HTTPHeaderField("X-Version", String(n))],
                body: Data(String(repeating: "version \(n) file \(i)\n", count: 1 + (n + i) % 200).utf8))
        }
        _ = try store.applicationCache.replaceGroup(
            manifestURL: URL(string: "\(base)/manifest.appcache")!,
            manifest: Data("CACHE MANIFEST\n# version \(n)\n".utf8), entries: entries)
        acknowledge(n)
    }
}
