import Foundation
import Synchronization

/// Hears the commits made to a PostgreSQL store by other processes and machines, and bumps the
/// change counter that every store object of this process on that store shares, so that lookups
/// and feeds catch up from the change log without asking the server on every call (DESIGN.md,
/// decision 5).
///
/// One listener serves each store (connection string and schema) in a process, while a store
/// object on it is open. Its counter plays the part the memory-mapped counter file plays on
/// SQLite: a store object bumps it after each of its own commits, so another object of the same
/// process sees the change at its next call. A thread of its own waits on a connection of its
/// own (`LISTEN wkstore_changes`); the server sends each appending commit's schema and newest
/// position, and commits of this process's own writer connections are left out (counted when
/// they were made). While the connection is down, the thread tries again every
/// `retryInterval` and bumps the counter once it is back, since notifications sent meanwhile
/// were lost. Readers of the counter also read the log once a second whatever it says.
final class PostgreSQLChangeListener: Sendable {
    /// The channel the schema's trigger notifies.
    static let channel = "wkstore_changes"
    /// How long a wait for notifications lasts before the thread checks whether to stop.
    static let waitSlice: Duration = .milliseconds(200)
    /// How long the thread waits between attempts to reconnect.
    static let retryInterval: TimeInterval = 0.25

    /// The counter every store object of this process on the store shares.
    let counter = ChangeCounter()
    private let state = State()

    /// What the thread shares with the store objects: whether to stop, and whose commits are theirs.
    private final class State: Sendable {
        let stopped = Atomic<Bool>(false)
        /// The backend processes of this process's writer connections to the store.
        let ownBackends = Mutex<Set<Int32>>([])
        /// Whether notifications are held back (`holdNotifications`), and whether one came meanwhile.
        let held = Mutex<(holding: Bool, missed: Bool)>((false, false))
    }

    private struct Held: Sendable {
        weak var listener: PostgreSQLChangeListener?
    }
    private static let listeners = Mutex<[PostgreSQLStoreLocation: Held]>([:])

    /// The listener of `location`'s store in this process, started when there is none.
    ///
    /// - Throws: `PostgreSQLError` when the listening connection cannot be made.
    static func shared(for location: PostgreSQLStoreLocation) throws -> PostgreSQLChangeListener {
        try listeners.withLock { listeners in
            if let listener = listeners[location]?.listener { return listener }
            let listener = try PostgreSQLChangeListener(location: location)
            listeners = listeners.filter { $0.value.listener != nil }
            listeners[location] = Held(listener: listener)
            return listener
        }
    }

    private init(location: PostgreSQLStoreLocation) throws {
        let connection = try location.connect()
        try connection.listen(Self.channel)
        let (state, counter, schema) = (state, counter, location.schema)
        let thread = Thread { Self.run(connection: connection, schema: schema, counter: counter, state: state) }
        thread.name = "wkstore PostgreSQL changes"
        thread.start()
    }

    deinit { state.stopped.store(true, ordering: .releasing) }

    /// Records that a writer connection of this process moved from backend process `old` (0
    /// for none) to `new` (0 for none): notifications of the new one are its own.
    func replaceOwnBackend(_ old: Int32, with new: Int32) {
        state.ownBackends.withLock { own in
            own.remove(old)
            if new != 0 { own.insert(new) }
        }
    }

    /// Holds back (`true`) or releases (`false`) the counter's bumps for other processes'
    /// commits, so a test can tell what a store object sees before the notification arrives
    /// (strict coherence); a bump held back is made on release.
    func holdNotifications(_ holding: Bool) {
        let missed = state.held.withLock { held in
            defer { held = (holding, holding && held.missed) }
            return !holding && held.missed
        }
        if missed { counter.increment() }
    }

    private static func run(connection: PostgreSQLConnection, schema: String, counter: ChangeCounter, state: State) {
        let prefix = schema + " "
        while !state.stopped.load(ordering: .acquiring) {
            do {
                if !connection.isConnected {
                    try connection.reconnect()
                    counter.increment()
                }
                let notifications = try connection.notifications(timeout: waitSlice)
                let own = state.ownBackends.withLock { $0 }
                for notification in notifications
                where notification.payload.hasPrefix(prefix) && !own.contains(notification.senderProcessID) {
                    let bump = state.held.withLock { held in
                        if held.holding { held.missed = true }
                        return !held.holding
                    }
                    if bump { counter.increment() }
                }
            } catch {
                Thread.sleep(forTimeInterval: retryInterval)
            }
        }
    }
}
