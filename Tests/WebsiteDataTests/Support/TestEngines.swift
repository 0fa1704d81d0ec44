import Foundation
import WebsiteDataTestSupport

@testable import WebsiteData

extension TestEngine {
    /// The PostgreSQL store standing for `directory` (a new one for `nil`), as the library's
    /// location of it.
    static func postgreSQLLocation(for directory: URL?) throws -> PostgreSQLStoreLocation {
        let store = try postgreSQLStore(for: directory)
        return PostgreSQLStoreLocation(connectionString: store.connectionString, identifier: store.identifier)
    }
}
