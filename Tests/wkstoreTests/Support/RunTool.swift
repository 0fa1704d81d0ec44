import Foundation
import WebsiteDataTestSupport

/// Runs a program found on the PATH with arguments, and returns its exit status and output.
@discardableResult
func runTool(_ arguments: [String], in directory: URL) throws -> (status: Int32, output: String) {
    let (status, output) = try runToolCapturingBytes(arguments, in: directory)
    return (status, String(decoding: output, as: UTF8.self))
}

/// Runs a program found on the PATH with arguments (and `environment`, or this process's), and
/// returns its exit status and the bytes of its standard output and error.
func runToolCapturingBytes(_ arguments: [String], in directory: URL, environment: [String: String]? = nil) throws
    -> (status: Int32, output: Data)
{
    let process = Subprocess()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.environment = environment
    process.currentDirectoryURL = directory
    let file = directory.appendingPathComponent("tool-\(UUID().uuidString.prefix(8)).out")
    _ = FileManager.default.createFile(atPath: file.path, contents: nil)
    let handle = try FileHandle(forWritingTo: file)
    defer { try? handle.close() }
    process.standardOutput = handle
    process.standardError = handle
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return (process.terminationStatus, try Data(contentsOf: file))
}
