import Foundation

/// One storage-state import: a check of the whole file, then the cookies, then the origins.
///
/// The file is read in passes, each streamed: the first checks the document and every origin
/// entry (decoding one entry at a time) and writes nothing; the second imports the cookies in
/// one transaction and, when `origins` follows `cookies` (as Playwright writes it), goes on to
/// import the origins; a third reads the origins when they came first.
struct StorageStateImport {
    /// Where the file is, to be read once per pass.
    enum Input {
        /// A file, opened for each pass.
        case file(URL)
        /// A regular file's open handle, read from this offset in each pass.
        case handle(FileHandle, offset: UInt64, name: String)
        /// A temporary copy of a pipe's input; errors name the input as `name`.
        case spooled(URL, name: String)
    }

    let store: WebsiteDataStore
    let namespace: UUID?
    let input: Input
    /// Lenient: bad cookie entries are left out and listed; strict: the first refuses the file.
    /// (Origin entries are checked before anything is written, and refuse the file in both.)
    var options = CookieImportOptions.lenient

    /// An origin entry decoded and checked for form: what to import.
    struct Origin {
        let entry: StorageStateOriginEntry
        let origin: SecurityOrigin
        let localStorage: [(key: String, value: String)]
        let sessionStorage: [(key: String, value: String)]
        let databases: [PlaywrightIndexedDBDatabase]
        var records: Int { databases.reduce(0) { $0 + $1.stores.reduce(0) { $0 + $1.records.count } } }
    }

    func run() throws -> StorageStateImportSummary {
        let originCount = try check()
        var summary = StorageStateImportSummary()

        // The cookies: one transaction, streamed; `origins` is skipped while it is open.
        let (source, close) = try open()
        defer { close() }
        var reader = StorageStateReader(source: source)
        var clock = CreationClock(clock: store.httpCookieStore.clock)
        var lastCookie = -1
        var readerFailed = false
        var reachedEnd = false
        do {
            summary.cookies = try store.httpCookieStore.importCookies(options: options) {
                while true {
                    let event: StorageStateReader.Event
                    do { event = try reader.nextEvent(created: clock.next()) } catch {
                        readerFailed = true
                        throw error
                    }
                    switch event {
                    case .cookie(let cookie, let line, let index, let mapped):
                        lastCookie = index
                        return .cookie(
                            cookie, line: line, index: index, path: reader.entryPath(index), sameSiteMapped: mapped)
                    case .refusedCookie(let refusal):
                        if options.isStrict {
                            throw StorageStateImportError(
                                line: refusal.line, path: refusal.path, reason: refusal.reason)
                        }
                        return .refused(refusal)
                    case .endOfCookies:
                        return nil
                    case .end:
                        reachedEnd = true
                        return nil
                    case .origin:
                        continue
                    }
                }
            }
        } catch let error as CookieImportError {
            // A refused cookie is the one read last; a syntax error says where by its line.
            throw StorageStateImportError(
                line: error.line, path: readerFailed ? nil : "cookies[\(lastCookie)]", reason: error.reason)
        }
        guard originCount > 0 else { return summary }

        var progress = Progress(cookies: summary.cookies)
        if let namespace {
            summary.sessionStorageNamespace = store.sessionStorage.namespace(id: namespace).namespace
        }
        // The origins after the cookies, read on from where the cookies ended.
        if !reachedEnd {
            reader.readsOrigins = true
            try importOrigins(from: &reader, into: &summary, progress: &progress)
        }
        // The origins before the cookies, read again.
        if reader.skippedOrigins {
            let (again, closeAgain) = try open()
            defer { closeAgain() }
            var second = StorageStateReader(source: again)
            second.readsCookies = false
            second.readsOrigins = true
            try importOrigins(from: &second, into: &summary, progress: &progress)
        }
        return summary
    }

    // MARK: - The check

    /// Reads the whole file and checks every origin entry; writes nothing.
    ///
    /// - Returns: how many origin entries the file has.
    private func check() throws -> Int {
        let (source, close) = try open()
        defer { close() }
        var reader = StorageStateReader(source: source)
        reader.readsCookies = false
        reader.readsOrigins = true
        var seen: [SecurityOrigin: Int] = [:]
        var quota: Int64?
        var scratch: WebsiteDataStore?
        var count = 0
        do {
            while true {
                switch try reader.nextEvent(created: Date()) {
                case .origin(let entry):
                    let origin = try decode(entry)
                    if let first = seen[origin.origin] {
                        throw StorageStateImportError(
                            line: entry.line, path: entry.path + ".origin",
                            reason:
                                "\(origin.origin) already has an entry (origins[\(first)]); give each origin one entry")
                    }
                    seen[origin.origin] = entry.index
                    let bytes = try quota ?? readQuota()
                    quota = bytes
                    try checkQuota(origin, quota: bytes)
                    if !origin.databases.isEmpty {
                        let scratchStore = scratch ?? WebsiteDataStore.nonPersistent()
                        scratch = scratchStore
                        try checkDatabases(origin, in: scratchStore)
                    }
                    count += 1
                case .end:
                    return count
                case .cookie, .refusedCookie, .endOfCookies:
                    continue
                }
            }
        } catch let error as CookieImportError {
            throw StorageStateImportError(line: error.line, path: nil, reason: error.reason)
        }
    }

    /// Decodes an entry's origin and IndexedDB databases; checks what can be checked without the store.
    private func decode(_ entry: StorageStateOriginEntry) throws -> Origin {
        guard let text = entry.origin else {
            throw StorageStateImportError(line: entry.line, path: entry.path, reason: "the entry has no \"origin\"")
        }
        guard let origin = SecurityOrigin(string: text) else {
            throw StorageStateImportError(
                line: entry.line, path: entry.path + ".origin",
                reason: "'\(text.prefix(200))' is not an origin (scheme://host[:port], as https://example.com)")
        }
        var databases: [PlaywrightIndexedDBDatabase] = []
        var names: [String: Int] = [:]
        for (number, item) in (entry.indexedDB ?? []).enumerated() {
            let path = entry.path + ".indexedDB[\(number)]"
            let database = try Self.decodeDatabase(item.json, path: path, line: item.line)
            if let first = names[database.name] {
                throw StorageStateImportError(
                    line: item.line, path: path,
                    reason: "a second database named '\(database.name)' (the first is indexedDB[\(first)])")
            }
            names[database.name] = number
            databases.append(database)
        }
        return Origin(
            entry: entry, origin: origin,
            localStorage: (entry.localStorage ?? []).map { ($0.name, $0.value) },
            sessionStorage: (entry.sessionStorage ?? []).map { ($0.name, $0.value) },
            databases: databases)
    }

    /// Decodes one database, naming the deepest part that is not what Playwright writes.
    static func decodeDatabase(_ json: IDBJSONValue, path: String, line: Int) throws -> PlaywrightIndexedDBDatabase {
        do {
            return try PlaywrightIndexedDBDatabase(jsonValue: json)
        } catch let error as IDBError {
            var place = path
            if case .array(let stores)? = json["stores"] {
                search: for (storeNumber, store) in stores.enumerated()
                where (try? PlaywrightIndexedDBStore(jsonValue: store)) == nil {
                    place += ".stores[\(storeNumber)]"
                    if case .array(let records)? = store["records"] {
                        for (number, record) in records.enumerated()
                        where (try? PlaywrightIndexedDBRecord(jsonValue: record)) == nil {
                            place += ".records[\(number)]"
                            break search
                        }
                    }
                    if case .array(let indexes)? = store["indexes"] {
                        for (number, index) in indexes.enumerated()
                        where (try? PlaywrightIndexedDBIndex(jsonValue: index)) == nil {
                            place += ".indexes[\(number)]"
                            break search
                        }
                    }
                    break search
                }
            }
            throw StorageStateImportError(line: line, path: place, reason: "\(error.message) (\(error.name))")
        }
    }

    /// Checks that the items fit in the origin's quota, localStorage in the store and
    /// sessionStorage in the namespace, counted as `setItem` counts them.
    private func checkQuota(_ origin: Origin, quota: Int64) throws {
        func check(_ items: [(key: String, value: String)], stored: [StorageItem], kind: String) throws {
            guard !items.isEmpty else { return }
            var sizes = Dictionary(stored.map { ($0.key, $0.size) }, uniquingKeysWith: { $1 })
            var used = sizes.values.reduce(0, +)
            for (number, item) in items.enumerated() {
                let size = StorageItem.size(key: item.key, value: item.value)
                let replaced = sizes[item.key] ?? 0
                let (required, isRefused) = StorageQuota.check(
                    storing: size, replacing: replaced, in: used, quota: quota)
                if isRefused {
                    let source = kind == "localStorage" ? origin.entry.localStorage : origin.entry.sessionStorage
                    throw StorageStateImportError(
                        line: source?[number].line, path: origin.entry.path + ".\(kind)[\(number)]",
                        reason:
                            "this item would take \(origin.origin) past its \(kind) quota: \(required) bytes needed, the quota is \(quota) bytes (raise localstorage.quota with `wkstore config set`)"
                    )
                }
                sizes[item.key] = size
                used = required
            }
        }
        try check(
            origin.localStorage, stored: try store.localStorage.items(origin: origin.origin), kind: "localStorage")
        if let namespace, let existing = store.sessionStorage.namespaces.first(where: { $0.id == namespace }) {
            try check(
                origin.sessionStorage,
                stored: try store.sessionStorage.items(origin: origin.origin, namespace: existing),
                kind: "sessionStorage")
        } else if namespace != nil {
            try check(origin.sessionStorage, stored: [], kind: "sessionStorage")
        }
    }

    /// Imports an origin's databases into a scratch in-memory store, as the import will into the
    /// store: every key, value, key path, index and constraint is checked as it will be then.
    private func checkDatabases(_ origin: Origin, in scratch: WebsiteDataStore) throws {
        var place = PlaywrightImportPlace()
        do {
            try scratch.indexedDB.importStorageState(origin.databases, origin: origin.origin, place: &place)
        } catch let error as IDBError {
            throw StorageStateImportError(
                line: place.database.flatMap { origin.entry.indexedDB?[$0].line } ?? origin.entry.line,
                path: Self.path(of: place, in: origin), reason: "\(error.message) (\(error.name))")
        }
        for database in origin.databases {
            try scratch.indexedDB.deleteDatabase(origin: origin.origin, name: database.name)
        }
    }

    /// `origins[0].indexedDB[1].stores[2].records[3]`.
    static func path(of place: PlaywrightImportPlace, in origin: Origin) -> String {
        var path = origin.entry.path + ".indexedDB"
        guard let database = place.database else { return path }
        path += "[\(database)]"
        guard let store = place.store else { return path }
        path += ".stores[\(store)]"
        if let index = place.index { path += ".indexes[\(index)]" }
        if let record = place.record { path += ".records[\(record)]" }
        return path
    }

    // MARK: - The import

    /// What has been imported so far, for an error that stops the import midway.
    struct Progress {
        let cookies: CookieImportSummary
        /// Origin entries imported whole.
        var origins: [Int] = []
        /// Parts of the entry being imported that are in the store.
        var parts: [String] = []

        /// `the cookies (12 read)`, `origins[0] to origins[2]`, `origins[3].localStorage`.
        func described(current: String?) -> [String] {
            var text = ["the cookies (\(cookies.read) read)"]
            if let first = origins.first, let last = origins.last {
                text.append(first == last ? "origins[\(first)]" : "origins[\(first)] to origins[\(last)]")
            }
            if let current { text += parts.map { current + "." + $0 } }
            return text
        }
    }

    /// Imports every origin entry the reader yields.
    private func importOrigins(
        from reader: inout StorageStateReader, into summary: inout StorageStateImportSummary,
        progress: inout Progress
    ) throws {
        while true {
            let event: StorageStateReader.Event
            do { event = try reader.nextEvent(created: Date()) } catch let error as StorageStateImportError {
                throw error.having(imported: progress.described(current: nil))
            } catch let error as CookieImportError {
                throw StorageStateImportError(
                    line: error.line, path: nil, reason: "the file changed while it was imported: \(error.reason)",
                    imported: progress.described(current: nil))
            }
            switch event {
            case .origin(let entry):
                try importOrigin(entry, into: &summary, progress: &progress)
            case .end:
                return
            case .cookie, .refusedCookie, .endOfCookies:
                continue
            }
        }
    }

    /// Imports one origin entry: localStorage, sessionStorage, then IndexedDB.
    private func importOrigin(
        _ entry: StorageStateOriginEntry, into summary: inout StorageStateImportSummary,
        progress: inout Progress
    ) throws {
        progress.parts = []
        var step = entry.path
        do {
            let origin = try decode(entry)
            if !origin.localStorage.isEmpty {
                step = entry.path + ".localStorage"
                try store.localStorage.setItems(origin.localStorage, origin: origin.origin)
                summary.localStorageItems += origin.localStorage.count
                progress.parts.append("localStorage")
            }
            if let namespace = summary.sessionStorageNamespace {
                if !origin.sessionStorage.isEmpty {
                    step = entry.path + ".sessionStorage"
                    try store.sessionStorage.setItems(
                        origin.sessionStorage, origin: origin.origin, namespace: namespace)
                    summary.sessionStorageItems += origin.sessionStorage.count
                    progress.parts.append("sessionStorage")
                }
            } else {
                summary.ignoredSessionStorageItems += origin.sessionStorage.count
            }
            if !origin.databases.isEmpty {
                step = entry.path + ".indexedDB"
                try store.indexedDB.importStorageState(origin.databases, origin: origin.origin)
                summary.indexedDBDatabases += origin.databases.count
                summary.indexedDBRecords += origin.records
                progress.parts.append("indexedDB")
            }
        } catch let error as StorageStateImportError {
            throw error.having(imported: progress.described(current: entry.path))
        } catch {
            // One line, as every message of an import is (a database error quotes its SQL).
            let reason = "\(error)".split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .joined(separator: " ")
            throw StorageStateImportError(
                line: entry.line, path: step, reason: reason, imported: progress.described(current: entry.path))
        }
        summary.origins += 1
        progress.origins.append(entry.index)
        progress.parts = []
    }

    // MARK: - Input

    /// The store's web storage quota, in bytes.
    private func readQuota() throws -> Int64 {
        do { return try store.database.read { try StorageQuota.bytes($0) } } catch {
            throw StorageRemoval.storeError(error)
        }
    }

    /// A source over the file from its start (past a byte order mark), and how to close it.
    private func open() throws -> (ByteSource, () -> Void) {
        switch input {
        case .file(let url), .spooled(let url, _):
            let name: String
            if case .spooled(_, let given) = input { name = given } else { name = url.path }
            let handle: FileHandle
            do { handle = try FileHandle(forReadingFrom: url) } catch {
                throw CookieFileError(path: name, reason: "cannot open the file (\(ExportFile.reasonText(error)))")
            }
            let source = ByteSource(handle: handle, displayPath: name)
            try source.skipByteOrderMark()
            return (source, { try? handle.close() })
        case .handle(let handle, let offset, let name):
            do { try handle.seek(toOffset: offset) } catch {
                throw CookieFileError(
                    path: name, reason: "cannot read the file again from its start (\(ExportFile.reasonText(error)))")
            }
            let source = ByteSource(handle: handle, displayPath: name)
            try source.skipByteOrderMark()
            return (source, {})
        }
    }
}
