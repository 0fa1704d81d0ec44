import Foundation

/// Scrapy's `HttpCacheMiddleware` storages as the cache section's reference peers, at the level
/// the middleware calls them: `store_response` for every URL, then `retrieve_response` from a
/// storage opened again, for the filesystem storage and the DBM one (Python's `dbm` picks its
/// module: the one used is reported). No HTTP is involved, so the rows are for information: the
/// middleware's own work and the download around it come on top. Runs with the Python of
/// requests-cache's venv, where `scripts/bench-peers.sh` installs Scrapy too.
struct ScrapyCachePeer {
    /// The venv's Python.
    let python: URL

    /// One storage's figures, in nanoseconds per response.
    struct Storage {
        var fill: Double
        var hit: Double
    }

    struct Result {
        var filesystem: Storage
        var dbm: Storage
        /// Python's `dbm` module the DBM storage used (`dbm.gnu`, `dbm.dumb`…).
        var dbmModule: String
        var timed: Int
        var version: String
    }

    static let script = #"""
        import dbm, importlib.metadata, sys, time
        from scrapy.extensions.httpcache import DbmCacheStorage, FilesystemCacheStorage
        from scrapy.http import Request, Response
        from scrapy.spiders import Spider
        from scrapy.utils.test import get_crawler

        path, count, timed, urlfile, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
        urls = [line.strip() for line in open(urlfile)][:count]
        body = b"x" * size
        headers = {"Cache-Control": "max-age=3600", "Content-Type": "text/html"}
        figures = []
        for name, storage_class in (("filesystem", FilesystemCacheStorage), ("dbm", DbmCacheStorage)):
            crawler = get_crawler(Spider, {"HTTPCACHE_DIR": path + "/" + name, "HTTPCACHE_EXPIRATION_SECS": 0})
            spider = crawler._create_spider("bench")
            storage = storage_class(crawler.settings)
            storage.open_spider(spider)
            start = time.perf_counter()
            for url in urls:
                storage.store_response(spider, Request(url), Response(url, status=200, headers=headers, body=body))
            fill = (time.perf_counter() - start) / len(urls)
            storage.close_spider(spider)
            storage = storage_class(crawler.settings)
            storage.open_spider(spider)
            requests = [Request(url) for url in urls[:: max(1, len(urls) // timed)][:timed]]
            start = time.perf_counter()
            for request in requests:
                response = storage.retrieve_response(spider, request)
                if response is None or len(response.body) != size:
                    sys.exit("scrapy " + name + ": not from the cache: " + request.url)
            hit = (time.perf_counter() - start) / len(requests)
            storage.close_spider(spider)
            figures += [fill * 1e9, hit * 1e9]
        module = dbm.whichdb(path + "/dbm/bench.db")  # the storage's file: HTTPCACHE_DIR/<spider>.db
        print(*figures, module, len(requests), importlib.metadata.version("scrapy"))
        """#

    /// Stores the section's `urls` with bodies of `bodySize` bytes in each storage, then times
    /// `retrieve_response` on up to `RequestsCachePeer.timedHits` of them.
    func run(urls: [URL], bodySize: Int, scratch: ScratchDirectory) throws -> Result {
        progress("cache: Scrapy's cache storages storing \(urls.count.grouped) responses, then retrieving")
        let (status, fields, output) = try runPeerScript(
            Self.script, named: "scrapy_cache_peer", python: python, urls: urls, timed: RequestsCachePeer.timedHits,
            scratch: scratch, data: "scrapy", extra: [String(bodySize)])
        let numbers = fields.prefix(4).compactMap { Double($0) }
        guard status == 0, fields.count == 7, numbers.count == 4, let timed = Int(fields[5]) else {
            throw BenchError("Scrapy's cache storages failed (status \(status)): \(output.suffix(300))")
        }
        return Result(
            filesystem: Storage(fill: numbers[0], hit: numbers[1]), dbm: Storage(fill: numbers[2], hit: numbers[3]),
            dbmModule: String(fields[4]), timed: timed, version: String(fields[6]))
    }
}
