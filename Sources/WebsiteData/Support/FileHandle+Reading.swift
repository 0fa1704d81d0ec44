import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension FileHandle {
    /// Reads what is there, up to `limit` bytes, waiting for at least one; empty at the end of
    /// the file or pipe.
    ///
    /// Foundation's `availableData`, `readData(ofLength:)` and `readDataToEndOfFile()` stop the
    /// process when a signal interrupts their read (they `try!` it), and a process that starts
    /// others gets signals. This read starts again after an interruption.
    ///
    /// - Throws: `POSIXError` for a read that failed otherwise.
    package func readSome(limit: Int = 65536) throws -> Data {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, limit) }
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno != EINTR { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
    }

    /// Reads to the end of the file or pipe, starting again after an interrupted read (see
    /// `readSome(limit:)`).
    ///
    /// - Throws: `POSIXError` for a read that failed otherwise.
    package func readToEndOfFile() throws -> Data {
        var data = Data()
        while true {
            let chunk = try readSome()
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }
}
