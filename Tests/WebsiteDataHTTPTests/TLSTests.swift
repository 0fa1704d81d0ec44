import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

@testable import WebsiteDataHTTP

/// A test's directory with a certificate, an HTTPS loopback server using it, a plain-HTTP one,
/// and a fresh in-memory store.
struct TLSFixture {
    let directory: TestDirectory
    let certificate: TestCertificate
    let https: LoopbackServer
    let http: LoopbackServer
    let store = WebsiteDataStore.nonPersistent()

    init() throws {
        directory = try TestDirectory()
        certificate = try TestCertificate(in: directory.url)
        https = try LoopbackServer(in: directory.url, tls: certificate)
        http = try LoopbackServer(in: directory.url)
    }

    /// A client that trusts the test certificate (unless told otherwise) and resolves the test hosts.
    func client(trustingCertificate: Bool = true, _ configure: (inout HTTPClientConfiguration) -> Void = { _ in })
        throws -> HTTPClient
    {
        var configuration = HTTPClientConfiguration(
            caCertificateFile: trustingCertificate ? certificate.certificate : nil, proxy: "",
            resolve: https.resolve(Fixture.hosts) + http.resolve(Fixture.hosts))
        configure(&configuration)
        return try HTTPClient(store: store, configuration: configuration)
    }

    /// `https://HOST:PORT`.
    func secure(_ host: String) -> String { "https://\(host):\(https.port)" }
    /// `http://HOST:PORT`.
    func plain(_ host: String) -> String { "http://\(host):\(http.port)" }
}

@Suite(.ownThreads) struct TLSTests {
    @Test func secureCookiesFlowOverVerifiedTLS() async throws {
        let f = try TLSFixture()
        let client = try f.client()
        let set = try await client.send(
            HTTPRequest(
                url: URL(
                    string: "\(f.secure("secure.example.org"))/r?set=\(q("s=1; Secure; HttpOnly"))&set=\(q("p=2"))")!))
        #expect(set.status == 200)
        #expect(set.url.scheme == "https")
        let again = try await client.send(HTTPRequest(url: URL(string: "\(f.secure("secure.example.org"))/r")!))
        #expect(try Echo(again).cookie == "s=1; p=2")
        // The same host over plain HTTP gets the non-Secure cookie only.
        let plain = try await client.send(HTTPRequest(url: URL(string: "\(f.plain("secure.example.org"))/r")!))
        #expect(try Echo(plain).cookie == "p=2")
        // Also by IP address, which the certificate names.
        let byIP = try await client.send(HTTPRequest(url: URL(string: "https://127.0.0.1:\(f.https.port)/r")!))
        #expect(byIP.status == 200)
    }

    @Test func verificationFailsWithoutTheCertificateAuthority() async throws {
        let f = try TLSFixture()
        let untrusting = try f.client(trustingCertificate: false)
        let error = await #expect(throws: CurlError.self) {
            try await untrusting.send(HTTPRequest(url: URL(string: "\(f.secure("secure.example.org"))/r?set=x%3D1")!))
        }
        #expect(error?.code == CurlError.peerFailedVerification)
        #expect(error?.message.contains("certificate") == true)
        print("TLS verification failure reads: \(error?.message ?? "")")
        #expect(try f.store.httpCookieStore.allCookies().isEmpty)

        // A name the certificate does not list fails even with the CA file.
        let trusting = try f.client { $0.resolve.append("unlisted.example.org:\(f.https.port):127.0.0.1") }
        let wrongName = await #expect(throws: CurlError.self) {
            try await trusting.send(HTTPRequest(url: URL(string: "https://unlisted.example.org:\(f.https.port)/r")!))
        }
        #expect(wrongName?.code == CurlError.peerFailedVerification)

        // -k skips verification.
        let insecure = try f.client(trustingCertificate: false) { $0.insecure = true }
        #expect(
            try await insecure.send(HTTPRequest(url: URL(string: "\(f.secure("secure.example.org"))/r")!)).status == 200
        )

        let missing = try f.client { $0.caCertificateFile = f.directory.url.appendingPathComponent("missing.pem") }
        let badFile = await #expect(throws: CurlError.self) {
            try await missing.send(HTTPRequest(url: URL(string: "\(f.secure("secure.example.org"))/r")!))
        }
        #expect(badFile?.code == CurlError.badCACertificateFile)
    }

    @Test func httpVersionsOverTLS() async throws {
        let f = try TLSFixture()
        // Python's server offers no ALPN, so HTTP/2 over TLS falls back to HTTP/1.1.
        for version in [HTTPVersionPreference.http2OverTLS, .http1_1] {
            let client = try f.client { $0.httpVersion = version }
            let response = try await client.send(HTTPRequest(url: URL(string: "\(f.secure("secure.example.org"))/r")!))
            #expect(response.httpVersion == "1.1")
        }
    }
}
