import Testing
import CCurl
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
