import Foundation

#if canImport(WebsiteData)
    import WebsiteData
#endif

/// The HTTP cache's parsers: `Cache-Control` and `Vary`, and the freshness arithmetic over them.
extension FuzzTargets {
    /// Header fields from bytes: one `Name: value` a line; lines without a colon are values of `Cache-Control`.
    static func fields(_ text: Substring) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let colon = line.firstIndex(of: ":") {
                headers.append(
                    String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingHTTPWhitespace())
            } else {
                headers.append("Cache-Control", String(line))
            }
        }
        return headers
    }

    /// `Cache-Control`: what parses is well formed and reads back the same when written again; the
    /// freshness and age computed from any fields are finite and never trap.
    static func cacheControl(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let headers = fields(Substring(text))
        let control = CacheControl(headers: headers)
        var written: [String] = []
        for (name, argument) in control.directives {
            precondition(
                !name.isEmpty && name.utf8.allSatisfy(CacheControl.isTokenChar) && name == name.lowercased(),
                "name \(name)")
            if let argument {
                let escaped = argument.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                    of: "\"", with: "\\\"")
                written.append("\(name)=\"\(escaped)\"")
            } else {
                written.append(name)
            }
            if let seconds = control.seconds(name)?.value {
                precondition(seconds >= 0 && seconds <= DeltaSeconds.maximum)
            }
        }
        let reparsed = CacheControl([written.joined(separator: ", ")])
        precondition(
            reparsed.directives == control.directives, "\(control.directives) -> \(written) -> \(reparsed.directives)")
        _ = control.fieldNames("no-cache")
        _ = control.fieldNames("private")

        // A response with these fields, received now, looked at now, later and earlier.
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let request = CacheRequest(url: URL(string: "https://example.com/r")!, headers: headers)
        for status in [200, 203, 206, 301, 404, 500] {
            let policy = CachePolicy(
                request: request, status: status, headers: headers, requestTime: base,
                responseTime: base.addingTimeInterval(1), options: CachePolicy.Options())
            precondition(
                policy.freshnessLifetime.isFinite && policy.freshnessLifetime >= 0,
                "lifetime \(policy.freshnessLifetime)")
            for offset in [-1e9, 0, 1, 1e9] {
                let now = base.addingTimeInterval(offset)
                precondition(policy.age(at: now).isFinite && policy.age(at: now) >= 0)
                _ = policy.reuse(for: request, at: now)
                _ = policy.allowsStaleOnError(request, at: now, disconnected: offset > 0)
                _ = policy.responseHeaders(at: now)
            }
            _ = policy.revalidationHeaders(for: request)
            _ = policy.conditionIsNotModified(request)
            // What the disk cache keeps reads back the same.
            if policy.headers.allSatisfy({ !$0.name.isEmpty && $0.name.utf8.allSatisfy(CacheControl.isTokenChar) }) {
                let stored = HTTPHeaders(serialized: policy.headers.serialized)
                precondition(stored.map(\.name) == policy.headers.map(\.name), "stored names differ")
                // Line breaks become spaces (a field value holds none); nothing else changes.
                let expected = policy.headers.map {
                    String($0.value.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
                }
                precondition(
                    stored.map(\.value) == expected,
                    "stored values differ: \(Array(policy.headers)) -> \(Array(stored))")
            }
        }
    }

    /// `Vary`: the nominated names are lower case, trimmed and unique; a request matches the
    /// response it was stored from; a variant key is the same for the same request fields.
    static func vary(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        // The response's fields, then a blank line, then the request's.
        let parts = text.split(separator: "\n\n", maxSplits: 1, omittingEmptySubsequences: false)
        var response = HTTPHeaders()
        for line in parts[0].split(separator: "\n") {
            if let colon = line.firstIndex(of: ":") {
                response.append(String(line[..<colon]), String(line[line.index(after: colon)...]))
            } else {
                response.append("Vary", String(line))
            }
        }
        response.set("Cache-Control", "max-age=60")
        let requestFields = parts.count > 1 ? fields(parts[1]) : HTTPHeaders()
        let names = CachePolicy.varyNames(response)
        precondition(Set(names).count == names.count, "duplicate names \(names)")
        for name in names {
            precondition(
                !name.isEmpty && name == name.lowercased() && name == name.trimmingHTTPWhitespace(), "name '\(name)'")
        }
        let key = CachePolicy.variantKey(names, requestFields)
        precondition(
            key == CachePolicy.variantKey(names, HTTPHeaders(Array(requestFields))), "variant key not deterministic")
        let request = CacheRequest(url: URL(string: "https://example.com/v")!, headers: requestFields)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let policy = CachePolicy(
            request: request, status: 200, headers: response, requestTime: now, responseTime: now,
            options: CachePolicy.Options())
        if names.contains("*") {
            precondition(!policy.matches(request) && !policy.isStorable, "Vary: * must never be reused or stored")
        } else {
            precondition(policy.matches(request), "a request does not match the response stored for it: \(names)")
            let entry = CacheEntryKey(
                partition: "https://example.com", method: "GET", url: "https://example.com/v",
                variant: policy.variantKey)
            precondition(entry.supersedes(variant: policy.variantKey))
        }
    }
}
