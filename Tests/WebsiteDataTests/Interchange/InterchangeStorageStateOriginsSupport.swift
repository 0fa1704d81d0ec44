import Foundation
import Testing

@testable import WebsiteData

/// Stores filled for storage-state tests, and what a storage state carries of a store.
enum StorageStateFixture {
    static let app = SecurityOrigin(string: "https://app.example.com")!
    static let www = SecurityOrigin(string: "https://www.example.com")!
    static let other = SecurityOrigin(string: "http://other.org:8080")!

    /// localStorage of `app`: non-ASCII, empty values and keys, NUL, quotes and line breaks.
    static let appItems: [(String, String)] = [
        ("theme", "dark"),
        ("empty", ""),
        ("", "an empty key"),
        ("nul\u{0}key", "a\u{0}b\u{0}"),
        ("caf\u{E9} \u{2615}", "\u{5024} \u{1F36A} e\u{301}"),
        ("quote\"\\/", "line\nbreak\ttab\r\u{1}\u{1F}\u{7F}\u{2028}"),
    ]

    /// Fills a store with cookies, localStorage, sessionStorage (in a new namespace, returned)
    /// and IndexedDB databases with every kind of key, value, key path and index.
    static func fill(_ store: WebsiteDataStore) throws -> SessionStorageNamespace {
        let cookies = store.httpCookieStore
        try cookies.setCookies(
            fromSetCookieHeaders: [
                "sid=abc123; Path=/; HttpOnly; Secure; SameSite=Lax",
                "pref=dark; Domain=example.com; Path=/; Max-Age=86400",
                "cart=; Path=/shop",
                "unicode=caf\u{e9}\u{1F36A}",
            ], for: URL(string: "https://www.example.com/shop/cart")!)
        try cookies.setCookies(
            fromSetCookieHeaders: ["o=1; SameSite=Strict"], for: URL(string: "http://other.org:8080/")!)

        for (key, value) in appItems { try store.localStorage.setItem(key, value, origin: app) }
        try store.localStorage.setItem("x", "y", origin: www)
        try store.localStorage.setItem("k", "v", origin: other)

        let tab = store.sessionStorage.makeNamespace()
        try store.sessionStorage.setItem("step", "2", origin: app, namespace: tab)
        try store.sessionStorage.setItem("\u{FC}n\u{EF}", "\u{0}", origin: app, namespace: tab)
        try store.sessionStorage.setItem("empty", "", origin: app, namespace: tab)
        // An origin with sessionStorage only.
        try store.sessionStorage.setItem(
            "only", "session", origin: SecurityOrigin(string: "https://session.example.net")!, namespace: tab)

        let idb = store.indexedDB
        let shop = try idb.open(origin: app, name: "shop", version: 5) { tx, _ throws in
            let kv = try tx.createObjectStore("kv")
            try kv.createIndex("byKind", keyPath: "kind")
            let items = try tx.createObjectStore("items", keyPath: "id", autoIncrement: true)
            try items.createIndex("sku", keyPath: "sku", unique: true)
            try items.createIndex("tags", keyPath: "tags", multiEntry: true)
            let people = try tx.createObjectStore("people", keyPath: ["last", "first"])
            try people.createIndex("full", keyPath: ["first", "last"])
            try people.createIndex("email", keyPath: "contact.email", unique: true)
            try tx.createObjectStore("counter", autoIncrement: true)
            try tx.createObjectStore("nested", keyPath: "a.b")
        }
        try shop.transaction(["kv", "items", "people", "counter", "nested"], mode: .readwrite) { tx throws in
            let kv = try tx.objectStore("kv")
            // Keys of every type: numbers (with infinities), dates, strings, binary, arrays.
            try kv.put(["kind": "plain", "nested": ["b": 1, "a": [true, false, nil], "z": "ordered"]], key: "json")
            try kv.put(nil, key: "top-level null")
            try kv.put(.undefined, key: "")
            try kv.put(
                [
                    "kind": "special", "nan": .number(.nan), "inf": .number(-.infinity), "negZero": .number(-0.0),
                    "u": .undefined,
                ], key: 1)
            try kv.put(
                .date(Date(timeIntervalSince1970: 1_700_000_000.123)), key: .date(Date(timeIntervalSince1970: 86_400)))
            try kv.put(
                [
                    "kind": "bytes", "u8": .binary(Data([0, 1, 255]), kind: .uint8),
                    "f64": .binary(Data(count: 8), kind: .float64),
                    "i16": .binary(Data([1, 0, 255, 255]), kind: .int16),
                    "b64": .binary(Data(count: 8), kind: .bigInt64),
                ],
                key: .binary(Data([0xDE, 0xAD])))
            try kv.put(
                [
                    "big": .bigInt("-12345678901234567890"), "re": .regExp(pattern: "^a.+$", flags: "gi"),
                    "err": .error(name: "RangeError", message: "bad", stack: "RangeError: bad\n    at x"),
                ],
                key: ["a", 1, .date(Date(timeIntervalSince1970: 0)), ["nested"]])
            try kv.put(["kind": "plain", "text": "with \"quotes\", \u{0} and \u{1F36A}"], key: .number(.infinity))
            try kv.put("negative infinity", key: .number(-.infinity))
            try kv.put("first in order", key: -1.5)
            try kv.put([.undefined, nil, 3], key: [])
            try kv.put(true, key: "\u{FC}n\u{EF}\u{0}")
            let items = try tx.objectStore("items")
            try items.add(["sku": "A-1", "tags": ["red", "big", "red"], "price": 9.99])
            try items.add(["sku": "B-2", "tags": ["blue"], "when": .date(Date(timeIntervalSince1970: 0))])
            try items.put(["id": 10, "sku": "C-3", "tags": []])
            let people = try tx.objectStore("people")
            try people.put(["first": "Ann", "last": "Lee", "contact": ["email": "ann@example.com"]])
            try people.put(["first": "Bo", "last": "Lee"])
            try tx.objectStore("counter").add("one")
            try tx.objectStore("counter").add(["two": 2])
            try tx.objectStore("nested").put(["a": ["b": "deep"], "v": 1])
        }
        _ = try idb.open(origin: app, name: "empty", version: 1)
        let notes = try idb.open(origin: other, name: "notes", version: 1) { tx, _ throws in
            try tx.createObjectStore("notes", keyPath: "id", autoIncrement: true)
        }
        try notes.transaction("notes", mode: .readwrite) { tx throws in
            _ = try tx.objectStore("notes").add(["text": "hello"])
        }
        return tab
    }

    /// Everything a storage state carries of a store, to compare stores.
    struct Contents: Equatable {
        var cookies: Set<InterchangeFields>
        var localStorage: [String: [[String]]]
        var sessionStorage: [String: [[String]]]
        var indexedDB: [String: [PlaywrightIndexedDBDatabase]]
        var versions: [String: [Int]]
        /// Every store's keys and values, and every index's primary keys, in order.
        var records: [String: [IDBKey]]
        var values: [String: [IDBValue]]

        static func of(_ store: WebsiteDataStore, namespace: SessionStorageNamespace?) throws -> Contents {
            var contents = Contents(
                cookies: Set(try store.httpCookieStore.allCookies().map(InterchangeFields.storageState)),
                localStorage: [:], sessionStorage: [:], indexedDB: [:], versions: [:], records: [:], values: [:])
            for origin in try store.localStorage.origins() {
                contents.localStorage[origin.description] = try store.localStorage.items(origin: origin).map {
                    [$0.key, $0.value]
                }
            }
            if let namespace {
                for origin in try store.sessionStorage.origins(namespace: namespace) {
                    contents.sessionStorage[origin.description] = try store.sessionStorage.items(
                        origin: origin, namespace: namespace
                    ).map { [$0.key, $0.value] }
                }
            }
            for origin in try store.indexedDB.origins() {
                let databases = try store.indexedDB.exportStorageState(origin: origin)
                contents.indexedDB[origin.description] = databases
                contents.versions[origin.description] = try store.indexedDB.databases(origin: origin).map(\.version)
                for database in databases where !database.stores.isEmpty {
                    let db = try store.indexedDB.open(origin: origin, name: database.name)
                    let names = database.stores.map(\.name)
                    try db.transaction(names) { tx throws in
                        for store in database.stores {
                            let objectStore = try tx.objectStore(store.name)
                            let place = "\(origin) \(database.name) \(store.name)"
                            contents.records[place] = try objectStore.getAllKeys()
                            contents.values[place] = try objectStore.getAll()
                            for index in store.indexes {
                                contents.records[place + " index " + index.name] = try objectStore.index(index.name)
                                    .getAllKeys()
                            }
                        }
                    }
                }
            }
            return contents
        }
    }

    /// What must not change when an import is refused: every cookie with its times, every
    /// localStorage item with its modification time, every database with its version, size,
    /// modification time and content.
    struct Snapshot: Equatable {
        var cookies: Set<InterchangeSnapshot>
        var localStorage: [String: [StorageItem]]
        var databases: [IDBDatabaseInfo]
        var indexedDB: [[PlaywrightIndexedDBDatabase]]

        static func of(_ store: WebsiteDataStore) throws -> Snapshot {
            var localStorage: [String: [StorageItem]] = [:]
            for origin in try store.localStorage.origins() {
                localStorage[origin.description] = try store.localStorage.items(origin: origin)
            }
            return Snapshot(
                cookies: try InterchangeSnapshot.of(store), localStorage: localStorage,
                databases: try store.indexedDB.databases(),
                indexedDB: try store.indexedDB.origins().map { try store.indexedDB.exportStorageState(origin: $0) })
        }
    }

    /// The line (1-based) of the first occurrence of `marker` in `text`.
    static func line(of marker: String, in text: String) -> Int? {
        guard let range = text.range(of: marker) else { return nil }
        return text[..<range.lowerBound].filter { $0 == "\n" }.count + 1
    }
}
