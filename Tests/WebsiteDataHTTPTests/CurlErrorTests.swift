import CCurl
import Testing

@testable import WebsiteDataHTTP

@Test func curlErrorCarriesLibcurlMessage() {
    let error = CurlError(code: CURLE_COULDNT_CONNECT, detail: "Failed to connect to 127.0.0.1 port 9")
    #expect(error.code == 7)
    #expect(error.message.hasPrefix("Couldn't connect to server"))
    #expect(error.message.hasSuffix("port 9"))
}

@Test func multiHandleErrorsNameTheMultiInterface() {
    let error = CurlError(multiCode: CURLM_BAD_EASY_HANDLE)
    #expect(error.code == Int32(CURLM_BAD_EASY_HANDLE.rawValue))
    #expect(error.message.hasPrefix("libcurl multi interface: "))
    #expect(error.message.lowercased().contains("easy handle"))
    #expect(CurlError.libcurlVersion.hasPrefix("libcurl/"))
}

/// A string that could not be one header line (a NUL, CR or LF anywhere) is refused whole.
@Test func stringListsRefuseLineBreaksAndNUL() throws {
    for bad in ["a\rb", "a\nb", "a\0b", "Cookie: a=1\r\nX-Injected: 1", "é\n", "\r"] {
        #expect(CurlStringList.hasLineBreakOrNUL(bad), "\(bad.debugDescription)")
        #expect(throws: HTTPClientError.self) { try CurlStringList(["Accept: */*", bad]) }
    }
    for good in ["", "Cookie: a=1; b=2", "é", String(repeating: "v", count: 4_000) + "\t ~"] {
        #expect(!CurlStringList.hasLineBreakOrNUL(good))
    }
    #expect(try CurlStringList(["A: 1", "B: 2"]).head != nil)
}
