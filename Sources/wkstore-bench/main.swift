import Foundation

// wkstore-bench: the cookie engine measured against its peers and floors in the same run.
// See Docs/bench.md.
BenchCommand.main(Array(CommandLine.arguments.dropFirst()))
