import Foundation

/// A position in a store's change feed: changes are numbered in the order they were committed.
///
/// Keep the position of the last change you handled (its `value` is a plain number, in JSON and
/// on the command line too) and pass it to `WebsiteDataStore.changes(ofTypes:since:)` to resume
/// after a restart.
public struct ChangePosition: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The change's number in the store's change log.
    public var value: Int64

    /// The position with this number.
    ///
    /// - Parameter value: a change's number, as `value` gave it.
    public init(_ value: Int64) { self.value = value }

    /// The number.
    public var description: String { String(value) }

    /// Positions compare by number: a later commit has a larger one.
    public static func < (a: ChangePosition, b: ChangePosition) -> Bool { a.value < b.value }

    /// Encodes as the number alone.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    /// Decodes from the number alone.
    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(Int64.self)
    }
}

/// Why data changed.
public enum WebsiteDataChangeCause: String, Sendable, Hashable, CaseIterable, Codable {
    /// Written: a response, a page script or an API call stored or replaced it.
    case write
    /// Removed on request: a delete, a clear by type, site or date, `Clear-Site-Data`.
    case removal
    /// Brought in by an import.
    case `import`
    /// The browsing session ended (`endSession()`): a session cookie went. (sessionStorage,
    /// held in each process's memory and never written to the store, ends with the session
    /// without a change: the feed reports only its removals through the store, as `removal`.)
    case endSession
    /// It had expired and was purged.
    case expiry
    /// It was evicted to keep the store within its limits.
    case eviction
}

/// One change to a store's data, as its change feed reports it.
public struct WebsiteDataChange: Sendable, Hashable {
    /// Where the change is in the feed.
    public var position: ChangePosition
    /// The type of data that changed.
    public var type: WebsiteDataType
    /// The site (display name) whose data changed, or `*` for every site.
    public var site: String
    /// Why it changed.
    public var cause: WebsiteDataChangeCause
    /// When the change was committed.
    public var date: Date
    /// For a cookie change, the cookie, as set or as it was when removed; `nil` for other types
    /// and for a change the feed only knows by its site (then read the site's cookies).
    public var cookie: Cookie?
    /// For a cookie change, whether the cookie was removed (`false`: set or replaced).
    public var cookieRemoved: Bool

    /// Creates a change (the feed makes them; tests and adapters may too).
    ///
    /// - Parameters:
    ///   - position: where it is in the feed.
    ///   - type: the type of data.
    ///   - site: the site, or `*`.
    ///   - cause: why it changed.
    ///   - date: when it was committed.
    ///   - cookie: the cookie of a cookie change.
    ///   - cookieRemoved: whether the cookie was removed.
    public init(
        position: ChangePosition, type: WebsiteDataType, site: String, cause: WebsiteDataChangeCause, date: Date,
        cookie: Cookie? = nil, cookieRemoved: Bool = false
    ) {
        self.position = position
        self.type = type
        self.site = site
        self.cause = cause
        self.date = date
        self.cookie = cookie
        self.cookieRemoved = cookieRemoved
    }
}

/// What a change feed delivers: a change, or word that changes were missed.
public enum WebsiteDataChangeEvent: Sendable, Hashable {
    /// One change, in commit order, never twice.
    case change(WebsiteDataChange)
    /// Changes up to `position` cannot be told one by one (the change log no longer reaches
    /// back to where the feed started, or the subscriber fell more than the feed's buffer
    /// behind): read again whatever you keep of the store. The feed goes on with the changes
    /// after `position`.
    case reload(ChangePosition)
}

extension WebsiteDataStore {
    /// The position of the store's newest change: start a feed from it later
    /// (`changes(ofTypes:since:)`) to hear every change after this moment.
    ///
    /// - Throws: `StoreError` when the store cannot be read.
    public func changePosition() throws -> ChangePosition {
        do { return ChangePosition(try database.newestSequence()) } catch { throw StorageRemoval.storeError(error) }
    }

    /// Every change to the store's data of `types`, whoever made it: this object, another
    /// object or process on the store, an operator's `wkstore clear`; with its type, site,
    /// cause and, for cookies, the cookie.
    ///
    /// Changes arrive in commit order, never twice, promptly also in a process that makes no
    /// calls of its own (a thread of the feed watches the store's change counter). Settings and
    /// cookies' access times are not changes of data and are not reported. A subscriber that
    /// reads more than 10,000 events behind, or resumes from a position older than the change
    /// log keeps (`changes.keep-seconds`, `changes.keep-entries`), gets `.reload` instead of
    /// the changes it missed, and the feed goes on from there. The feed ends when the stream is
    /// no longer read (its task is cancelled) and finishes with an error when the store can no
    /// longer be read.
    ///
    /// - Parameters:
    ///   - types: the types to report (every type by default).
    ///   - position: report the changes after this position (a `WebsiteDataChange.position`
    ///     kept from an earlier feed, or `changePosition()`); `nil` for changes from now on.
    /// - Returns: the feed.
    /// - Throws: `StoreError` when the store cannot be read.
    public func changes(
        ofTypes types: Set<WebsiteDataType> = WebsiteDataType.all, since position: ChangePosition? = nil
    )
        throws -> AsyncThrowingStream<WebsiteDataChangeEvent, any Error>
    {
        let start = try position ?? changePosition()
        return ChangeFeed.stream(database: database, types: types, after: start.value)
    }
}
