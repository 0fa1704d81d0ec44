import Foundation

/// A browser family whose profiles a store can import from.
public enum BrowserKind: String, Sendable, Hashable, CaseIterable {
    /// Chromium and the browsers built on it that keep Chromium's layout (Google Chrome).
    case chromium
    /// Firefox, Firefox ESR included.
    case firefox
}

/// A browser profile on disk: the folder holding one user's cookies and site data.
///
/// For Chromium it is a profile folder (`~/.config/chromium/Default`); for Firefox the profile
/// folder `profiles.ini` names (`~/.mozilla/firefox/abcd1234.default-esr`). Find them with
/// `BrowserProfileInterchange.profiles(of:environment:)` or `profile(of:at:environment:)`.
public struct BrowserProfile: Sendable, Hashable, CustomStringConvertible {
    /// The browser that wrote it.
    public let browser: BrowserKind
    /// The installation it belongs to: `chromium`, `google-chrome`, `firefox`.
    public let installation: String
    /// Its name: Chromium's folder name (`Default`, `Profile 1`), Firefox's `Name` in `profiles.ini`.
    public let name: String
    /// Its folder.
    public let directory: URL
    /// Whether the browser opens it by default (Chromium's last used profile, Firefox's default).
    public let isDefault: Bool

    /// Creates a profile description.
    ///
    /// - Parameters:
    ///   - browser: the browser that wrote it.
    ///   - installation: the installation it belongs to.
    ///   - name: its name.
    ///   - directory: its folder.
    ///   - isDefault: whether the browser opens it by default.
    public init(browser: BrowserKind, installation: String, name: String, directory: URL, isDefault: Bool) {
        self.browser = browser
        self.installation = installation
        self.name = name
        self.directory = directory
        self.isDefault = isDefault
    }

    /// `chromium Default /home/u/.config/chromium/Default (default)`.
    public var description: String {
        "\(installation) \(name) \(directory.path)\(isDefault ? " (default)" : "")"
    }
}

/// Why a browser profile could not be read; nothing was imported.
public struct BrowserProfileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let name: String
        /// The name.
        public var description: String { name }

        /// The folder or file does not exist.
        public static let notFound = Code(name: "notFound")
        /// The folder is not a profile of the browser.
        public static let notAProfile = Code(name: "notAProfile")
        /// A file of the profile has a layout newer than the ones this version reads.
        public static let schemaTooNew = Code(name: "schemaTooNew")
        /// A file of the profile is damaged or not of its format.
        public static let damaged = Code(name: "damaged")
        /// The browser is running on the profile, and the operation would change its files.
        public static let browserRunning = Code(name: "browserRunning")
        /// A container named by the options does not exist in the profile.
        public static let unknownContainer = Code(name: "unknownContainer")
    }

    /// What kind of failure.
    public let code: Code
    /// The folder or file at fault.
    public let path: String
    /// What was wrong, in words a user can act on.
    public let reason: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: what kind of failure.
    ///   - path: the folder or file at fault.
    ///   - reason: what was wrong.
    public init(_ code: Code, path: String, reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    /// `PATH: reason (nothing was changed)`.
    public var description: String { "\(path): \(reason) (nothing was changed)" }
}
