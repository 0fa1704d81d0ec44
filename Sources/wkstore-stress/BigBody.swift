import Foundation
import WebsiteData

/// Stores one response of `megabytes` MiB through the disk cache of the store `open` opens (the
/// body handed over as a file, as a download is), serves it from a second store object, and
/// prints the bytes served, whether they are the bytes stored, and how much the process's peak
/// resident size grew. Run in a process of its own, so the growth is the cache's alone.
func reportBigBody(megabytes: Int, open: () throws -> WebsiteDataStore) throws {
    let before = residentKilobytes("VmRSS")
    let url = URL(string: "https://big.example/body.bin")!
    let pattern = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
    do {
        let store = try open()
        try store.set(.cacheMaxSize, to: "\(megabytes * 8)MB")
        try store.set(.memoryCacheMaxSize, to: "0")
        let download = try store.httpCache.makeTemporaryBodyFile()
        let handle = try FileHandle(forWritingTo: download)
        for _ in 0..<megabytes { try handle.write(contentsOf: pattern) }
        try handle.close()
        let response = OriginResponse(
            status: 200,
            headers: ["Cache-Control": "max-age=3600", "Content-Length": String(megabytes << 20)],
            body: .file(download))
        let cache = store.httpCache
        _ = try runBlocking { try await cache.send(CacheRequest(url: url)) { _ in response } }
        try? FileManager.default.removeItem(at: download)
    }
    let store = try open()
    let cache = store.httpCache
    let served = try runBlocking {
        try await cache.send(CacheRequest(url: url)) { _ in throw CocoaError(.fileReadUnknown) }
    }
    var count = 0
    var same = true
    if case .file(let file) = served.body {
        let handle = try FileHandle(forReadingFrom: file)
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            same = same && chunk == pattern.prefix(chunk.count)
            count += chunk.count
        }
        try handle.close()
        try FileManager.default.removeItem(at: file)
    } else {
        same = false
    }
    let peak = residentKilobytes("VmHWM")
    FileHandle.standardOutput.write(
        Data(
            """
            outcome \(served.outcome)
            served-bytes \(count)
            same \(same ? 1 : 0)
            peak-growth-kb \(peak - before)

            """.utf8))
}
