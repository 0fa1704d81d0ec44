import Testing
import WebsiteDataTestSupport

@testable import WebsiteData

/// The JSON string escaper the storage-state writer, IndexedDB values and the command line share.
@Suite(.ownThreads) struct JSONStringTests {
    @Test func asJSONStringifyWritesThem() {
        #expect(JSONString.quoted("plain") == #""plain""#)
        #expect(JSONString.quoted("a\"b\\c") == #""a\"b\\c""#)
        #expect(JSONString.quoted("\n\r\t\u{08}\u{0C}\u{01}\u{1F}") == #""\n\r\t\b\f\u0001\u001f""#)
        // JSON.stringify leaves DEL and the line separators as they are.
        #expect(JSONString.quoted("\u{7F}\u{2028}\u{2029}é") == "\"\u{7F}\u{2028}\u{2029}é\"")
    }

    @Test func forScriptsAndTerminalsTheLineSeparatorsAndDELAreEscapedToo() {
        #expect(JSONString.quoted("\u{7F}\u{2028}\u{2029}é", script: true) == #""\u007f\u2028\u2029é""#)
        #expect(JSONString.quoted("a\u{01}", script: true) == #""a\u0001""#)
        var out = "["
        JSONString.append("x", to: &out, script: true)
        #expect(out == #"["x""#)
    }
}
