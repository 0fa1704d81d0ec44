import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

/// Which store the tool opens, what it does with a damaged one, `stores` and `config`.
@Suite(.ownThreads, .bothEngines) struct StoreTests {
    @Test(.sqliteOnly) func aCorruptStoreExits1WithOneLineAndIsLeftUnchanged() throws {
        let sandbox = try Sandbox()
        try FileManager.default.createDirectory(at: sandbox.store, withIntermediateDirectories: true)
        let file = sandbox.store.appendingPathComponent("store.sqlite")
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<16_384).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try bytes.write(to: file)
        let commands: [[String]] = [
            ["records"], ["cookies", "list"], ["cookies", "header", "https://example.com/"],
            ["cookies", "set", "--url", "https://example.com/", "a=1"], ["clear", "--types", "all"],
            ["clear", "--types", "all", "--since", "1h", "--dry-run"], ["config", "set", "cookies.policy", "disallow"],
            ["config", "list"], ["cookies", "end-session"],
        ]
        for command in commands {
            let result = try sandbox.runInStore(command)
            #expect(result.status == 1, "wkstore \(command) exited \(result.status)")
            #expect(result.isOneLineMessage, "wkstore \(command): \(result.stderr)")
            #expect(result.stderr.contains(file.path))
            #expect(result.stderr.contains("not changed"))
            #expect(result.stdout.isEmpty)
            #expect(try Data(contentsOf: file) == bytes, "wkstore \(command) changed the damaged file")
        }
    }

    @Test func readingAStoreThatDoesNotExistCreatesNothing() throws {
        let sandbox = try Sandbox()
        for command in [
            ["records"], ["cookies", "list"], ["config", "get", "cookies.max-total"],
            ["clear", "--types", "all"], ["cookies", "header", "https://example.com/"],
        ] {
            #expect(try sandbox.runInStore(command).status == 0)
        }
        #expect(try sandbox.run(["records"]).status == 0)
        #expect(try !sandbox.storeWasMade())
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.dataHome.path).isEmpty)
    }

    @Test(.sqliteOnly) func aStorePathThatIsMistypedAFileOrUnreadableIsSaidAndExitsOne() throws {
        let sandbox = try Sandbox()
        let missing = sandbox.root.appendingPathComponent("no-such-store").path
        let file = sandbox.root.appendingPathComponent("a-file")
        try Data("not a store".utf8).write(to: file)
        let reads: [[String]] = [
            ["records"], ["cookies", "list"], ["cookies", "header", "https://example.com/"], ["export"],
            ["clear", "--types", "all"], ["config", "list"],
        ]
        for command in reads {
            let typo = try sandbox.run(["--store", missing] + command)
            #expect(typo.status == 1, "\(command)")
            #expect(typo.isOneLineMessage)
            #expect(typo.stderr == "wkstore: no store at \(missing): the directory does not exist\n")
            let viaEnvironment = try sandbox.run(command, environment: ["WKSTORE_DIR": missing])
            #expect(viaEnvironment.stderr == typo.stderr, "\(command) with WKSTORE_DIR")
            let notADirectory = try sandbox.run(["--store", file.path] + command)
            #expect(notADirectory.status == 1, "\(command)")
            #expect(notADirectory.stderr == "wkstore: \(file.path) is a file, not a store directory\n")
        }
        #expect(!FileManager.default.fileExists(atPath: missing), "reading created the mistyped directory")
        #expect(try Data(contentsOf: file) == Data("not a store".utf8))
        // Writing into a directory that does not exist yet makes the store there, as before.
        #expect(
            try sandbox.run(["--store", missing, "cookies", "set", "--url", "https://example.com/", "a=1"]).status == 0)
        #expect(try sandbox.run(["--store", missing, "records"]).stdout.contains("example.com"))
    }

    @Test(.sqliteOnly) func theDefaultStoreLivesUnderXDGDataHomeAndWKSTOREDIRReplacesIt() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.run(["cookies", "set", "--url", "https://example.com/", "d=1"]).status == 0)
        let defaultFile = sandbox.dataHome.appendingPathComponent("wkstore/default/store.sqlite")
        #expect(FileManager.default.fileExists(atPath: defaultFile.path))

        let elsewhere = sandbox.root.appendingPathComponent("elsewhere")
        let env = ["WKSTORE_DIR": elsewhere.path]
        #expect(
            try sandbox.run(["cookies", "set", "--url", "https://example.com/", "e=1"], environment: env).status == 0)
        #expect(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("store.sqlite").path))
        #expect(try sandbox.run(["cookies", "header", "https://example.com/"], environment: env).stdout == "e=1\n")
        #expect(try sandbox.run(["cookies", "header", "https://example.com/"]).stdout == "d=1\n")
        // --store wins over WKSTORE_DIR.
        #expect(
            try sandbox.run(
                ["--store", sandbox.store.path, "cookies", "header", "https://example.com/"], environment: env
            ).stdout.isEmpty)
    }

    @Test(.sqliteOnly) func storesListAndRemove() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.run(["stores", "list"]).stdout.isEmpty)
        #expect(try sandbox.run(["stores", "list", "--json"]).json() as? [String] == [])
        let first = "9B2F0C4E-1D7A-4E55-8C1B-3A6F2E9D0B71"
        let second = "1C3E5A7B-9D2F-4B6A-8E0C-2F4A6B8D0E13"
        for identifier in [first, second] {
            let set = try sandbox.run([
                "--identifier", identifier, "cookies", "set", "--url", "https://example.com/", "a=1",
            ])
            #expect(set.status == 0, "\(set.stderr)")
        }
        #expect(
            try sandbox.run(["--identifier", first, "cookies", "header", "https://example.com/"]).stdout == "a=1\n")
        let listed = try sandbox.run(["stores", "list"]).lines
        #expect(listed == [second.lowercased(), first.lowercased()])
        #expect(try sandbox.run(["stores", "list", "--json"]).json() as? [String] == listed)
        #expect(Set(try WebsiteDataStoreIdentifiers.under(sandbox.dataHome)) == Set(listed))

        let removed = try sandbox.run(["stores", "remove", first])
        #expect(removed.status == 0)
        #expect(removed.stdout == "removed store \(first.lowercased())\n")
        #expect(try sandbox.run(["stores", "list"]).lines == [second.lowercased()])
        #expect(
            !FileManager.default.fileExists(
                atPath: sandbox.dataHome.appendingPathComponent("wkstore/\(first.lowercased())").path))

        let again = try sandbox.run(["stores", "remove", first])
        #expect(again.status == 1)
        #expect(again.isOneLineMessage)
        #expect(again.stderr.contains("no store has the identifier"))
        // Reading a store that was never made is an error too (a mistyped identifier), and makes none.
        let missing = try sandbox.run(["--identifier", first, "records"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no store has the identifier"))
        #expect(try sandbox.run(["stores", "list"]).lines == [second.lowercased()])

        let json = try sandbox.run(["stores", "remove", second, "--json"]).object()
        #expect(json["removed"] as? String == second.lowercased())
        #expect(try sandbox.run(["--store", sandbox.store.path, "stores", "list"]).status == 2)
    }

    /// `stores remove` refuses a store a process has open (here `wkstore watch`), removes it
    /// with `--force`, and removes it plainly once the process has ended.
    @Test func removingAStoreAProcessHoldsIsRefusedUnlessForced() throws {
        let sandbox = try Sandbox()
        let identifier = "5D1C2B3A-4E5F-4A6B-8C7D-9E0F1A2B3C4D"
        // On PostgreSQL, the stores of identifiers in the sandbox's database; else under XDG_DATA_HOME.
        let database: [String] =
            TestEngine.current == .postgreSQL ? Array(try sandbox.storeArguments().prefix(2)) : []
        func setCookie(_ value: Int) throws {
            let set = try sandbox.run(
                database + [
                    "--identifier", identifier, "cookies", "set", "--url", "https://example.com/", "a=\(value)",
                ])
            #expect(set.status == 0, "\(set.stderr)")
        }
        /// A `wkstore watch` of the store, once it holds it open: it has printed the change
        /// after position 1, which it can only read from the open store.
        func holder() throws -> Subprocess {
            let output = sandbox.root.appendingPathComponent("holder-\(UUID().uuidString).out")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let handle = try FileHandle(forWritingTo: output)
            defer { try? handle.close() }
            let process = Subprocess()
            process.executableURL = WKStoreExecutable.url
            process.arguments = database + ["--identifier", identifier, "watch", "--since", "1", "--json"]
            process.environment = sandbox.environment
            process.standardOutput = handle
            process.standardError = FileHandle.standardError
            try process.run()
            let deadline = Date().addingTimeInterval(120)
            while (try Data(contentsOf: output)).isEmpty && process.isRunning && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            #expect(!(try Data(contentsOf: output)).isEmpty, "the watch printed nothing")
            return process
        }
        for round in 0..<2 {
            try setCookie(1)
            try setCookie(2)
            let watch = try holder()
            let refused = try sandbox.run(database + ["stores", "remove", identifier])
            #expect(refused.status == 1, "\(refused)")
            #expect(refused.isOneLineMessage && refused.stderr.contains("is open in a process"), "\(refused.stderr)")
            // The database of PostgreSQL tests holds other tests' stores too.
            #expect(try sandbox.run(database + ["stores", "list"]).lines.contains(identifier.lowercased()))
            if round == 0 {
                let forced = try sandbox.run(database + ["stores", "remove", identifier, "--force"])
                #expect(
                    forced.status == 0 && forced.stdout == "removed store \(identifier.lowercased())\n", "\(forced)")
                #expect(!(try sandbox.run(database + ["stores", "list"]).lines.contains(identifier.lowercased())))
                watch.terminate()
                watch.waitUntilExit()
            } else {
                // Once the holder has ended, nothing holds the store.
                watch.terminate()
                watch.waitUntilExit()
                let removed = try sandbox.run(database + ["stores", "remove", identifier])
                #expect(removed.status == 0, "\(removed)")
            }
        }
    }

    @Test func configSetGetList() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.succeed(["config", "get", "cookies.max-total"]).stdout == "3000\n")
        #expect(
            try sandbox.succeed(["config", "set", "cookies.max-total", "1000000"]).stdout
                == "cookies.max-total = 1000000\n")
        #expect(try sandbox.succeed(["config", "get", "cookies.max-total"]).stdout == "1000000\n")
        let list = try sandbox.succeed(["config", "list"]).lines
        #expect(
            list.contains { $0.hasPrefix("cookies.max-total") && $0.contains("1000000") && !$0.contains("(default)") })
        #expect(
            list.contains { $0.hasPrefix("cookies.max-per-site") && $0.contains("180") && $0.contains("(default)") })
        let json = try sandbox.succeed(["config", "list", "--json"]).objects()
        #expect(json.map { $0["key"] as? String } == StoreSetting.all.map(\.key))
        let total = try #require(json.first { $0["key"] as? String == "cookies.max-total" })
        #expect(total["value"] as? String == "1000000")
        #expect(total["default"] as? String == "3000")
        #expect(total["isDefault"] as? Bool == false)
        #expect(
            try sandbox.succeed(["config", "get", "cookies.policy", "--json"]).object()["value"] as? String
                == "allow-all")

        // The library sees it, and so does the cookie engine.
        let store = try sandbox.openStore()
        #expect(try store.settings()[StoreSetting.cookiesMaxTotal] == "1000000")
        try sandbox.succeed(["config", "set", "cookies.policy", "disallow"])
        let refused = try sandbox.runInStore(["cookies", "set", "--url", "https://example.com/", "a=1"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("policy"))

        // Unset puts a setting back to its default, and the engine follows.
        #expect(
            try sandbox.succeed(["config", "unset", "cookies.policy"]).stdout
                == "cookies.policy = allow-all (default)\n")
        #expect(try sandbox.succeed(["config", "get", "cookies.policy"]).stdout == "allow-all\n")
        try sandbox.succeed(["cookies", "set", "--url", "https://example.com/", "a=1"])
        #expect(try sandbox.succeed(["cookies", "header", "https://example.com/"]).stdout == "a=1\n")
        let unset = try sandbox.succeed(["config", "unset", "cookies.max-total", "--json"]).object()
        #expect(unset["value"] as? String == "3000")
        #expect(unset["isDefault"] as? Bool == true)
        #expect(try store.settings()[StoreSetting.cookiesMaxTotal] == "3000")
        #expect(try sandbox.runInStore(["config", "unset", "nope"]).status == 2)
    }

    @Test func configRejectsUnknownKeysAndBadValuesWithoutCreatingAStore() throws {
        let sandbox = try Sandbox()
        let unknown = try sandbox.runInStore(["config", "set", "cookies.max-everything", "1"])
        #expect(unknown.status == 2)
        #expect(unknown.isOneLineMessage)
        for setting in StoreSetting.all { #expect(unknown.stderr.contains(setting.key)) }
        #expect(try sandbox.runInStore(["config", "get", "nope"]).status == 2)
        for (key, value) in [("cookies.max-total", "lots"), ("cookies.max-total", "0"), ("cookies.policy", "maybe")] {
            let bad = try sandbox.runInStore(["config", "set", key, value])
            #expect(bad.status == 2, "config set \(key) \(value)")
            #expect(bad.isOneLineMessage)
            #expect(bad.stderr.contains(key))
        }
        #expect(try !sandbox.storeWasMade())
    }

    @Test(.sqliteOnly) func demoRunsOnAThrowawayStoreAndDeletesIt() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(["demo"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.contains("refused: its Domain is a public suffix"))
        #expect(result.stdout.contains("lang=en-US; sid=31d4d96e407aad42; theme=dark"))
        #expect(result.stdout.contains("removed cookies for example.co.uk"))
        #expect(result.stdout.contains("(the demo store was deleted)"))
        let json = try sandbox.run(["demo", "--json"]).object()
        #expect(json["deleted"] as? Bool == true)
        let after = try #require(json["recordsAfter"] as? [[String: Any]])
        #expect(after.map { $0["displayName"] as? String } == ["example.com"])
        // Nothing left in its temporary directory, nothing in the user's stores.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: sandbox.root.appendingPathComponent("tmp").path).isEmpty
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.dataHome.path).isEmpty)
    }
}

/// The identifiers of the stores under an XDG data directory, read from the directory names.
enum WebsiteDataStoreIdentifiers {
    static func under(_ dataHome: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dataHome.appendingPathComponent("wkstore").path)
            .filter { UUID(uuidString: $0) != nil }
    }
}

@Suite(.ownThreads, .bothEngines) struct MaintenanceCommandTests {
    @Test(.sqliteOnly) func backupCopiesTheStoreIntoANewDirectoryAndRefusesToOverwrite() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://www.example.com/", "sid=1", "theme=dark"])
        try sandbox.succeed(["storage", "set", "--origin", "https://app.example.org", "k", "v"])
        let destination = sandbox.root.appendingPathComponent("backup")
        let backedUp = try sandbox.succeed(["backup", destination.path])
        #expect(backedUp.stdout == "backed up the store to \(destination.path): 2 sites with data\n")
        // The copy is a store of its own, with the same data.
        let copy = try sandbox.run(["--store", destination.path, "cookies", "header", "https://www.example.com/"])
        #expect(copy.stdout == "sid=1; theme=dark\n")
        #expect(
            try sandbox.run(["--store", destination.path, "storage", "get", "--origin", "https://app.example.org", "k"])
                .stdout == "v\n")
        #expect(
            try sandbox.run(["--store", destination.path, "records"]).stdout
                == (try sandbox.succeed(["records"]).stdout))

        // A directory that holds anything, or a file, is refused and left as it was.
        let again = try sandbox.runInStore(["backup", destination.path])
        #expect(again.status == 1)
        #expect(again.stderr == "wkstore: \(destination.path) is not empty; back up into a new or empty directory\n")
        let file = sandbox.root.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let onFile = try sandbox.runInStore(["backup", file.path])
        #expect(onFile.status == 1)
        #expect(onFile.isOneLineMessage)
        #expect(try Data(contentsOf: file) == Data("x".utf8))
        // An empty store has nothing to back up; no directory is made.
        let empty = try Sandbox()
        let nothing = try empty.runInStore(["backup", empty.root.appendingPathComponent("b").path])
        #expect(nothing.status == 1)
        #expect(nothing.stderr.contains("nothing to back up"))
        #expect(!FileManager.default.fileExists(atPath: empty.root.appendingPathComponent("b").path))
        #expect(try sandbox.runInStore(["backup"]).status == 2)
    }

    @Test func vacuumGivesBackTheSpaceOfAClearAndKeepsTheRest() throws {
        let sandbox = try Sandbox()
        let lines = (0..<3000).map { "c\($0)=\(String(repeating: "v", count: 200)); Max-Age=86400" }
        for chunk in stride(from: 0, to: lines.count, by: 150) {
            try sandbox.succeed(
                ["cookies", "set", "--url", "https://site\(chunk).example/"] + lines[chunk..<chunk + 150])
        }
        try sandbox.succeed(["cookies", "set", "--url", "https://keep.example/", "k=1"])
        let sites = stride(from: 0, to: lines.count, by: 150).flatMap { ["--site", "site\($0).example"] }
        try sandbox.succeed(["clear", "--types", "cookies"] + sites)
        let result = try sandbox.succeed(["vacuum", "--json"]).object()
        let before = try #require(result["bytesBefore"] as? Int)
        let after = try #require(result["bytesAfter"] as? Int)
        // On PostgreSQL, dead rows stay while another session's snapshot (a test running beside
        // this one, in the same database) may still see them: only "no larger" holds there.
        #expect(
            TestEngine.current == .postgreSQL ? after <= before : after < before,
            "vacuum gave back nothing: \(before) -> \(after)")
        #expect(try sandbox.succeed(["cookies", "header", "https://keep.example/"]).stdout == "k=1\n")
        let text = try sandbox.succeed(["vacuum"]).stdout
        #expect(text.hasPrefix("vacuumed: ") && text.contains(" before, ") && text.hasSuffix(" after\n"))
    }
}
