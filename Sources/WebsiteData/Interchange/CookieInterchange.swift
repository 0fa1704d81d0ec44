import Foundation

/// Moves cookies between a store and the files other tools use: Netscape `cookies.txt` (curl,
/// wget, yt-dlp), Playwright `storageState` JSON, and the JSON cookie arrays of browser
/// extensions and `chrome.cookies`.
///
/// Imports stream: the file is read in chunks and each cookie is handed to the store as soon
/// as it is read, so memory stays bounded by the store's own cookies whatever the file's size.
/// Each cookie meets the rules a `Set-Cookie` over HTTPS from its own domain would (public
/// suffixes, `__Secure-`/`__Host-` prefixes, sizes, the 400-day cap) and needs a domain a
/// request can match. The whole file is one transaction. By default a bad line or entry is
/// left out and listed with its number and reason (`CookieImportSummary.refusals`);
/// `CookieImportOptions.strict` refuses the whole file at the first, storing nothing.
///
/// Exports write in chunks too, oldest cookie first, so that a file imported again gives the
/// cookies the same relative creation order (which orders a `Cookie` header).
///
/// Cookies only: a storage state's `origins` is checked to be JSON and ignored on import, and
/// written empty on export. `StorageStateInterchange` moves localStorage, sessionStorage and
/// IndexedDB as well.
public enum CookieInterchange {
    // MARK: - Import

    /// Imports the cookies of a file into a store, in one transaction.
    ///
    /// A lenient import (the default) imports every cookie it can and lists each line or entry it
    /// cannot, with its number and the reason, in `summary.refusals` (`summary.hasRefusals`); a
    /// strict one refuses the whole file at the first and imports nothing. A file that is not
    /// of its format (JSON that does not parse) is refused whole either way.
    ///
    /// - Parameters:
    ///   - url: the file.
    ///   - format: the file's format; `nil` to detect it (`detectFormat(of:)`).
    ///   - store: the store to import into.
    ///   - options: `.lenient` (the default) or `.strict`.
    /// - Returns: counts of cookies read, imported, skipped as expired (an expired cookie removes
    ///   the store's cookie of the same name, domain and path, as an expired `Set-Cookie` would),
    ///   evicted by the store's limits (`cookies.max-total`, `cookies.max-per-site`), refused (with
    ///   their lines and reasons) and read as no SameSite (`SameSite=None` without Secure).
    /// - Throws: `CookieFileError` when the file cannot be opened or read; `CookieImportError`
    ///   naming the line of a JSON syntax error, or (strict) of the first bad line or refused
    ///   cookie; `StoreError` when the store cannot commit. Nothing is imported in any of these cases.
    @discardableResult
    public static func importCookies(
        from url: URL, format: CookieFileFormat? = nil,
        into store: HTTPCookieStore, options: CookieImportOptions = .lenient
    ) throws -> CookieImportSummary {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw CookieFileError(path: url.path, reason: "cannot open the file (\(reasonText(error)))")
        }
        defer { try? handle.close() }
        return try importCookies(from: handle, named: url.path, format: format, into: store, options: options)
    }

    /// Imports the cookies read from an open file handle (a file, a pipe or standard input)
    /// into a store, in one transaction, as `importCookies(from:format:into:options:)` does.
    ///
    /// - Parameters:
    ///   - handle: where to read, from its current offset to its end.
    ///   - name: how errors name the source (`-` for standard input).
    ///   - format: the format; `nil` to detect it from the first bytes that are not white space.
    ///   - store: the store to import into.
    ///   - options: `.lenient` (the default) or `.strict`.
    /// - Returns: counts of cookies read, imported, skipped as expired, evicted and refused.
    /// - Throws: `CookieFileError` when reading fails; `CookieImportError` naming the line of a
    ///   JSON syntax error, or (strict) of the first bad line or refused cookie; `StoreError` when
    ///   the store cannot commit. Nothing is imported in any of these cases.
    @discardableResult
    public static func importCookies(
        from handle: FileHandle, named name: String = "-", format: CookieFileFormat? = nil,
        into store: HTTPCookieStore, options: CookieImportOptions = .lenient
    ) throws -> CookieImportSummary {
        let source = ByteSource(handle: handle, displayPath: name)
        try source.skipByteOrderMark()
        let chosen = try format ?? detectFormat(of: source)
        var clock = CreationClock(clock: store.clock)
        switch chosen {
        case .netscape:
            var lines = LineReader(source: source)
            return try store.importCookies(options: options) {
                while true {
                    let line: ArraySlice<UInt8>
                    do {
                        guard let next = try lines.next() else { return nil }
                        line = next
                    } catch LineReader.Overflow.lineTooLong(let number) {
                        return .refused(
                            CookieImportRefusal(
                                line: number,
                                reason:
                                    "the line is longer than \(LineReader.maxLineBytes) bytes, more than any cookie can be"
                            ))
                    }
                    do {
                        if let cookie = try NetscapeCookieFile.parse(
                            line, number: lines.lineNumber, created: clock.next())
                        {
                            return .cookie(cookie, line: lines.lineNumber)
                        }
                    } catch let error as CookieImportError {
                        return .refused(CookieImportRefusal(line: error.line, reason: error.reason))
                    }
                }
            }
        case .storageState, .extensionJSON:
            var reader = StorageStateReader(
                source: source, layout: chosen == .storageState ? .storageState : .cookieArray)
            return try store.importCookies(options: options) { try reader.next(created: clock.next()) }
        }
    }

    /// Detects the format of a file from its first bytes that are not white space.
    ///
    /// - Parameter url: the file.
    /// - Returns: `.storageState` when the first is `{`; `.extensionJSON` when it is `[` followed
    ///   by `{` or `]` (an array of objects: a `cookies.txt` line may start with `[` only for an
    ///   IPv6 address, `[::1]`); else `.netscape` (also for an empty file).
    /// - Throws: `CookieFileError` when the file cannot be opened or read.
    public static func detectFormat(of url: URL) throws -> CookieFileFormat {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw CookieFileError(path: url.path, reason: "cannot open the file (\(reasonText(error)))")
        }
        defer { try? handle.close() }
        let source = ByteSource(handle: handle, displayPath: url.path)
        try source.skipByteOrderMark()
        return try detectFormat(of: source)
    }

    /// The format of what `source` holds from its position on, read without consuming it.
    static func detectFormat(of source: ByteSource) throws -> CookieFileFormat {
        let first = try source.firstNonSpaceBytes(2)
        if first.first == UInt8(ascii: "{") { return .storageState }
        if first.count == 2, first[0] == UInt8(ascii: "["),
            first[1] == UInt8(ascii: "{") || first[1] == UInt8(ascii: "]")
        {
            return .extensionJSON
        }
        return .netscape
    }

    // MARK: - Export

    /// Writes the cookies of a store, or of some of its sites, to an open file handle.
    ///
    /// - Parameters:
    ///   - store: the store.
    ///   - sites: display names (`example.com`) whose cookies to write; `nil` for every cookie.
    ///   - format: the format to write.
    ///   - handle: where to write (a file, a pipe or standard output).
    ///   - name: how errors name the destination (`-` for standard output).
    /// - Returns: how many cookies were written, and those the format cannot hold.
    /// - Throws: `StoreError.invalidArgument` for a site that is not a display name;
    ///   `CookieFileError` when a write fails; `StoreError` when the store cannot be read.
    @discardableResult
    public static func exportCookies(
        from store: HTTPCookieStore, sites: [String]? = nil, format: CookieFileFormat,
        to handle: FileHandle, named name: String = "-"
    ) throws -> CookieExportSummary {
        try exportCookies(try cookies(of: store, sites: sites), format: format, to: handle, named: name)
    }

    /// Writes the cookies of a store, or of some of its sites, to a file, replacing it at once
    /// when complete (it never holds half an export). The file is made readable by its owner
    /// only (0600): cookies are credentials.
    ///
    /// - Parameters:
    ///   - store: the store.
    ///   - sites: display names whose cookies to write; `nil` for every cookie.
    ///   - format: the format to write.
    ///   - url: the file to write.
    /// - Returns: how many cookies were written, and those the format cannot hold.
    /// - Throws: `StoreError.invalidArgument` for a site that is not a display name;
    ///   `CookieFileError` when the file cannot be written; `StoreError` when the store cannot be read.
    @discardableResult
    public static func exportCookies(
        from store: HTTPCookieStore, sites: [String]? = nil, format: CookieFileFormat,
        to url: URL
    ) throws -> CookieExportSummary {
        let cookies = try cookies(of: store, sites: sites)
        return try ExportFile.write(to: url) { handle in
            try exportCookies(cookies, format: format, to: handle, named: url.path)
        }
    }

    /// Writes cookies to an open file handle, in the order given.
    ///
    /// - Parameters:
    ///   - cookies: the cookies; expired ones are written too (the store never returns them).
    ///   - format: the format to write.
    ///   - handle: where to write.
    ///   - name: how errors name the destination.
    /// - Returns: how many cookies were written, and those the format cannot hold (partitioned
    ///   cookies and fields with tabs or line breaks in `cookies.txt`).
    /// - Throws: `CookieFileError` when a write fails.
    @discardableResult
    public static func exportCookies(
        _ cookies: some Sequence<Cookie>, format: CookieFileFormat,
        to handle: FileHandle, named name: String = "-"
    ) throws -> CookieExportSummary {
        var writer = ChunkWriter(handle: handle, displayPath: name)
        var summary = CookieExportSummary()
        switch format {
        case .netscape:
            try writer.write(NetscapeCookieFile.header)
            for cookie in cookies {
                switch NetscapeCookieFile.line(for: cookie) {
                case .text(let line):
                    try writer.write(line)
                    summary.written += 1
                case .cannotHold(let reason):
                    summary.skipped.append(CookieExportSkip(cookie: cookie, reason: reason))
                }
            }
        case .storageState:
            try writer.write(StorageStateWriter.opening)
            for cookie in cookies {
                try writer.write(StorageStateWriter.object(for: cookie, first: summary.written == 0))
                summary.written += 1
            }
            try writer.write(StorageStateWriter.closing(wroteCookies: summary.written > 0))
        case .extensionJSON:
            try writer.write("[")
            for cookie in cookies {
                try writer.write(ExtensionCookieWriter.object(for: cookie, first: summary.written == 0))
                summary.written += 1
            }
            try writer.write(summary.written > 0 ? "\n]\n" : "]\n")
        }
        try writer.flush()
        return summary
    }

    // MARK: - Helpers

    /// The cookies to export, oldest first.
    static func cookies(of store: HTTPCookieStore, sites: [String]?) throws -> [Cookie] {
        var cookies: [Cookie]
        if let sites {
            cookies = []
            for site in Set(sites) {
                try Site.validateDisplayName(site)
                cookies += try store.cookies(forSite: site)
            }
        } else {
            cookies = try store.allCookies()
        }
        cookies.sort { a, b in a.created != b.created ? a.created < b.created : HTTPCookieStore.listingOrder(a, b) }
        return cookies
    }

    private static func reasonText(_ error: Error) -> String {
        ExportFile.reasonText(error)
    }
}

/// Creation times for imported cookies: the store's clock, strictly increasing, so cookies of
/// one import keep their order in the file as their creation order.
struct CreationClock {
    let clock: @Sendable () -> Date
    private var last = -Double.infinity

    init(clock: @escaping @Sendable () -> Date) {
        self.clock = clock
    }

    mutating func next() -> Date {
        var now = clock().timeIntervalSinceReferenceDate
        if now <= last { now = last.nextUp }
        last = now
        return Date(timeIntervalSinceReferenceDate: now)
    }
}
