import Foundation

/// The disk cache's side of a store copy (`WebsiteDataStore.copyStore(from:to:)`): a stored body
/// read a piece at a time in the caller's transaction, and written the way `store` writes one
/// (inline up to `inlineLimit`; above it a file in a SQLite store's `cache/` folder, or chunks of
/// a PostgreSQL store's entry), so no large body sits in memory whole.
extension HTTPDiskCache {
    /// Where a row's body is, from its `body`, `body_file` and `body_size` columns.
    static func storedBody(id: Int64, inline: DatabaseValue, file: String?, size: Int64) -> StoredBody {
        if let file { return .file(name: file, size: size) }
        if case .blob(let bytes) = inline { return .inline(Data(bytes)) }
        // An empty body may read back as NULL; a PostgreSQL body above the inline limit is chunks.
        return size == 0 ? .inline(Data()) : .chunks(entry: id, size: size)
    }

    /// Reads a stored body of this cache in pieces of at most `chunkSize` bytes, in order, in the
    /// caller's transaction `db` (chunks are read through it, so they belong to its snapshot).
    ///
    /// - Returns: `false` when the body's file is gone (its entry was removed after the
    ///   transaction's snapshot was taken); `true` once every piece was handed to `sink`.
    func readBody(_ body: StoredBody, _ db: DatabaseConnection, into sink: (Data) throws -> Void) throws -> Bool {
        switch body {
        case .inline(let data):
            try sink(data)
        case .file(let name, _):
            guard let url = fileURL(name), let handle = try? FileHandle(forReadingFrom: url) else { return false }
            defer { try? handle.close() }
            while let piece = try handle.read(upToCount: Self.chunkSize), !piece.isEmpty { try sink(piece) }
        case .chunks(let entry, let size):
            let count = (size + Int64(Self.chunkSize) - 1) / Int64(Self.chunkSize)
            for n in 0..<count {
                let chunk = try db.rows(
                    "SELECT bytes FROM http_cache_chunks WHERE entry_id = ? AND n = ?", [.integer(entry), .integer(n)]
                ) { Data($0.blob(0)) }.first
                guard let chunk else { throw CocoaError(.fileReadCorruptFile) }
                try sink(chunk)
            }
        }
        return true
    }

    /// Writes the body of entry `entry` (whose row is inserted with the returned columns) into
    /// this cache as `store` would keep it, reading it from `source`, which hands over the bytes
    /// in order. A file is written before the row (its URL is returned, for the caller to delete
    /// should the transaction fail); chunks after it, with `writeChunks(entry:_:from:)`.
    ///
    /// - Returns: the `body` and `body_file` column values, whether chunks must follow the row,
    ///   and the file made, if any.
    func prepareBody(size: Int64, from source: ((Data) throws -> Void) throws -> Void) throws -> (
        inline: DatabaseValue, file: DatabaseValue, chunked: Bool, madeFile: URL?
    ) {
        if size <= Int64(Self.inlineLimit) {
            var data = Data()
            try source { data.append($0) }
            return (.blob(Array(data)), .null, false, nil)
        }
        if database.engine == .postgreSQL { return (.null, .null, true, nil) }
        let name = UUID().uuidString.lowercased()
        let url = try existingFolder().appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try source { try handle.write(contentsOf: $0) }
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw error
        }
        return (.null, .text(name), false, url)
    }

    /// Writes the chunks of entry `entry` (PostgreSQL) in the caller's transaction from the bytes
    /// `source` hands over in order, `chunkSize` bytes a chunk.
    static func writeChunks(entry: Int64, _ db: DatabaseConnection, from source: ((Data) throws -> Void) throws -> Void)
        throws
    {
        var writer = ChunkWriter(entry: entry, db: db)
        try source { try writer.append($0) }
        try writer.finish()
    }

    /// Cuts bytes handed over in pieces of any size into the chunks of one entry.
    struct ChunkWriter {
        let entry: Int64
        let db: DatabaseConnection
        private var pending = Data()
        private var n: Int64 = 0

        init(entry: Int64, db: DatabaseConnection) {
            self.entry = entry
            self.db = db
        }

        /// Takes the next bytes, writing each full chunk (a piece's full chunks straight from it).
        mutating func append(_ bytes: Data) throws {
            let size = HTTPDiskCache.chunkSize
            var rest = bytes[...]
            if !pending.isEmpty {
                let taken = min(size - pending.count, rest.count)
                pending.append(rest.prefix(taken))
                rest = rest.dropFirst(taken)
                guard pending.count == size else { return }
                try write(pending)
                pending.removeAll(keepingCapacity: true)
            }
            while rest.count >= size {
                try write(rest.prefix(size))
                rest = rest.dropFirst(size)
            }
            pending.append(rest)
        }

        /// Writes the last, partial chunk.
        mutating func finish() throws {
            if !pending.isEmpty { try write(pending) }
            pending = Data()
        }

        private mutating func write(_ bytes: Data) throws {
            try db.execute(
                "INSERT INTO http_cache_chunks (entry_id, n, bytes) VALUES (?, ?, ?)",
                [.integer(entry), .integer(n), .blob(Array(bytes))])
            n += 1
        }
    }
}
