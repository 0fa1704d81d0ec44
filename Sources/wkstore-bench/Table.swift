import Foundation

/// A result table: one row per comparison, columns what / ours / peer / ratio / target / met?.
struct Table {
    struct Row {
        var what: String
        var ours: String
        var peer: String
        var ratio: String
        var target: String
        var met: String
    }

    let title: String
    var rows: [Row] = []
    var notes: [String] = []

    init(_ title: String) { self.title = title }

    mutating func add(
        _ what: String, ours: String, peer: String, ratio: String = "", target: String = "-", met: String = "-"
    ) {
        rows.append(Row(what: what, ours: ours, peer: peer, ratio: ratio, target: target, met: met))
    }

    mutating func note(_ text: String) { notes.append(text) }

    func render() -> String {
        let header = Row(what: "what", ours: "ours", peer: "peer", ratio: "ratio", target: "target", met: "met?")
        let all = [header] + rows
        func width(_ key: KeyPath<Row, String>) -> Int { all.map { $0[keyPath: key].count }.max() ?? 0 }
        let w = [width(\.what), width(\.ours), width(\.peer), width(\.ratio), width(\.target), width(\.met)]
        func line(_ r: Row) -> String {
            [
                r.what.padded(w[0]), r.ours.leftPadded(w[1]), r.peer.leftPadded(w[2]), r.ratio.leftPadded(w[3]),
                r.target.padded(w[4]), r.met.padded(w[5]),
            ].joined(separator: "  ").trailingSpacesRemoved
        }
        var out = "== \(title) ==\n" + line(header) + "\n" + String(repeating: "-", count: w.reduce(0, +) + 10) + "\n"
        for row in rows { out += line(row) + "\n" }
        for note in notes { out += "  * " + note + "\n" }
        return out
    }
}

extension String {
    func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
    var trailingSpacesRemoved: String {
        var s = self
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }
}

/// Formatting of measured numbers.
enum Format {
    static func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

    /// Nanoseconds per operation, with a unit that keeps 3 significant digits.
    static func perOp(_ nanoseconds: Double) -> String {
        if nanoseconds >= 1_000_000 { return fixed(nanoseconds / 1_000_000, 2) + " ms" }
        if nanoseconds >= 10_000 { return fixed(nanoseconds / 1_000, 1) + " us" }
        return fixed(nanoseconds, 0) + " ns"
    }

    static func rate(_ perSecond: Double) -> String { Int(perSecond.rounded()).grouped + "/s" }
    static func seconds(_ nanoseconds: Double) -> String {
        if nanoseconds >= 120e9 { return fixed(nanoseconds / 60e9, 1) + " min" }
        return nanoseconds >= 1e9 ? fixed(nanoseconds / 1e9, 2) + " s" : fixed(nanoseconds / 1e6, 1) + " ms"
    }
    static func megabytes(_ kilobytes: Double) -> String { fixed(kilobytes / 1024, 1) + " MB" }
    static func times(_ ratio: Double) -> String { ratio >= 10 ? fixed(ratio, 0) + "x" : fixed(ratio, 2) + "x" }
    static func met(_ ok: Bool) -> String { ok ? "yes" : "NO" }
}

/// Monotonic time in nanoseconds.
func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// CPU time of the calling thread in nanoseconds: unlike wall time, it leaves out the time the
/// thread waited for a core, which on a shared, busy machine is most of the noise.
func threadCPUTime() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// CPU time of the whole process (every thread, user and system) in nanoseconds.
func processCPUTime() -> UInt64 {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func ns(_ t: timeval) -> UInt64 { UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_usec) * 1_000 }
    return ns(usage.ru_utime) + ns(usage.ru_stime)
}

/// Runs `body` and returns its wall time and the CPU time of the whole process meanwhile.
func measureProcess(_ body: () throws -> Void) rethrows -> Timing {
    let wall = now()
    let cpu = processCPUTime()
    try body()
    return Timing(wall: Double(now() - wall), cpu: Double(processCPUTime() - cpu))
}

/// Wall and thread CPU time of one run, in nanoseconds.
struct Timing {
    var wall: Double
    var cpu: Double
}

/// Runs `body` and returns its wall and thread CPU time.
func measureTiming(_ body: () throws -> Void) rethrows -> Timing {
    let wall = now()
    let cpu = threadCPUTime()
    try body()
    return Timing(wall: Double(now() - wall), cpu: Double(threadCPUTime() - cpu))
}

/// Runs `body` and returns how long it took, in nanoseconds.
@discardableResult
func measure(_ body: () throws -> Void) rethrows -> Double {
    let start = now()
    try body()
    return Double(now() - start)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// The value at fraction `p` (0.5 the median, 0.99 the 99th percentile) of values sorted in
/// ascending order, by the nearest rank below; `nan` for none.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// Progress lines on standard error, so standard output holds only the tables.
func progress(_ text: String) {
    FileHandle.standardError.write(Data(("  .. " + text + "\n").utf8))
}

/// A temporary directory removed when the value is released.
final class ScratchDirectory {
    let url: URL

    init(_ label: String) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "wkstore-bench-\(label)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
