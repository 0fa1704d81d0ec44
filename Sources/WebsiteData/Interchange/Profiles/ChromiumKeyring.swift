import CSecret
import Foundation

/// The password Chromium keeps in the desktop keyring to encrypt its `v11` cookie values, read
/// through libsecret (the Secret Service: GNOME Keyring, KWallet's bridge, KeePassXC).
enum ChromiumKeyring {
    /// Whether a keyring may be reachable: a session bus is named (`DBUS_SESSION_BUS_ADDRESS`) or
    /// is at `$XDG_RUNTIME_DIR/bus`. Without one, libsecret would try to start a bus itself, which
    /// on a machine without a desktop fails slowly or not at all, so it is not asked.
    static func isReachable(_ environment: [String: String]) -> Bool {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return true }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return false }
        return FileManager.default.fileExists(atPath: runtime + "/bus")
    }

    /// The keyring's password for an installation (`chromium` is stored under the application
    /// `chromium`, Google Chrome's under `chrome`), or `nil` when no keyring is reachable or it
    /// holds none.
    static func password(installation: String, environment: [String: String]) -> String? {
        guard isReachable(environment) else { return nil }
        let application = installation == "chromium" ? "chromium" : "chrome"
        guard let pointer = wk_secret_chromium_password(application) else { return nil }
        defer { wk_secret_free(pointer) }
        return String(cString: pointer)
    }
}
