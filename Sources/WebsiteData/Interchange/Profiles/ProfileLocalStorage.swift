import CLevelDB
import CSnappy
import Foundation

/// The localStorage of a browser profile, read into origins and items.
///
/// Chromium keeps it in a LevelDB database (`Local Storage/leveldb`): each item is a record whose
/// key is `_`, the origin, a NUL, then the item's key, and whose value is the item's value; a
/// key or value is a format byte and its text: `0x00` then UTF-16LE, or `0x01` then Latin-1
/// (Chromium's `LocalStorageImpl`). Firefox keeps one SQLite database per origin,
/// `storage/default/<scheme>+++<host>[+port]/ls/data.sqlite`, table `data` (`key`, `utf16_length`,
/// `conversion_type`, `compression_type`, `value`): `compression_type` 1 is a Snappy block,
/// `conversion_type` 1 is UTF-8 and 0 the raw UTF-16 (little-endian here) of a string UTF-8
/// cannot hold (Firefox's `LSValue`).
enum ProfileLocalStorage {
    /// Items by origin, each origin's in the order read.
    typealias Origins = [(origin: SecurityOrigin, items: [(key: String, value: String)])]

    // MARK: - Chromium

    /// Chromium's localStorage, from a copy of its LevelDB folder; empty when the profile has none.
    static func chromium(_ profile: URL, snapshot: ProfileSnapshot) throws(BrowserProfileError) -> Origins {
        let folder = profile.appendingPathComponent("Local Storage/leveldb", isDirectory: true)
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        let copy = try snapshot.copyFolder(folder)
        let options = leveldb_options_create()
        defer { leveldb_options_destroy(options) }
        leveldb_options_set_create_if_missing(options, 0)
        leveldb_options_set_paranoid_checks(options, 1)
        var error: UnsafeMutablePointer<CChar>?
        guard let db = leveldb_open(options, copy.path, &error) else {
            let message = error.map { String(cString: $0) } ?? "it does not open"
            leveldb_free(error)
            throw BrowserProfileError(
                .damaged, path: folder.path, reason: "not a readable Chromium localStorage database (\(message))")
        }
        defer { leveldb_close(db) }
        let readOptions = leveldb_readoptions_create()
        defer { leveldb_readoptions_destroy(readOptions) }
        let iterator = leveldb_create_iterator(db, readOptions)
        defer { leveldb_iter_destroy(iterator) }
        var byOrigin: [String: Int] = [:]
        var result: Origins = []
        leveldb_iter_seek(iterator, "_", 1)
        while leveldb_iter_valid(iterator) != 0 {
            var keyLength = 0
            var valueLength = 0
            let keyPointer = leveldb_iter_key(iterator, &keyLength)
            let valuePointer = leveldb_iter_value(iterator, &valueLength)
            let key = keyPointer.map { Array(UnsafeRawBufferPointer(start: $0, count: keyLength)) } ?? []
            let value = valuePointer.map { Array(UnsafeRawBufferPointer(start: $0, count: valueLength)) } ?? []
            leveldb_iter_next(iterator)
            guard key.first == UInt8(ascii: "_") else { break }
            guard let separator = key.firstIndex(of: 0),
                let origin = SecurityOrigin(
                    string: String(decoding: key[1..<separator], as: UTF8.self)),
                let itemKey = chromiumText(key[(separator + 1)...]), let itemValue = chromiumText(value[...])
            else { continue }
            let name = origin.description
            if let index = byOrigin[name] {
                result[index].items.append((itemKey, itemValue))
            } else {
                byOrigin[name] = result.count
                result.append((origin, [(itemKey, itemValue)]))
            }
        }
        var status: UnsafeMutablePointer<CChar>?
        leveldb_iter_get_error(iterator, &status)
        if let status {
            let message = String(cString: status)
            leveldb_free(status)
            throw BrowserProfileError(
                .damaged, path: folder.path, reason: "not a readable Chromium localStorage database (\(message))")
        }
        return result
    }

    /// A Chromium localStorage key or value: a format byte, then UTF-16LE (0) or Latin-1 (1).
    static func chromiumText(_ bytes: ArraySlice<UInt8>) -> String? {
        guard let format = bytes.first else { return nil }
        let body = bytes.dropFirst()
        switch format {
        case 0: return utf16LE(body)
        case 1: return String(body.map { Character(Unicode.Scalar($0)) })
        default: return nil
        }
    }

    /// UTF-16LE bytes as a string (a lone surrogate becomes U+FFFD); `nil` for an odd count.
    static func utf16LE(_ bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.count % 2 == 0 else { return nil }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            units.append(UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
            index += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    // MARK: - Firefox

    /// Firefox's localStorage of the default container (or of the container `userContextId`),
    /// from copies of each origin's `ls/data.sqlite`.
    static func firefox(_ profile: URL, container: Int, snapshot: ProfileSnapshot) throws(BrowserProfileError)
        -> Origins
    {
        let root = profile.appendingPathComponent("storage/default", isDirectory: true)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
        var result: Origins = []
        for name in names {
            guard let origin = firefoxOrigin(name, container: container) else { continue }
            let file = root.appendingPathComponent(name).appendingPathComponent("ls/data.sqlite")
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            let copy = try snapshot.copySQLite(file)
            let items = try firefoxItems(copy: copy, original: file)
            if !items.isEmpty { result.append((origin, items)) }
        }
        return result
    }

    /// The origin of a folder of `storage/default` (`https+++example.com+8443`, with
    /// `^userContextId=2` for a container), when it is of the container asked for.
    static func firefoxOrigin(_ folder: String, container: Int) -> SecurityOrigin? {
        var name = Substring(folder)
        var attributes: [String: String] = [:]
        if let caret = name.firstIndex(of: "^") {
            attributes = FirefoxCookies.originAttributes(String(name[caret...]))
            name = name[..<caret]
        }
        // Partitioned, private and first-party storage belong to no top-level origin of their own.
        guard Int(attributes["userContextId"] ?? "0") == container,
            attributes.keys.allSatisfy({ $0 == "userContextId" })
        else { return nil }
        guard let separator = name.range(of: "+++") else { return nil }
        let scheme = name[..<separator.lowerBound]
        var host = name[separator.upperBound...]
        var port = ""
        if let plus = host.lastIndex(of: "+"), !host[host.index(after: plus)...].isEmpty,
            host[host.index(after: plus)...].allSatisfy(\.isNumber)
        {
            port = ":" + host[host.index(after: plus)...]
            host = host[..<plus]
        }
        return SecurityOrigin(string: "\(scheme)://\(host)\(port)")
    }

    /// The items of a copy of `ls/data.sqlite`, in the table's order.
    static func firefoxItems(copy: URL, original: URL) throws(BrowserProfileError) -> [(key: String, value: String)] {
        func damaged(_ why: String) -> BrowserProfileError {
            BrowserProfileError(
                .damaged, path: original.path, reason: "not a readable Firefox localStorage database (\(why))")
        }
        let rows: [(String, Int64, Int64, [UInt8])]
        do {
            let connection = try SQLiteConnection(location: .file(copy), busyTimeout: .seconds(5))
            rows = try connection.rows(
                "SELECT key, conversion_type, compression_type, value FROM data ORDER BY rowid", []
            ) { row in (row.string(0), row.int(1), row.int(2), row.isNull(3) ? [] : row.blob(3)) }
        } catch {
            throw damaged(String(describing: error))
        }
        return try rows.map { (key, conversion, compression, stored) throws(BrowserProfileError) in
            var bytes = stored
            switch compression {
            case 0: break
            case 1:
                guard let plain = snappyUncompress(stored) else { throw damaged("the value of '\(key)' is not Snappy") }
                bytes = plain
            default: throw damaged("the value of '\(key)' has compression type \(compression)")
            }
            switch conversion {
            case 1:
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    throw damaged("the value of '\(key)' is not UTF-8")
                }
                return (key, text)
            case 0:
                guard let text = utf16LE(bytes[...]) else { throw damaged("the value of '\(key)' is not UTF-16") }
                return (key, text)
            default:
                throw damaged("the value of '\(key)' has conversion type \(conversion)")
            }
        }
    }

    /// A Snappy block, uncompressed; `nil` when it is not one. Capped at 64 MiB: more than an
    /// origin's localStorage may hold.
    static func snappyUncompress(_ bytes: [UInt8]) -> [UInt8]? {
        var length = 0
        let ok = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                snappy_uncompressed_length($0.baseAddress, $0.count, &length) == SNAPPY_OK
            }
        }
        guard ok, length <= 64 << 20 else { return nil }
        var output = [UInt8](repeating: 0, count: max(length, 1))
        var written = length
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { input in
                output.withUnsafeMutableBufferPointer { out in
                    out.withMemoryRebound(to: CChar.self) {
                        snappy_uncompress(input.baseAddress, input.count, $0.baseAddress, &written)
                    }
                }
            }
        }
        guard status == SNAPPY_OK, written == length else { return nil }
        return Array(output[0..<length])
    }
}
