import Foundation

extension StorageStateInterchange {
    /// What a storage-state export writes, decided (and checked) before the file is touched.
    struct ExportPlan {
        let store: WebsiteDataStore
        /// The cookies, oldest first.
        let cookies: [Cookie]
        /// The origins to write an entry for, sorted.
        let origins: [SecurityOrigin]
        let includeIndexedDB: Bool
        let namespace: SessionStorageNamespace?

        init(store: WebsiteDataStore, sites: Set<String>?, includeIndexedDB: Bool, namespace text: String?) throws {
            self.store = store
            self.includeIndexedDB = includeIndexedDB
            if let sites {
                for site in sites { try Site.validateDisplayName(site) }
            }
            var namespace: SessionStorageNamespace?
            if let id = try namespaceID(text) {
                // sessionStorage lives in the memory of the process (the store object) that made
                // the namespace: one this object does not have cannot be exported.
                guard let known = store.sessionStorage.namespaces.first(where: { $0.id == id }) else {
                    throw SessionStorageError(namespace: SessionStorageNamespace(id: id))
                }
                namespace = known
            }
            self.namespace = namespace
            cookies = try CookieInterchange.cookies(of: store.httpCookieStore, sites: sites.map { Array($0) })
            var origins = Set(try store.localStorage.origins())
            if includeIndexedDB { origins.formUnion(try store.indexedDB.origins()) }
            if let namespace { origins.formUnion(try store.sessionStorage.origins(namespace: namespace)) }
            if let sites { origins = origins.filter { sites.contains($0.site) } }
            self.origins = origins.sorted()
        }

        /// Writes the storage state, one cookie and one origin entry at a time.
        func write(to handle: FileHandle, named name: String) throws -> StorageStateExportSummary {
            var writer = ChunkWriter(handle: handle, displayPath: name)
            var summary = StorageStateExportSummary()
            try writer.write(StorageStateWriter.opening)
            for cookie in cookies {
                try writer.write(StorageStateWriter.object(for: cookie, first: summary.cookies == 0))
                summary.cookies += 1
            }
            try writer.write(StorageStateWriter.originsOpening(wroteCookies: summary.cookies > 0))
            for origin in origins {
                let entry = try self.entry(for: origin, counting: &summary)
                try writer.write(StorageStateWriter.origin(entry, first: summary.origins == 0))
                summary.origins += 1
            }
            try writer.write(StorageStateWriter.originsClosing(wroteOrigins: summary.origins > 0))
            try writer.flush()
            return summary
        }

        /// One origin's entry: `origin`, `localStorage`, then `sessionStorage` and `indexedDB`
        /// when they were asked for (Playwright's order, with sessionStorage beside localStorage).
        private func entry(for origin: SecurityOrigin, counting summary: inout StorageStateExportSummary) throws
            -> IDBJSONValue
        {
            typealias Member = IDBJSONValue.Member
            func list(_ items: [StorageItem]) -> IDBJSONValue {
                .array(items.map { .object([Member("name", .string($0.key)), Member("value", .string($0.value))]) })
            }
            let local = try store.localStorage.items(origin: origin)
            summary.localStorageItems += local.count
            var members = [Member("origin", .string(origin.description)), Member("localStorage", list(local))]
            if let namespace {
                let session = try store.sessionStorage.items(origin: origin, namespace: namespace)
                summary.sessionStorageItems += session.count
                members.append(Member("sessionStorage", list(session)))
            }
            if includeIndexedDB {
                let databases = try store.indexedDB.exportStorageState(origin: origin)
                summary.indexedDBDatabases += databases.count
                summary.indexedDBRecords += databases.reduce(0) { $0 + $1.stores.reduce(0) { $0 + $1.records.count } }
                members.append(Member("indexedDB", .array(databases.map(\.jsonValue))))
            }
            return .object(members)
        }
    }
}
