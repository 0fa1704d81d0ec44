import Foundation
import WebsiteData
import WebsiteDataHTTP

/// The progress line `wkstore fetch` draws on standard error while a transfer runs.
///
/// It draws only when standard error is a terminal, once the transfer has taken a second (short
/// transfers stay silent), at most five times a second, on one line it rewrites (`\r`), and
/// erases that line when the transfer ends, so what follows starts on a clean line.
final class FetchProgress: Sendable {
    private struct State {
        let started = ContinuousClock.now
        var lastDraw: ContinuousClock.Instant?
        var drawn = false
    }

    /// Whether the line is drawn at all (standard error is a terminal and `--quiet` was not given).
    let isEnabled: Bool
    private let state = Locked(State())

    /// How long a transfer runs before the line appears.
    static let delay = Duration.seconds(1)
    /// The shortest time between two drawings.
    static let interval = Duration.milliseconds(200)

    /// Creates the reporter.
    ///
    /// - Parameter quiet: `--quiet`: never draw.
    init(quiet: Bool) {
        isEnabled = !quiet && isatty(STDERR_FILENO) == 1
    }

    /// Takes a progress report from the transfer thread and redraws the line when it is time.
    func update(_ progress: HTTPTransferProgress) {
        guard isEnabled else { return }
        let now = ContinuousClock.now
        let elapsed: Duration? = state.withLock { state in
            let elapsed = now - state.started
            guard elapsed >= Self.delay else { return nil }
            if let last = state.lastDraw, now - last < Self.interval { return nil }
            state.lastDraw = now
            state.drawn = true
            return elapsed
        }
        guard let elapsed else { return }
        Self.draw("\r" + Self.line(progress, elapsed: elapsed) + "\u{1B}[K")
    }

    /// Erases the line, if one was drawn.
    func finish() {
        let drawn = state.withLock { state in
            let drawn = state.drawn
            state.drawn = false
            return drawn
        }
        if drawn { Self.draw("\r\u{1B}[K") }
    }

    /// `  1.2 MB of 10.0 MB  12%  850.3 KB/s  example.com/big.bin`; the bytes sent while a body goes up.
    static func line(_ progress: HTTPTransferProgress, elapsed: Duration) -> String {
        let seconds = max(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, 0.001)
        let sending = progress.expectedToSend > 0 && progress.sent < progress.expectedToSend
        let done = sending ? progress.sent : progress.received
        let total = sending ? progress.expectedToSend : progress.expectedToReceive
        var parts = [(sending ? "sending " : "") + Format.bytes(done) + (total > 0 ? " of " + Format.bytes(total) : "")]
        if total > 0 { parts.append("\(min(100, Int(Double(done) * 100 / Double(total))))%") }
        parts.append(Format.bytes(Int64(Double(done) / seconds)) + "/s")
        parts.append((progress.url.host() ?? "") + progress.url.path)
        return "  " + parts.joined(separator: "  ")
    }

    private static func draw(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
