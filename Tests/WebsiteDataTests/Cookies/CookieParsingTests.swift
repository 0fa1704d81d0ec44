import Foundation
import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// Tests for the syntax-only cookie layer: `CookieDate` and `ParsedCookie`.
@Suite("CookieParsing", .ownThreads)
struct CookieParsingTests {
    // MARK: - Fixture-driven cookie-date suites

    /// One `{test, expected}` case of the http-state date suites.
    struct DateCase: Decodable {
        var test: String
        var expected: String?
    }

    /// Loads a date suite from the RFC 6265bis fixture directory, dropping
    /// `//` comment lines (the licence header of the Chromium BSD suite).
    static func loadDateSuite(_ file: String) throws -> [DateCase] {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        let url =
            fixtures
            .appendingPathComponent("cookies-http-state")
            .appendingPathComponent("rfc6265bis")
            .appendingPathComponent(file)
        let text = try String(contentsOf: url, encoding: .utf8)
        let json =
            text
            .split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            .joined(separator: "\n")
        return try JSONDecoder().decode([DateCase].self, from: Data(json.utf8))
    }

    @Test func dateSuites() throws {
        let examples = try Self.loadDateSuite("dates.json")
        let bsd = try Self.loadDateSuite("bsd-dates.json")
        #expect(examples.count == 15)
        #expect(bsd.count == 55)

        var passed = 0
        var failed = 0
        for testCase in examples + bsd {
            let actual = CookieDate.parse(testCase.test).map(CookieDate.format)
            if actual == testCase.expected {
                passed += 1
            } else {
                failed += 1
                print(
                    "date FAIL: \(testCase.test.debugDescription) -> \(actual ?? "null"), expected \(testCase.expected ?? "null")"
                )
            }
            #expect(actual == testCase.expected, "\(testCase.test.debugDescription)")
        }
        print("dates: \(passed) passed, \(failed) failed")
        #expect(passed == 70)
        #expect(failed == 0)
    }

    // MARK: - CookieDate unit tests

    @Test func dateSubstringAndStringAgree() {
        let text = "xx Wed, 09 Jun 2021 10:18:14 GMT yy"
        let sub = text.dropFirst(3).dropLast(3)
        #expect(CookieDate.parse(sub) == CookieDate.parse(String(sub)))
        #expect(CookieDate.parse(sub).map(CookieDate.format) == "Wed, 09 Jun 2021 10:18:14 GMT")
    }

    @Test func dateValidation() {
        // Day that doesn't exist in the month.
        #expect(CookieDate.parse("31 Feb 2020 00:00:00") == nil)
        #expect(CookieDate.parse("30 Feb 2020 00:00:00") == nil)
        #expect(CookieDate.parse("31 Apr 2021 00:00:00") == nil)
        #expect(CookieDate.parse("29 Feb 2023 00:00:00") == nil)
        #expect(CookieDate.parse("29 Feb 1900 00:00:00") == nil)
        #expect(CookieDate.parse("29 Feb 2000 00:00:00").map(CookieDate.format) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(CookieDate.parse("29 Feb 2024 12:00:00").map(CookieDate.format) == "Thu, 29 Feb 2024 12:00:00 GMT")
        // Ranges.
        #expect(CookieDate.parse("0 Jan 2020 00:00:00") == nil)
        #expect(CookieDate.parse("32 Jan 2020 00:00:00") == nil)
        #expect(CookieDate.parse("1 Jan 1600 00:00:00") == nil)
        #expect(CookieDate.parse("1 Jan 1601 00:00:00").map(CookieDate.format) == "Mon, 01 Jan 1601 00:00:00 GMT")
        #expect(CookieDate.parse("1 Jan 2020 24:00:00") == nil)
        #expect(CookieDate.parse("1 Jan 2020 23:60:00") == nil)
        #expect(CookieDate.parse("1 Jan 2020 23:59:60") == nil)
        #expect(CookieDate.parse("31 Dec 9999 23:59:59").map(CookieDate.format) == "Fri, 31 Dec 9999 23:59:59 GMT")
        // Two-digit years.
        #expect(CookieDate.parse("1 Jan 69 00:00:00").map(CookieDate.format) == "Tue, 01 Jan 2069 00:00:00 GMT")
        #expect(CookieDate.parse("1 Jan 70 00:00:00").map(CookieDate.format) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(CookieDate.parse("1 Jan 00 00:00:00").map(CookieDate.format) == "Sat, 01 Jan 2000 00:00:00 GMT")
        // Missing components.
        #expect(CookieDate.parse("") == nil)
        #expect(CookieDate.parse("Jan 2020 00:00:00") == nil)
        #expect(CookieDate.parse("1 2020 00:00:00") == nil)
        #expect(CookieDate.parse("1 Jan 00:00:00") == nil)
        #expect(CookieDate.parse("1 Jan 2020") == nil)
    }

    @Test func dateEpochValues() {
        #expect(CookieDate.parse("Thu, 01 Jan 1970 00:00:00 GMT")?.timeIntervalSince1970 == 0)
        #expect(CookieDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")?.timeIntervalSince1970 == 784_111_777)
        #expect(CookieDate.parse("Wed, 31 Dec 1969 23:59:59 GMT")?.timeIntervalSince1970 == -1)
    }

    @Test func formatIMFFixdate() {
        #expect(CookieDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(CookieDate.format(Date(timeIntervalSince1970: 784_111_777.9)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(CookieDate.format(Date(timeIntervalSince1970: -0.5)) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(CookieDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        // Never traps on extreme input.
        _ = CookieDate.format(Date.distantFuture)
        _ = CookieDate.format(Date.distantPast)
        _ = CookieDate.format(Date(timeIntervalSince1970: .infinity))
        _ = CookieDate.format(Date(timeIntervalSince1970: -.infinity))
        _ = CookieDate.format(Date(timeIntervalSince1970: .nan))
    }

    @Test func civilRoundTrip() {
        for days in stride(from: -200_000, through: 3_000_000, by: 997) {
            let civil = GregorianCalendar.date(days: Int64(days))
            #expect(GregorianCalendar.days(year: civil.year, month: civil.month, day: civil.day) == Int64(days))
        }
    }

    // MARK: - ParsedCookie: refusal

    @Test func refusesControlCharacters() {
        for byte in Array(0x00...0x08) + Array(0x0A...0x1F) + [0x7F] {
            let char = String(UnicodeScalar(UInt8(byte)))
            #expect(ParsedCookie.parse("a=b\(char)c") == nil, "CTL \(byte) in value")
            #expect(ParsedCookie.parse("a=b; Path=/\(char)") == nil, "CTL \(byte) in attribute")
            #expect(ParsedCookie.parse("\(char)a=b") == nil, "CTL \(byte) in name")
        }
        // HTAB is allowed (and trimmed).
        let tab = ParsedCookie.parse("\ta\t=\tb\tc\t")
        #expect(tab?.name == "a")
        #expect(tab?.value == "b\tc")
    }

    @Test func refusesEmptyNameAndValue() {
        #expect(ParsedCookie.parse("") == nil)
        #expect(ParsedCookie.parse("=") == nil)
        #expect(ParsedCookie.parse("  =  ") == nil)
        #expect(ParsedCookie.parse(" ") == nil)
        #expect(ParsedCookie.parse("; Path=/") == nil)
        #expect(ParsedCookie.parse("=; Secure") == nil)
    }

    @Test func nameValueSizeLimit() {
        let name = String(repeating: "n", count: 96)
        let okValue = String(repeating: "v", count: 4096 - 96)
        let ok = ParsedCookie.parse("\(name)=\(okValue)")
        #expect(ok?.name == name)
        #expect(ok?.value.utf8.count == 4000)
        #expect(ParsedCookie.parse("\(name)=\(okValue)v") == nil)
        // Whitespace that is trimmed does not count.
        #expect(ParsedCookie.parse("  \(name)  =  \(okValue)  ; Secure") != nil)
        // Multi-byte characters are counted in octets.
        let euro = String(repeating: "€", count: 1365) // 4095 bytes
        #expect(ParsedCookie.parse("a=\(euro)") != nil)
        #expect(ParsedCookie.parse("ab=\(euro)") == nil)
        // A nameless cookie is limited the same way.
        #expect(ParsedCookie.parse(String(repeating: "x", count: 4096)) != nil)
        #expect(ParsedCookie.parse(String(repeating: "x", count: 4097)) == nil)
    }

    // MARK: - ParsedCookie: name-value pair

    @Test func basicCookie() {
        let cookie = ParsedCookie.parse("SID=31d4d96e407aad42")
        #expect(
            cookie
                == ParsedCookie(
                    name: "SID", value: "31d4d96e407aad42", expires: nil, maxAge: nil, domain: nil, path: nil,
                    secure: false, httpOnly: false, sameSite: .unspecified, partitioned: false
                ))
    }

    @Test func namelessCookies() {
        let bare = ParsedCookie.parse("foo")
        #expect(bare?.name == "")
        #expect(bare?.value == "foo")
        let withAttrs = ParsedCookie.parse(" foo bar ; Path=/x")
        #expect(withAttrs?.name == "")
        #expect(withAttrs?.value == "foo bar")
        #expect(withAttrs?.path == "/x")
        let emptyName = ParsedCookie.parse("=foo")
        #expect(emptyName?.name == "")
        #expect(emptyName?.value == "foo")
        let emptyValue = ParsedCookie.parse("foo=")
        #expect(emptyValue?.name == "foo")
        #expect(emptyValue?.value == "")
    }

    @Test func nameValueSplitAndTrim() {
        let cookie = ParsedCookie.parse("  a b  =  c=d = e  ;Secure")
        #expect(cookie?.name == "a b")
        #expect(cookie?.value == "c=d = e")
        #expect(cookie?.secure == true)
        // Only SP and HTAB are whitespace; other characters are kept.
        let nbsp = ParsedCookie.parse("a=\u{00A0}b\u{00A0}")
        #expect(nbsp?.value == "\u{00A0}b\u{00A0}")
    }

    @Test func quotedValuesKeptAsIs() {
        #expect(ParsedCookie.parse("a=\"b\"")?.value == "\"b\"")
        #expect(ParsedCookie.parse("a=\" b c \" ; Path=/")?.value == "\" b c \"")
        #expect(ParsedCookie.parse("a=\"b")?.value == "\"b")
        #expect(ParsedCookie.parse("\"a\"=b")?.name == "\"a\"")
    }

    @Test func nonASCIIBytesPreserved() {
        let cookie = ParsedCookie.parse("ключ=значение; Domain=ÉXAMPLE.org")
        #expect(cookie?.name == "ключ")
        #expect(cookie?.value == "значение")
        // Only ASCII letters are folded; IDNA is left to the policy layer.
        #expect(cookie?.domain == "Éxample.org")
    }

    // MARK: - ParsedCookie: attributes

    @Test func attributeNamesCaseInsensitiveAndTrimmed() {
        let cookie = ParsedCookie.parse(
            "a=b;  SECURE ;httponly;\tPaRtItIoNeD\t; sAmEsItE = lAx ; DOMAIN = Example.COM ; PATH = /p ; MAX-AGE = 10 ; EXPIRES = Wed, 09 Jun 2021 10:18:14 GMT"
        )
        #expect(cookie?.secure == true)
        #expect(cookie?.httpOnly == true)
        #expect(cookie?.partitioned == true)
        #expect(cookie?.sameSite == .lax)
        #expect(cookie?.domain == "example.com")
        #expect(cookie?.path == "/p")
        #expect(cookie?.maxAge == 10)
        #expect(cookie?.expires.map(CookieDate.format) == "Wed, 09 Jun 2021 10:18:14 GMT")
    }

    @Test func flagsIgnoreValues() {
        let cookie = ParsedCookie.parse("a=b; Secure=no; HttpOnly=false; Partitioned=0")
        #expect(cookie?.secure == true)
        #expect(cookie?.httpOnly == true)
        #expect(cookie?.partitioned == true)
        let none = ParsedCookie.parse("a=b; Secur; HttpOnlyx; Partition; Secure-; =Secure")
        #expect(none?.secure == false)
        #expect(none?.httpOnly == false)
        #expect(none?.partitioned == false)
    }

    @Test func unknownAndEmptyAttributesIgnored() {
        let cookie = ParsedCookie.parse("a=b;;; ; Foo=bar; =; Comment=x; Version=1;")
        #expect(
            cookie
                == ParsedCookie(
                    name: "a", value: "b", expires: nil, maxAge: nil, domain: nil, path: nil,
                    secure: false, httpOnly: false, sameSite: .unspecified, partitioned: false
                ))
    }

    @Test func oversizeAttributeIgnored() {
        let limit = "/" + String(repeating: "p", count: 1023)
        #expect(ParsedCookie.parse("a=b; Path=\(limit)")?.path == limit)
        let cookie = ParsedCookie.parse("a=b; Path=/ok; Path=\(limit)p; Secure")
        #expect(cookie != nil)
        #expect(cookie?.path == "/ok") // the oversize one is skipped, not the cookie
        #expect(cookie?.secure == true)
        let domain = String(repeating: "d", count: 1025)
        #expect(ParsedCookie.parse("a=b; Domain=\(domain)")?.domain == nil)
        // Trailing whitespace around the value is not counted.
        #expect(ParsedCookie.parse("a=b; Path=  \(limit)  ")?.path == limit)
    }

    @Test func maxAgeForms() {
        #expect(ParsedCookie.parse("a=b; Max-Age=-1")?.maxAge == -1)
        #expect(ParsedCookie.parse("a=b; Max-Age=0")?.maxAge == 0)
        #expect(ParsedCookie.parse("a=b; Max-Age=-0")?.maxAge == 0)
        #expect(ParsedCookie.parse("a=b; Max-Age=3600")?.maxAge == 3600)
        #expect(ParsedCookie.parse("a=b; Max-Age=007")?.maxAge == 7)
        #expect(ParsedCookie.parse("a=b; Max-Age=abc")?.maxAge == nil)
        #expect(ParsedCookie.parse("a=b; Max-Age=1e3")?.maxAge == nil)
        #expect(ParsedCookie.parse("a=b; Max-Age=+5")?.maxAge == nil)
        #expect(ParsedCookie.parse("a=b; Max-Age=5.0")?.maxAge == nil)
        #expect(ParsedCookie.parse("a=b; Max-Age=1 2")?.maxAge == nil)
        #expect(ParsedCookie.parse("a=b; Max-Age=--1")?.maxAge == nil)
        #expect(ParsedCookie.parse("a=b; Max-Age=-")?.maxAge == nil)
        #expect(ParsedCookie.parse("a=b; Max-Age=")?.maxAge == nil)
        #expect(ParsedCookie.parse("a=b; Max-Age")?.maxAge == nil)
        // Huge values saturate.
        #expect(ParsedCookie.parse("a=b; Max-Age=9223372036854775807")?.maxAge == .max)
        #expect(ParsedCookie.parse("a=b; Max-Age=9223372036854775808")?.maxAge == .max)
        #expect(ParsedCookie.parse("a=b; Max-Age=99999999999999999999999999999")?.maxAge == .max)
        #expect(ParsedCookie.parse("a=b; Max-Age=-99999999999999999999999999999")?.maxAge == -.max)
        // An invalid Max-Age does not erase an earlier valid one.
        #expect(ParsedCookie.parse("a=b; Max-Age=60; Max-Age=abc")?.maxAge == 60)
        #expect(ParsedCookie.parse("a=b; Max-Age=60; Max-Age=-1")?.maxAge == -1)
    }

    @Test func expiresAttribute() {
        let cookie = ParsedCookie.parse("a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT")
        #expect(cookie?.expires?.timeIntervalSince1970 == 1_623_233_894)
        #expect(ParsedCookie.parse("a=b; Expires=garbage")?.expires == nil)
        #expect(ParsedCookie.parse("a=b; Expires=")?.expires == nil)
        // Unparseable dates are ignored; an earlier valid one survives.
        let kept = ParsedCookie.parse("a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Expires=31 Feb 2022 00:00:00")
        #expect(kept?.expires?.timeIntervalSince1970 == 1_623_233_894)
        let last = ParsedCookie.parse(
            "a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT; expires=Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(last?.expires?.timeIntervalSince1970 == 0)
        // Expires and Max-Age are both reported; precedence is the caller's.
        let both = ParsedCookie.parse("a=b; Max-Age=5; Expires=Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(both?.maxAge == 5)
        #expect(both?.expires != nil)
    }

    @Test func domainAttribute() {
        #expect(ParsedCookie.parse("a=b")?.domain == nil)
        #expect(ParsedCookie.parse("a=b; Domain=example.com")?.domain == "example.com")
        #expect(ParsedCookie.parse("a=b; Domain=.Example.COM")?.domain == "example.com")
        #expect(ParsedCookie.parse("a=b; Domain=..example.com")?.domain == ".example.com")
        #expect(ParsedCookie.parse("a=b; Domain=")?.domain == "")
        #expect(ParsedCookie.parse("a=b; Domain")?.domain == "")
        #expect(ParsedCookie.parse("a=b; Domain=.")?.domain == "")
        #expect(ParsedCookie.parse("a=b; Domain=  .example.com  ")?.domain == "example.com")
        // Last one wins, even when empty.
        #expect(ParsedCookie.parse("a=b; Domain=example.com; Domain=")?.domain == "")
        #expect(ParsedCookie.parse("a=b; Domain=; Domain=example.org")?.domain == "example.org")
    }

    @Test func pathAttribute() {
        #expect(ParsedCookie.parse("a=b")?.path == nil)
        #expect(ParsedCookie.parse("a=b; Path=/")?.path == "/")
        #expect(ParsedCookie.parse("a=b; Path=/Foo/Bar/")?.path == "/Foo/Bar/")
        #expect(ParsedCookie.parse("a=b; Path=")?.path == nil)
        #expect(ParsedCookie.parse("a=b; Path")?.path == nil)
        #expect(ParsedCookie.parse("a=b; Path=foo")?.path == nil)
        #expect(ParsedCookie.parse("a=b; Path= /x ")?.path == "/x")
        #expect(ParsedCookie.parse("a=b; Path=/a b")?.path == "/a b")
        // Last one wins: an invalid last Path means the default path.
        #expect(ParsedCookie.parse("a=b; Path=/x; Path=y")?.path == nil)
        #expect(ParsedCookie.parse("a=b; Path=y; Path=/x")?.path == "/x")
    }

    @Test func sameSiteValues() {
        #expect(ParsedCookie.parse("a=b")?.sameSite == .unspecified)
        #expect(ParsedCookie.parse("a=b; SameSite=Strict")?.sameSite == .strict)
        #expect(ParsedCookie.parse("a=b; SameSite=strict")?.sameSite == .strict)
        #expect(ParsedCookie.parse("a=b; SameSite=LAX")?.sameSite == .lax)
        #expect(ParsedCookie.parse("a=b; SameSite=None")?.sameSite == CookieSameSite.none)
        #expect(ParsedCookie.parse("a=b; SameSite=nOnE")?.sameSite == CookieSameSite.none)
        #expect(ParsedCookie.parse("a=b; SameSite")?.sameSite == .unspecified)
        #expect(ParsedCookie.parse("a=b; SameSite=")?.sameSite == .unspecified)
        #expect(ParsedCookie.parse("a=b; SameSite=Laxx")?.sameSite == .unspecified)
        #expect(ParsedCookie.parse("a=b; SameSite=\"Lax\"")?.sameSite == .unspecified)
        #expect(ParsedCookie.parse("a=b; SameSite=Unspecified")?.sameSite == .unspecified)
        // Last one wins, including an unrecognised value.
        #expect(ParsedCookie.parse("a=b; SameSite=Strict; SameSite=Lax")?.sameSite == .lax)
        #expect(ParsedCookie.parse("a=b; SameSite=Strict; SameSite=bogus")?.sameSite == .unspecified)
    }

    @Test func sameSiteRawValues() {
        #expect(CookieSameSite.allCases == [.unspecified, .none, .lax, .strict])
        #expect(CookieSameSite.allCases.map(\.rawValue) == ["unspecified", "none", "lax", "strict"])
    }

    @Test func parseBytesMatchesString() {
        let header = "id=a3fWa; Expires=Thu, 21 Oct 2021 07:28:00 GMT; Secure; HttpOnly; SameSite=Lax"
        let fromBytes = Array(header.utf8).withUnsafeBufferPointer { ParsedCookie.parse(bytes: $0) }
        #expect(fromBytes == ParsedCookie.parse(header))
        #expect(fromBytes?.expires.map(CookieDate.format) == "Thu, 21 Oct 2021 07:28:00 GMT")
    }
}
