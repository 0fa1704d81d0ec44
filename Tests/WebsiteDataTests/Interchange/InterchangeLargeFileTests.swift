import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Imports of files far larger than the store keeps, in bounded memory.
///
/// The imports whose memory is measured run in a process of their own (`wkstore-stress import`),
/// which reports its peak resident size before and after.
@Suite("InterchangeLargeFile", .serialized, .ownThreads)
struct InterchangeLargeFileTests {
    /// Writes `count` cookies over `sites` sites, in chunks; each line is about `padding` + 60 bytes.
    static func writeNetscape(to url: URL, count: Int, sites: Int, padding: Int = 40) throws -> Int {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let expires = Int(Date().timeIntervalSince1970) + 30 * 86_400
        let padding = String(repeating: "abcdefghij", count: padding / 10)
        var chunk = "# Netscape HTTP Cookie File\n\n"
        var size = 0
        for i in 0..<count {
            let site = i % sites
            if i % 3 == 0 {
                chunk += ".site\(site).test\tTRUE\t/\tFALSE\t\(expires)\tcookie\(i)\t\(padding)\(i)\n"
            } else {
                chunk += "#HttpOnly_www.site\(site).test\tFALSE\t/p\tTRUE\t\(expires)\tcookie\(i)\t\(padding)\(i)\n"
            }
            if chunk.utf8.count > 1 << 20 {
                size += chunk.utf8.count
                try handle.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        size += chunk.utf8.count
        try handle.write(contentsOf: Data(chunk.utf8))
        return size
    }

    @Test func fiftyMegabyteFileImportsWithTheDefaultLimits() throws {
        let dir = try InterchangeTemporaryDirectory()
        let file = dir.file("large.txt")
        // 100,000 lines of about 500 bytes. (The cost of an import is per cookie, and in a debug
        // build the store's eviction of the least recently used cookies dominates it; fewer,
        // longer lines keep the file's size and the test's time in bounds.)
        let count = 100_000
        let size = try Self.writeNetscape(to: file, count: count, sites: 5_000, padding: 440)
        #expect(size > 45_000_000)

        // The import runs in a process of its own, so that the peak resident size it reports
        // is the import's alone, not that of tests running alongside.
        let child = try ChildProcess(
            "wkstore-stress", ["import", "--store", dir.file("store").path, "--file", file.path])
        var fields: [String: Int] = [:]
        while let line = child.readLine() {
            let parts = line.split(separator: " ")
            if parts.count == 2, let n = Int(parts[1]) { fields[String(parts[0])] = n }
        }
        #expect(child.wait() == 0)
        let growth = (fields["peak-growth-kb"] ?? Int.max / 2048) * 1024
        let kept = fields["kept"] ?? -1
        print(
            "large import: \(size) bytes, read \(fields["read"] ?? 0), evicted \(fields["evicted"] ?? 0), kept \(kept); peak RSS growth \(growth / 1024) kB"
        )
        #expect(fields["read"] == count)
        #expect(fields["imported"] == count)
        #expect(kept <= 3000)
        #expect(kept > 0)
        #expect(fields["evicted"] == count - kept)
        // Memory follows the cookies kept (3000), not the file (50 MB): reading the file whole,
        // or holding every cookie read, would grow it by 50 MB or more. What it grows by is
        // mostly fixed: the writer's 8 MB page cache, and per site kept (here 2,777 sites of one
        // cookie each, the most sites 3000 cookies can be) the lookup index's few hundred bytes.
        #expect(growth < size / 2, "peak RSS grew by \(growth) bytes for a \(size)-byte file")
    }

    @Test func raisedLimitsKeepEveryCookie() throws {
        let dir = try InterchangeTemporaryDirectory()
        let file = dir.file("medium.txt")
        let count = 20_000
        _ = try Self.writeNetscape(to: file, count: count, sites: 200)
        let store = try dir.store()
        try store.set(.cookiesMaxTotal, to: "50000")
        try store.set(.cookiesMaxPerSite, to: "1000")
        let summary = try CookieInterchange.importCookies(from: file, into: store.httpCookieStore)
        #expect(summary.read == count)
        #expect(summary.evicted == 0)
        #expect(try store.httpCookieStore.allCookies().count == count)
        // And they are in the database, not only in memory.
        #expect(try dir.store().httpCookieStore.allCookies().count == count)
    }

    @Test func storageStateOriginsAreReadNotKept() throws {
        let dir = try InterchangeTemporaryDirectory()
        let file = dir.file("state.json")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        // A 24 MB localStorage value in `origins`, before and after 2,000 cookies.
        let big = Data(String(repeating: "0123456789abcdef", count: 1 << 19).utf8) // 8 MB
        try handle.write(
            contentsOf: Data(
                "{\"origins\": [{\"origin\": \"https://a.example\", \"localStorage\": [{\"name\": \"k\", \"value\": \""
                    .utf8))
        for _ in 0..<2 { try handle.write(contentsOf: big) }
        try handle.write(contentsOf: Data("\"}]}],\n\"cookies\": [\n".utf8))
        var text = ""
        for i in 0..<2_000 {
            text +=
                (i == 0 ? "" : ",\n")
                + "{\"name\": \"c\(i)\", \"value\": \"\(i)\", \"domain\": \".site\(i % 50).test\", \"path\": \"/\", \"expires\": -1, \"httpOnly\": false, \"secure\": false, \"sameSite\": \"Lax\"}"
        }
        try handle.write(contentsOf: Data((text + "\n], \"extra\": \"").utf8))
        try handle.write(contentsOf: big)
        try handle.write(contentsOf: Data("\"}\n".utf8))
        try handle.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)
            .intValue

        let child = try ChildProcess(
            "wkstore-stress", ["import", "--store", dir.file("store").path, "--file", file.path])
        var fields: [String: Int] = [:]
        while let line = child.readLine() {
            let parts = line.split(separator: " ")
            if parts.count == 2, let n = Int(parts[1]) { fields[String(parts[0])] = n }
        }
        #expect(child.wait() == 0)
        let growth = (fields["peak-growth-kb"] ?? Int.max / 2048) * 1024
        print("storage state import: \(size) bytes, read \(fields["read"] ?? 0); peak RSS growth \(growth / 1024) kB")
        #expect(fields["read"] == 2_000)
        #expect(fields["imported"] == 2_000)
        #expect(fields["kept"] == 2_000)
        #expect(growth < size / 3, "peak RSS grew by \(growth) bytes for a \(size)-byte file")
    }
}
