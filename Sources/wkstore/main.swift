import Foundation

// Everything the command opens is closed when `run` returns, before the process exits.
let status = await CLI.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
