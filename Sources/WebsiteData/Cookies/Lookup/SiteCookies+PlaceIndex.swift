import CWebsiteDataSupport
import Foundation

extension SiteCookies {
    /// The layout of `index`, a site's places as a lookup tests them: four counts (`UInt32`:
    /// distinct domains, distinct paths, places with cookies, cookies), the domains and the paths
    /// (where each one's bytes are in the index's own bytes, and how many), the places (a domain's
    /// and a path's number, whether host-only, and their range in the members), the members
    /// (each place's cookies, in index order, each with where its pair is), then the bytes.
    ///
    /// A lookup tests each distinct domain and path once, then each place by two numbers. It
    /// reads a few neighbouring lines, asked for at once, rather than a place apiece and each
    /// place's domain and path bytes anywhere in the site's bytes, each read waiting for the one
    /// before.
    ///
    /// One buffer, not an array apiece for the spans, places, members and bytes: a site's hints
    /// hold one address for its index (three in all, so that a host's entry stays 80 bytes), and
    /// that one address covers the counts, spans, places and members together, so a cold lookup
    /// asks for all of them at once, before the site's slot has come. As separate arrays, the
    /// hint would reach one of them and the others would be asked for only once the slot had
    /// been read. The layout is this type's alone: `build` writes it, `init` finds each part by
    /// the counts at its start, and nothing else reads the buffer.
    struct PlaceIndex {
        /// Where a domain's or a path's bytes are in the index's bytes, and how many.
        struct Span {
            var offset: UInt32
            var length: UInt32
        }

        /// A place with cookies: its members `first ..< first + count`, the numbers of its domain
        /// and path, and whether it is host-only.
        struct IndexedPlace {
            var first: UInt32
            var count: UInt32
            var domain: UInt32
            var path: UInt32
            var isHostOnly: Bool
        }

        let domainCount: Int
        let pathCount: Int
        let placeCount: Int
        /// The site's cookies (each a member of one place).
        let memberCount: Int
        private let spans: UnsafeRawPointer
        private let places: UnsafeRawPointer
        private let members: UnsafeRawPointer
        /// The domains' and paths' bytes.
        let bytes: UnsafePointer<UInt8>

        /// The four counts before the spans.
        static let header = 16

        /// The index in `buffer`, as `build` wrote it (never empty).
        init(_ buffer: UnsafeBufferPointer<UInt8>) {
            let raw = UnsafeRawPointer(buffer.baseAddress!)
            domainCount = Int(raw.load(as: UInt32.self))
            pathCount = Int(raw.load(fromByteOffset: 4, as: UInt32.self))
            placeCount = Int(raw.load(fromByteOffset: 8, as: UInt32.self))
            memberCount = Int(raw.load(fromByteOffset: 12, as: UInt32.self))
            spans = raw + Self.header
            places = spans + (domainCount + pathCount) * MemoryLayout<Span>.stride
            members = places + placeCount * MemoryLayout<IndexedPlace>.stride
            bytes = (members + memberCount * MemoryLayout<Member>.stride).assumingMemoryBound(to: UInt8.self)
        }

        /// Domain `i`, or path `i - domainCount`.
        func span(_ i: Int) -> Span { spans.load(fromByteOffset: i * MemoryLayout<Span>.stride, as: Span.self) }
        func place(_ p: Int) -> IndexedPlace {
            places.load(fromByteOffset: p * MemoryLayout<IndexedPlace>.stride, as: IndexedPlace.self)
        }
        func member(_ j: Int) -> Member {
            members.load(fromByteOffset: j * MemoryLayout<Member>.stride, as: Member.self)
        }

        /// Tests each distinct domain and path once against the request's host and path, into
        /// `results` (`domainCount + pathCount` of them): a domain's bit 0 when it is the host,
        /// bit 1 when it domain-matches it; a path's 1 when it path-matches.
        @inline(__always)
        func test(
            host: UnsafeBufferPointer<UInt8>, path: UnsafeBufferPointer<UInt8>,
            into results: UnsafeMutableBufferPointer<UInt8>
        ) {
            var hostIsIP: Bool?
            for d in 0..<domainCount {
                let span = span(d)
                results[d] = Self.test(
                    domain: bytes + Int(span.offset), count: Int(span.length), host: host, hostIsIP: &hostIsIP)
            }
            for p in 0..<pathCount {
                let span = span(domainCount + p)
                results[domainCount + p] =
                    Self.test(path: bytes + Int(span.offset), count: Int(span.length), requestPath: path) ? 1 : 0
            }
        }

        /// Whether the cookies of `place` may be sent, by the results of `test`.
        @inline(__always)
        func matches(_ place: IndexedPlace, _ results: UnsafeMutableBufferPointer<UInt8>) -> Bool {
            results[Int(place.domain)] & (place.isHostOnly ? 1 : 2) != 0 && results[domainCount + Int(place.path)] != 0
        }

        /// Bit 0: the domain is the host; bit 1: it domain-matches the host (5.1.3).
        private static func test(
            domain: UnsafePointer<UInt8>, count: Int, host: UnsafeBufferPointer<UInt8>, hostIsIP: inout Bool?
        ) -> UInt8 {
            if count == host.count { return memcmp(domain, host.baseAddress!, count) == 0 ? 3 : 0 }
            guard count < host.count, host[host.count - count - 1] == UInt8(ascii: "."),
                memcmp(domain, host.baseAddress! + (host.count - count), count) == 0
            else { return 0 }
            let isIP = hostIsIP ?? Site.isIPAddress(host)
            hostIsIP = isIP
            return isIP ? 0 : 2
        }

        /// 5.1.4: the request path is the cookie path, or starts with it followed by or ending in "/".
        private static func test(
            path cookiePath: UnsafePointer<UInt8>, count: Int, requestPath path: UnsafeBufferPointer<UInt8>
        ) -> Bool {
            guard count <= path.count, memcmp(cookiePath, path.baseAddress!, count) == 0 else { return false }
            return count == path.count || (count > 0 && cookiePath[count - 1] == UInt8(ascii: "/"))
                || path[count] == UInt8(ascii: "/")
        }

        /// How many of the newest distinct domains, and of the newest paths, `build` compares a
        /// place's with. One found further back is numbered again: a lookup tests it twice.
        static let window = 64

        /// The index of `places` and `keys` (not empty), whose domains and paths are in `bytes`.
        static func build(places: [Place], keys: [Key], bytes: [UInt8]) -> [UInt8] {
            var counts = [UInt32](repeating: 0, count: places.count)
            for key in keys { counts[Int(key.place)] += 1 }
            // Where each distinct domain and path is in `bytes`, domains first.
            var domains: [Span] = []
            var paths: [Span] = []
            var kept: [IndexedPlace] = []
            var keptIndex = [Int](repeating: -1, count: places.count)
            bytes.withUnsafeBufferPointer { bytes in
                func number(_ offset: UInt32, _ length: UInt32, in spans: inout [Span]) -> UInt32 {
                    var i = spans.count - 1
                    while i >= max(0, spans.count - window) {
                        let span = spans[i]
                        if span.length == length
                            && (span.offset == offset
                                || memcmp(
                                    bytes.baseAddress! + Int(span.offset), bytes.baseAddress! + Int(offset), Int(length)
                                ) == 0)
                        {
                            return UInt32(i)
                        }
                        i -= 1
                    }
                    spans.append(Span(offset: offset, length: length))
                    return UInt32(spans.count - 1)
                }
                var first: UInt32 = 0
                for p in places.indices where counts[p] > 0 {
                    let place = places[p]
                    keptIndex[p] = kept.count
                    kept.append(
                        IndexedPlace(
                            first: first, count: 0, domain: number(place.domain, place.domainLength, in: &domains),
                            path: number(place.path, place.pathLength, in: &paths), isHostOnly: place.isHostOnly))
                    first += counts[p]
                }
            }
            var members = [Member](repeating: Member(index: 0, pair: 0), count: keys.count)
            for i in keys.indices {
                let k = keptIndex[Int(keys[i].place)]
                members[Int(kept[k].first + kept[k].count)] = Member(index: UInt32(i), pair: keys[i].pair)
                kept[k].count += 1
            }
            let spansSize = (domains.count + paths.count) * MemoryLayout<Span>.stride
            let placesSize = kept.count * MemoryLayout<IndexedPlace>.stride
            let membersSize = members.count * MemoryLayout<Member>.stride
            let textSize = domains.reduce(0) { $0 + Int($1.length) } + paths.reduce(0) { $0 + Int($1.length) }
            let size = header + spansSize + placesSize + membersSize + textSize
            return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                let raw = UnsafeMutableRawPointer(buffer.baseAddress!)
                raw.storeBytes(of: UInt32(domains.count), as: UInt32.self)
                raw.storeBytes(of: UInt32(paths.count), toByteOffset: 4, as: UInt32.self)
                raw.storeBytes(of: UInt32(kept.count), toByteOffset: 8, as: UInt32.self)
                raw.storeBytes(of: UInt32(members.count), toByteOffset: 12, as: UInt32.self)
                var at = raw + header + spansSize
                kept.withUnsafeBytes { at.copyMemory(from: $0.baseAddress!, byteCount: placesSize) }
                at += placesSize
                members.withUnsafeBytes { at.copyMemory(from: $0.baseAddress!, byteCount: membersSize) }
                at += membersSize
                // Each span moved to the index's bytes.
                var text = 0
                bytes.withUnsafeBufferPointer { bytes in
                    var n = 0
                    func move(_ spans: [Span]) {
                        for span in spans {
                            (at + text).copyMemory(
                                from: bytes.baseAddress! + Int(span.offset), byteCount: Int(span.length))
                            raw.storeBytes(
                                of: Span(offset: UInt32(text), length: span.length),
                                toByteOffset: header + n * MemoryLayout<Span>.stride, as: Span.self)
                            text += Int(span.length)
                            n += 1
                        }
                    }
                    move(domains)
                    move(paths)
                }
                initialized = size
            }
        }
    }
}
