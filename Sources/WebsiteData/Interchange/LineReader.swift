import Foundation

/// Splits a `ByteSource` into lines (LF or CRLF), numbering them from 1, holding at most one
/// line in memory beyond the current chunk.
struct LineReader {
    /// The longest line kept: longer than any line that can hold a valid cookie (4096 bytes of
    /// name and value, 1024 of domain and of path). A longer comment line is skipped unread.
    static let maxLineBytes = 1 << 16

    let source: ByteSource
    /// The number of the line last returned.
    private(set) var lineNumber = 0
    /// Where the newline search resumes in the current buffer (bytes before it hold none).
    private var scanned = 0

    init(source: ByteSource) {
        self.source = source
    }

    /// What an over-long line was.
    enum Overflow: Error {
        /// A line (not a comment) longer than `maxLineBytes`, with its number.
        case lineTooLong(Int)
    }

    /// The next line without its line terminator, or `nil` at the end of the file.
    ///
    /// - Throws: `Overflow.lineTooLong` for an over-long line that is not a comment (skipped: the
    ///   next call returns the line after it); `CookieFileError` when the file cannot be read.
    mutating func next() throws -> ArraySlice<UInt8>? {
        while true {
            let start = source.position
            if let newline = Self.index(of: 0x0A, in: source.buffer, from: max(start, scanned)) {
                lineNumber += 1
                source.position = newline + 1
                scanned = source.position
                var end = newline
                if end > start && source.buffer[end - 1] == 0x0D { end -= 1 }
                let line = source.buffer[start..<end]
                if line.count > Self.maxLineBytes && !Self.isComment(line) { throw Overflow.lineTooLong(lineNumber) }
                return line
            }
            if source.buffer.count - start > Self.maxLineBytes {
                try skipOverlongLine()
                continue
            }
            let pending = source.buffer.count - start
            guard try source.refill() else {
                // The last line, without a newline.
                guard pending > 0 else { return nil }
                lineNumber += 1
                let rest = source.buffer[source.position...]
                source.position = source.buffer.count
                scanned = source.position
                var end = rest.endIndex
                if end > rest.startIndex && rest[end - 1] == 0x0D { end -= 1 }
                return rest[rest.startIndex..<end]
            }
            scanned = source.position + pending
        }
    }

    /// Skips a line too long to hold; a comment silently, any other line then throws (reading
    /// can go on after it, with the next line).
    private mutating func skipOverlongLine() throws {
        let number = lineNumber + 1
        let comment = Self.isComment(source.buffer[source.position...])
        while true {
            source.discardBuffered()
            guard try source.refill() else {
                lineNumber = number
                scanned = 0
                break
            }
            if let newline = Self.index(of: 0x0A, in: source.buffer, from: 0) {
                source.position = newline + 1
                scanned = source.position
                lineNumber = number
                break
            }
        }
        if !comment { throw Overflow.lineTooLong(number) }
    }

    /// Whether a line is a comment: `#`, but not `#HttpOnly_`.
    private static func isComment(_ line: ArraySlice<UInt8>) -> Bool {
        line.first == UInt8(ascii: "#") && !line.starts(with: NetscapeCookieFile.httpOnlyPrefix)
    }

    /// The index of the first `byte` in `buffer` at or after `from`.
    private static func index(of byte: UInt8, in buffer: [UInt8], from: Int) -> Int? {
        guard from < buffer.count else { return nil }
        return buffer.withUnsafeBufferPointer { pointer -> Int? in
            guard let base = pointer.baseAddress,
                let found = memchr(base + from, Int32(byte), buffer.count - from)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }
}
