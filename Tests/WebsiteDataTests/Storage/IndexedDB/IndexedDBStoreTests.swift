import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

@Suite(.ownThreads, .bothEngines) struct IndexedDBStoreTests {
    let origin = idbOrigin("https://app.example.com")

    // MARK: Key generator

    @Test(arguments: IDBTestStoreKind.allCases)
    func keyGeneratorStartsAtOneAndFollowsExplicitKeys(_ kind: IDBTestStoreKind) throws {
        let test = try IDBTestStore(kind)
        let db = try test.indexedDB.open(origin: origin, name: "gen", version: 1) { tx, _ throws in
            try tx.createObjectStore("s", autoIncrement: true)
        }
        let keys = try db.transaction("s", mode: .readwrite) { tx throws -> [IDBKey] in
            let s = try tx.objectStore("s")
            var keys = [try s.add("a"), try s.add("b")]
            try s.put("explicit", key: 10.7) // moves the generator to floor(10.7) + 1
            keys.append(try s.add("c"))
            try s.put("lower", key: 3) // below the current number: no change
            try s.put("negative", key: -100)
            try s.put("text", key: "zzz") // not a number: no change
            keys.append(try s.add("d"))
            try s.delete(.lowerBound(0))
            try s.clear() // clearing never resets the generator
            keys.append(try s.add("e"))
            return keys
        }
        #expect(keys == [1, 2, 11, 12, 13])
    }

    @Test(arguments: IDBTestStoreKind.allCases)
    func keyGeneratorStopsPastTwoToThe53(_ kind: IDBTestStoreKind) throws {
        let test = try IDBTestStore(kind)
        let db = try test.indexedDB.open(origin: origin, name: "gen", version: 1) { tx, _ throws in
            try tx.createObjectStore("s", autoIncrement: true)
            try tx.createObjectStore("inf", autoIncrement: true)
        }
        let limit = 9_007_199_254_740_992.0
        // 2^53 - 1 is the last key generated.
        try db.transaction("s", mode: .readwrite) { tx throws in
            let s = try tx.objectStore("s")
            try s.put("x", key: .number(limit - 2))
            #expect(try s.add("last") == .number(limit - 1))
            #expect(try s.add("2^53") == .number(limit))
        }
        // Past 2^53 generation fails with ConstraintError and aborts; nothing of the transaction stays.
        #expect(throws: IDBError.self) {
            try db.transaction("s", mode: .readwrite) { tx throws in
                try tx.objectStore("s").put("kept?", key: 1)
                do {
                    try tx.objectStore("s").add("too far")
                    Issue.record("a key past 2^53 was generated")
                } catch let error as IDBError {
                    #expect(error.name == .constraint)
                }
            }
        }
        // Explicit keys still work.
        try db.transaction("s", mode: .readwrite) { tx throws in
            try tx.objectStore("s").put("explicit", key: 5)
            try tx.objectStore("s").put("huge", key: .number(1e300))
        }
        #expect(
            try db.transaction("s") { try $0.objectStore("s").getAllKeys() } == [
                5, .number(limit - 2), .number(limit - 1), .number(limit), .number(1e300),
            ])
        // An explicit Infinity exhausts the generator at once.
        try db.transaction("inf", mode: .readwrite) { tx throws in
            try tx.objectStore("inf").put("x", key: .number(.infinity))
        }
        let error = idbError {
            try db.transaction("inf", mode: .readwrite) { tx throws in try tx.objectStore("inf").add("y") }
        }
        #expect(error?.name == .constraint)
    }

    // MARK: Key paths

    @Test(arguments: IDBTestStoreKind.allCases)
    func inlineDottedAndArrayKeyPaths(_ kind: IDBTestStoreKind) throws {
        let test = try IDBTestStore(kind)
        let db = try test.indexedDB.open(origin: origin, name: "paths", version: 1) { tx, _ throws in
            try tx.createObjectStore("dotted", keyPath: "a.b.c")
            try tx.createObjectStore("people", keyPath: ["last", "first"])
            try tx.createObjectStore("generated", keyPath: "meta.id", autoIncrement: true)
            try tx.createObjectStore("length", keyPath: "name.length")
        }
        try db.transaction(["dotted", "people", "generated", "length"], mode: .readwrite) { tx throws in
            let dotted = try tx.objectStore("dotted")
            #expect(try dotted.put(["a": ["b": ["c": "deep"]], "x": 1]) == "deep")
            #expect(try dotted.get("deep")?["x"] == 1)
            // A missing path, an invalid key there, or a key given apart are DataErrors, and do not abort.
            for bad: IDBValue in [["a": ["b": [:]]], ["a": ["b": ["c": true]]], ["a": 5]] {
                let error = idbError { try dotted.put(bad) }
                #expect(error?.name == .data)
            }
            #expect(idbErrorName { try dotted.put(["a": ["b": ["c": "k"]]], key: "k") } == .data)

            let people = try tx.objectStore("people")
            #expect(try people.put(["first": "Jane", "last": "Doe"]) == ["Doe", "Jane"])
            try people.put(["first": "John", "last": "Doe"])
            try people.put(["first": "Ann", "last": "Abel"])
            #expect(try people.getAllKeys() == [["Abel", "Ann"], ["Doe", "Jane"], ["Doe", "John"]])
            #expect(try people.getAll(.bound(["Doe"], ["Doe", []])).count == 2)

            let generated = try tx.objectStore("generated")
            #expect(try generated.add(["name": "first"]) == 1)
            #expect(try generated.add(["name": "second", "meta": ["tag": "t"]]) == 2)
            #expect(try generated.get(1) == ["name": "first", "meta": ["id": 1]])
            #expect(try generated.get(2) == ["name": "second", "meta": ["tag": "t", "id": 2]])
            // An explicit in-line key moves the generator on.
            #expect(try generated.add(["meta": ["id": 40]]) == 40)
            #expect(try generated.add([:]) == 41)
            // No object to put the key in.
            #expect(idbErrorName { try generated.add(["meta": "text"]) } == .data)

            let length = try tx.objectStore("length")
            #expect(try length.put(["name": "four"]) == 4)
        }
        // The DataErrors did not abort: everything else committed.
        #expect(try db.transaction("dotted") { try $0.objectStore("dotted").count() } == 1)
        #expect(try db.transaction("generated") { try $0.objectStore("generated").count() } == 4)
    }

    @Test func invalidKeyPathsAndOptionsAreRefused() throws {
        let test = try IDBTestStore(.memory)
        _ = try test.indexedDB.open(origin: origin, name: "bad", version: 1) { tx, _ throws in
            #expect(idbErrorName { try tx.createObjectStore("a", keyPath: "a..b") } == .syntax)
            #expect(idbErrorName { try tx.createObjectStore("b", keyPath: "1x") } == .syntax)
            #expect(
                idbErrorName { try tx.createObjectStore("c", keyPath: ["a", "b"], autoIncrement: true) }
                    == .invalidAccess)
            #expect(idbErrorName { try tx.createObjectStore("d", keyPath: "", autoIncrement: true) } == .invalidAccess)
            let s = try tx.createObjectStore("e", keyPath: "$ok.ünïcode_1")
            #expect(idbErrorName { try s.createIndex("i", keyPath: ["a", "b"], multiEntry: true) } == .invalidAccess)
            #expect(idbErrorName { try tx.createObjectStore("e") } == .constraint)
        }
    }

    // MARK: Ranges and reads

    @Test(arguments: IDBTestStoreKind.allCases)
    func rangesSelectWhatTheySay(_ kind: IDBTestStoreKind) throws {
        let test = try IDBTestStore(kind)
        let db = try test.indexedDB.open(origin: origin, name: "r", version: 1) { tx, _ throws in
            try tx.createObjectStore("s")
        }
        try db.transaction("s", mode: .readwrite) { tx throws in
            for n in 1...10 { try tx.objectStore("s").put(.number(Double(n * 10)), key: .number(Double(n))) }
        }
        try db.transaction("s") { tx throws in
            let s = try tx.objectStore("s")
            #expect(try s.getAllKeys(.bound(3, 6)) == [3, 4, 5, 6])
            #expect(try s.getAllKeys(.bound(3, 6, lowerOpen: true, upperOpen: true)) == [4, 5])
            #expect(try s.getAllKeys(.lowerBound(8)) == [8, 9, 10])
            #expect(try s.getAllKeys(.lowerBound(8, open: true)) == [9, 10])
            #expect(try s.getAllKeys(.upperBound(2)) == [1, 2])
            #expect(try s.getAllKeys(.upperBound(2, open: true)) == [1])
            #expect(try s.getAll(.only(7)) == [70])
            #expect(try s.getAll(.lowerBound(2), count: 3) == [20, 30, 40])
            #expect(try s.getAll(count: 0).count == 10)
            #expect(try s.get(.lowerBound(4.5)) == 50)
            #expect(try s.getKey(.upperBound(100)) == 1)
            #expect(try s.get(11) == nil)
            #expect(try s.count() == 10)
            #expect(try s.count(.bound(2, 4)) == 3)
            #expect(try s.getAllKeys(.lowerBound("a")).isEmpty) // strings sort after every number
            #expect(idbErrorName { try s.getAll(.bound(5, 4)) } == .data)
            #expect(idbErrorName { try s.getAll(.bound(5, 5, lowerOpen: true)) } == .data)
            #expect(idbErrorName { try s.get(.number(.nan)) } == .data)
            #expect(idbErrorName { try s.put(1, key: 1) } == .readOnly)
        }
        try db.transaction("s", mode: .readwrite) { tx throws in
            let s = try tx.objectStore("s")
            try s.delete(.bound(2, 4))
            try s.delete(9)
            #expect(try s.getAllKeys() == [1, 5, 6, 7, 8, 10])
        }
        #expect(IDBKeyRange.bound(1, 5, upperOpen: true).includes(4.9))
        #expect(!IDBKeyRange.bound(1, 5, upperOpen: true).includes(5))
    }

    @Test(arguments: IDBTestStoreKind.allCases)
    func addRefusesAnExistingKeyAndAbortsTheTransaction(_ kind: IDBTestStoreKind) throws {
        let test = try IDBTestStore(kind)
        let db = try test.indexedDB.open(origin: origin, name: "add", version: 1) { tx, _ throws in
            try tx.createObjectStore("s")
        }
        try db.transaction("s", mode: .readwrite) { tx throws in try tx.objectStore("s").add("first", key: 1) }
        let error = idbError {
            try db.transaction("s", mode: .readwrite) { tx throws in
                let s = try tx.objectStore("s")
                try s.put("new", key: 2)
                _ = try? s.add("again", key: 1) // caught, but the transaction is aborted all the same
                #expect(idbErrorName { try s.put("later", key: 3) } == .transactionInactive)
            }
        }
        #expect(error?.name == .constraint)
        #expect(try db.transaction("s") { try $0.objectStore("s").getAll() } == ["first"])
    }

    // MARK: Cursors

    /// Records {id, g}: index "g" has duplicates, so the unique directions differ.
    private func groupedDatabase(_ test: IDBTestStore) throws -> IDBDatabase {
        let db = try test.indexedDB.open(origin: origin, name: "cursors", version: 1) { tx, _ throws in
            let s = try tx.createObjectStore("s", keyPath: "id")
            try s.createIndex("g", keyPath: "g")
        }
        try db.transaction("s", mode: .readwrite) { tx throws in
            for (id, g) in [(1, "a"), (2, "b"), (3, "a"), (4, "b"), (5, "c"), (6, "b")] {
                try tx.objectStore("s").put(["id": .number(Double(id)), "g": .string(g)])
            }
        }
        return db
    }

    private func walk(_ cursor: IDBCursor?) throws -> [String] {
        var seen: [String] = []
        guard let cursor else { return seen }
        repeat { seen.append("\(cursor.key)/\(cursor.primaryKey)") } while try cursor.continue()
        #expect(throws: IDBError.self) { try cursor.continue() }
        return seen
    }

    @Test(arguments: IDBTestStoreKind.allCases)
    func cursorsWalkStoresAndIndexesInEveryDirection(_ kind: IDBTestStoreKind) throws {
        let test = try IDBTestStore(kind)
        let db = try groupedDatabase(test)
        try db.transaction("s") { tx throws in
            let s = try tx.objectStore("s")
            #expect(try walk(s.openCursor()) == ["1/1", "2/2", "3/3", "4/4", "5/5", "6/6"])
            #expect(try walk(s.openCursor(.bound(2, 4), direction: .prev)) == ["4/4", "3/3", "2/2"])
            #expect(try walk(s.openCursor(direction: .nextUnique)) == ["1/1", "2/2", "3/3", "4/4", "5/5", "6/6"])
            #expect(try walk(s.openCursor(direction: .prevUnique)).first == "6/6")
            #expect(try s.openCursor(.lowerBound(7)) == nil)

            let g = try s.index("g")
            #expect(try walk(g.openCursor()) == ["\"a\"/1", "\"a\"/3", "\"b\"/2", "\"b\"/4", "\"b\"/6", "\"c\"/5"])
            #expect(try walk(g.openCursor(direction: .nextUnique)) == ["\"a\"/1", "\"b\"/2", "\"c\"/5"])
            #expect(
                try walk(g.openCursor(direction: .prev)) == [
                    "\"c\"/5", "\"b\"/6", "\"b\"/4", "\"b\"/2", "\"a\"/3", "\"a\"/1",
                ])
            #expect(try walk(g.openCursor(direction: .prevUnique)) == ["\"c\"/5", "\"b\"/2", "\"a\"/1"])
            #expect(try walk(g.openCursor(.bound("a", "b", lowerOpen: true), direction: .prevUnique)) == ["\"b\"/2"])
            #expect(try walk(g.openCursor(.only("b"), direction: .prev)) == ["\"b\"/6", "\"b\"/4", "\"b\"/2"])

            // continue(to:), advance, continuePrimaryKey.
            let cursor = try #require(try g.openCursor())
            #expect(try cursor.continue(to: "b"))
            #expect(cursor.primaryKey == 2)
            #expect(try cursor.advance(2))
            #expect(cursor.primaryKey == 6)
            #expect(idbErrorName { try cursor.continue(to: "a") } == .data)
            #expect(try cursor.continue(to: "c"))
            #expect(cursor.value == ["id": 5, "g": "c"])
            #expect(try !cursor.advance(1))

            let pk = try #require(try g.openCursor())
            #expect(try pk.continuePrimaryKey("b", 3))
            #expect(pk.key == "b" && pk.primaryKey == 4)
            #expect(idbErrorName { try pk.continuePrimaryKey("b", 4) } == .data)

            let back = try #require(try g.openCursor(direction: .prevUnique))
            #expect(try back.continue(to: "b"))
            #expect(back.primaryKey == 2)
            #expect(try back.advance(1))
            #expect(back.primaryKey == 1)
            #expect(idbErrorName { try back.continuePrimaryKey("a", 1) } == .invalidAccess)

            let skip = try #require(try s.openCursor())
            #expect(try skip.advance(4))
            #expect(skip.key == 5)
            #expect(try !skip.advance(5))
        }
    }

    @Test(arguments: IDBTestStoreKind.allCases)
    func cursorsUpdateAndDeleteRecords(_ kind: IDBTestStoreKind) throws {
        let test = try IDBTestStore(kind)
        let db = try groupedDatabase(test)
        try db.transaction("s", mode: .readwrite) { tx throws in
            let g = try tx.objectStore("s").index("g")
            let cursor = try #require(try g.openCursor(.only("b")))
            repeat {
                if cursor.primaryKey == 4 {
                    try cursor.delete()
                } else {
                    try cursor.update(["id": cursor.primaryKey.value, "g": "z"])
                }
            } while try cursor.continue()
            // The in-line key may not change through the cursor.
            let other = try #require(try tx.objectStore("s").openCursor())
            #expect(idbErrorName { try other.update(["id": 99, "g": "a"]) } == .data)
        }
        try db.transaction("s") { tx throws in
            let s = try tx.objectStore("s")
            #expect(try s.getAllKeys() == [1, 3, 5, 2, 6].sorted())
            #expect(try s.index("g").getAllKeys(.only("z")) == [2, 6])
            #expect(try s.index("g").count(.only("b")) == 0)
            let cursor = try #require(try s.openCursor())
            #expect(idbErrorName { try cursor.delete() } == .readOnly)
        }
    }

    // MARK: Indexes

    @Test(arguments: IDBTestStoreKind.allCases)
    func indexesStayCurrentAndMultiEntryIndexesHoldEachElement(_ kind: IDBTestStoreKind) throws {
        let test = try IDBTestStore(kind)
        let db = try test.indexedDB.open(origin: origin, name: "idx", version: 1) { tx, _ throws in
            let s = try tx.createObjectStore("posts")
            try s.createIndex("tags", keyPath: "tags", multiEntry: true)
            try s.createIndex("tagList", keyPath: "tags")
            try s.createIndex("author", keyPath: "author.name")
        }
        try db.transaction("posts", mode: .readwrite) { tx throws in
            let s = try tx.objectStore("posts")
            try s.put(["tags": ["swift", "db", "swift", true, .number(.nan)], "author": ["name": "ann"]], key: 1)
            try s.put(["tags": "swift", "author": ["name": "bob"]], key: 2)
            try s.put(["tags": [], "author": "nobody"], key: 3)
            try s.put(["title": "untagged"], key: 4)
        }
        try db.transaction("posts") { tx throws in
            let s = try tx.objectStore("posts")
            let tags = try s.index("tags")
            #expect(try tags.getAllKeys(.only("swift")) == [1, 2])
            #expect(try tags.getAllKeys(.only("db")) == [1])
            #expect(try tags.count() == 3) // swift(1), db(1), swift(2): duplicates and invalid elements skipped
            // The array as one key: record 1's holds true and NaN, so it has none; "swift"; [].
            #expect(try s.index("tagList").getAllKeys() == [2, 3])
            #expect(try s.index("author").getAllKeys() == [1, 2])
            #expect(try s.index("author").getKey("bob") == 2)
            #expect(try s.index("author").get("ann")?["author"] == ["name": "ann"])
        }
        // put replaces the old index entries.
        try db.transaction("posts", mode: .readwrite) { tx throws in
            try tx.objectStore("posts").put(["tags": ["rust"], "author": ["name": "ann"]], key: 1)
        }
        try db.transaction("posts") { tx throws in
            let tags = try tx.objectStore("posts").index("tags")
            #expect(try tags.getAllKeys(.only("swift")) == [2])
            #expect(try tags.getAllKeys(.only("db")).isEmpty)
            #expect(try tags.getAllKeys(.only("rust")) == [1])
        }
        // Deleting records removes their entries.
        try db.transaction("posts", mode: .readwrite) { tx throws in try tx.objectStore("posts").delete(.bound(1, 2)) }
        #expect(try db.transaction("posts") { try $0.objectStore("posts").index("tags").count() } == 0)
    }

    @Test(arguments: IDBTestStoreKind.allCases)
    func aUniqueIndexViolationAbortsTheWholeTransaction(_ kind: IDBTestStoreKind) throws {
        let test = try IDBTestStore(kind)
        let db = try test.indexedDB.open(origin: origin, name: "unique", version: 1) { tx, _ throws in
            let users = try tx.createObjectStore("users", keyPath: "id")
            try users.createIndex("email", keyPath: "email", unique: true)
            try users.createIndex("emails", keyPath: "aliases", unique: true, multiEntry: true)
            try tx.createObjectStore("log", autoIncrement: true)
        }
        try db.transaction("users", mode: .readwrite) { tx throws in
            try tx.objectStore("users").put(["id": 1, "email": "a@x", "aliases": ["a1", "a2", "a1"]])
            // Replacing a record with its own index key is no clash.
            try tx.objectStore("users").put(["id": 1, "email": "a@x", "aliases": ["a1", "a2"]])
        }
        let sizeBefore = try test.indexedDB.databases(origin: origin).first?.size
        for clash: IDBValue in [["id": 2, "email": "a@x"], ["id": 3, "email": "c@x", "aliases": ["z", "a2"]]] {
            let error = idbError {
                try db.transaction(["users", "log"], mode: .readwrite) { tx throws in
                    try tx.objectStore("log").add("before")
                    try tx.objectStore("users").put(["id": 9, "email": "fine@x"])
                    do { try tx.objectStore("users").put(clash) } catch {}
                    _ = try? tx.objectStore("log").add("after")
                }
            }
            #expect(error?.name == .constraint)
        }
        try db.transaction(["users", "log"]) { tx throws in
            #expect(try tx.objectStore("users").getAllKeys() == [1])
            #expect(try tx.objectStore("log").count() == 0)
            #expect(try tx.objectStore("users").index("email").count() == 1)
            #expect(try tx.objectStore("users").index("emails").getAllKeys() == [1, 1])
        }
        #expect(try test.indexedDB.databases(origin: origin).first?.size == sizeBefore)
        // The generator of the aborted transaction was rolled back too.
        try db.transaction("log", mode: .readwrite) { tx throws in #expect(try tx.objectStore("log").add("x") == 1) }
    }

    @Test(arguments: IDBTestStoreKind.allCases)
    func aThrownErrorLeavesNothingBehind(_ kind: IDBTestStoreKind) throws {
        struct Oops: Error {}
        let test = try IDBTestStore(kind)
        let db = try test.indexedDB.open(origin: origin, name: "atomic", version: 1) { tx, _ throws in
            let s = try tx.createObjectStore("s")
            try s.createIndex("v", keyPath: "v")
        }
        try db.transaction("s", mode: .readwrite) { tx throws in try tx.objectStore("s").put(["v": 1], key: "keep") }
        let modified = try test.indexedDB.databases().first?.modified
        test.clock.advance(60)
        #expect(throws: Oops.self) {
            try db.transaction("s", mode: .readwrite) { tx throws in
                let s = try tx.objectStore("s")
                try s.put(["v": 2], key: "new")
                try s.delete("keep")
                try s.clear()
                throw Oops()
            }
        }
        #expect(throws: IDBError.self) {
            try db.transaction("s", mode: .readwrite) { tx throws in
                try tx.objectStore("s").put(["v": 3], key: "aborted")
                tx.abort()
            }
        }
        try db.transaction("s") { tx throws in
            #expect(try tx.objectStore("s").getAllKeys() == ["keep"])
            #expect(try tx.objectStore("s").index("v").getAllKeys() == ["keep"])
        }
        #expect(try test.indexedDB.databases().first?.modified == modified)
    }

    @Test(arguments: IDBTestStoreKind.allCases)
    func aTransactionCannotOutliveItsClosureOrNest(_ kind: IDBTestStoreKind) throws {
        let test = try IDBTestStore(kind)
        let db = try test.indexedDB.open(origin: origin, name: "scope", version: 1) { tx, _ throws in
            try tx.createObjectStore("a")
            try tx.createObjectStore("b")
        }
        let escaped = try db.transaction("a") { $0 }
        #expect(idbErrorName { try escaped.objectStore("a") } == .transactionInactive)
        try db.transaction("a", mode: .readwrite) { tx throws in
            #expect(idbErrorName { try tx.objectStore("b") } == .notFound)
            #expect(idbErrorName { try db.transaction("b") { _ in } } == .invalidState)
            #expect(idbErrorName { try tx.createObjectStore("c") } == .invalidState)
        }
        #expect(idbErrorName { try db.transaction("missing") { _ in } } == .notFound)
        #expect(idbErrorName { try db.transaction([]) { _ in } } == .invalidAccess)
    }

    // MARK: Versions

    @Test(arguments: IDBTestStoreKind.allCases)
    func versionUpgradeFlow(_ kind: IDBTestStoreKind) throws {
        let test = try IDBTestStore(kind)
        let idb = test.indexedDB
        var upgrades: [String] = []
        let v1 = try idb.open(origin: origin, name: "app") { tx, old throws in
            upgrades.append("\(old)->\(tx.version)")
            try tx.createObjectStore("notes", keyPath: "id")
        }
        #expect(v1.version == 1)
        try v1.transaction("notes", mode: .readwrite) { tx throws in
            try tx.objectStore("notes").put(["id": 1, "tag": "x"])
            try tx.objectStore("notes").put(["id": 2, "tag": "x"])
        }
        // Same version: no upgrade.
        _ = try idb.open(origin: origin, name: "app", version: 1) { _, _ in upgrades.append("unexpected") }
        // An upgrade that throws leaves the database as it was.
        struct Nope: Error {}
        #expect(throws: Nope.self) {
            try idb.open(origin: origin, name: "app", version: 2) { tx, _ throws in
                try tx.deleteObjectStore("notes")
                throw Nope()
            }
        }
        #expect(try idb.databases(origin: origin).map(\.version) == [1])
        // A unique index over existing duplicates aborts the upgrade.
        let clash = #expect(throws: IDBError.self) {
            try idb.open(origin: origin, name: "app", version: 2) { tx, _ throws in
                try tx.objectStore("notes").createIndex("tag", keyPath: "tag", unique: true)
            }
        }
        #expect(clash?.name == .constraint)
        // A good upgrade indexes existing records; the old handle is then stale.
        let v3 = try idb.open(origin: origin, name: "app", version: 3) { tx, old throws in
            upgrades.append("\(old)->\(tx.version)")
            let notes = try tx.objectStore("notes")
            try notes.createIndex("tag", keyPath: "tag")
            try tx.createObjectStore("extra")
            try tx.deleteObjectStore("extra")
            #expect(tx.objectStoreNames == ["notes"])
        }
        #expect(v3.version == 3)
        #expect(upgrades == ["0->1", "1->3"])
        #expect(try v3.objectStoreNames() == ["notes"])
        #expect(
            try v3.transaction("notes") { try $0.objectStore("notes").index("tag").getAllKeys(.only("x")) } == [1, 2])
        #expect(idbErrorName { try v1.transaction("notes") { _ in } } == .invalidState)
        // A lower version than stored is a VersionError; none given opens the current one.
        #expect(idbErrorName { try idb.open(origin: origin, name: "app", version: 2) } == .version)
        #expect(try idb.open(origin: origin, name: "app").version == 3)
        #expect(idbErrorName { try idb.open(origin: origin, name: "app", version: 0) } == .type)
        // Another origin's database of the same name is another database.
        let other = try idb.open(origin: idbOrigin("http://app.example.com"), name: "app", version: 7)
        #expect(try other.objectStoreNames().isEmpty)
        // A new database whose first upgrade fails is not created.
        #expect(throws: Nope.self) { try idb.open(origin: origin, name: "never", version: 1) { _, _ in throw Nope() } }
        #expect(try idb.databases(origin: origin).map(\.name) == ["app"])
        // Deleting.
        #expect(try idb.deleteDatabase(origin: origin, name: "app") == 3)
        #expect(try idb.deleteDatabase(origin: origin, name: "app") == nil)
        #expect(idbErrorName { try v3.transaction("notes") { _ in } } == .invalidState)
        #expect(try idb.origins() == [idbOrigin("http://app.example.com")])
        let fresh = try idb.open(origin: origin, name: "app", version: 1) { tx, _ throws in
            try tx.createObjectStore("notes", keyPath: "id")
        }
        #expect(try fresh.transaction("notes") { try $0.objectStore("notes").count() } == 0)
    }

    // MARK: Persistence and concurrency

    @Test func everythingSurvivesReopeningTheStore() throws {
        let dir = TemporaryDirectory()
        do {
            let store = try WebsiteDataStore.testing(dir.url)
            let db = try store.indexedDB.open(origin: origin, name: "p", version: 4) { tx, _ throws in
                let s = try tx.createObjectStore("s", keyPath: "k", autoIncrement: true)
                try s.createIndex("n", keyPath: "n", unique: true)
            }
            try db.transaction("s", mode: .readwrite) { tx throws in
                try tx.objectStore("s").add(["n": "one", "when": .date(Date(timeIntervalSince1970: 1_700_000_000.25))])
                try tx.objectStore("s").add(["n": "two", "bytes": .binary(Data([0, 1, 255]), kind: .uint8)])
            }
        }
        let store = try WebsiteDataStore.testing(dir.url)
        let db = try store.indexedDB.open(origin: origin, name: "p")
        #expect(db.version == 4)
        try db.transaction("s", mode: .readwrite) { tx throws in
            let s = try tx.objectStore("s")
            #expect(try s.get(1) == ["n": "one", "when": .date(Date(timeIntervalSince1970: 1_700_000_000.25)), "k": 1])
            #expect(try s.index("n").get("two")?["bytes"] == .binary(Data([0, 1, 255]), kind: .uint8))
            #expect(try s.add(["n": "three"]) == 3)
        }
        #expect(
            idbErrorName { try db.transaction("s", mode: .readwrite) { try $0.objectStore("s").add(["n": "one"]) } }
                == .constraint)
    }

    @Test func readOnlyTransactionsRunTogetherOnSnapshots() throws {
        let dir = TemporaryDirectory()
        let store = try WebsiteDataStore.testing(dir.url)
        let db = try store.indexedDB.open(origin: origin, name: "c", version: 1) { tx, _ throws in
            try tx.createObjectStore("s")
        }
        try db.transaction("s", mode: .readwrite) { tx throws in try tx.objectStore("s").put("first", key: 1) }
        let innerDone = DispatchSemaphore(value: 0)
        let outcome = IDBConcurrencyOutcome()
        try db.transaction("s") { tx throws in
            #expect(try tx.objectStore("s").count() == 1)
            // While this read-only transaction is open, another thread runs a read-only one and a writer commits.
            Thread.detachNewThread {
                do {
                    let seen = try db.transaction("s") { try $0.objectStore("s").count() }
                    try db.transaction("s", mode: .readwrite) { try $0.objectStore("s").put("second", key: 2) }
                    outcome.set("read \(seen), wrote")
                } catch {
                    outcome.set("failed: \(error)")
                }
                innerDone.signal()
            }
            // A generous bound against a deadlock, not a timing assertion.
            #expect(innerDone.wait(timeout: .now() + 120) == .success, "a read-only transaction waited for another")
            // This transaction still sees its snapshot.
            #expect(try tx.objectStore("s").count() == 1)
        }
        #expect(outcome.value == "read 1, wrote")
        #expect(try db.transaction("s") { try $0.objectStore("s").count() } == 2)
    }

    @Test func anotherProcessOrHandleSeesCommittedTransactions() throws {
        let dir = TemporaryDirectory()
        let first = try WebsiteDataStore.testing(dir.url)
        let second = try WebsiteDataStore.testing(dir.url)
        let a = try first.indexedDB.open(origin: origin, name: "shared", version: 1) { tx, _ throws in
            try tx.createObjectStore("s")
        }
        let b = try second.indexedDB.open(origin: origin, name: "shared")
        try a.transaction("s", mode: .readwrite) { try $0.objectStore("s").put("from a", key: 1) }
        #expect(try b.transaction("s") { try $0.objectStore("s").get(1) } == "from a")
        _ = try second.indexedDB.open(origin: origin, name: "shared", version: 2)
        #expect(idbErrorName { try a.transaction("s") { _ in } } == .invalidState)
    }

    // MARK: Records and removal

    @Test(arguments: IDBTestStoreKind.allCases)
    func recordsAndRemovalByDateAndSite(_ kind: IDBTestStoreKind) async throws {
        let test = try IDBTestStore(kind)
        let idb = test.indexedDB
        func fill(_ origin: SecurityOrigin, _ name: String, _ text: String) throws {
            let db = try idb.open(origin: origin, name: name, version: 1) { tx, _ throws in
                try tx.createObjectStore("s")
            }
            try db.transaction("s", mode: .readwrite) { try $0.objectStore("s").put(.string(text), key: "k") }
        }
        let www = idbOrigin("https://www.example.com")
        let api = idbOrigin("https://api.example.com:8443")
        let other = idbOrigin("http://other.org")
        try fill(www, "old", "12345")
        test.clock.advance(100)
        let cut = test.clock.now
        try fill(api, "new", "x")
        try fill(other, "o", "yy")
        _ = try idb.open(origin: idbOrigin("http://127.0.0.1:8000"), name: "empty", version: 1)

        let records = try await test.store.dataRecords(ofTypes: [.indexedDBDatabases])
        #expect(records.map(\.displayName) == ["127.0.0.1", "example.com", "other.org"])
        // Sizes are bytes of encoded keys and values: key "k" is 3 bytes, a string value 3 + its UTF-8.
        let sizes = Dictionary(uniqueKeysWithValues: records.map { ($0.displayName, $0.sizes[.indexedDBDatabases]) })
        #expect(sizes == ["example.com": (3 + 8) + (3 + 4), "other.org": 3 + 5, "127.0.0.1": 0])

        // Dry run, then by date: whole databases written at or after the cut go.
        let wouldGo = try test.store.removeData(
            ofTypes: [.indexedDBDatabases], matching: RemovalFilter(modifiedSince: cut), dryRun: true)
        #expect(wouldGo.map(\.displayName) == ["127.0.0.1", "example.com", "other.org"])
        #expect(try idb.databases().count == 4)
        test.clock.advance(100)
        // Writing to the old database moves its modification time.
        let old = try idb.open(origin: www, name: "old")
        let touchCut = test.clock.now
        try old.transaction("s", mode: .readwrite) { try $0.objectStore("s").put("changed", key: "k2") }
        let removed = try test.store.removeData(
            ofTypes: [.indexedDBDatabases], matching: RemovalFilter(modifiedSince: touchCut))
        #expect(removed.map(\.displayName) == ["example.com"])
        #expect(Set(try idb.databases().map(\.name)) == ["empty", "new", "o"])

        // By site.
        let bySite = try test.store.removeData(
            ofTypes: [.indexedDBDatabases], matching: RemovalFilter(sites: ["example.com", "nowhere.net"]))
        #expect(bySite.map(\.displayName) == ["example.com"])
        #expect(Set(try idb.databases().map(\.name)) == ["empty", "o"])
        // Removing other types leaves IndexedDB alone.
        try test.store.removeData(ofTypes: [.cookies], matching: RemovalFilter())
        #expect(try idb.databases().count == 2)
        try test.store.removeData(ofTypes: .all, matching: RemovalFilter())
        #expect(try idb.databases().isEmpty)
        #expect(try await test.store.dataRecords(ofTypes: [.indexedDBDatabases]).isEmpty)
    }

    @Test func removalIsRecordedForOtherProcesses() throws {
        let dir = TemporaryDirectory()
        let store = try WebsiteDataStore.testing(dir.url)
        let before = try store.database.newestSequence()
        let db = try store.indexedDB.open(origin: origin, name: "log", version: 1) { tx, _ throws in
            try tx.createObjectStore("s")
        }
        try db.transaction("s", mode: .readwrite) { try $0.objectStore("s").put(1, key: 1) }
        let entries = try store.database.read { db in
            try db.rows("SELECT type, site, cause FROM change_log WHERE seq > ?", [.integer(before)]) {
                "\($0.int(0)) \($0.string(1)) \($0.int(2))"
            }
        }
        // Type 8 is IndexedDB, cause 1 a write.
        #expect(entries == ["8 example.com 1", "8 example.com 1"])
    }
}

/// A value one thread sets and another reads after a semaphore.
final class IDBConcurrencyOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    func set(_ value: String) {
        lock.lock()
        text = value
        lock.unlock()
    }
    var value: String {
        lock.lock()
        defer { lock.unlock() }
        return text
    }
}
