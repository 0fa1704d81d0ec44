import CSQLite
import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Whole storage states (cookies, localStorage, sessionStorage, IndexedDB) moved in and out of
/// real stores in temporary directories.
@Suite("InterchangeStorageStateOrigins", .ownThreads)
struct InterchangeStorageStateOriginsTests {
    typealias Fixture = StorageStateFixture

    // MARK: - Round trips

    @Test func roundTripIsLossless() throws {
        let dir = try InterchangeTemporaryDirectory()
        let source = try dir.store("source")
        let tab = try Fixture.fill(source)
        let first = dir.file("first.json")
        let exported = try StorageStateInterchange.exportStorageState(
            from: source, includeIndexedDB: true,
            sessionStorageNamespace: tab.description, to: first)
        #expect(exported.cookies == 5)
        #expect(exported.origins == 4)
        #expect(exported.localStorageItems == Fixture.appItems.count + 2)
        #expect(exported.sessionStorageItems == 4)
        #expect(exported.indexedDBDatabases == 3)
        #expect(exported.indexedDBRecords == 21)
        #expect(
            exported.description
                == "wrote 5 cookies and 4 origins (8 localStorage items, 4 sessionStorage items, 3 IndexedDB databases with 21 records)"
        )

        let target = try dir.store("target")
        let namespace = UUID().uuidString
        let imported = try StorageStateInterchange.importStorageState(
            from: first, into: target, sessionStorageNamespace: namespace)
        #expect(imported.cookies.imported == 5)
        #expect(imported.origins == 4)
        #expect(imported.localStorageItems == 8 && imported.sessionStorageItems == 4)
        #expect(imported.indexedDBDatabases == 3 && imported.indexedDBRecords == 21)
        let targetTab = try #require(imported.sessionStorageNamespace)
        #expect(targetTab.description == namespace.lowercased())
        #expect(target.sessionStorage.namespaces.contains(targetTab))

        // The stores agree on everything the format holds: items in order, every key and value,
        // every index, versions.
        let expected = try Fixture.Contents.of(source, namespace: tab)
        let actual = try Fixture.Contents.of(target, namespace: targetTab)
        #expect(actual.cookies == expected.cookies)
        #expect(actual.localStorage == expected.localStorage)
        #expect(actual.sessionStorage == expected.sessionStorage)
        #expect(actual.indexedDB == expected.indexedDB)
        #expect(actual.versions == expected.versions)
        #expect(actual.records == expected.records)
        #expect(Set(actual.values.keys) == Set(expected.values.keys))
        for (place, values) in expected.values { #expect(actual.values[place] == values, "\(place)") }
        // The stores persist it: a store opened afresh on the directory has it all (but
        // sessionStorage, which lives in process memory).
        let reopened = try Fixture.Contents.of(dir.store("target"), namespace: nil)
        #expect(reopened.localStorage == expected.localStorage && reopened.indexedDB == expected.indexedDB)

        // Exported again: byte for byte the same file.
        let second = dir.file("second.json")
        try StorageStateInterchange.exportStorageState(
            from: target, includeIndexedDB: true, sessionStorageNamespace: namespace, to: second)
        #expect(try Data(contentsOf: first) == Data(contentsOf: second))
        let permissions = try FileManager.default.attributesOfItem(atPath: first.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        // And the key generators go on after the highest key, as they would after Playwright's restore.
        let shop = try target.indexedDB.open(origin: Fixture.app, name: "shop")
        try shop.transaction(["items", "counter"], mode: .readwrite) { tx throws in
            #expect(try tx.objectStore("items").add(["sku": "D-4"]) == 11)
            #expect(try tx.objectStore("counter").add("three") == 3)
        }
    }

    @Test func exportIsTheLayoutPlaywrightReads() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        let tab = try Fixture.fill(store)
        let file = dir.file("state.json")
        try StorageStateInterchange.exportStorageState(
            from: store, includeIndexedDB: true, sessionStorageNamespace: tab.description, to: file)

        // An independent JSON parser reads it, with Playwright's members where Playwright has them.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect(Set(json.keys) == ["cookies", "origins"])
        let origins = try #require(json["origins"] as? [[String: Any]])
        #expect(
            origins.map { $0["origin"] as? String } == [
                "http://other.org:8080", "https://app.example.com",
                "https://session.example.net", "https://www.example.com",
            ])
        for origin in origins {
            #expect(Set(origin.keys) == ["origin", "localStorage", "sessionStorage", "indexedDB"])
        }
        let app = origins[1]
        let local = try #require(app["localStorage"] as? [[String: String]])
        #expect(local.map { [$0["name"]!, $0["value"]!] } == Fixture.appItems.map { [$0.0, $0.1] })
        #expect((origins[2]["localStorage"] as? [Any])?.isEmpty == true)
        #expect((origins[2]["indexedDB"] as? [Any])?.isEmpty == true)
        #expect((origins[2]["sessionStorage"] as? [[String: String]]) == [["name": "only", "value": "session"]])
        let databases = try #require(app["indexedDB"] as? [[String: Any]])
        #expect(databases.map { $0["name"] as? String } == ["empty", "shop"])
        #expect(databases.map { $0["version"] as? Int } == [1, 5])
        let stores = try #require(databases[1]["stores"] as? [[String: Any]])
        let people = try #require(stores.first { $0["name"] as? String == "people" })
        #expect(people["keyPathArray"] as? [String] == ["last", "first"] && people["keyPath"] == nil)
        #expect(people["autoIncrement"] as? Bool == false)
        let items = try #require(stores.first { $0["name"] as? String == "items" })
        #expect(items["keyPath"] as? String == "id" && items["autoIncrement"] as? Bool == true)
        let indexes = try #require(items["indexes"] as? [[String: Any]])
        #expect(indexes.first { $0["name"] as? String == "sku" }?["unique"] as? Bool == true)
        #expect(indexes.first { $0["name"] as? String == "tags" }?["multiEntry"] as? Bool == true)
        // Out-of-line keys are written; plain ones as `key`, others as `keyEncoded`.
        let kv = try #require(stores.first { $0["name"] as? String == "kv" })
        let records = try #require(kv["records"] as? [[String: Any]])
        #expect(records.allSatisfy { ($0["key"] != nil) != ($0["keyEncoded"] != nil) })
        #expect(records.allSatisfy { ($0["value"] != nil) != ($0["valueEncoded"] != nil) })
        #expect(
            records.contains { ($0["keyEncoded"] as? [String: Any])?["d"] as? String == "1970-01-02T00:00:00.000Z" })

        // Without the options: no sessionStorage, no IndexedDB, and origins with localStorage only,
        // exactly as Playwright's `storageState()`.
        let plain = dir.file("plain.json")
        let summary = try StorageStateInterchange.exportStorageState(from: store, to: plain)
        #expect(summary.sessionStorageItems == 0 && summary.indexedDBDatabases == 0 && summary.origins == 3)
        let plainJSON = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: plain)) as? [String: Any])
        let plainOrigins = try #require(plainJSON["origins"] as? [[String: Any]])
        #expect(plainOrigins.map { Set($0.keys) } == Array(repeating: ["origin", "localStorage"], count: 3))
    }

    /// The export in `Docs/interchange.md`, checked.
    @Test func exportMatchesTheDocumentedExample() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try WebsiteDataStore.testing(dir.url.appendingPathComponent("store"), clock: TestClock())
        let origin = SecurityOrigin(string: "https://app.example.com")!
        try store.httpCookieStore.setCookies(
            fromSetCookieHeaders: ["sid=abc123; Path=/; HttpOnly; Secure; SameSite=Lax"],
            for: URL(string: "https://app.example.com/")!)
        try store.localStorage.setItem("theme", "dark", origin: origin)
        try store.localStorage.setItem("draft", "caf\u{E9}\n\u{0}", origin: origin)
        let tab = store.sessionStorage.makeNamespace()
        try store.sessionStorage.setItem("step", "2", origin: origin, namespace: tab)
        let db = try store.indexedDB.open(origin: origin, name: "app", version: 2) { tx, _ throws in
            let notes = try tx.createObjectStore("notes", keyPath: "id", autoIncrement: true)
            try notes.createIndex("byTag", keyPath: "tags", multiEntry: true)
            try tx.createObjectStore("kv")
        }
        try db.transaction(["notes", "kv"], mode: .readwrite) { tx throws in
            try tx.objectStore("notes").add(["title": "Groceries", "tags": ["home"]])
            try tx.objectStore("kv").put(.date(Date(timeIntervalSince1970: 1_800_000_000)), key: "seen")
        }
        let file = dir.file("state.json")
        try StorageStateInterchange.exportStorageState(
            from: store, includeIndexedDB: true, sessionStorageNamespace: tab.description, to: file)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text == Self.documentedExample, "\(text)")
        let written = try StorageStateInterchange.exportStorageState(
            from: store, sites: ["example.com"], includeIndexedDB: true,
            sessionStorageNamespace: tab.description, to: file)
        #expect(
            written.description
                == "wrote 1 cookie and 1 origin (2 localStorage items, 1 sessionStorage item, 1 IndexedDB database with 2 records)"
        )
        let summary = try StorageStateInterchange.importStorageState(
            from: file, into: store, sessionStorageNamespace: tab.description)
        #expect(
            summary.description
                == "read 1 cookie: imported 1; 1 origin: 2 localStorage items, 1 sessionStorage item, 1 IndexedDB database with 2 records"
        )
        #expect(try String(contentsOf: file, encoding: .utf8) == Self.documentedExample)
    }

    static let documentedExample = #"""
        {
          "cookies": [
            {
              "name": "sid",
              "value": "abc123",
              "domain": "app.example.com",
              "path": "/",
              "expires": -1,
              "httpOnly": true,
              "secure": true,
              "sameSite": "Lax"
            }
          ],
          "origins": [
            {
              "origin": "https://app.example.com",
              "localStorage": [
                {
                  "name": "theme",
                  "value": "dark"
                },
                {
                  "name": "draft",
                  "value": "café\n\u0000"
                }
              ],
              "sessionStorage": [
                {
                  "name": "step",
                  "value": "2"
                }
              ],
              "indexedDB": [
                {
                  "name": "app",
                  "version": 2,
                  "stores": [
                    {
                      "name": "kv",
                      "records": [
                        {
                          "key": "seen",
                          "valueEncoded": {
                            "d": "2027-01-15T08:00:00.000Z"
                          }
                        }
                      ],
                      "indexes": [],
                      "autoIncrement": false
                    },
                    {
                      "name": "notes",
                      "records": [
                        {
                          "value": {
                            "title": "Groceries",
                            "tags": [
                              "home"
                            ],
                            "id": 1
                          }
                        }
                      ],
                      "indexes": [
                        {
                          "name": "byTag",
                          "keyPath": "tags",
                          "multiEntry": true,
                          "unique": false
                        }
                      ],
                      "autoIncrement": true,
                      "keyPath": "id"
                    }
                  ]
                }
              ]
            }
          ]
        }

        """#

    // MARK: - Files Playwright wrote

    /// A storage state as Playwright 1.51+ writes it with `storageState({ indexedDB: true })`,
    /// following its `storageScript.ts` (records with `key`/`keyEncoded`, `value`/`valueEncoded`
    /// in `serializeAsCallArgument` form; stores with `keyPath` or `keyPathArray`).
    static func playwrightFile(expires: Double) -> String {
        #"""
        {
          "cookies": [
            {
              "name": "session",
              "value": "s%3Aabc.def",
              "domain": "app.example.com",
              "path": "/",
              "expires": -1,
              "httpOnly": true,
              "secure": true,
              "sameSite": "Lax"
            },
            {
              "name": "_ga",
              "value": "GA1.1.123.456",
              "domain": ".example.com",
              "path": "/",
              "expires": \#(expires),
              "httpOnly": false,
              "secure": false,
              "sameSite": "Lax"
            }
          ],
          "origins": [
            {
              "origin": "https://app.example.com",
              "localStorage": [
                {
                  "name": "auth",
                  "value": "{\"token\":\"eyJhbGciOi\",\"exp\":1735689600}"
                },
                {
                  "name": "lang",
                  "value": "fr-FR"
                }
              ],
              "indexedDB": [
                {
                  "name": "keyval-store",
                  "version": 1,
                  "stores": [
                    {
                      "name": "keyval",
                      "records": [
                        {
                          "key": "user",
                          "value": {
                            "id": 7,
                            "name": "Zo\u00eb",
                            "roles": [
                              "admin",
                              "dev"
                            ]
                          }
                        },
                        {
                          "key": "lastSeen",
                          "valueEncoded": {
                            "d": "2025-01-02T03:04:05.678Z"
                          }
                        },
                        {
                          "key": 42,
                          "valueEncoded": {
                            "v": "undefined"
                          }
                        }
                      ],
                      "indexes": [],
                      "autoIncrement": false
                    }
                  ]
                },
                {
                  "name": "app",
                  "version": 3,
                  "stores": [
                    {
                      "name": "messages",
                      "records": [
                        {
                          "value": {
                            "id": 1,
                            "text": "hi",
                            "tags": [
                              "a",
                              "b"
                            ]
                          }
                        },
                        {
                          "valueEncoded": {
                            "o": [
                              {
                                "k": "id",
                                "v": 2
                              },
                              {
                                "k": "at",
                                "v": {
                                  "d": "2025-03-04T05:06:07.000Z"
                                }
                              },
                              {
                                "k": "blob",
                                "v": {
                                  "ta": {
                                    "b": "AQID",
                                    "k": "ui8"
                                  }
                                }
                              },
                              {
                                "k": "tags",
                                "v": {
                                  "a": [
                                    "b"
                                  ],
                                  "id": 2
                                }
                              }
                            ],
                            "id": 1
                          }
                        }
                      ],
                      "indexes": [
                        {
                          "name": "byTag",
                          "keyPath": "tags",
                          "multiEntry": true,
                          "unique": false
                        }
                      ],
                      "autoIncrement": true,
                      "keyPath": "id"
                    },
                    {
                      "name": "contacts",
                      "records": [
                        {
                          "value": {
                            "last": "Lee",
                            "first": "Ann",
                            "email": "ann@example.com"
                          }
                        }
                      ],
                      "indexes": [
                        {
                          "name": "email",
                          "keyPath": "email",
                          "multiEntry": false,
                          "unique": true
                        },
                        {
                          "name": "full",
                          "keyPathArray": [
                            "first",
                            "last"
                          ],
                          "multiEntry": false,
                          "unique": false
                        }
                      ],
                      "autoIncrement": false,
                      "keyPathArray": [
                        "last",
                        "first"
                      ]
                    },
                    {
                      "name": "blobs",
                      "records": [
                        {
                          "key": [
                            1,
                            "a"
                          ],
                          "valueEncoded": {
                            "bi": "123"
                          }
                        },
                        {
                          "keyEncoded": {
                            "ta": {
                              "b": "3q2+7w==",
                              "k": "ui8"
                            }
                          },
                          "value": "bytes as key"
                        },
                        {
                          "keyEncoded": {
                            "v": "Infinity"
                          },
                          "valueEncoded": {
                            "v": "null"
                          }
                        }
                      ],
                      "indexes": [],
                      "autoIncrement": false
                    }
                  ]
                }
              ]
            },
            {
              "origin": "http://localhost:3000",
              "localStorage": [
                {
                  "name": "debug",
                  "value": "app:*"
                }
              ],
              "indexedDB": []
            }
          ]
        }
        """#
    }

    @Test func importsAFileWrittenByPlaywright() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        let expires = (Date().timeIntervalSince1970 + 30 * 86_400).rounded(.down) + 0.5
        let file = try dir.write("playwright.json", Self.playwrightFile(expires: expires))
        let summary = try StorageStateInterchange.importStorageState(from: file, into: store)
        #expect(summary.cookies.imported == 2)
        #expect(summary.origins == 2 && summary.localStorageItems == 3)
        #expect(summary.indexedDBDatabases == 2 && summary.indexedDBRecords == 9)
        #expect(
            summary.description
                == "read 2 cookies: imported 2; 2 origins: 3 localStorage items, 2 IndexedDB databases with 9 records")

        let app = Fixture.app
        let ga = try #require(try store.httpCookieStore.allCookies().first { $0.name == "_ga" })
        #expect(ga.domain == "example.com" && !ga.isHostOnly && ga.expires?.timeIntervalSince1970 == expires)
        #expect(
            try store.localStorage.items(origin: app).map { [$0.key, $0.value] }
                == [["auth", #"{"token":"eyJhbGciOi","exp":1735689600}"#], ["lang", "fr-FR"]])
        #expect(
            try store.localStorage.getItem("debug", origin: SecurityOrigin(string: "http://localhost:3000")!) == "app:*"
        )
        #expect(
            try store.indexedDB.databases(origin: app).map { "\($0.name) \($0.version)" } == [
                "app 3", "keyval-store 1",
            ])

        let keyval = try store.indexedDB.open(origin: app, name: "keyval-store")
        try keyval.transaction("keyval") { tx throws in
            let kv = try tx.objectStore("keyval")
            #expect(try kv.get("user") == ["id": 7, "name": "Zo\u{EB}", "roles": ["admin", "dev"]])
            #expect(try kv.get("lastSeen") == .date(try #require(JavaScriptDate.parse("2025-01-02T03:04:05.678Z"))))
            #expect(try kv.getKey(.only(42)) == 42)
            #expect(try kv.get(42) == .undefined)
        }
        let db = try store.indexedDB.open(origin: app, name: "app")
        try db.transaction(["messages", "contacts", "blobs"], mode: .readwrite) { tx throws in
            let messages = try tx.objectStore("messages")
            #expect(
                try messages.get(2) == [
                    "id": 2, "at": .date(try #require(JavaScriptDate.parse("2025-03-04T05:06:07.000Z"))),
                    "blob": .binary(Data([1, 2, 3]), kind: .uint8), "tags": ["b"],
                ])
            #expect(try messages.index("byTag").getAllKeys(.only("b")) == [1, 2])
            #expect(try messages.add(["text": "next"]) == 3)
            let contacts = try tx.objectStore("contacts")
            #expect(try contacts.getAllKeys() == [["Lee", "Ann"]])
            #expect(try contacts.index("full").getKey(["Ann", "Lee"]) == ["Lee", "Ann"])
            let blobs = try tx.objectStore("blobs")
            #expect(
                try blobs.getAllKeys() == [.number(.infinity), .binary(Data([0xDE, 0xAD, 0xBE, 0xEF])), [1, "a"]])
            #expect(try blobs.getAll() == [nil, "bytes as key", .bigInt("123")])
        }
        // The unique index was made unique.
        let clash = try #require(throws: IDBError.self) {
            try db.transaction("contacts", mode: .readwrite) { tx throws in
                _ = try tx.objectStore("contacts").add(["last": "Bo", "first": "X", "email": "ann@example.com"])
            }
        }
        #expect(clash.name == .constraint)
    }

    @Test func originsBeforeCookiesAndInputFromHandles() throws {
        let dir = try InterchangeTemporaryDirectory()
        let text = """
            {"origins": [{"origin": "https://a.example", "localStorage": [{"name": "k", "value": "v"}]}],
             "cookies": [{"name": "c", "value": "1", "domain": "a.example"}]}
            """
        // From a file whose origins come first.
        let store = try dir.store("file")
        let file = try dir.write("first.json", text)
        let summary = try StorageStateInterchange.importStorageState(from: file, into: store)
        #expect(summary.cookies.imported == 1 && summary.origins == 1)
        #expect(try store.localStorage.getItem("k", origin: SecurityOrigin(string: "https://a.example")!) == "v")

        // From a pipe: copied aside, then read twice.
        let piped = try dir.store("pipe")
        let pipe = Pipe()
        try pipe.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        try pipe.fileHandleForWriting.close()
        let fromPipe = try StorageStateInterchange.importStorageState(from: pipe.fileHandleForReading, into: piped)
        #expect(fromPipe == summary)
        #expect(try piped.localStorage.getItem("k", origin: SecurityOrigin(string: "https://a.example")!) == "v")

        // From a handle on a regular file, from its offset.
        let offsetStore = try dir.store("offset")
        let prefixed = try dir.write("prefixed.json", "not json at all " + text)
        let handle = try FileHandle(forReadingFrom: prefixed)
        defer { try? handle.close() }
        try handle.seek(toOffset: 16)
        #expect(try StorageStateInterchange.importStorageState(from: handle, into: offsetStore) == summary)
        #expect(try offsetStore.httpCookieStore.allCookies().map(\.name) == ["c"])
    }

    /// A value nested as deep as a store allows, in the serialized form that takes three JSON
    /// levels for each of its own, goes out and back.
    @Test func deepestValuesGoOutAndBack() throws {
        let dir = try InterchangeTemporaryDirectory()
        let source = try dir.store("source")
        var value = IDBValue.date(Date(timeIntervalSince1970: 1))
        for level in 0..<(IDBValue.maxDepth - 1) { value = level % 2 == 0 ? ["d": value] : [value] }
        let db = try source.indexedDB.open(origin: Fixture.app, name: "deep", version: 1) { tx, _ throws in
            _ = try tx.createObjectStore("s")
        }
        try db.transaction("s", mode: .readwrite) { tx throws in _ = try tx.objectStore("s").put(value, key: 1) }
        let file = dir.file("deep.json")
        try StorageStateInterchange.exportStorageState(from: source, includeIndexedDB: true, to: file)
        let target = try dir.store("target")
        #expect(try StorageStateInterchange.importStorageState(from: file, into: target).indexedDBRecords == 1)
        let copy = try target.indexedDB.open(origin: Fixture.app, name: "deep")
        try copy.transaction("s") { tx throws in #expect(try tx.objectStore("s").get(1) == value) }
        // A cookie-only import reads past it.
        #expect(try CookieInterchange.importCookies(from: file, into: target.httpCookieStore).read == 0)

        // Deeper than any value is refused, with its line, not followed.
        let tooDeep =
            "{\"origins\": [{\"origin\": \"https://a.example\",\n \"indexedDB\": ["
            + String(repeating: "[", count: 5_000) + "]}"
        let deepFile = try dir.write("too-deep.json", tooDeep)
        let error = try #require(throws: StorageStateImportError.self) {
            try StorageStateInterchange.importStorageState(from: deepFile, into: target)
        }
        #expect(
            error.line == 2 && error.path == "origins[0].indexedDB[0]" && error.reason.contains("nested more than"),
            "\(error)")
        let cookieError = try #require(throws: CookieImportError.self) {
            try CookieInterchange.importCookies(from: deepFile, into: target.httpCookieStore)
        }
        #expect(cookieError.line == 2 && cookieError.reason.contains("nested more than"), "\(cookieError)")
    }

    // MARK: - sessionStorage

    @Test func sessionStorageNeedsANamespace() throws {
        let dir = try InterchangeTemporaryDirectory()
        let source = try dir.store("source")
        let tab = try Fixture.fill(source)
        let file = dir.file("state.json")
        try StorageStateInterchange.exportStorageState(from: source, sessionStorageNamespace: tab.description, to: file)

        // No namespace named: sessionStorage is left out, and the summary says so.
        let target = try dir.store("target")
        let summary = try StorageStateInterchange.importStorageState(from: file, into: target)
        #expect(summary.sessionStorageItems == 0 && summary.ignoredSessionStorageItems == 4)
        #expect(summary.sessionStorageNamespace == nil && target.sessionStorage.namespaces.isEmpty)
        #expect(
            summary.description
                == "read 5 cookies: imported 5; 4 origins: 8 localStorage items, left out 4 sessionStorage items (name a sessionStorage namespace to import them)"
        )

        // Into a namespace the store object has: items merge with what it holds.
        let existing = target.sessionStorage.makeNamespace()
        try target.sessionStorage.setItem("kept", "1", origin: Fixture.app, namespace: existing)
        try target.sessionStorage.setItem("step", "1", origin: Fixture.app, namespace: existing)
        let merged = try StorageStateInterchange.importStorageState(
            from: file, into: target, sessionStorageNamespace: existing.description.uppercased())
        #expect(merged.sessionStorageNamespace == existing && merged.sessionStorageItems == 4)
        #expect(
            try target.sessionStorage.items(origin: Fixture.app, namespace: existing).map { [$0.key, $0.value] }
                == [["kept", "1"], ["step", "2"], ["\u{FC}n\u{EF}", "\u{0}"], ["empty", ""]])

        // An export needs a namespace this store object has; a name must be an identifier.
        #expect(throws: SessionStorageError.self) {
            try StorageStateInterchange.exportStorageState(
                from: target, sessionStorageNamespace: UUID().uuidString, to: dir.file("x.json"))
        }
        #expect(throws: StoreError.self) {
            try StorageStateInterchange.exportStorageState(
                from: target, sessionStorageNamespace: "tab-1", to: dir.file("x.json"))
        }
        #expect(throws: StoreError.self) {
            try StorageStateInterchange.importStorageState(from: file, into: target, sessionStorageNamespace: "tab-1")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.json").path))
    }

    // MARK: - Sites

    @Test func exportOfSomeSites() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try dir.store()
        let tab = try Fixture.fill(store)
        let file = dir.file("state.json")
        let summary = try StorageStateInterchange.exportStorageState(
            from: store, sites: ["example.com"], includeIndexedDB: true,
            sessionStorageNamespace: tab.description, to: file)
        #expect(summary.cookies == 4 && summary.origins == 2)
        #expect(summary.indexedDBDatabases == 2 && summary.sessionStorageItems == 3)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let origins = try #require(json["origins"] as? [[String: Any]])
        #expect(origins.map { $0["origin"] as? String } == ["https://app.example.com", "https://www.example.com"])
        let cookies = try #require(json["cookies"] as? [[String: Any]])
        #expect(cookies.allSatisfy { ($0["domain"] as? String)?.hasSuffix("example.com") == true })

        // Imported elsewhere, it brings those sites only.
        let target = try dir.store("target")
        try StorageStateInterchange.importStorageState(from: file, into: target)
        #expect(try target.localStorage.origins() == [Fixture.app, Fixture.www])
        #expect(try target.indexedDB.origins() == [Fixture.app])

        let two = try StorageStateInterchange.exportStorageState(
            from: store, sites: ["other.org", "example.net"],
            sessionStorageNamespace: tab.description, to: dir.file("two.json"))
        #expect(two.cookies == 1 && two.origins == 2 && two.indexedDBDatabases == 0 && two.sessionStorageItems == 1)
        let none = try StorageStateInterchange.exportStorageState(
            from: store, sites: ["nothing.example"], to: dir.file("none.json"))
        #expect(none == StorageStateExportSummary())
        #expect(
            try String(contentsOf: dir.file("none.json"), encoding: .utf8)
                == "{\n  \"cookies\": [],\n  \"origins\": []\n}\n")
        #expect(throws: StoreError.self) {
            try StorageStateInterchange.exportStorageState(from: store, sites: ["../etc"], to: dir.file("bad.json"))
        }
    }

    // MARK: - Refused files

    /// A file whose `origins[1]` (from `bad`) is wrong, after a valid cookie and a valid
    /// `origins[0]` that would both overwrite what the store holds.
    struct BadOrigin: CustomTestStringConvertible, Sendable {
        var label: String
        var bad: String
        var path: String?
        var reason: String
        /// The error's line is the line of this text's first occurrence in the file.
        var marker: String
        var quota: Int64? = nil
        var testDescription: String { label }
    }

    static let badOrigins: [BadOrigin] = [
        BadOrigin(
            label: "not an origin", bad: #"{"origin": "https://b.example/path", "localStorage": []}"#,
            path: "origins[1].origin", reason: "is not an origin", marker: "https://b.example/path"),
        BadOrigin(
            label: "an opaque origin", bad: #"{"origin": "null", "localStorage": []}"#,
            path: "origins[1].origin", reason: "is not an origin", marker: #""null""#),
        BadOrigin(
            label: "no origin", bad: #"{"localStorage": [{"name": "a", "value": "b"}]}"#,
            path: "origins[1]", reason: "no \"origin\"", marker: #"{"localStorage": [{"name": "a""#),
        BadOrigin(
            label: "origin not a string", bad: #"{"origin": 7}"#, path: "origins[1].origin", reason: "must be a string",
            marker: #""origin": 7"#),
        BadOrigin(
            label: "entry not an object", bad: "42", path: "origins[1]", reason: "must be an object", marker: "    42"),
        BadOrigin(
            label: "value not a string",
            bad:
                "{\"origin\": \"https://b.example\", \"localStorage\": [\n      {\"name\": \"a\", \"value\": \"1\"},\n      {\"name\": \"b\", \"value\": 2}]}",
            path: "origins[1].localStorage[1].value", reason: "must be a string", marker: #""value": 2"#),
        BadOrigin(
            label: "no value",
            bad:
                "{\"origin\": \"https://b.example\", \"localStorage\": [\n      {\"name\": \"a\", \"value\": \"1\"},\n      {\"name\": \"b\"}]}",
            path: "origins[1].localStorage[1]", reason: "no \"value\"", marker: #"{"name": "b"}"#),
        BadOrigin(
            label: "localStorage not an array", bad: #"{"origin": "https://b.example", "localStorage": {"a": "b"}}"#,
            path: "origins[1].localStorage", reason: "must be an array", marker: #"{"a": "b"}"#),
        BadOrigin(
            label: "sessionStorage item not an object",
            bad: #"{"origin": "https://b.example", "sessionStorage": ["x"]}"#,
            path: "origins[1].sessionStorage[0]", reason: "must be a {\"name\"", marker: #"["x"]"#),
        BadOrigin(
            label: "syntax error in an item",
            bad: #"{"origin": "https://b.example", "localStorage": [{"name": "a", "value": "x"]}"#,
            path: "origins[1].localStorage[0]", reason: "expected ',' or '}'", marker: #""value": "x"]"#),
        BadOrigin(
            label: "half a surrogate pair",
            bad: #"{"origin": "https://b.example", "localStorage": [{"name": "a", "value": "\ud800"}]}"#,
            path: "origins[1].localStorage[0]", reason: "surrogate", marker: #"\ud800"#),
        BadOrigin(
            label: "two localStorage members",
            bad: #"{"origin": "https://b.example", "localStorage": [], "localStorage": []}"#,
            path: "origins[1].localStorage", reason: "two \"localStorage\"", marker: #""origin": "https://b.example""#),
        BadOrigin(
            label: "over the quota",
            bad:
                "{\"origin\": \"https://b.example\", \"localStorage\": [\n      {\"name\": \"a\", \"value\": \"\(String(repeating: "a", count: 300))\"},\n      {\"name\": \"b\", \"value\": \"\(String(repeating: "b", count: 300))\"}]}",
            path: "origins[1].localStorage[1]",
            reason: "past its localStorage quota: 1204 bytes needed, the quota is 1000 bytes", marker: #"{"name": "b""#,
            quota: 1000),
        BadOrigin(
            label: "an origin twice", bad: #"{"origin": "https://www.example.com/", "localStorage": []}"#,
            path: "origins[1].origin", reason: "already has an entry (origins[0])",
            marker: #""https://www.example.com/""#),
        BadOrigin(
            label: "database without a version", bad: idb(#"{"name": "bad", "stores": []}"#),
            path: "origins[1].indexedDB[0]", reason: "no \"version\"", marker: #"{"name": "bad""#),
        BadOrigin(
            label: "database version 0", bad: idb(#"{"name": "bad", "version": 0, "stores": []}"#),
            path: "origins[1].indexedDB[0]", reason: "below 1 (TypeError)", marker: #"{"name": "bad""#),
        BadOrigin(
            label: "store without autoIncrement",
            bad: idb(
                #"{"name": "bad", "version": 1, "stores": [\#(store("s")), {"name": "t", "records": [], "indexes": []}]}"#
            ),
            path: "origins[1].indexedDB[0].stores[1]", reason: "autoIncrement", marker: #"{"name": "bad""#),
        BadOrigin(
            label: "record not in Playwright's form",
            bad: idb(
                #"{"name": "bad", "version": 1, "stores": [\#(store("s", records: #"{"key": 1, "value": 1}, {"key": 2, "value": 2}, {"keyEncoded": {"zz": 1}, "value": 3}"#))]}"#
            ),
            path: "origins[1].indexedDB[0].stores[0].records[2]", reason: "not a Playwright serialized value",
            marker: #"{"name": "bad""#),
        BadOrigin(
            label: "two records with one key",
            bad: idb(
                #"{"name": "bad", "version": 1, "stores": [\#(store("s", records: #"{"key": 1, "value": "a"}, {"key": 1, "value": "b"}"#))]}"#
            ),
            path: "origins[1].indexedDB[0].stores[0].records[1]", reason: "ConstraintError", marker: #"{"name": "bad""#),
        BadOrigin(
            label: "in-line key missing",
            bad: idb(
                #"{"name": "bad", "version": 1, "stores": [\#(store("s", records: #"{"value": {"name": "x"}}"#, keyPath: "id"))]}"#
            ),
            path: "origins[1].indexedDB[0].stores[0].records[0]", reason: "DataError", marker: #"{"name": "bad""#),
        BadOrigin(
            label: "out-of-line key missing",
            bad: idb(#"{"name": "bad", "version": 1, "stores": [\#(store("s", records: #"{"value": 1}"#))]}"#),
            path: "origins[1].indexedDB[0].stores[0].records[0]", reason: "DataError", marker: #"{"name": "bad""#),
        BadOrigin(
            label: "unique index clash",
            bad: idb(
                #"{"name": "bad", "version": 1, "stores": [\#(store("s", records: #"{"value": {"id": 1, "e": "x"}}, {"value": {"id": 2, "e": "x"}}"#, indexes: #"{"name": "e", "keyPath": "e", "multiEntry": false, "unique": true}"#, keyPath: "id"))]}"#
            ),
            path: "origins[1].indexedDB[0].stores[0].records[1]", reason: "ConstraintError", marker: #"{"name": "bad""#),
        BadOrigin(
            label: "index without a key path",
            bad: idb(
                #"{"name": "bad", "version": 1, "stores": [\#(store("s", indexes: #"{"name": "i", "multiEntry": false, "unique": false}"#))]}"#
            ),
            path: "origins[1].indexedDB[0].stores[0].indexes[0]", reason: "no key path", marker: #"{"name": "bad""#),
        BadOrigin(
            label: "multi-entry array key path",
            bad: idb(
                #"{"name": "bad", "version": 1, "stores": [\#(store("s", indexes: #"{"name": "i", "keyPathArray": ["a", "b"], "multiEntry": true, "unique": false}"#))]}"#
            ),
            path: "origins[1].indexedDB[0].stores[0].indexes[0]", reason: "InvalidAccessError",
            marker: #"{"name": "bad""#),
        BadOrigin(
            label: "a URL value",
            bad: idb(
                #"{"name": "bad", "version": 1, "stores": [\#(store("s", records: #"{"key": 1, "valueEncoded": {"u": "https://x.example/"}}"#))]}"#
            ),
            path: "origins[1].indexedDB[0].stores[0].records[0]", reason: "DataCloneError", marker: #"{"name": "bad""#),
        BadOrigin(
            label: "two stores with one name",
            bad: idb(#"{"name": "bad", "version": 1, "stores": [\#(store("s")), \#(store("s"))]}"#),
            path: "origins[1].indexedDB[0].stores[1]", reason: "ConstraintError", marker: #"{"name": "bad""#),
        BadOrigin(
            label: "a database twice",
            bad: idb(
                #"{"name": "bad", "version": 1, "stores": []},"# + "\n      "
                    + #"{"name": "bad", "version": 2, "stores": []}"#),
            path: "origins[1].indexedDB[1]", reason: "a second database named 'bad'",
            marker: #"{"name": "bad", "version": 2"#),
        BadOrigin(
            label: "indexedDB not an array", bad: #"{"origin": "https://b.example", "indexedDB": {}}"#,
            path: "origins[1].indexedDB", reason: "must be an array", marker: #""indexedDB": {}"#),
        BadOrigin(
            label: "two origins members", bad: "{\"origin\": \"https://b.example\"}\n  ],\n  \"origins\": [",
            path: nil, reason: "two \"origins\"", marker: "  \"origins\": [\n  ]"),
    ]

    /// An origin entry for `https://b.example` with these databases, each on a line of its own.
    static func idb(_ databases: String) -> String {
        "{\"origin\": \"https://b.example\", \"indexedDB\": [\n      " + databases + "\n    ]}"
    }

    /// One store's JSON.
    static func store(_ name: String, records: String = "", indexes: String = "", keyPath: String? = nil) -> String {
        #"{"name": "\#(name)", "records": [\#(records)], "indexes": [\#(indexes)], "autoIncrement": false"#
            + (keyPath.map { #", "keyPath": "\#($0)""# } ?? "") + "}"
    }

    /// A store holding a cookie, localStorage and a database that the good part of a file would change.
    static func victimStore(_ dir: InterchangeTemporaryDirectory) throws -> WebsiteDataStore {
        let store = try dir.store()
        try store.httpCookieStore.setCookies(
            fromSetCookieHeaders: ["victim=original"], for: URL(string: "https://www.example.com/")!)
        try store.localStorage.setItem("victim", "original", origin: Fixture.www)
        let db = try store.indexedDB.open(origin: Fixture.www, name: "victimdb", version: 1) { tx, _ throws in
            _ = try tx.createObjectStore("s")
        }
        try db.transaction("s", mode: .readwrite) { tx throws in _ = try tx.objectStore("s").put("original", key: 1) }
        return store
    }

    static func fileText(origins tail: String) -> String {
        """
        {
          "cookies": [
            {"name": "victim", "value": "replaced", "domain": "www.example.com", "path": "/", "expires": -1, "httpOnly": false, "secure": false, "sameSite": "Lax"}
          ],
          "origins": [
            {
              "origin": "https://www.example.com",
              "localStorage": [{"name": "victim", "value": "replaced"}, {"name": "new", "value": "1"}],
              "indexedDB": [{"name": "victimdb", "version": 2, "stores": [{"name": "s", "records": [{"key": 1, "value": "replaced"}], "indexes": [], "autoIncrement": false}]}]
            },
            \(tail)
          ]
        }

        """
    }

    @Test(arguments: badOrigins)
    func badOriginRefusesTheWholeFile(_ bad: BadOrigin) throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try Self.victimStore(dir)
        if let quota = bad.quota { try store.set(.localStorageQuota, to: String(quota)) }
        let before = try Fixture.Snapshot.of(store)
        let text = Self.fileText(origins: bad.bad)
        let file = try dir.write("state.json", text)
        let error = try #require(throws: StorageStateImportError.self) {
            try StorageStateInterchange.importStorageState(
                from: file, into: store, sessionStorageNamespace: UUID().uuidString)
        }
        #expect(error.path == bad.path, "\(error)")
        #expect(error.reason.contains(bad.reason), "\(error)")
        #expect(error.line == Fixture.line(of: bad.marker, in: text), "\(error)")
        #expect(error.imported.isEmpty)
        #expect(error.description.hasSuffix("(nothing was imported)"))
        // Nothing changed, in this store object or on disk; no namespace was made.
        #expect(try Fixture.Snapshot.of(store) == before)
        #expect(try Fixture.Snapshot.of(dir.store()) == before)
        #expect(store.sessionStorage.namespaces.isEmpty)
    }

    /// Strict: a refused cookie refuses the whole file. (Lenient, the default, leaves it out:
    /// `refusedCookieIsLeftOutByDefault`.)
    @Test func refusedCookieRefusesTheWholeFile() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try Self.victimStore(dir)
        let before = try Fixture.Snapshot.of(store)
        let text = Self.fileText(
            origins: #"{"origin": "https://b.example", "localStorage": [{"name": "a", "value": "b"}]}"#
        )
        .replacingOccurrences(
            of: "\"sameSite\": \"Lax\"}\n",
            with: "\"sameSite\": \"Lax\"},\n    {\"name\": \"super\", \"value\": \"1\", \"domain\": \".com\"}\n")
        let file = try dir.write("state.json", text)
        let error = try #require(throws: StorageStateImportError.self) {
            try StorageStateInterchange.importStorageState(from: file, into: store, options: .strict)
        }
        #expect(error.path == "cookies[1]" && error.line == 4, "\(error)")
        #expect(error.reason.contains("public suffix"))
        #expect(try Fixture.Snapshot.of(store) == before)
        #expect(try Fixture.Snapshot.of(dir.store()) == before)

        // A syntax error among the cookies names its line.
        let broken = try dir.write(
            "broken.json", text.replacingOccurrences(of: "\"domain\": \".com\"}", with: "\"domain\" \".com\"}"))
        let syntax = try #require(throws: StorageStateImportError.self) {
            try StorageStateInterchange.importStorageState(from: broken, into: store)
        }
        #expect(syntax.line == 4 && syntax.path == nil && syntax.reason.contains("expected ':'"), "\(syntax)")
        #expect(try Fixture.Snapshot.of(store) == before)
    }

    /// When the store refuses a write the check allowed (here a trigger stands for a full disk),
    /// the error says what was imported before it.
    @Test func laterFailureSaysWhatWasImported() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try Self.victimStore(dir)
        var db: OpaquePointer?
        #expect(sqlite3_open(dir.url.appendingPathComponent("store/store.sqlite").path, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        let trigger = """
            CREATE TRIGGER refuse_b BEFORE INSERT ON local_storage WHEN NEW.origin = 'https://b.example'
            BEGIN SELECT RAISE(ABORT, 'the disk refused the write'); END;
            """
        #expect(sqlite3_exec(db, trigger, nil, nil, nil) == SQLITE_OK)

        let text = Self.fileText(
            origins: #"{"origin": "https://b.example", "localStorage": [{"name": "a", "value": "b"}]}"#)
        let file = try dir.write("state.json", text)
        let error = try #require(throws: StorageStateImportError.self) {
            try StorageStateInterchange.importStorageState(from: file, into: store)
        }
        #expect(error.path == "origins[1].localStorage", "\(error)")
        #expect(error.reason.contains("the disk refused the write"), "\(error)")
        #expect(error.imported == ["the cookies (1 read)", "origins[0]"])
        #expect(
            error.description.hasSuffix(
                "(already imported: the cookies (1 read), origins[0]; the rest of the file was not)"))
        #expect(!error.description.contains("\n"))
        // What it says was imported was, and the rest was not.
        #expect(try store.httpCookieStore.allCookies().map(\.value) == ["replaced"])
        #expect(try store.localStorage.getItem("victim", origin: Fixture.www) == "replaced")
        #expect(try store.indexedDB.databases(origin: Fixture.www).map(\.version) == [2])
        #expect(try store.localStorage.origins() == [Fixture.www])
    }

    // MARK: - Cookie-only imports

    @Test func cookieOnlyImportStillIgnoresOrigins() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try Self.victimStore(dir)
        let file = try dir.write(
            "state.json",
            Self.fileText(origins: #"{"origin": "https://b.example", "localStorage": [{"name": "a", "value": "b"}]}"#))
        let summary = try CookieInterchange.importCookies(from: file, into: store.httpCookieStore)
        #expect(summary.imported == 1)
        #expect(try store.httpCookieStore.allCookies().map(\.value) == ["replaced"])
        #expect(try store.localStorage.getItem("victim", origin: Fixture.www) == "original")
        #expect(try store.localStorage.origins() == [Fixture.www])
        #expect(try store.indexedDB.databases(origin: Fixture.www).map(\.version) == [1])
        // A bad origin entry is not its business either, as long as it is JSON.
        let odd = try dir.write("odd.json", Self.fileText(origins: #"{"origin": 7, "localStorage": {"a": [1]}}"#))
        #expect(try CookieInterchange.importCookies(from: odd, into: store.httpCookieStore).imported == 1)
    }

    // MARK: - Storage semantics

    @Test func importMergesLocalStorageAndReplacesDatabasesByName() throws {
        let dir = try InterchangeTemporaryDirectory()
        let store = try Self.victimStore(dir)
        try store.localStorage.setItem("kept", "yes", origin: Fixture.www)
        _ = try store.indexedDB.open(origin: Fixture.www, name: "other", version: 4)
        let file = try dir.write(
            "state.json",
            Self.fileText(
                origins:
                    #"{"origin": "https://b.example", "localStorage": [{"name": "a", "value": "1"}, {"name": "a", "value": "2"}]}"#
            ))
        let summary = try StorageStateInterchange.importStorageState(from: file, into: store)
        #expect(
            summary.origins == 2 && summary.localStorageItems == 4 && summary.indexedDBDatabases == 1
                && summary.indexedDBRecords == 1)
        // Keys the file has take its values (in place); keys it lacks stay; a repeated key: the last value.
        #expect(
            try store.localStorage.items(origin: Fixture.www).map { [$0.key, $0.value] }
                == [["victim", "replaced"], ["kept", "yes"], ["new", "1"]])
        #expect(
            try store.localStorage.items(origin: SecurityOrigin(string: "https://b.example")!).map {
                [$0.key, $0.value]
            } == [["a", "2"]])
        // The database of the file's name is replaced; the others stay.
        #expect(
            try store.indexedDB.databases(origin: Fixture.www).map { "\($0.name) \($0.version)" } == [
                "other 4", "victimdb 2",
            ])
        let victim = try store.indexedDB.open(origin: Fixture.www, name: "victimdb")
        try victim.transaction("s") { tx throws in #expect(try tx.objectStore("s").get(1) == "replaced") }
    }
}
