import Foundation

/// Buffers text and writes it to a file handle in chunks, so an export never builds the whole
/// file in memory.
struct ChunkWriter {
    /// How much is gathered before a write.
    static let chunkSize = 1 << 16

    private let handle: FileHandle
    private let displayPath: String
    private var buffer: [UInt8] = []

    init(handle: FileHandle, displayPath: String) {
        self.handle = handle
        self.displayPath = displayPath
        buffer.reserveCapacity(Self.chunkSize + 4096)
    }

    /// Appends text, writing a chunk when enough has gathered.
    ///
    /// - Throws: `CookieFileError` when the write fails.
    mutating func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.chunkSize { try flush() }
    }

    /// Writes what is gathered.
    ///
    /// - Throws: `CookieFileError` when the write fails.
    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            throw CookieFileError(
                path: displayPath, reason: "cannot write (\(FileErrorReason.text(error, path: displayPath)))")
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
