import Foundation
import Testing
import WebsiteData
import WebsiteDataTestSupport

@testable import WebsiteDataHTTP

/// The names of cookies whose responses were fully handled.
final class Committed: Sendable {
    let names = Locked<Set<String>>([])
}

/// Many transfers at once through one client and one store.
@Suite(.ownThreads) struct ConcurrencyTests {
    @Test func fiftyConcurrentRequestsShareOneStore() async throws {
        let f = try Fixture()
        let client = try f.client()
        let count = 50
        // Names of cookies whose Set-Cookie response had been fully handled (send returned).
        let committed = Committed()
        let results = try await withThrowingTaskGroup(of: (Int, Set<String>, Set<String>).self) { group in
            for i in 0..<count {
                group.addTask { [base = f.base] in
                    let before = committed.names.withLock { $0 }
                    let response = try await client.send(
                        HTTPRequest(url: URL(string: "\(base)/r?set=\(q("c\(i)=\(i)"))")!))
                    let carried = try Echo(response).cookieNames
                    committed.names.withLock { _ = $0.insert("c\(i)") }
                    return (i, before, carried)
                }
            }
            var all: [(Int, Set<String>, Set<String>)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == count)
        for (i, before, carried) in results {
            // Every cookie committed before the request started went with it; its own never did.
            #expect(before.isSubset(of: carried), "request \(i) lacked \(before.subtracting(carried))")
            #expect(!carried.contains("c\(i)"))
        }
        let stored = try f.store.httpCookieStore.cookies(forSite: "a.example")
        #expect(Set(stored.map(\.name)) == Set((0..<count).map { "c\($0)" }))
        #expect(stored.allSatisfy { $0.value == String($0.name.dropFirst()) })
        let log = try await f.server.requestLog(using: client)
        #expect(log.count == count)
        // The last request, started after every other had finished, carries all of them.
        let last = try await client.send(HTTPRequest(url: URL(string: "\(f.base)/r")!))
        #expect(try Echo(last).cookieNames.count == count)
    }
}
