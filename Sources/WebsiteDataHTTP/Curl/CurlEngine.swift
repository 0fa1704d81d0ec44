import CCurl
import Foundation
import Synchronization
import WebsiteData

/// One libcurl multi handle and the thread that drives it.
///
/// Transfers are handed in through a locked inbox and a `curl_multi_wakeup`; the thread adds
/// them to the multi handle, runs `curl_multi_perform`, resumes each transfer's waiting task
/// when libcurl reports it done, and sleeps in `curl_multi_poll` until a socket is ready, a
/// timer is due or the inbox changes. No thread per transfer; connections are reused across
/// transfers (and HTTP/2 streams multiplexed) by the multi handle.
final class CurlEngine: Sendable {
    private struct Inbox {
        var adds: [TransferHandoff] = []
        var cancels: [UInt64] = []
        var stopping = false
    }

    /// The multi handle. Only `curl_multi_wakeup`, which libcurl allows from any thread, is
    /// called on it outside the transfer thread.
    nonisolated(unsafe) private let multi: UnsafeMutableRawPointer
    private let inbox = Locked(Inbox())
    private let nextID = Atomic<UInt64>(1)

    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Makes a multi handle and starts its thread.
    ///
    /// - Throws: `CurlError` when libcurl cannot be initialised.
    init() throws(CurlError) {
        guard Self.globalInit else { throw CurlError(code: CURLE_FAILED_INIT, detail: "curl_global_init failed") }
        guard let multi = curl_multi_init() else { throw CurlError(code: CURLE_OUT_OF_MEMORY) }
        let code = wk_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        guard code == CURLM_OK else {
            curl_multi_cleanup(multi)
            throw CurlError(multiCode: code)
        }
        self.multi = multi
        let thread = Thread { [self] in run() }
        thread.name = "wkstore-http"
        thread.start()
    }

    /// A new transfer identifier.
    func makeID() -> UInt64 { nextID.wrappingAdd(1, ordering: .relaxed).oldValue }

    /// Hands a configured transfer to the thread.
    func submit(_ handoff: TransferHandoff) {
        inbox.withLock { $0.adds.append(handoff) }
        curl_multi_wakeup(multi)
    }

    /// Aborts the transfer `id` if it is still running; its task gets a `CancellationError`.
    func cancel(_ id: UInt64) {
        inbox.withLock { $0.cancels.append(id) }
        curl_multi_wakeup(multi)
    }

    /// Lets the thread end once its transfers are done, and free the multi handle.
    func stop() {
        inbox.withLock { $0.stopping = true }
        curl_multi_wakeup(multi)
    }

    // MARK: - Transfer thread

    private func run() {
        var active: [UInt64: CurlTransfer] = [:]
        var byHandle: [UnsafeMutableRawPointer: UInt64] = [:]
        var running: Int32 = 0
        while true {
            let (adds, cancels, stopping) = inbox.withLock { inbox in
                defer {
                    inbox.adds.removeAll()
                    inbox.cancels.removeAll()
                }
                return (inbox.adds, inbox.cancels, inbox.stopping)
            }
            for handoff in adds {
                let transfer = handoff.transfer
                if transfer.cancellation.isSet {
                    transfer.fail(CancellationError())
                    continue
                }
                let code = curl_multi_add_handle(multi, transfer.easy)
                if code != CURLM_OK {
                    transfer.fail(CurlError(multiCode: code))
                    continue
                }
                active[transfer.id] = transfer
                byHandle[transfer.easy] = transfer.id
            }
            for id in cancels {
                guard let transfer = active.removeValue(forKey: id) else { continue }
                byHandle.removeValue(forKey: transfer.easy)
                curl_multi_remove_handle(multi, transfer.easy)
                transfer.fail(CancellationError())
            }
            if stopping && active.isEmpty { break }

            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let id = byHandle.removeValue(forKey: easy), let transfer = active.removeValue(forKey: id)
                else { continue }
                let result = message.pointee.data.result
                curl_multi_remove_handle(multi, easy)
                transfer.finish(result)
            }
            if active.isEmpty && stopping { break }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        // Anything still queued (only possible when the client went away mid-request) fails.
        let leftovers = inbox.withLock { inbox in
            defer { inbox.adds.removeAll() }
            return inbox.adds
        }
        for handoff in leftovers { handoff.transfer.fail(CancellationError()) }
        curl_multi_cleanup(multi)
    }
}
