import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

/// `wkstore idb list` and `wkstore idb dump` on databases the library made in the sandbox store.
@Suite(.ownThreads, .bothEngines) struct IndexedDBTests {
    static let origin = SecurityOrigin(string: "https://app.example.com")!
    static let due = Date(timeIntervalSince1970: 1_767_225_600.125)

    /// Values of every kind JSON cannot hold as is, under out-of-line keys of every type, in key order.
    static let blobs: [(key: IDBKey, value: IDBValue)] = [
        (.number(-1.5), .number(.nan)),
        (.number(2), .binary(Data([0, 1, 255]), kind: .uint8)),
        (.date(Date(timeIntervalSince1970: 0)), .date(due)),
        (
            .string("a"),
            .array([.undefined, .null, .number(-0.0), .number(.infinity), .bigInt("12345678901234567890")])
        ),
        (.string("é"), .object(["$ref": .string("not a tag")])),
        (.binary(Data([1, 2])), .regExp(pattern: "^a+$", flags: "gi")),
        (.array([.number(1), .string("a")]), .error(name: "TypeError", message: "boom", stack: "")),
    ]

    /// A store with two databases of one origin and one of another, made through the library.
    func makeStore() throws -> Sandbox {
        let sandbox = try Sandbox()
        let store = try sandbox.openStore()
        let app = try store.indexedDB.open(origin: Self.origin, name: "app", version: 2) { tx, _ in
            let notes = try tx.createObjectStore("notes", keyPath: "id", autoIncrement: true)
            try notes.createIndex("byTag", keyPath: "tags", multiEntry: true)
            _ = try tx.createObjectStore("blobs")
            _ = try tx.createObjectStore("empty")
        }
        try app.transaction(["notes", "blobs"], mode: .readwrite) { tx in
            let notes = try tx.objectStore("notes")
            _ = try notes.add(["title": "Groceries", "tags": ["home", "todo"], "due": .date(Self.due)])
            _ = try notes.add(["title": "Taxes", "tags": ["work"], "done": true])
            let blobs = try tx.objectStore("blobs")
            for (key, value) in Self.blobs.reversed() { _ = try blobs.put(value, key: key) }
        }
        _ = try store.indexedDB.open(origin: Self.origin, name: "cache", version: 1) { tx, _ in
            _ = try tx.createObjectStore("entries", keyPath: ["host", "path"])
        }
        _ = try store.indexedDB.open(origin: SecurityOrigin(string: "http://localhost:3000")!, name: "dev", version: 7)
        return sandbox
    }

    @Test func listShowsDatabasesStoresAndRecordCounts() throws {
        let sandbox = try makeStore()
        let lines = try sandbox.succeed(["idb", "list", "--origin", "https://app.example.com"]).lines
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("https://app.example.com  app    version 2  "))
        #expect(lines[0].hasSuffix("  blobs (7 records), empty (0 records), notes (2 records)"), "\(lines)")
        #expect(lines[1].hasPrefix("https://app.example.com  cache  version 1  0 B"))
        #expect(lines[1].hasSuffix("  entries (0 records)"))
        #expect(try sandbox.succeed(["idb", "list"]).lines.count == 3)

        let json = try sandbox.succeed(["idb", "list", "--json"]).objects()
        #expect(json.map { $0["name"] as? String } == ["dev", "app", "cache"])
        #expect(json[0]["stores"] as? [Any] != nil && (json[0]["stores"] as? [Any])?.isEmpty == true)
        #expect(json[0]["version"] as? Int == 7)
        let stores = try #require(json[1]["stores"] as? [[String: Any]])
        #expect(stores.map { $0["name"] as? String } == ["blobs", "empty", "notes"])
        #expect(stores.map { $0["records"] as? Int } == [7, 0, 2])
        let notes = stores[2]
        #expect(notes["keyPath"] as? String == "id")
        #expect(notes["autoIncrement"] as? Bool == true)
        #expect(notes["indexes"] as? [String] == ["byTag"])
        #expect((json[2]["stores"] as? [[String: Any]])?.first?["keyPath"] as? [String] == ["host", "path"])
        #expect(json[1]["site"] as? String == "example.com")
        #expect((json[1]["size"] as? Int ?? 0) > 0)
    }

    @Test func dumpPrintsRecordsInKeyOrderAsJSONLines() throws {
        let sandbox = try makeStore()
        let result = try sandbox.succeed(["idb", "dump", "--origin", "https://app.example.com", "--db", "app"])
        let lines = result.lines
        #expect(lines.count == 9)
        let records = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(records.map { $0["store"] as? String } == Array(repeating: "blobs", count: 7) + ["notes", "notes"])
        #expect(lines.allSatisfy { $0.hasPrefix("{\"store\":") && !$0.contains("\n") })

        // Keys and values read back with the library's Codable form, exactly, in the spec's key order.
        let decoder = JSONDecoder()
        for (line, expected) in zip(lines.prefix(7), Self.blobs) {
            struct Record: Decodable {
                let key: IDBValue
                let value: IDBValue
            }
            let record = try decoder.decode(Record.self, from: Data(line.utf8))
            #expect(record.key == expected.key.value, "\(line)")
            #expect(record.value == expected.value, "\(line)")
        }
        #expect(lines[0] == #"{"store":"blobs","key":-1.5,"value":{"$number":"NaN"}}"#)
        #expect(
            lines[2]
                == #"{"store":"blobs","key":{"$date":"1970-01-01T00:00:00.000Z"},"value":{"$date":"2026-01-01T00:00:00.125Z"}}"#
        )
        #expect(lines[4] == #"{"store":"blobs","key":"é","value":{"$object":{"$ref":"not a tag"}}}"#)

        // Object properties keep their order; the key generator's key is in the value.
        #expect(
            lines[7]
                == #"{"store":"notes","key":1,"value":{"title":"Groceries","tags":["home","todo"],"due":{"$date":"2026-01-01T00:00:00.125Z"},"id":1}}"#
        )
        #expect(lines[8] == #"{"store":"notes","key":2,"value":{"title":"Taxes","tags":["work"],"done":true,"id":2}}"#)

        let one = try sandbox.succeed([
            "idb", "dump", "--origin", "https://app.example.com", "--db", "app", "--object-store", "notes", "--json",
        ])
        #expect(one.lines == Array(lines.suffix(2)))
        #expect(
            try sandbox.succeed([
                "idb", "dump", "--origin", "https://app.example.com", "--db", "app", "--object-store", "empty",
            ]).stdout.isEmpty)
    }

    @Test func missingDatabasesAndStoresExitOneAndCreateNothing() throws {
        let sandbox = try makeStore()
        let noDatabase = try sandbox.runInStore(["idb", "dump", "--origin", "https://app.example.com", "--db", "nope"])
        #expect(noDatabase.status == 1)
        #expect(noDatabase.isOneLineMessage)
        #expect(noDatabase.stderr.contains("no IndexedDB database named 'nope'"))
        let noStore = try sandbox.runInStore([
            "idb", "dump", "--origin", "https://app.example.com", "--db", "app", "--object-store", "nope",
        ])
        #expect(noStore.status == 1)
        #expect(noStore.stderr.contains("stores: blobs, empty, notes"))
        #expect(try sandbox.succeed(["idb", "list", "--origin", "https://app.example.com"]).lines.count == 2)
        #expect(try sandbox.succeed(["idb", "list", "--origin", "https://other.example.com"]).stdout.isEmpty)
        let usage = try sandbox.runInStore(["idb", "dump", "--origin", "https://app.example.com"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("needs --db"))

        // A store that does not exist is not created by reading it.
        let fresh = try Sandbox()
        #expect(try fresh.succeed(["idb", "list"]).stdout.isEmpty)
        #expect(try !fresh.storeWasMade())
    }

    @Test func putAndDeleteOneRecordAsTheLibrarySeesIt() throws {
        let sandbox = try makeStore()
        let base = ["--origin", "https://app.example.com", "--db", "app"]
        // A store with a key path and a key generator: the key comes from the value, or is generated.
        let put = try sandbox.succeed(
            ["idb", "put"] + base + [
                "--object-store", "notes", #"{"id": 7, "title": "From the CLI", "tags": ["cli"]}"#,
            ])
        #expect(put.stdout == "stored 7 in notes\n")
        let generated = try sandbox.succeed(
            ["idb", "put"] + base + ["--object-store", "notes", #"{"title": "Next"}"#])
        #expect(generated.stdout == "stored 8 in notes\n")
        // A store with out-of-line keys takes --key, with dump's tagged forms.
        let dated = try sandbox.succeed(
            ["idb", "put"] + base + [
                "--object-store", "blobs", "--key", #"{"$date": "2026-01-01T00:00:00.000Z"}"#, #"{"$undefined": true}"#,
            ])
        #expect(dated.stdout == #"stored {"$date":"2026-01-01T00:00:00.000Z"} in blobs"# + "\n")

        let store = try sandbox.openStore()
        let app = try store.indexedDB.open(origin: Self.origin, name: "app", version: 2) { _, _ in }
        try app.transaction(["notes", "blobs"]) { tx in
            let note = try #require(try tx.objectStore("notes").get(7))
            #expect(note["title"] == .string("From the CLI"))
            #expect(try tx.objectStore("notes").index("byTag").count(.only("cli")) == 1)
            #expect(try tx.objectStore("blobs").get(.date(Date(timeIntervalSince1970: 1_767_225_600))) == .undefined)
        }

        let deleted = try sandbox.succeed(["idb", "delete"] + base + ["--object-store", "notes", "--key", "7"])
        #expect(deleted.stdout == "deleted 7 from notes\n")
        let none = try sandbox.runInStore(
            ["idb", "delete"] + base + ["--object-store", "notes", "--key", "7", "--must-match"])
        #expect(none.status == 1)
        #expect(none.stdout == "no record 7 in notes\n")
        #expect(none.stderr == "wkstore: no record 7 in notes (--must-match)\n")
        let gone = try app.transaction("notes") { tx in try tx.objectStore("notes").get(7) }
        #expect(gone == nil)

        // Bad input: a one-line message, nothing stored.
        let before = try sandbox.succeed(["idb", "dump"] + base).stdout
        for (arguments, status) in [
            (["--object-store", "notes", "{not json"], 2),
            (["--object-store", "notes", "--key", "true", "{}"], 2),
            (["--object-store", "nope", "{}"], 1),
            (["--object-store", "blobs", "{}"], 1), // out-of-line keys and no --key
            (["--object-store", "notes", "--key", "9", #"{"id": 7}"#], 1), // a key path and --key
        ] {
            let bad = try sandbox.runInStore(["idb", "put"] + base + arguments)
            #expect(bad.status == Int32(status), "\(arguments): \(bad.stderr)")
            #expect(bad.isOneLineMessage, "\(arguments)")
        }
        #expect(try sandbox.succeed(["idb", "dump"] + base).stdout == before)
    }
}
