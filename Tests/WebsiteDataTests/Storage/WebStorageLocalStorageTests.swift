import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Origins used across the web storage tests.
enum WebStorageOrigins {
    static let example = SecurityOrigin(string: "https://www.example.com")!
    static let exampleHTTP = SecurityOrigin(string: "http://example.com")!
    static let examplePort = SecurityOrigin(string: "https://example.com:8443")!
    static let other = SecurityOrigin(string: "https://other.org")!
}

@Suite(.ownThreads, .bothEngines) struct WebStorageSecurityOriginTests {
    @Test func serializesSchemeHostAndNonDefaultPort() throws {
        #expect(
            SecurityOrigin(url: URL(string: "HTTPS://WWW.Example.COM:443/a/b?c#d")!)?.description
                == "https://www.example.com")
        #expect(SecurityOrigin(url: URL(string: "http://example.com:8080/")!)?.description == "http://example.com:8080")
        #expect(SecurityOrigin(url: URL(string: "http://[::1]:8080/x")!)?.description == "http://[::1]:8080")
        #expect(SecurityOrigin(url: URL(string: "file:///tmp/page.html")!)?.description == "file://")
        #expect(SecurityOrigin(url: URL(string: "data:text/plain,hi")!) == nil)
        #expect(SecurityOrigin(url: URL(string: "about:blank")!) == nil)
    }

    @Test func parsesOnlyOriginSerializations() {
        #expect(SecurityOrigin(string: "https://example.com")?.port == nil)
        #expect(SecurityOrigin(string: "https://example.com/") == SecurityOrigin(string: "https://example.com"))
        #expect(SecurityOrigin(string: "https://example.com:8443")?.port == 8443)
        #expect(SecurityOrigin(string: "file://") == SecurityOrigin(url: URL(fileURLWithPath: "/etc/hosts")))
        #expect(SecurityOrigin(string: "https://example.com/path") == nil)
        #expect(SecurityOrigin(string: "https://example.com?q") == nil)
        #expect(SecurityOrigin(string: "https://user@example.com") == nil)
        #expect(SecurityOrigin(string: "example.com") == nil)
        #expect(SecurityOrigin(string: "") == nil)
    }

    @Test func siteIsTheDisplayName() {
        #expect(WebStorageOrigins.example.site == "example.com")
        #expect(SecurityOrigin(string: "http://127.0.0.1:8000")?.site == "127.0.0.1")
        #expect(SecurityOrigin(string: "file://")?.site == Site.localFilesDisplayName)
    }

    @Test func roundTripsThroughCodable() throws {
        let data = try JSONEncoder().encode([WebStorageOrigins.examplePort])
        #expect(String(decoding: data, as: UTF8.self) == #"["https:\/\/example.com:8443"]"#)
        #expect(try JSONDecoder().decode([SecurityOrigin].self, from: data) == [WebStorageOrigins.examplePort])
    }
}

@Suite(.ownThreads, .bothEngines) struct WebStorageLocalStorageTests {
    let dir = TemporaryDirectory()
    let origin = WebStorageOrigins.example

    @Test func itemsPersistAcrossReopen() throws {
        do {
            let store = try WebsiteDataStore.testing(dir.url)
            try store.localStorage.setItem("first", "1", origin: origin)
            try store.localStorage.setItem("second", "2", origin: origin)
            try store.localStorage.setItem("first", "one", origin: origin)
        }
        let local = try WebsiteDataStore.testing(dir.url).localStorage
        #expect(try local.getItem("first", origin: origin) == "one")
        #expect(try local.getItem("second", origin: origin) == "2")
        #expect(try local.getItem("third", origin: origin) == nil)
        #expect(try local.keys(origin: origin) == ["first", "second"])
        #expect(try local.key(at: 1, origin: origin) == "second")
        #expect(try local.key(at: 2, origin: origin) == nil)
        #expect(try local.length(origin: origin) == 2)
        #expect(try local.items(origin: origin).map(\.value) == ["one", "2"])
        #expect(try local.origins() == [origin])
    }

    @Test func originsDoNotShareItems() throws {
        let local = try WebsiteDataStore.testing(dir.url).localStorage
        try local.setItem("k", "secure", origin: origin)
        try local.setItem("k", "plain", origin: WebStorageOrigins.exampleHTTP)
        try local.setItem("k", "port", origin: WebStorageOrigins.examplePort)
        #expect(try local.getItem("k", origin: origin) == "secure")
        #expect(try local.getItem("k", origin: WebStorageOrigins.exampleHTTP) == "plain")
        #expect(try local.getItem("k", origin: WebStorageOrigins.examplePort) == "port")
        try local.clear(origin: WebStorageOrigins.exampleHTTP)
        #expect(try local.length(origin: WebStorageOrigins.exampleHTTP) == 0)
        #expect(try local.length(origin: origin) == 1)
        try local.removeItem("k", origin: origin)
        #expect(try local.getItem("k", origin: origin) == nil)
        #expect(try local.getItem("k", origin: WebStorageOrigins.examplePort) == "port")
    }

    @Test func nulCharactersSurviveInKeysAndValues() throws {
        do {
            let store = try WebsiteDataStore.testing(dir.url)
            try store.localStorage.setItem("a\u{0}b", "x\u{0}y\u{0}", origin: origin)
        }
        let local = try WebsiteDataStore.testing(dir.url).localStorage
        #expect(try local.getItem("a\u{0}b", origin: origin) == "x\u{0}y\u{0}")
        #expect(try local.getItem("a", origin: origin) == nil)
        #expect(try local.keys(origin: origin) == ["a\u{0}b"])
        #expect(try local.key(at: 0, origin: origin) == "a\u{0}b")
        #expect(try local.usage(origin: origin) == (3 + 4) * 2)
    }

    @Test func sizesCountUTF16CodeUnitsTwoBytesEach() {
        #expect(StorageItem.size(key: "", value: "a") == 2)
        #expect(StorageItem.size(key: "é", value: "") == 2)
        #expect(StorageItem.size(key: "", value: "€") == 2)
        #expect(StorageItem.size(key: "😀", value: "") == 4)
        #expect(StorageItem.size(key: "ab", value: "𝄞x") == (2 + 3) * 2)
    }

    @Test func aValueOfExactlyTheQuotaFitsAndOneUnitMoreThrows() throws {
        let local = try WebsiteDataStore.testing(dir.url).localStorage
        let quota: Int64 = 5 * 1024 * 1024
        let full = String(repeating: "a", count: 2_621_440)
        try local.setItem("", full, origin: origin)
        #expect(try local.usage(origin: origin) == quota)

        // One more UTF-16 unit, as a new key or as a longer value, is refused and changes nothing.
        #expect(throws: StorageQuotaError(origin: origin, quota: quota, required: quota + 2)) {
            try local.setItem("b", "", origin: origin)
        }
        #expect(throws: StorageQuotaError(origin: origin, quota: quota, required: quota + 2)) {
            try local.setItem("", full + "a", origin: origin)
        }
        #expect(try local.keys(origin: origin) == [""])
        #expect(try local.getItem("", origin: origin)?.utf16.count == 2_621_440)
        #expect(try local.usage(origin: origin) == quota)

        // The quota is per origin: another origin still has all of its own.
        try local.setItem("b", "", origin: WebStorageOrigins.other)
    }

    @Test func charactersOutsideTheBMPCountTwoUnits() throws {
        let local = try WebsiteDataStore.testing(dir.url).localStorage
        let quota: Int64 = 5 * 1024 * 1024
        // 1,310,720 emoji are 2,621,440 UTF-16 units: exactly the quota.
        let emoji = String(repeating: "😀", count: 1_310_720)
        try local.setItem("", emoji, origin: origin)
        #expect(try local.usage(origin: origin) == quota)
        #expect(throws: StorageQuotaError(origin: origin, quota: quota, required: quota + 4)) {
            try local.setItem("", emoji + "😀", origin: origin)
        }
        // A BMP character in place of the last emoji frees one unit.
        try local.setItem("", String(repeating: "😀", count: 1_310_719) + "é", origin: origin)
        #expect(try local.usage(origin: origin) == quota - 2)
    }

    @Test func theQuotaIsAStoreSetting() throws {
        let store = try WebsiteDataStore.testing(dir.url)
        try store.set(.localStorageQuota, to: "10")
        try store.localStorage.setItem("ab", "abc", origin: origin)
        #expect(throws: StorageQuotaError(origin: origin, quota: 10, required: 12)) {
            try store.localStorage.setItem("ab", "abcd", origin: origin)
        }
        #expect(try store.localStorage.getItem("ab", origin: origin) == "abc")
        // Another process on the store uses the same quota.
        let other = try WebsiteDataStore.testing(dir.url)
        #expect(throws: StorageQuotaError.self) { try other.localStorage.setItem("c", "dddd", origin: origin) }
        #expect(throws: StoreError.self) { try store.set(.localStorageQuota, to: "0") }
    }

    @Test func anotherProcessSeesWritesAtOnce() throws {
        let writer = try WebsiteDataStore.testing(dir.url)
        let reader = try WebsiteDataStore.testing(dir.url)
        try writer.localStorage.setItem("k", "v1", origin: origin)
        #expect(try reader.localStorage.getItem("k", origin: origin) == "v1")
        try writer.localStorage.setItem("k", "v2", origin: origin)
        #expect(try reader.localStorage.getItem("k", origin: origin) == "v2")
        try reader.localStorage.removeItem("k", origin: origin)
        #expect(try writer.localStorage.getItem("k", origin: origin) == nil)
    }

    @Test func aNonPersistentStoreKeepsItemsInMemory() throws {
        let store = try WebsiteDataStore.testing(nil)
        try store.localStorage.setItem("k", "v", origin: origin)
        #expect(try store.localStorage.getItem("k", origin: origin) == "v")
        #expect(try WebsiteDataStore.testing(nil).localStorage.getItem("k", origin: origin) == nil)
    }

    @Test func eachItemKeepsItsModificationTime() throws {
        let clock = TestClock()
        let local = try WebsiteDataStore.testing(dir.url, clock: clock).localStorage
        let start = clock.now
        try local.setItem("a", "1", origin: origin)
        clock.advance(10)
        try local.setItem("b", "1", origin: origin)
        clock.advance(10)
        try local.setItem("a", "1", origin: origin) // the same value: no change
        #expect(try local.items(origin: origin).map(\.modified) == [start, start + 10])
        try local.setItem("a", "2", origin: origin)
        #expect(try local.items(origin: origin).map(\.modified) == [start + 20, start + 10])
    }
}
