import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

/// `wkstore storage …`: an origin's localStorage, shared with the library.
@Suite(.ownThreads, .bothEngines) struct StorageTests {
    static let origin = "https://app.example.com"

    @Test func setGetListRemove() throws {
        let sandbox = try Sandbox()
        #expect(
            try sandbox.succeed(["storage", "set", "--origin", Self.origin, "theme", "dark"]).stdout
                == "set theme for https://app.example.com (18 B in use)\n")
        try sandbox.succeed(["storage", "set", "--origin", Self.origin, "draft", "line one\nline two"])
        // A page URL stands for its origin; setting a key again keeps its place.
        try sandbox.succeed(["storage", "set", "--origin", Self.origin + "/editor/?x=1", "theme", "light"])
        try sandbox.succeed(["storage", "set", "--origin", "http://localhost:8080", "k", "v"])

        #expect(try sandbox.succeed(["storage", "get", "--origin", Self.origin, "theme"]).stdout == "light\n")
        #expect(
            try sandbox.succeed(["storage", "get", "--origin", Self.origin, "draft"]).stdout == "line one\nline two\n")
        let list = try sandbox.succeed(["storage", "list", "--origin", Self.origin])
        #expect(list.lines == ["theme  light", "draft  line one\\nline two"])
        let json = try sandbox.succeed(["storage", "list", "--origin", Self.origin, "--json"]).objects()
        #expect(json.map { $0["key"] as? String } == ["theme", "draft"])
        #expect(json.map { $0["value"] as? String } == ["light", "line one\nline two"])
        #expect(json.map { $0["size"] as? Int } == [(5 + 5) * 2, (5 + 17) * 2])

        let origins = try sandbox.succeed(["storage", "list"]).lines
        #expect(origins == ["http://localhost:8080    1 item   4 B", "https://app.example.com  2 items  64 B"])
        let originsJSON = try sandbox.succeed(["storage", "list", "--json"]).objects()
        #expect(originsJSON.map { $0["site"] as? String } == ["localhost", "example.com"])

        #expect(
            try sandbox.succeed(["storage", "remove", "--origin", Self.origin, "theme"]).stdout
                == "removed theme from https://app.example.com\n")
        #expect(
            try sandbox.succeed(["storage", "remove", "--origin", Self.origin, "theme"]).stdout
                == "no key theme in https://app.example.com\n")
        let missing = try sandbox.runInStore(["storage", "get", "--origin", Self.origin, "theme"])
        #expect(missing.status == 1)
        #expect(missing.isOneLineMessage)
        #expect(missing.stdout.isEmpty)
        let missingJSON = try sandbox.runInStore(["storage", "get", "--origin", Self.origin, "theme", "--json"])
        #expect(missingJSON.status == 1)
        #expect(try missingJSON.object()["value"] is NSNull)

        // localStorage is listed and cleared like every other type.
        #expect(
            try sandbox.succeed(["records", "--types", "localstorage"]).lines == [
                "example.com  localstorage", "localhost    localstorage",
            ])
        #expect(
            try sandbox.succeed(["clear", "--types", "localstorage", "--site", "example.com"]).stdout
                == "removed localstorage for example.com\n")
        #expect(try sandbox.succeed(["storage", "list", "--origin", Self.origin]).stdout.isEmpty)
    }

    @Test func theLibraryAndTheToolSeeEachOthersWrites() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["storage", "set", "--origin", Self.origin, "from-tool", "1"])
        let store = try sandbox.openStore()
        let origin = try #require(SecurityOrigin(string: Self.origin))
        #expect(try store.localStorage.getItem("from-tool", origin: origin) == "1")
        try store.localStorage.setItem("from-library", "2", origin: origin)
        #expect(try sandbox.succeed(["storage", "get", "--origin", Self.origin, "from-library"]).stdout == "2\n")
    }

    @Test func aWritePastTheQuotaIsRefusedAndChangesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["config", "set", "localstorage.quota", "20"])
        try sandbox.succeed(["storage", "set", "--origin", Self.origin, "k", "123456789"])
        let refused = try sandbox.runInStore(["storage", "set", "--origin", Self.origin, "k", "1234567890"])
        #expect(refused.status == 1)
        #expect(refused.isOneLineMessage)
        #expect(refused.stderr.contains("quota"), "\(refused.stderr)")
        #expect(try sandbox.succeed(["storage", "get", "--origin", Self.origin, "k"]).stdout == "123456789\n")
    }

    @Test func sessionStorageIsRefusedSayingWhy() throws {
        let sandbox = try Sandbox()
        for arguments in [
            ["storage", "set", "--origin", Self.origin, "--session", "tab", "k", "v"],
            ["storage", "list", "--session", "tab"],
        ] {
            let result = try sandbox.runInStore(arguments)
            #expect(result.status == 2)
            #expect(result.isOneLineMessage)
            #expect(result.stderr.contains("sessionStorage lives in the memory of the process"))
        }
        let help = try sandbox.run(["storage", "list", "--help"]).stdout
        #expect(help.contains("sessionStorage lives in the memory of the process"))

        for (arguments, message) in [
            (["storage", "get", "k"], "needs --origin"),
            (["storage", "get", "--origin", "not an origin", "k"], "not an origin"),
            (["storage", "set", "--origin", Self.origin, "k"], "needs a key and a value"),
        ] {
            let result = try sandbox.runInStore(arguments)
            #expect(result.status == 2)
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
