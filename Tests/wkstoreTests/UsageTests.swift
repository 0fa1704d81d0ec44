import Foundation
import Testing
import WebsiteDataTestSupport

/// Exit statuses and one-line messages for command lines that are wrong, and help everywhere.
@Suite(.ownThreads) struct UsageTests {
    static let commands: [[String]] = [
        ["records"], ["clear"], ["cookies"], ["cookies", "list"], ["cookies", "set"], ["cookies", "header"],
        ["cookies", "delete"], ["cookies", "end-session"], ["config"], ["config", "list"], ["config", "get"],
        ["config", "set"], ["stores"], ["stores", "list"], ["stores", "remove"], ["demo"], ["help"],
        ["fetch"], ["cookies", "script"], ["cookies", "ingest-report"], ["import"], ["export"],
        ["cache"], ["cache", "show"], ["cache", "size"], ["storage"], ["storage", "list"], ["storage", "get"],
        ["storage", "set"], ["storage", "remove"], ["idb"], ["idb", "list"], ["idb", "dump"],
    ]

    @Test("--help after the command exits 0 with its usage", arguments: commands)
    func helpAfterCommand(_ path: [String]) throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(path + ["--help"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let name = "wkstore " + path.joined(separator: " ")
        #expect(result.stdout.contains(name), "help for \(name) does not name it: \(result.stdout)")
        #expect(result.stdout.contains("--json"))
    }

    @Test("--help before the command, -h, and 'wkstore help COMMAND' show the same help", arguments: commands)
    func helpBeforeCommand(_ path: [String]) throws {
        let sandbox = try Sandbox()
        let after = try sandbox.run(path + ["--help"])
        let before = try sandbox.run(["--help"] + path)
        let short = try sandbox.run(["-h"] + path)
        let command = try sandbox.run(["help"] + path)
        #expect(before.status == 0 && short.status == 0 && command.status == 0)
        #expect(before.stdout == after.stdout)
        #expect(short.stdout == after.stdout)
        #expect(command.stdout == after.stdout)
    }

    @Test func helpWithoutCommandIsTheOverview() throws {
        let sandbox = try Sandbox()
        let help = try sandbox.run(["help"])
        let flag = try sandbox.run(["--help"])
        #expect(help.status == 0 && flag.status == 0)
        #expect(help.stdout == flag.stdout)
        for command in [
            "records", "clear", "cookies set", "cookies header", "config set", "stores remove", "demo",
            "fetch", "cookies script", "cookies ingest-report", "import", "export", "cache show", "cache size",
            "storage list", "storage get", "storage set", "storage remove", "idb list", "idb dump",
        ] {
            #expect(help.stdout.contains(command))
        }
    }

    @Test func helpIgnoresErrorsInTheRestOfTheLine() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(["clear", "--types", "nonsense", "--since", "yesterdayish", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("usage: wkstore clear"))
    }

    @Test func version() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "wkstore 0.1.0\n")
        #expect(try sandbox.run(["records", "--version"]).stdout == "wkstore 0.1.0\n")
    }

    @Test func sinceYesterdayishExits2NamingTheAcceptedForms() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.runInStore(["clear", "--types", "cookies", "--since", "yesterdayish"])
        #expect(result.status == 2)
        #expect(result.isOneLineMessage, "\(result.stderr)")
        #expect(result.stderr.contains("'yesterdayish'"))
        for form in [
            "ISO 8601", "2026-11-01", "2026-11-01T08:00", "+02:00", "90s", "15m", "2h", "7d", "Unix timestamp",
        ] {
            #expect(result.stderr.contains(form), "the message does not name \(form): \(result.stderr)")
        }
        #expect(result.stdout.isEmpty)
    }

    @Test func unknownTypeExits2ListingTheValidNames() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.runInStore(["clear", "--types", "cookies,biscuits"])
        #expect(result.status == 2)
        #expect(result.isOneLineMessage)
        #expect(result.stderr.contains("'biscuits'"))
        for name in [
            "all", "cookies", "diskcache", "memorycache", "appcache", "sessionstorage", "localstorage", "websql",
            "indexeddb",
        ] {
            #expect(result.stderr.contains(name))
        }
        let records = try sandbox.runInStore(["records", "--types", "biscuits"])
        #expect(records.status == 2)
        #expect(records.stderr == result.stderr)
    }

    @Test func clearWithoutTypesExits2AndRemovesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://example.com/", "a=1; Max-Age=600"])
        for arguments in [["clear"], ["clear", "--since", "1h"], ["clear", "--site", "example.com"]] {
            let result = try sandbox.runInStore(arguments)
            #expect(result.status == 2)
            #expect(result.isOneLineMessage)
            #expect(result.stderr.contains("--types"))
        }
        #expect(try sandbox.succeed(["cookies", "list"]).lines.count == 1)
    }

    @Test("a --site that is not a display name exits 2", arguments: ["../x", "a/b", "..", ""])
    func badSite(_ site: String) throws {
        let sandbox = try Sandbox()
        let result = try sandbox.runInStore(["clear", "--types", "all", "--site", site])
        #expect(result.status == 2)
        #expect(result.isOneLineMessage)
        #expect(result.stderr.contains("not a site"))
    }

    @Test func unknownCommandsAndOptionsExit2() throws {
        let sandbox = try Sandbox()
        let cases: [([String], String)] = [
            ([], "missing command"),
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["cookies"], "needs a command"),
            (["cookies", "eat"], "unknown command 'wkstore cookies eat'"),
            (["records", "--frob"], "unknown option '--frob'"),
            (["--frob", "records"], "unknown option '--frob'"),
            (["clear", "--types"], "--types needs a value"),
            (["clear", "--types", "all", "--types", "cookies"], "more than once"),
            (["clear", "--types", "all", "--dry-run=yes"], "takes no value"),
            (["records", "extra"], "unexpected argument 'extra'"),
            (["cookies", "header"], "needs a URL"),
            (["cookies", "header", "not a url"], "not an absolute URL"),
            (["cookies", "set", "a=1"], "needs --url"),
            (["cookies", "set", "--url", "https://example.com/"], "Set-Cookie values or --headers-file"),
            (["cookies", "header", "https://example.com/", "--navigation", "--subresource"], "not both"),
            (["cookies", "header", "https://example.com/", "--method", "G T"], "not an HTTP method"),
            (["cookies", "delete"], "give at least one of --name, --domain, --path and --partition"),
            (["cookies", "delete", "--name", "a", "--subdomains"], "--subdomains needs --domain"),
            (["cookies", "list", "--partition", "https://"], "not a site (--partition)"),
            (["clear", "--types", "all", "--partition", "https://example.com"], "with --types cookies"),
            (["cookies", "list", "--site", "example.com", "--url", "https://example.com/"], "not both"),
            (["--store", "/tmp/a", "--identifier", "4F0B5D0E-7C3A-4B8E-9A51-2D6C1E8F0A37", "records"], "not both"),
            (["--identifier", "not-a-uuid", "records"], "not a store identifier"),
            (["stores", "remove", "not-a-uuid"], "not a store identifier"),
            (["config", "get"], "needs a setting key"),
        ]
        for (arguments, message) in cases {
            let result = try sandbox.run(arguments)
            #expect(result.status == 2, "wkstore \(arguments) exited \(result.status): \(result.stderr)")
            #expect(result.isOneLineMessage, "wkstore \(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "wkstore \(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func globalOptionsWorkBeforeAndAfterTheCommand() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["cookies", "set", "--url", "https://example.com/", "a=1"])
        let before = try sandbox.run(["--json", "--store", sandbox.store.path, "cookies", "list"])
        let after = try sandbox.run(["cookies", "list", "--store=\(sandbox.store.path)", "--json"])
        let between = try sandbox.run(["cookies", "--json", "list", "--store", sandbox.store.path])
        #expect(before.status == 0 && after.status == 0 && between.status == 0)
        let names = try before.objects().map { $0["name"] as? String }
        #expect(names == ["a"])
        #expect(try after.objects().map { $0["name"] as? String } == names)
        #expect(try between.objects().map { $0["name"] as? String } == names)
    }

    @Test func doubleDashEndsTheOptions() throws {
        let sandbox = try Sandbox()
        let asOption = try sandbox.runInStore(["cookies", "set", "--url", "https://example.com/", "-dash=1"])
        #expect(asOption.status == 2)
        #expect(asOption.stderr.contains("unknown option '-dash'"))
        let asValue = try sandbox.runInStore([
            "cookies", "set", "--url", "https://example.com/", "--", "-dash=1", "--json=2",
        ])
        #expect(asValue.status == 0, "\(asValue.stderr)")
        #expect(asValue.stdout == "stored 2 cookies, refused 0\n")
        #expect(try sandbox.succeed(["cookies", "header", "https://example.com/"]).stdout == "-dash=1; --json=2\n")
    }

    @Test func aMistypedCommandOrOptionGetsASuggestion() throws {
        let sandbox = try Sandbox()
        let cases: [([String], String)] = [
            (["recrods"], "unknown command 'recrods'; did you mean 'records'?"),
            (["cookies", "lsit"], "unknown command 'wkstore cookies lsit'; did you mean 'list'?"),
            (["help", "cookies", "lsit"], "unknown command 'wkstore cookies lsit'; did you mean 'list'?"),
            (["records", "--typs", "all"], "unknown option '--typs' for 'wkstore records'; did you mean '--types'?"),
            (["clear", "--dry", "--types", "all"], "did you mean '--dry-run'?"),
            (["records", "--jsno"], "did you mean '--json'?"),
            (["--jsno", "records"], "unknown option '--jsno'; did you mean '--json'?"),
        ]
        for (arguments, message) in cases {
            let result = try sandbox.run(arguments)
            #expect(result.status == 2, "wkstore \(arguments) exited \(result.status): \(result.stderr)")
            #expect(result.isOneLineMessage, "wkstore \(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "wkstore \(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        // Nothing near, or several commands begin with it: no suggestion.
        for arguments in [["frobnicate"], ["records", "--frob"], ["co"]] {
            let result = try sandbox.run(arguments)
            #expect(result.status == 2)
            #expect(!result.stderr.contains("did you mean"), "wkstore \(arguments): \(result.stderr)")
        }
    }

    @Test func aNegativeNumberAfterTheCommandIsAValueNotAnOption() throws {
        let sandbox = try Sandbox()
        let setting = try sandbox.runInStore(["config", "set", "cookies.max-total", "-5"])
        #expect(setting.status == 2)
        #expect(setting.isOneLineMessage, "\(setting.stderr)")
        #expect(setting.stderr.contains("invalid value for cookies.max-total"), "\(setting.stderr)")
        #expect(!setting.stderr.contains("unknown option"))
        let redirects = try sandbox.runInStore(["fetch", "http://127.0.0.1:1/", "--max-redirects", "-1"])
        #expect(redirects.status == 2)
        #expect(redirects.stderr.contains("invalid --max-redirects '-1'"), "\(redirects.stderr)")
        try sandbox.succeed(["storage", "set", "--origin", "https://app.example.com", "offset", "-1.5"])
        #expect(
            try sandbox.succeed(["storage", "get", "--origin", "https://app.example.com", "offset"]).stdout == "-1.5\n")
        // Before the command it is still an option, and a word that is not a number still is one too.
        #expect(try sandbox.run(["-5", "records"]).stderr.contains("unknown option '-5'"))
        #expect(try sandbox.runInStore(["config", "set", "cookies.max-total", "-x"]).stderr.contains("unknown option"))
    }
}
