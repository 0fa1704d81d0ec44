import Foundation

/// Moves a whole Playwright `storageState` between a store and a file: cookies, each origin's
/// localStorage, IndexedDB databases (Playwright 1.51+'s `origins[].indexedDB`) and, as an
/// extra member Playwright ignores, sessionStorage (`origins[].sessionStorage`).
///
/// ```json
/// { "cookies": [ … ],
///   "origins": [ { "origin": "https://app.example.com",
///                  "localStorage": [ { "name": "theme", "value": "dark" } ],
///                  "sessionStorage": [ { "name": "step", "value": "2" } ],
///                  "indexedDB": [ { "name": "app", "version": 2, "stores": [ … ] } ] } ] }
/// ```
///
/// An import checks the whole file before it writes anything (the JSON, every origin, every
/// item against the quota, every IndexedDB database by importing it into a scratch in-memory
/// store), then imports the cookies in one transaction, streamed as `CookieInterchange` does,
/// then each origin's storage. Errors name the line of the file and the JSON path of the entry
/// at fault (`origins[3].localStorage[5]`). `CookieInterchange` stays the way to move cookies
/// only (it reads `origins` for validity and ignores it).
public enum StorageStateInterchange {
    // MARK: - Export

    /// Writes a storage state to an open file handle: the cookies of the store (or of some
    /// sites), and an entry in `origins` for every origin that has localStorage, or IndexedDB
    /// databases when they are asked for, or sessionStorage in the namespace named.
    ///
    /// The layout is Playwright's (`JSON.stringify(state, null, 2)`): cookies oldest first, then
    /// origins sorted by serialization, each with `origin`, `localStorage` (always),
    /// `sessionStorage` (when a namespace is named) and `indexedDB` (when asked for), as
    /// Playwright's `context.storageState({ indexedDB: true })` writes it.
    ///
    /// - Parameters:
    ///   - store: the store.
    ///   - sites: display names (`example.com`) whose cookies and origins to write; `nil` for all.
    ///   - includeIndexedDB: whether to write IndexedDB databases (`origins[].indexedDB`).
    ///   - sessionStorageNamespace: the identifier of the sessionStorage namespace whose items to
    ///     write (`SessionStorageNamespace.description`), or `nil` to write no sessionStorage.
    ///   - handle: where to write (a file, a pipe or standard output).
    ///   - name: how errors name the destination (`-` for standard output).
    /// - Returns: how many cookies, origins, items, databases and records were written.
    /// - Throws: `StoreError.invalidArgument` for a site that is not a display name or a namespace
    ///   that is not an identifier; `SessionStorageError` when this store object has no such
    ///   namespace (sessionStorage lives in the memory of the process that made it);
    ///   `CookieFileError` when a write fails; `StoreError` or `IDBError` when the store cannot be read.
    @discardableResult
    public static func exportStorageState(
        from store: WebsiteDataStore, sites: Set<String>? = nil, includeIndexedDB: Bool = false,
        sessionStorageNamespace: String? = nil, to handle: FileHandle,
        named name: String = "-"
    ) throws -> StorageStateExportSummary {
        let plan = try ExportPlan(
            store: store, sites: sites, includeIndexedDB: includeIndexedDB, namespace: sessionStorageNamespace)
        return try plan.write(to: handle, named: name)
    }

    /// Writes a storage state to a file, replacing it at once when complete (it never holds half
    /// an export). The file is made readable by its owner only (0600): it holds credentials.
    ///
    /// - Parameters:
    ///   - store: the store.
    ///   - sites: display names whose cookies and origins to write; `nil` for all.
    ///   - includeIndexedDB: whether to write IndexedDB databases (`origins[].indexedDB`).
    ///   - sessionStorageNamespace: the identifier of the sessionStorage namespace whose items to
    ///     write, or `nil` to write no sessionStorage.
    ///   - url: the file to write.
    /// - Returns: how many cookies, origins, items, databases and records were written.
    /// - Throws: as `exportStorageState(from:sites:includeIndexedDB:sessionStorageNamespace:to:named:)`;
    ///   `CookieFileError` when the file cannot be written.
    @discardableResult
    public static func exportStorageState(
        from store: WebsiteDataStore, sites: Set<String>? = nil, includeIndexedDB: Bool = false,
        sessionStorageNamespace: String? = nil, to url: URL
    ) throws -> StorageStateExportSummary {
        let plan = try ExportPlan(
            store: store, sites: sites, includeIndexedDB: includeIndexedDB, namespace: sessionStorageNamespace)
        return try ExportFile.write(to: url) { handle in try plan.write(to: handle, named: url.path) }
    }

    // MARK: - Import

    /// Imports a storage-state file into a store: its cookies, each origin's localStorage and
    /// IndexedDB databases, and its sessionStorage into a namespace when one is named.
    ///
    /// The whole file is checked first, and nothing is written when the JSON or an origin entry
    /// is wrong. Then the cookies are imported in one transaction (streamed, with the rules of
    /// `CookieInterchange.importCookies`: a lenient import leaves out and lists cookie entries
    /// that cannot be imported, a strict one refuses the file at the first), then, origin by origin, the localStorage items (one
    /// transaction per origin; a key the file has takes the file's value, keys it lacks stay),
    /// the sessionStorage items (likewise), and the IndexedDB databases (one transaction per
    /// origin; each replaces the origin's database of the same name, others stay).
    ///
    /// - Parameters:
    ///   - url: the file.
    ///   - store: the store to import into.
    ///   - sessionStorageNamespace: the identifier of the namespace to import `sessionStorage`
    ///     into, made when this store object has none; `nil` to leave sessionStorage out (the
    ///     summary counts what was left out).
    ///   - options: `.lenient` (the default) to leave out and list, in `summary.cookies.refusals`,
    ///     cookie entries that cannot be imported; `.strict` to refuse the file at the first.
    /// - Returns: what was imported, and the cookie entries left out.
    /// - Throws: `StorageStateImportError` naming the line and JSON path of what is wrong, and
    ///   what was already imported if a step failed after the check; `CookieFileError` when the
    ///   file cannot be opened or read; `StoreError.invalidArgument` for a namespace that is not
    ///   an identifier; `StoreError` when the store cannot commit the cookies (nothing imported).
    @discardableResult
    public static func importStorageState(
        from url: URL, into store: WebsiteDataStore,
        sessionStorageNamespace: String? = nil, options: CookieImportOptions = .lenient
    ) throws -> StorageStateImportSummary {
        let namespace = try namespaceID(sessionStorageNamespace)
        // Fail on an unreadable file before anything else.
        do { try FileHandle(forReadingFrom: url).close() } catch {
            throw CookieFileError(path: url.path, reason: "cannot open the file (\(ExportFile.reasonText(error)))")
        }
        return try StorageStateImport(store: store, namespace: namespace, input: .file(url), options: options).run()
    }

    /// Imports a storage state read from an open file handle (a file, a pipe or standard input),
    /// as `importStorageState(from:into:sessionStorageNamespace:)` does.
    ///
    /// The file is read more than once (checked whole, then imported): a regular file is read
    /// again from the handle's current offset; other input (a pipe) is first copied to a
    /// temporary file, readable by its owner only, removed when the import ends.
    ///
    /// - Parameters:
    ///   - handle: where to read, from its current offset to its end.
    ///   - name: how errors name the source (`-` for standard input).
    ///   - store: the store to import into.
    ///   - sessionStorageNamespace: the identifier of the namespace to import `sessionStorage`
    ///     into, made when this store object has none; `nil` to leave sessionStorage out.
    ///   - options: `.lenient` (the default) or `.strict`, as for the import from a URL.
    /// - Returns: what was imported, and the cookie entries left out.
    /// - Throws: as `importStorageState(from:into:sessionStorageNamespace:options:)`.
    @discardableResult
    public static func importStorageState(
        from handle: FileHandle, named name: String = "-", into store: WebsiteDataStore,
        sessionStorageNamespace: String? = nil, options: CookieImportOptions = .lenient
    ) throws -> StorageStateImportSummary {
        let namespace = try namespaceID(sessionStorageNamespace)
        var status = stat()
        if fstat(handle.fileDescriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
            let offset = try? handle.offset()
        {
            return try StorageStateImport(
                store: store, namespace: namespace, input: .handle(handle, offset: offset, name: name),
                options: options
            ).run()
        }
        let spool = try spool(handle, named: name)
        defer { try? FileManager.default.removeItem(at: spool) }
        return try StorageStateImport(
            store: store, namespace: namespace, input: .spooled(spool, name: name), options: options
        ).run()
    }

    // MARK: - Helpers

    /// The namespace identifier a caller named, checked.
    static func namespaceID(_ text: String?) throws -> UUID? {
        guard let text else { return nil }
        guard let id = UUID(uuidString: text) else {
            throw StoreError.invalidArgument(
                "'\(text.prefix(80))' is not a sessionStorage namespace: give its identifier, a UUID such as \(UUID().uuidString.lowercased())"
            )
        }
        return id
    }

    /// Copies what a handle holds to a new temporary file (0600).
    private static func spool(_ handle: FileHandle, named name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "wkstore-import-\(UUID().uuidString).json")
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw CookieFileError(
                path: name,
                reason: "cannot create a temporary file in \(url.deletingLastPathComponent().path) to hold the input")
        }
        do {
            let output = try FileHandle(forWritingTo: url)
            defer { try? output.close() }
            while true {
                let chunk: Data?
                do { chunk = try handle.read(upToCount: ByteSource.chunkSize) } catch {
                    throw CookieFileError(path: name, reason: "cannot read (\(ExportFile.reasonText(error)))")
                }
                guard let chunk, !chunk.isEmpty else { break }
                do { try output.write(contentsOf: chunk) } catch {
                    throw CookieFileError(
                        path: url.path,
                        reason: "cannot write the temporary copy of the input (\(ExportFile.reasonText(error)))")
                }
            }
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw error
        }
        return url
    }
}
