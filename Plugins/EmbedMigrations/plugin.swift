import Foundation
import PackagePlugin

/// Embeds the top-level `Migrations/NNNN_name.sql` files into the target that uses this plugin,
/// as a generated Swift file, so the built tool carries its schema wherever it is copied.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "Migrations")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path())) ?? []
        let inputs = names.filter { $0.hasSuffix(".sql") }.sorted().map { folder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) migrations",
                executable: try context.tool(named: "MigrationEmbedder").url,
                arguments: [output.path()] + inputs.map { $0.path() },
                inputFiles: inputs + [folder],
                outputFiles: [output]
            )
        ]
    }
}
