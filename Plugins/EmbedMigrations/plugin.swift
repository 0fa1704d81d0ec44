import Foundation
import PackagePlugin

/// Embeds the top-level `Migrations/NNNN_name.sql` files into the target that uses this plugin,
/// as a generated Swift file, so the built tool carries its schema wherever it is copied.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "Migrations")
        // SQLite's migrations are the folder's own files; PostgreSQL's are in its postgresql/ folder.
        let postgreSQLFolder = folder.appending(path: "postgresql")
        func sqlFiles(_ folder: URL) -> [URL] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path())) ?? []
            return names.filter { $0.hasSuffix(".sql") }.sorted().map { folder.appending(path: $0) }
        }
        let inputs = sqlFiles(folder) + sqlFiles(postgreSQLFolder)
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) migrations",
                executable: try context.tool(named: "MigrationEmbedder").url,
                arguments: [output.path()] + inputs.map { $0.path() },
                inputFiles: inputs + [folder, postgreSQLFolder],
                outputFiles: [output]
            )
        ]
    }
}
