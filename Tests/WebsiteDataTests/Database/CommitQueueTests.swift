import Foundation
import Synchronization
import Testing

@testable import WebsiteData

/// Group commit: how many of the writers preparing at once a commit leader waits for.
@Suite struct CommitQueueTests {
    /// On PostgreSQL the leader waits for every announced writer: of six, three of which queue
    /// a while after the others, one commit holds all six (a leader that gathers half commits
    /// the first three alone).
    @Test func aLeaderThatGathersAllWaitsForEveryAnnouncedWriter() throws {
        let queue = CommitQueue(gatherLimit: .seconds(600), gathersAll: true)
        let batches = Mutex<[Int]>([])
        let writers = 6
        let announced = Atomic<Int>(0)
        _ = try onThreads(writers) { index in
            queue.begin()
            defer { queue.end() }
            announced.add(1, ordering: .releasing)
            while announced.load(ordering: .acquiring) < writers { sched_yield() }
            if index >= writers / 2 { Thread.sleep(forTimeInterval: 0.3) }
            let ticket = queue.enqueue(PendingWrite(changes: [], body: nil), announced: true)
            try queue.wait(for: ticket) { batch in
                batches.withLock { $0.append(batch.count) }
                return batch.map { _ in nil }
            }
        }
        #expect(batches.withLock { $0 } == [writers])
    }
}
