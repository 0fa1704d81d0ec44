import Foundation

/// Bytes of a file read in fixed-size chunks, so that a reader of any size of file holds only
/// one chunk (plus the line or token it is assembling) in memory.
///
/// Not thread-safe: one import owns it.
final class ByteSource {
    /// How much is read from the file at a time.
    static let chunkSize = 1 << 16

    private let handle: FileHandle
    /// The path shown in errors.
    let displayPath: String
    /// Bytes read and not yet consumed start at `position`.
    private(set) var buffer: [UInt8] = []
    /// The first unconsumed byte of `buffer`.
    var position = 0
    /// The file has no more bytes beyond `buffer`.
    private(set) var reachedEnd = false

    /// Creates a source over an open file handle, reading from its current offset.
    init(handle: FileHandle, displayPath: String) {
        self.handle = handle
        self.displayPath = displayPath
    }

    /// Reads the next chunk and appends it to the unconsumed bytes, dropping consumed ones.
    ///
    /// - Returns: `false` at the end of the file.
    /// - Throws: `CookieFileError` when the file cannot be read.
    @discardableResult
    func refill() throws -> Bool {
        if reachedEnd { return false }
        let data: Data?
        do { data = try handle.read(upToCount: Self.chunkSize) } catch {
            throw CookieFileError(
                path: displayPath, reason: "cannot read the file (\(FileErrorReason.text(error, path: displayPath)))")
        }
        guard let data, !data.isEmpty else {
            reachedEnd = true
            return false
        }
        if position > 0 {
            buffer.removeSubrange(0..<position)
            position = 0
        }
        buffer.append(contentsOf: data)
        return true
    }

    /// Drops every unconsumed byte (used to skip the rest of an over-long comment line).
    func discardBuffered() {
        buffer.removeAll(keepingCapacity: true)
        position = 0
    }

    /// Consumes a UTF-8 byte order mark at the start of the file, if there is one.
    func skipByteOrderMark() throws {
        while buffer.count - position < 3, try refill() {}
        if buffer.count - position >= 3, buffer[position] == 0xEF, buffer[position + 1] == 0xBB,
            buffer[position + 2] == 0xBF
        {
            position += 3
        }
    }

    /// The first byte that is not white space, looking at most `limit` bytes ahead, without consuming anything.
    func firstNonSpaceByte(limit: Int = 1 << 20) throws -> UInt8? {
        var index = position
        while true {
            while index < buffer.count {
                let byte = buffer[index]
                if !ByteSource.isSpace(byte) { return byte }
                index += 1
                if index - position >= limit { return nil }
            }
            let consumed = position
            guard try refill() else { return nil }
            index -= consumed - position
        }
    }

    /// The first `count` bytes that are not white space (fewer at the end of the file), looking
    /// at most `limit` bytes ahead, without consuming anything.
    func firstNonSpaceBytes(_ count: Int, limit: Int = 1 << 20) throws -> [UInt8] {
        var found: [UInt8] = []
        var index = position
        while true {
            while index < buffer.count {
                let byte = buffer[index]
                if !ByteSource.isSpace(byte) {
                    found.append(byte)
                    if found.count == count { return found }
                }
                index += 1
                if index - position >= limit { return found }
            }
            let consumed = position
            guard try refill() else { return found }
            index -= consumed - position
        }
    }

    /// JSON white space (which is also what a blank `cookies.txt` line may hold, with tabs).
    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
