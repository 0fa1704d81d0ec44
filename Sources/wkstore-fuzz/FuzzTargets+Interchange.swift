import Foundation

#if canImport(WebsiteData)
    import WebsiteData
#endif

/// The cookie importers: Netscape `cookies.txt` and Playwright `storageState`.
extension FuzzTargets {
    /// Scratch files of this process (in memory when `/dev/shm` exists).
    static let scratch: URL = {
        let base =
            FileManager.default.fileExists(atPath: "/dev/shm")
            ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        let url = base.appendingPathComponent("wkstore-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static let importStore = WebsiteDataStore.nonPersistent()
    static let roundTripStore = WebsiteDataStore.nonPersistent()
    /// One import at a time: the stores and scratch files are shared.
    static let importLock = Locked(())

    /// A cookie with its dates rounded to the microsecond.
    static func microseconds(_ cookie: Cookie) -> Cookie {
        func round(_ date: Date) -> Date {
            Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1e6).rounded() / 1e6)
        }
        var copy = cookie
        copy.expires = cookie.expires.map(round)
        copy.created = round(cookie.created)
        copy.lastAccess = round(cookie.lastAccess)
        copy.modified = round(cookie.modified)
        return copy
    }

    static func netscapeImport(_ data: Data) { cookieImport(data, format: .netscape) }
    static func storageStateImport(_ data: Data) { cookieImport(data, format: .storageState) }
    static func extensionJSONImport(_ data: Data) { cookieImport(data, format: .extensionJSON) }

    /// Imports the bytes as a file of `format` into a store holding one cookie: either the whole
    /// file is refused and the store is as it was, or every cookie stored meets the rules, and
    /// exporting the store and importing the export gives the same cookies.
    static func cookieImport(_ data: Data, format: CookieFileFormat) {
        importLock.withLock { _ in
            let input = scratch.appendingPathComponent("input")
            let export = scratch.appendingPathComponent("export")
            guard (try? data.write(to: input)) != nil else { return }
            let cookies = importStore.httpCookieStore
            _ = try? importStore.removeData(ofTypes: [.cookies], matching: RemovalFilter())
            _ = try? cookies.setCookies(
                fromSetCookieHeaders: ["keep=1; Max-Age=3600"], for: URL(string: "https://keep.example.org/")!)
            let before = (try? cookies.allCookies()) ?? []
            precondition(before.count == 1)
            let summary: CookieImportSummary
            do {
                summary = try CookieInterchange.importCookies(from: input, format: format, into: cookies)
            } catch {
                // (Dates compared to the microsecond: the store keeps them as Unix-time doubles.)
                let after = (try? cookies.allCookies()) ?? []
                precondition(
                    after.map(microseconds) == before.map(microseconds),
                    "a refused import changed the store: \(error): \(before) -> \(after)")
                return
            }
            let now = Date()
            let stored = (try? cookies.allCookies()) ?? []
            precondition(summary.read >= summary.imported)
            for cookie in stored {
                precondition(cookie.isHostOnly || !Site.isPublicSuffix(cookie.domain), "a supercookie: \(cookie)")
                precondition(cookie.name.utf8.count + cookie.value.utf8.count <= CookieRules.maxNameValueBytes)
                precondition(
                    !(cookie.name + cookie.value).unicodeScalars.contains {
                        $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F
                    },
                    "a control character: \(cookie)")
                if let expires = cookie.expires {
                    precondition(
                        expires > now.addingTimeInterval(-5) && expires <= now.addingTimeInterval(400 * 86_400 + 5),
                        "expiry \(expires)")
                }
                if cookie.name.lowercased().hasPrefix("__host-") {
                    precondition(
                        cookie.isSecure && cookie.isHostOnly && cookie.path == "/",
                        "__Host- without its rules: \(cookie)")
                }
                if cookie.name.lowercased().hasPrefix("__secure-") {
                    precondition(cookie.isSecure, "__Secure- without Secure")
                }
                if cookie.sameSite == .none { precondition(cookie.isSecure, "SameSite=None without Secure") }
            }
            // Round trip through the same format.
            guard (try? CookieInterchange.exportCookies(from: cookies, format: format, to: export)) != nil else {
                preconditionFailure("the export of an imported store failed")
            }
            let again = roundTripStore.httpCookieStore
            _ = try? roundTripStore.removeData(ofTypes: [.cookies], matching: RemovalFilter())
            do {
                _ = try CookieInterchange.importCookies(from: export, format: format, into: again)
            } catch {
                preconditionFailure("the export of an imported store does not import: \(error)")
            }
            let reimported = (try? again.allCookies()) ?? []
            let soon = now.addingTimeInterval(60)
            func fields(_ c: Cookie) -> String {
                var text =
                    "\(c.name)=\(c.value) \(c.domain)\(c.path) host-only \(c.isHostOnly) secure \(c.isSecure) httponly \(c.isHTTPOnly)"
                if format != .netscape {
                    text +=
                        " samesite \(c.sameSite) partition \(c.partitionKey) expires \(c.expires.map { String(Int64($0.timeIntervalSince1970 * 1000)) } ?? "-")"
                } else {
                    text += " expires \(c.expires.map { String(Int64($0.timeIntervalSince1970)) } ?? "-")"
                }
                return text
            }
            let first = Set(stored.filter { ($0.expires ?? .distantFuture) > soon }.map(fields))
            let second = Set(reimported.filter { ($0.expires ?? .distantFuture) > soon }.map(fields))
            precondition(first == second, "round trip changed cookies: \(first.symmetricDifference(second).sorted())")
        }
    }
}
