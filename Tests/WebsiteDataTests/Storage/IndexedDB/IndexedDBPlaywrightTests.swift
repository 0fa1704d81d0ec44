import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

@Suite(.ownThreads, .bothEngines) struct IndexedDBPlaywrightTests {
    let origin = idbOrigin("https://shop.example.com")

    /// A database with every kind of key and value the format holds.
    private func fill(_ idb: IndexedDBStore) throws {
        let db = try idb.open(origin: origin, name: "shop", version: 5) { tx, _ throws in
            let kv = try tx.createObjectStore("kv")
            try kv.createIndex("byKind", keyPath: "kind")
            let items = try tx.createObjectStore("items", keyPath: "id", autoIncrement: true)
            try items.createIndex("sku", keyPath: "sku", unique: true)
            try items.createIndex("tags", keyPath: "tags", multiEntry: true)
            let people = try tx.createObjectStore("people", keyPath: ["last", "first"])
            try people.createIndex("full", keyPath: ["first", "last"])
            try tx.createObjectStore("counter", autoIncrement: true)
        }
        try db.transaction(["kv", "items", "people", "counter"], mode: .readwrite) { tx throws in
            let kv = try tx.objectStore("kv")
            try kv.put(["kind": "plain", "nested": ["b": 1, "a": [true, false, nil], "z": "ordered"]], key: "json")
            try kv.put(nil, key: "top-level null")
            try kv.put(.undefined, key: "undefined")
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
                ],
                key: .binary(Data([0xDE, 0xAD])))
            try kv.put(
                [
                    "big": .bigInt("-12345678901234567890"), "re": .regExp(pattern: "^a.+$", flags: "gi"),
                    "err": .error(name: "RangeError", message: "bad", stack: "RangeError: bad\n    at x"),
                ], key: ["a", 1, .number(.infinity)])
            try kv.put(["kind": "plain", "text": "with \"quotes\" and \u{1}"], key: .number(.infinity))
            try kv.put("first in order", key: -1.5)
            let items = try tx.objectStore("items")
            try items.add(["sku": "A-1", "tags": ["red", "big"], "price": 9.99])
            try items.add(["sku": "B-2", "tags": ["blue"], "when": .date(Date(timeIntervalSince1970: 0))])
            try items.put(["id": 10, "sku": "C-3", "tags": []])
            let people = try tx.objectStore("people")
            try people.put(["first": "Ann", "last": "Lee"])
            try people.put(["first": "Bo", "last": "Lee"])
            try tx.objectStore("counter").add("one")
        }
        _ = try idb.open(origin: origin, name: "empty", version: 1)
    }

    @Test func exportThenImportIsLossless() throws {
        let source = try IDBTestStore(.file)
        try fill(source.indexedDB)
        let exported = try source.indexedDB.exportStorageState(origin: origin)
        #expect(exported.map(\.name) == ["empty", "shop"])

        // Through Playwright's JSON text and back.
        let text = "[" + exported.map { $0.json(indent: 2, level: 1) }.joined(separator: ", ") + "]"
        guard case .array(let items) = try IDBJSONValue(json: Array(text.utf8)) else {
            Issue.record("not an array")
            return
        }
        let parsed = try items.map { try PlaywrightIndexedDBDatabase(jsonValue: $0) }
        #expect(parsed == exported)

        let target = try IDBTestStore(.memory)
        try target.indexedDB.importStorageState(parsed, origin: origin)
        #expect(try target.indexedDB.exportStorageState(origin: origin) == exported)
        #expect(try target.indexedDB.databases(origin: origin).map(\.version) == [1, 5])
        #expect(
            try target.indexedDB.databases(origin: origin).map(\.size)
                == source.indexedDB.databases(origin: origin).map(\.size))

        // The values and keys themselves, not only their descriptions.
        let copy = try target.indexedDB.open(origin: origin, name: "shop")
        let original = try source.indexedDB.open(origin: origin, name: "shop")
        for name in ["kv", "items", "people", "counter"] {
            let a = try original.transaction(name) { tx throws in
                (try tx.objectStore(name).getAllKeys(), try tx.objectStore(name).getAll())
            }
            let b = try copy.transaction(name) { tx throws in
                (try tx.objectStore(name).getAllKeys(), try tx.objectStore(name).getAll())
            }
            #expect(a.0 == b.0, "\(name)")
            #expect(a.1 == b.1, "\(name)")
        }
        // Indexes were rebuilt, and the key generators continue.
        try copy.transaction(["items", "counter", "people"], mode: .readwrite) { tx throws in
            #expect(try tx.objectStore("items").index("tags").getAllKeys(.only("red")) == [1])
            #expect(try tx.objectStore("items").add(["sku": "D-4"]) == 11)
            #expect(try tx.objectStore("counter").add("two") == 2)
            #expect(try tx.objectStore("people").index("full").getAllKeys() == [["Lee", "Ann"], ["Lee", "Bo"]])
        }
    }

    @Test func exportUsesPlainJSONWhereItCanAndEncodedFormsElsewhere() throws {
        let test = try IDBTestStore(.memory)
        try fill(test.indexedDB)
        let shop = try #require(try test.indexedDB.exportStorageState(origin: origin).first { $0.name == "shop" })
        let kv = try #require(shop.stores.first { $0.name == "kv" })
        #expect(kv.keyPath == nil && kv.keyPathArray == nil && !kv.autoIncrement)
        #expect(
            kv.indexes == [PlaywrightIndexedDBIndex(name: "byKind", keyPath: "kind", multiEntry: false, unique: false)])
        let json = kv.jsonValue.json(indent: 2)
        // Plain keys and values as JSON, members in order.
        #expect(
            json.contains(
                #""key": "json",\#n      "value": {\#n        "kind": "plain",\#n        "nested": {\#n          "b": 1,\#n          "a": [\#n            true,\#n            false,\#n            null\#n          ],"#
            ))
        // A top-level null is encoded, as Playwright's restore would read a plain null as undefined.
        #expect(json.contains(#""key": "top-level null",\#n      "valueEncoded": {\#n        "v": "null"\#n      }"#))
        // Dates, binary and infinities are encoded.
        #expect(
            json.contains(
                #""keyEncoded": {\#n        "d": "1970-01-02T00:00:00.000Z"\#n      },\#n      "valueEncoded": {\#n        "d": "2023-11-14T22:13:20.123Z"\#n      }"#
            ))
        #expect(
            json.contains(
                #""keyEncoded": {\#n        "ta": {\#n          "b": "3q0=",\#n          "k": "ui8"\#n        }\#n      }"#
            ))
        #expect(json.contains(#""keyEncoded": {\#n        "v": "Infinity"\#n      }"#))
        #expect(
            json.contains(#""v": "-0""#) && json.contains(#""v": "NaN""#)
                && json.contains(#""bi": "-12345678901234567890""#))
        #expect(json.contains(#""k": "f64""#) && json.contains(#""r": {\#n"#))
        #expect(json.contains(#""text": "with \"quotes\" and \u0001""#))
        // In-line stores have no keys; key paths as Playwright writes them.
        let items = try #require(shop.stores.first { $0.name == "items" })
        #expect(
            items.keyPath == "id" && items.autoIncrement
                && items.records.allSatisfy { $0.key == nil && $0.keyEncoded == nil })
        #expect(items.jsonValue.json(indent: 2).hasSuffix(#""autoIncrement": true,\#n  "keyPath": "id"\#n}"#))
        let people = try #require(shop.stores.first { $0.name == "people" })
        #expect(people.keyPathArray == ["last", "first"] && people.keyPath == nil)
        #expect(people.indexes.first?.keyPathArray == ["first", "last"])
    }

    /// A storage-state fragment in the form Playwright writes it.
    @Test func importsWhatPlaywrightWrites() throws {
        let fragment = #"""
            {
              "name": "app-db",
              "version": 3,
              "stores": [
                {
                  "name": "settings",
                  "records": [
                    { "key": "theme", "value": "dark" },
                    { "key": 7, "value": { "n": 1, "list": [1, 2, 3] } },
                    { "keyEncoded": { "d": "2024-02-29T12:00:00.000Z" }, "valueEncoded": { "o": [ { "k": "at", "v": { "d": "2024-02-29T12:00:00.500Z" } }, { "k": "inner", "v": { "o": [], "id": 2 } }, { "k": "again", "v": { "ref": 2 } } ], "id": 1 } },
                    { "keyEncoded": { "ta": { "b": "AQI=", "k": "ui8" } }, "valueEncoded": { "ta": { "b": "AAAAAAAA8D8=", "k": "f64" } } },
                    { "key": ["a", 1], "valueEncoded": { "a": [ { "v": "undefined" }, { "v": "NaN" }, { "bi": "9007199254740993" } ], "id": 1 } }
                  ],
                  "indexes": [],
                  "autoIncrement": false
                },
                {
                  "name": "todos",
                  "records": [
                    { "value": { "title": "write", "id": 1, "done": false } },
                    { "value": { "title": "test", "id": 2, "done": true } }
                  ],
                  "indexes": [
                    { "name": "done", "keyPath": "done", "multiEntry": false, "unique": false },
                    { "name": "title", "keyPathArray": ["title", "id"], "multiEntry": false, "unique": true }
                  ],
                  "autoIncrement": true,
                  "keyPath": "id"
                }
              ]
            }
            """#
        let database = try PlaywrightIndexedDBDatabase(json: Array(fragment.utf8))
        let test = try IDBTestStore(.memory)
        try test.indexedDB.importStorageState([database], origin: origin)
        let db = try test.indexedDB.open(origin: origin, name: "app-db")
        #expect(db.version == 3)
        try db.transaction(["settings", "todos"]) { tx throws in
            let settings = try tx.objectStore("settings")
            #expect(try settings.get("theme") == "dark")
            #expect(try settings.get(7) == ["n": 1, "list": [1, 2, 3]])
            let leap = IDBKey.date(try #require(JavaScriptDate.parse("2024-02-29T12:00:00.000Z")))
            #expect(
                try settings.get(leap) == [
                    "at": .date(Date(timeIntervalSince1970: 1_709_208_000.5)), "inner": [:], "again": [:],
                ])
            #expect(
                try settings.get(.binary(Data([1, 2])))
                    == .binary(Data([0, 0, 0, 0, 0, 0, 0xF0, 0x3F]), kind: .float64))
            #expect(try settings.get(["a", 1]) == [.undefined, .number(.nan), .bigInt("9007199254740993")])
            let todos = try tx.objectStore("todos")
            // Booleans are not keys: no record has an entry in "done".
            #expect(try todos.index("done").count() == 0)
            #expect(try todos.index("title").getKey(["write", 1]) == 1)
        }
        try db.transaction("todos", mode: .readwrite) { tx throws in
            #expect(try tx.objectStore("todos").add(["title": "next"]) == 3)
        }
    }

    @Test func badImportsChangeNothingAndSayWhere() throws {
        let test = try IDBTestStore(.memory)
        try fill(test.indexedDB)
        let before = try test.indexedDB.exportStorageState(origin: origin)
        var broken = before
        let shop = try #require(broken.firstIndex { $0.name == "shop" })
        let kv = try #require(broken[shop].stores.firstIndex { $0.name == "kv" })
        broken[shop].stores[kv].records.append(PlaywrightIndexedDBRecord(key: "json", value: "duplicate"))
        let error = idbError { try test.indexedDB.importStorageState(broken, origin: origin) }
        #expect(error?.name == .constraint)
        #expect(
            error?.message.contains("database shop, object store kv, record \(broken[shop].stores[kv].records.count)")
                == true)
        #expect(try test.indexedDB.exportStorageState(origin: origin) == before)

        for bad in [
            #"{"v": "bogus"}"#, #"{"u": "https://x"}"#, #"{"h": 1}"#, #"{"ta": {"b": "AQI=", "k": "i128"}}"#,
            #"{"o": [{"k": "self", "v": {"ref": 1}}], "id": 1}"#,
        ] {
            let value = try PlaywrightSerializedValue(json: IDBJSONValue(json: Array(bad.utf8)))
            #expect(throws: IDBError.self) { try value.value() }
        }
        #expect(throws: IDBError.self) {
            try PlaywrightIndexedDBDatabase(json: Array(#"{"name": "x", "stores": []}"#.utf8))
        }
        #expect(throws: IDBJSONError.self) { try IDBJSONValue(json: Array("{\"a\": }".utf8)) }
        #expect(throws: IDBJSONError.self) { try IDBJSONValue(json: Array(String(repeating: "[", count: 10_000).utf8)) }
    }

    @Test func codableRoundTripsThroughFoundationJSON() throws {
        let test = try IDBTestStore(.memory)
        try fill(test.indexedDB)
        let exported = try test.indexedDB.exportStorageState(origin: origin)
        let data = try JSONEncoder().encode(exported)
        let decoded = try JSONDecoder().decode([PlaywrightIndexedDBDatabase].self, from: data)
        // Foundation keeps no member order: compare the values the records stand for.
        for (a, b) in zip(exported, decoded) {
            #expect(a.name == b.name && a.version == b.version)
            for (s, t) in zip(a.stores, b.stores) {
                #expect(try s.records.map { try $0.decodedKey() } == t.records.map { try $0.decodedKey() })
                #expect(
                    try s.records.map { try Set(($0.decodedValue().objectNames)) }
                        == t.records.map { try Set($0.decodedValue().objectNames) })
            }
        }
    }

    @Test func javaScriptNumbersAndDatesAreWrittenAsJavaScriptWritesThem() throws {
        let cases: [(Double, String)] = [
            (1, "1"), (-0.5, "-0.5"), (1e21, "1e+21"), (1e20, "100000000000000000000"), (1e-7, "1e-7"),
            (0.000001, "0.000001"), (123.456, "123.456"), (Double.leastNonzeroMagnitude, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (9_007_199_254_740_992 + 2, "9007199254740994"), (0.1 + 0.2, "0.30000000000000004"),
        ]
        for (number, text) in cases { #expect(OrderedJSON.javaScriptNumber(number) == text) }
        let dates: [(Double, String)] = [
            (0, "1970-01-01T00:00:00.000Z"), (-1, "1969-12-31T23:59:59.999Z"),
            (8.64e15, "+275760-09-13T00:00:00.000Z"), (-62_198_755_200_000, "-000001-01-01T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        ]
        for (ms, text) in dates {
            #expect(JavaScriptDate.isoString(JavaScriptDate.date(milliseconds: ms)) == text)
            #expect(JavaScriptDate.parse(text).flatMap(JavaScriptDate.milliseconds) == ms)
        }
        #expect(JavaScriptDate.parse("2024-02-29") == JavaScriptDate.date(milliseconds: 1_709_164_800_000))
        #expect(
            JavaScriptDate.parse("2024-02-29T01:00:00+01:00") == JavaScriptDate.date(milliseconds: 1_709_164_800_000))
        #expect(JavaScriptDate.parse("yesterday") == nil)
    }
}

extension IDBValue {
    /// The property names of an object value (empty for others), for order-free comparisons.
    var objectNames: [String] {
        if case .object(let object) = self { return object.properties.map(\.name) }
        return []
    }
}
