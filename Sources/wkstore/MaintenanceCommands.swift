import Foundation
import WebsiteData

/// `wkstore backup DEST`: a consistent copy of the store, taken while other processes may write.
struct BackupCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["backup"],
        summary: "copy the store into a new directory, safely while crawlers write to it",
        details: """
            Copies the store into DEST, a directory that does not exist yet or is empty, as one \
            consistent snapshot (SQLite's online backup): processes holding the store open may go \
            on writing. DEST becomes a store of its own: open it with --store DEST. WebSQL-style \
            databases and large cache bodies kept beside the database are not copied; the memory \
            cache and sessionStorage live in process memory and are never on disk.

            Example:
              wkstore backup /var/backups/crawl-$(date +%F)
            """)

    @Argument(placeholder: "DEST", help: "a new or empty directory")
    var destination: String

    func run(_ invocation: Invocation) async throws {
        let destination = URL(fileURLWithPath: destination, isDirectory: true)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CLIError.failure("\(destination.path) is a file; back up into a new directory")
            }
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: destination.path)) ?? []
            guard contents.isEmpty else {
                throw CLIError.failure("\(destination.path) is not empty; back up into a new or empty directory")
            }
        }
        let store = try invocation.openStore(for: .read)
        guard store.isPersistent else {
            throw CLIError.failure("the store holds nothing yet: there is nothing to back up")
        }
        try store.backup(to: destination)
        let copy = try WebsiteDataStore(directory: destination)
        let records = try await copy.dataRecords(ofTypes: WebsiteDataType.all)
        let output = invocation.output
        if output.json {
            output.write(.object([("destination", .string(destination.path)), ("sites", .int(Int64(records.count)))]))
        } else {
            output.line("backed up the store to \(destination.path): \(Format.count(records.count, "site")) with data")
        }
    }
}

/// `wkstore vacuum`: gives back the space of large removals.
struct VacuumCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["vacuum"],
        summary: "rebuild the store's database file to give back the space of large removals",
        details: """
            Rebuilds the database file (SQLite's VACUUM) and truncates its write-ahead log, and \
            prints the bytes the database files took before and after. Processes holding the store \
            open wait while it runs; nothing stored changes.

            Example:
              wkstore clear --types diskcache && wkstore vacuum
            """)

    func run(_ invocation: Invocation) async throws {
        let store = try invocation.openStore(for: .remove)
        let result = try store.vacuum()
        let output = invocation.output
        if output.json {
            output.write(
                .object([
                    ("bytesBefore", .int(result.bytesBefore)),
                    ("bytesAfter", .int(result.bytesAfter)),
                ]))
        } else {
            output.line(
                "vacuumed: \(Format.bytes(result.bytesBefore)) before, \(Format.bytes(result.bytesAfter)) after")
        }
    }
}
