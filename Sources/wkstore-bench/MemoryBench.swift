import Foundation
import WebsiteData

/// Section 4: peak memory of each engine holding the cookies, each in a process of its own.
///
/// The bench runs itself again as `wkstore-bench __memory ENGINE COUNT`; the child makes the
/// site list (and opens the store, but for the dictionary), notes its resident size, streams
/// the generated responses into the engine (so only the engine keeps the cookies), looks
/// cookies up on every host of every site (our engines), and reports its peak resident size
/// (VmHWM).
enum MemoryBench {
    static let engines = ["wkstore-memory", "wkstore-disk", "dictionary", "foundation"]

    struct Measurement {
        var baselineKB: Double
        var peakKB: Double
        var held: Int
        var seconds: Double
        /// What opening the empty store added to the resident size (0 for the dictionary, which
        /// opens nothing).
        var openingKB: Double
        /// What loading the cookies added to the peak.
        var netKB: Double { peakKB - baselineKB }
    }

    static func run(_ context: Context) throws -> Table {
        let config = context.config
        let big = config.big.cookies
        let small = config.small.cookies
        var table = Table("memory: peak resident memory holding the cookies, a process per engine (lower is better)")
        func child(_ engine: String, _ count: Int) throws -> Measurement {
            progress("child process: \(engine) with \(count.grouped) cookies")
            return try spawn(engine: engine, count: count)
        }
        let memory = try child("wkstore-memory", big)
        let disk = try child("wkstore-disk", big)
        let dictionary = try child("dictionary", big)
        let memorySmall = try child("wkstore-memory", small)
        let foundation = try child("foundation", small)

        table.add(
            "ours non-persistent vs dictionary floor, \(big.grouped) cookies", ours: Format.megabytes(memory.netKB),
            peer: Format.megabytes(dictionary.netKB), ratio: Format.times(memory.netKB / dictionary.netKB) + " floor")
        table.add(
            "ours persistent vs dictionary floor, \(big.grouped) cookies", ours: Format.megabytes(disk.netKB),
            peer: Format.megabytes(dictionary.netKB), ratio: Format.times(disk.netKB / dictionary.netKB) + " floor")
        table.add(
            "ours non-persistent vs Foundation HTTPCookieStorage, \(small.grouped) cookies (Foundation at \(small.grouped) only)",
            ours: Format.megabytes(memorySmall.netKB), peer: Format.megabytes(foundation.netKB),
            ratio: Format.times(memorySmall.netKB / foundation.netKB) + " Foundation")
        if let header = try oneHeader(context) {
            let ours = median(header.ours)
            let curl = median(header.curl)
            table.add(
                "one Cookie header from the persistent \(big.grouped)-cookie store vs curl loading the same cookies.txt (whole process)",
                ours: Format.megabytes(ours), peer: Format.megabytes(curl), ratio: Format.times(ours / curl) + " curl",
                target: "< curl", met: Format.met(ours < curl))
            // What curl's cookies add to its process, against what ours add to a long-running one.
            let curlHeld = curl - median(header.curlEmpty)
            table.add(
                "ours persistent holding \(big.grouped) cookies, after a lookup on every host, vs what the same cookies.txt adds to curl (over its process with an empty one)",
                ours: Format.megabytes(disk.netKB), peer: Format.megabytes(curlHeld),
                ratio: Format.times(disk.netKB / curlHeld) + " curl", target: "< curl",
                met: Format.met(disk.netKB < curlHeld))
            table.note(
                "one header: peak resident size (GNU time's %M) of `wkstore cookies header \(header.url)` and of `curl -s -b cookies.txt -o /dev/null file:///dev/null` on the store's export, median of 3 each (ours "
                    + header.ours.map(Format.megabytes).joined(separator: ", ") + "; curl "
                    + header.curl.map(Format.megabytes).joined(separator: ", ") + "; curl with an empty cookies file "
                    + header.curlEmpty.map(Format.megabytes).joined(separator: ", ") + ")")
        } else {
            table.note("one header: not measured (needs `wkstore` built beside the bench, /usr/bin/curl and GNU time)")
        }
        table.note(
            "MB = peak resident size (VmHWM) after loading (and, for ours, one Cookie lookup on every host of every site) minus the child's resident size before loading (site list made, runtime started; for ours and Foundation, the store open and empty, as curl's baseline is curl with an empty cookies file)"
        )
        table.note(
            "opening the empty store, before the baseline: persistent \(Format.megabytes(disk.openingKB)), non-persistent \(Format.megabytes(memory.openingKB)); the persistent store's figure with it, over the process before opening: \(Format.megabytes(disk.netKB + disk.openingKB))"
        )
        let all = [
            ("ours non-persistent \(big.grouped)", memory), ("ours persistent \(big.grouped)", disk),
            ("dictionary \(big.grouped)", dictionary), ("ours non-persistent \(small.grouped)", memorySmall),
            ("Foundation \(small.grouped)", foundation),
        ]
        table.note(
            "raw VmHWM / baseline / cookies held / load time: "
                + all.map { name, m in
                    "\(name) \(Format.megabytes(m.peakKB)) / \(Format.megabytes(m.baselineKB)) / \(m.held.grouped) / \(Format.seconds(m.seconds * 1e9))"
                }.joined(separator: "; "))
        table.note(
            "Foundation is measured at \(small.grouped): its setCookie scans every stored cookie, so loading \(big.grouped) would take about \(Format.seconds(foundation.seconds * 1e9 * Double(big * big) / Double(small * small))) (its \(Format.seconds(foundation.seconds * 1e9)) load scaled as n^2)"
        )
        return table
    }

    /// The peak resident sizes (kB) of three runs each of `wkstore cookies header` answering one
    /// lookup URL of the big data set from its persistent store, and of curl loading the same
    /// cookies (the store's `cookies.txt` export): whole processes, as a user runs them. `nil`
    /// when `wkstore` is not built beside the bench, or curl or GNU time is not installed.
    static func oneHeader(_ context: Context) throws -> (
        ours: [Double], curl: [Double], curlEmpty: [Double], url: String
    )? {
        let bench = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let wkstore = bench.deletingLastPathComponent().appendingPathComponent("wkstore")
        let curl = URL(fileURLWithPath: "/usr/bin/curl")
        guard FileManager.default.isExecutableFile(atPath: wkstore.path),
            FileManager.default.isExecutableFile(atPath: curl.path),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
        else { return nil }
        let store = try context.persistentBigStore()
        let scratch = ScratchDirectory("header")
        let file = scratch.url.appendingPathComponent("cookies.txt")
        progress("one Cookie header: wkstore cookies header and curl on the same cookies, 3 times each")
        let exported = try childFields(
            wkstore, ["--store", store.path, "export", "--format", "netscape", "-o", file.path])
        guard exported.status == 0 else { throw BenchError("wkstore export failed: \(exported.output)") }
        guard let url = context.dataset(context.config.big).lookups.first?.absoluteString else { return nil }
        let empty = scratch.url.appendingPathComponent("empty.txt")
        try Data().write(to: empty)
        var ours: [Double] = []
        var theirs: [Double] = []
        var theirsEmpty: [Double] = []
        func curlLoading(_ cookies: URL) -> [String] {
            ["-s", "-b", cookies.path, "-o", "/dev/null", "file:///dev/null"]
        }
        for _ in 0..<3 {
            ours.append(try peakKilobytes(wkstore, ["--store", store.path, "cookies", "header", url]))
            theirs.append(try peakKilobytes(curl, curlLoading(file)))
            theirsEmpty.append(try peakKilobytes(curl, curlLoading(empty)))
        }
        return (ours, theirs, theirsEmpty, url)
    }

    /// Runs `executable` to its end under GNU time, its output discarded, and returns its peak
    /// resident size in kB. Not this process's `wait4`: a child it spawns shares its memory
    /// until the exec, and Linux counts that memory in the child's peak; GNU time forks from a
    /// process of its own, a few hundred kB.
    static func peakKilobytes(_ executable: URL, _ arguments: [String]) throws -> Double {
        let scratch = ScratchDirectory("peak")
        let report = scratch.url.appendingPathComponent("peak")
        let (status, _, output) = try childFields(
            URL(fileURLWithPath: "/usr/bin/time"),
            ["-f", "%M", "-o", report.path, "sh", "-c", "exec \"$0\" \"$@\" >/dev/null 2>&1", executable.path]
                + arguments)
        let text = (try? String(contentsOf: report, encoding: .utf8)) ?? ""
        guard status == 0, let kilobytes = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError(
                "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) failed (status \(status)): \(output)\(text)"
            )
        }
        return kilobytes
    }

    /// Runs a child process for one engine and reads its report.
    static func spawn(engine: String, count: Int) throws -> Measurement {
        let selfPath =
            FileManager.default.fileExists(atPath: "/proc/self/exe")
            ? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) : nil
        let (status, fields, output) = try childFields(
            URL(fileURLWithPath: selfPath ?? CommandLine.arguments[0]), ["__memory", engine, String(count)])
        guard status == 0, fields.count == 5, let baseline = Double(fields[0]), let peak = Double(fields[1]),
            let held = Int(fields[2]), let seconds = Double(fields[3]), let opening = Double(fields[4])
        else {
            throw BenchError("memory child \(engine) \(count) failed (status \(status)): \(output)")
        }
        return Measurement(baselineKB: baseline, peakKB: peak, held: held, seconds: seconds, openingKB: opening)
    }

    /// The child: loads `count` cookies into `engine` and prints
    /// `baseline-kB peak-kB cookies-held load-seconds opening-kB`. For our engines and Foundation
    /// the baseline is taken with the store open and empty, and `opening-kB` is what opening it
    /// added.
    static func child(engine: String, count: Int) throws {
        let shape = Shape(cookies: count, sites: max(1, count / 10), lookups: 0)
        let sites = Dataset.makeSites(shape)
        let beforeOpening = status("VmRSS")
        let loadDate = Date()
        var baseline = beforeOpening
        var start = now()
        var held = 0
        var peak = 0.0
        switch engine {
        case "wkstore-memory", "wkstore-disk":
            let scratch = engine == "wkstore-disk" ? ScratchDirectory("memory") : nil
            let store = try Loader.makeStore(directory: scratch?.url.appendingPathComponent("store"))
            // The baseline is the process with its store open and empty, as curl's is curl with
            // an empty cookies file (and Foundation's, its storage made): what opening costs
            // (code paged in, SQLite's connections) is reported apart.
            baseline = status("VmRSS")
            start = now()
            var failures = 0
            Dataset.forEachResponse(shape, sites: sites) { response in
                do {
                    try store.httpCookieStore.setCookies(fromSetCookieHeaders: response.headers, for: response.url)
                } catch { failures += 1 }
            }
            if failures > 0 { throw BenchError("\(failures) setCookies calls failed") }
            // A long-running process has looked cookies up on every site: each site's lookup
            // index is built, and each host is in the store's table of hosts.
            var headers = 0
            for site in sites {
                for host in site.hosts {
                    let url = URL(string: "https://\(host)/")!
                    if try store.httpCookieStore.cookieHeader(for: url) != nil { headers += 1 }
                }
            }
            if headers == 0 { throw BenchError("no lookup found a cookie") }
            peak = status("VmHWM")
            held = try store.httpCookieStore.allCookies().count
            withExtendedLifetime((store, scratch)) {}
        case "dictionary":
            var floor = DictionaryFloor([])
            Dataset.forEachResponse(shape, sites: sites) { response in
                for cookie in response.cookies { floor.add(cookie.cookie(at: loadDate)) }
            }
            peak = status("VmHWM")
            held = floor.count
            withExtendedLifetime(floor) {}
        case "foundation":
            let foundation = FoundationPeer()
            baseline = status("VmRSS")
            start = now()
            Dataset.forEachResponse(shape, sites: sites) { response in
                for cookie in response.cookies { foundation.add(cookie.cookie(at: loadDate)) }
            }
            peak = status("VmHWM")
            held = foundation.storage.cookies?.count ?? 0
        default:
            throw BenchError("unknown engine \(engine); expected one of \(engines.joined(separator: ", "))")
        }
        let seconds = Double(now() - start) / 1e9
        print(Int(baseline), Int(peak), held, seconds, Int(baseline - beforeOpening))
    }

    /// A field of /proc/self/status, in kB.
    static func status(_ field: String) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return .nan }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Double(line.split(whereSeparator: \.isWhitespace)[1]) ?? .nan
        }
        return .nan
    }
}
