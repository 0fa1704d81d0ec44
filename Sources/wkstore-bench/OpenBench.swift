import Foundation
import WebsiteData

/// Section 3: reopening a persistent store of the big data set and answering the first lookup,
/// against a bare SQLite scan of the same cookies table in the same file.
enum OpenBench {
    static func run(_ context: Context) throws -> Table {
        let config = context.config
        var table = Table("open: reopen a store and answer the first lookup (lower is better)")
        let directory = try context.persistentBigStore()
        let file = directory.appendingPathComponent("store.sqlite")
        let url = context.dataset(config.big).lookups.first { !$0.host!.hasPrefix("www.unknown") }!

        progress("reopening \(config.big) \(config.reopens) times, alternating with a bare SQLite scan")
        var oursTimes: [Double] = []
        var scanTimes: [Double] = []
        var header: String?
        var scanned = 0
        for _ in 0..<config.reopens {
            oursTimes.append(
                try measure {
                    let store = try WebsiteDataStore(directory: directory)
                    header = try store.httpCookieStore.cookieHeader(for: url)
                })
            let scan = try SQLiteFloor.scan(file)
            scanned = scan.rows
            scanTimes.append(scan.nanoseconds)
        }
        let ours = median(oursTimes)
        let scan = median(scanTimes)
        table.add(
            "ours: WebsiteDataStore(directory:) + first cookieHeader, \(config.big.cookies.grouped) cookies vs SELECT * scan",
            ours: Format.seconds(ours), peer: Format.seconds(scan), ratio: Format.times(ours / scan) + " scan",
            target: "(none set)")
        table.note(
            "median of \(config.reopens) (ours: \(oursTimes.map { Format.seconds($0) }.joined(separator: ", ")); scan: \(scanTimes.map { Format.seconds($0) }.joined(separator: ", "))), file in the page cache"
        )
        table.note(
            "scan: open, step all \(scanned.grouped) rows of SELECT * FROM cookies and of the change log's cookie changes, reading every column's size, close; the first lookup (\(url.absoluteString)) sent \(LookupBench.pairs(header).count) cookies"
        )
        return table
    }
}
