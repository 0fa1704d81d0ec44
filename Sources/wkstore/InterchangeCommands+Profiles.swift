import Foundation
import WebsiteData

extension InterchangeCommands {
    /// `wkstore import --from BROWSER`: a browser profile into the store.
    enum ProfileImport {
        /// Lists or imports the profile the command names.
        static func run(_ command: ImportCommand, _ invocation: Invocation) throws {
            guard let browser = command.browser else { return }
            if let path = command.path {
                throw CLIError.usage("--from reads a browser profile, not FILE '\(path)'; give one or the other")
            }
            if command.format != nil { throw CLIError.usage("--format is for a FILE; --from reads a browser profile") }
            if command.strict {
                throw CLIError.usage("--strict is for a FILE; an import --from lists what it leaves out instead")
            }
            if browser != .chromium, command.keyringPassword != nil {
                throw CLIError.usage("--keyring-password is for --from chromium")
            }
            if browser != .firefox, command.container != nil {
                throw CLIError.usage("--container is for --from firefox")
            }
            let output = invocation.output
            if command.listProfiles {
                if command.profile != nil {
                    throw CLIError.usage("--list-profiles lists what was found; drop --profile")
                }
                return try list(browser, output)
            }
            let types = command.types ?? [.cookies, .localStorage]
            let readable: Set<WebsiteDataType> = [.cookies, .localStorage]
            if types.isDisjoint(with: readable) {
                throw CLIError.usage(
                    "--types: an import from \(browser.rawValue) takes \(readable.map(\.cliName).sorted().joined(separator: ", "))"
                )
            }
            let profile = try BrowserProfileInterchange.profile(of: browser, at: command.profile)
            let options = BrowserProfileImportOptions(
                sites: ClearCommand.readSites(command.sites), types: types,
                keyringPasswords: command.keyringPassword.map { [$0] } ?? [], container: command.container)
            let store = try invocation.openStore(for: .write)
            let summary = try BrowserProfileInterchange.importProfile(profile, into: store, options: options)
            let refusals = summary.cookies.refusals.map { refusal in
                (refusal.path ?? "cookie row \(refusal.line)") + ": " + refusal.reason
            }
            // Anything left out fails the import for a script (exit 1), after everything is reported.
            let failed = summary.hasOmissions ? CLIError.failure(nil) : nil
            if output.json {
                output.write(json(summary, refusals: refusals))
            } else {
                output.line(summary.description)
                for line in summary.notes + refusals + summary.localStorageRefusals { Output.message(line) }
                if summary.cookies.refused > summary.cookies.refusals.count {
                    Output.message("… and \(summary.cookies.refused - summary.cookies.refusals.count) more refused")
                }
            }
            if let failed { throw failed }
        }

        /// `--list-profiles`: one line a profile (`chromium Default DIR (default)`), or a JSON array.
        static func list(_ browser: BrowserKind, _ output: Output) throws {
            let profiles = BrowserProfileInterchange.profiles(of: browser)
            if output.json {
                output.write(
                    .array(
                        profiles.map { profile in
                            .object([
                                ("browser", .string(profile.browser.rawValue)),
                                ("installation", .string(profile.installation)),
                                ("name", .string(profile.name)), ("directory", .string(profile.directory.path)),
                                ("default", .bool(profile.isDefault)),
                            ])
                        }))
                return
            }
            guard !profiles.isEmpty else {
                throw CLIError.failure("no \(browser.rawValue) profile found; name one with --profile DIR")
            }
            output.lines(profiles.map(\.description))
        }

        /// The JSON summary of an import.
        static func json(_ summary: BrowserProfileImportSummary, refusals: [String]) -> JSONValue {
            let cookies = summary.cookies
            return .object([
                ("browser", .string(summary.profile.browser.rawValue)),
                ("profile", .string(summary.profile.name)),
                ("directory", .string(summary.profile.directory.path)),
                ("read", .int(Int64(cookies.read))),
                ("imported", .int(Int64(cookies.imported))),
                ("expired", .int(Int64(cookies.expired))),
                ("evicted", .int(Int64(cookies.evicted))),
                ("refused", .int(Int64(cookies.refused))),
                ("needingKeyringPassword", .int(Int64(summary.cookiesNeedingKeyringPassword))),
                ("unreadable", .int(Int64(summary.unreadableCookies))),
                ("sessionCookies", .int(Int64(summary.sessionCookies))),
                ("localStorageOrigins", .int(Int64(summary.localStorageOrigins))),
                ("localStorageItems", .int(Int64(summary.localStorageItems))),
                ("localStorageRefusals", .array(summary.localStorageRefusals.map(JSONValue.string))),
                ("refusals", .array(refusals.map(JSONValue.string))),
                ("notes", .array(summary.notes.map(JSONValue.string))),
                ("message", .string(summary.description)),
            ])
        }
    }
}
