import Foundation

/// Python's `http.cookiejar` as a reference: the same responses fed to an in-memory `CookieJar`
/// through `extract_cookies`, timed by Python itself around the ingest loop only.
enum PythonPeer {
    struct Result {
        var stored: Int
        var seconds: Double
        var version: String
        var headers: Int
        var rate: Double { Double(headers) / seconds }
    }

    static let script = #"""
        import email.message, http.cookiejar, json, sys, time, urllib.request

        class Response:
            def __init__(self, headers):
                self.message = email.message.Message()
                for header in headers:
                    self.message["Set-Cookie"] = header  # adds a field; does not replace
            def info(self):
                return self.message

        with open(sys.argv[1]) as f:
            data = json.load(f)
        pairs = [(urllib.request.Request(item["url"]), Response(item["headers"])) for item in data]
        headers = sum(len(item["headers"]) for item in data)
        jar = http.cookiejar.CookieJar()
        start = time.perf_counter()
        for request, response in pairs:
            jar.extract_cookies(response, request)
        elapsed = time.perf_counter() - start
        print(headers, len(jar), elapsed, sys.version.split()[0])
        """#

    struct Item: Encodable {
        var url: String
        var headers: [String]
    }

    /// Runs the ingest in Python; `nil` when `python3` is not on the PATH.
    static func ingest(_ data: Dataset) throws -> Result? {
        guard let python = which("python3") else { return nil }
        let scratch = ScratchDirectory("python")
        let json = scratch.url.appendingPathComponent("responses.json")
        let code = scratch.url.appendingPathComponent("ingest.py")
        try JSONEncoder().encode(data.responses.map { Item(url: $0.url.absoluteString, headers: $0.headers) }).write(
            to: json)
        try script.write(to: code, atomically: true, encoding: .utf8)
        progress("ingesting the same responses with Python's http.cookiejar")
        let (status, fields, _) = try childFields(python, [code.path, json.path])
        guard status == 0, fields.count == 4, let headers = Int(fields[0]), let stored = Int(fields[1]),
            let seconds = Double(fields[2])
        else {
            throw BenchError("the Python reference failed (status \(status))")
        }
        return Result(stored: stored, seconds: seconds, version: String(fields[3]), headers: headers)
    }

    /// The first executable called `name` on the PATH.
    static func which(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
