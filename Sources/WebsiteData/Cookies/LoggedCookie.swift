import Foundation

/// A cookie change as the change log holds it.
struct LoggedCookie: Sendable, Hashable {
    /// What happened to the cookie (the log's `op` column).
    enum Op: Int64, Sendable, Hashable {
        /// Inserted or overwritten: the cookie is the new one.
        case set = 1
        /// Deleted.
        case delete = 2
        /// Its last-access time moved on (and nothing else changed).
        case access = 3
    }

    var op: Op
    var cookie: Cookie

    init(op: Op, cookie: Cookie) {
        self.op = op
        self.cookie = cookie
    }

    /// A change the jar made: an upsert is a set.
    init(_ change: CookieJarChange) {
        switch change {
        case .upsert(let c): self.init(op: .set, cookie: c)
        case .delete(let c, _): self.init(op: .delete, cookie: c)
        }
    }
}
