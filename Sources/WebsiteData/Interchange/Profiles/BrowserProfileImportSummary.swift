import Foundation

/// What to take from a browser profile.
public struct BrowserProfileImportOptions: Sendable, Hashable {
    /// Display names (`example.com`) whose data to take; `nil` for every site.
    public var sites: Set<String>?
    /// The data types to take: `.cookies` and `.localStorage` are read; others are ignored.
    public var types: Set<WebsiteDataType>
    /// Passwords to try first for Chromium's `v11` cookie values (the desktop keyring's "Chromium
    /// Safe Storage" or "Chrome Safe Storage" password), before the keyring's own and the empty
    /// password Chromium uses when no keyring is reachable.
    public var keyringPasswords: [String]
    /// Whether to ask the desktop keyring (libsecret, when a session bus is reachable) for the
    /// password of `v11` values the given passwords do not decrypt.
    public var readsKeyring: Bool
    /// The Firefox container (a name in the profile's `containers.json`, or one of Firefox's
    /// built-in Personal, Work, Banking, Shopping) whose cookies to take; `nil` for the default,
    /// no container.
    public var container: String?

    /// Creates options.
    ///
    /// - Parameters:
    ///   - sites: display names whose data to take; `nil` for every site.
    ///   - types: the data types to take.
    ///   - keyringPasswords: passwords to try for Chromium's `v11` values.
    ///   - readsKeyring: whether to ask the desktop keyring for the `v11` password.
    ///   - container: the Firefox container whose cookies to take; `nil` for none.
    public init(
        sites: Set<String>? = nil, types: Set<WebsiteDataType> = [.cookies, .localStorage],
        keyringPasswords: [String] = [], readsKeyring: Bool = true, container: String? = nil
    ) {
        self.sites = sites
        self.types = types
        self.keyringPasswords = keyringPasswords
        self.readsKeyring = readsKeyring
        self.container = container
    }
}

/// What an import from a browser profile did.
public struct BrowserProfileImportSummary: Sendable, Hashable {
    /// The profile read.
    public let profile: BrowserProfile
    /// The cookies: read, imported, expired, evicted, refused (each refusal's `line` is the
    /// cookie's 1-based row in the browser's cookie table, in the order read; for a Firefox
    /// session cookie its `path` names the session store's entry instead).
    public var cookies = CookieImportSummary()
    /// Session cookies read from Firefox's session store (they are in `cookies` too).
    public var sessionCookies = 0
    /// Cookies left out because no password tried decrypts their value (Chromium `v11`).
    public var cookiesNeedingKeyringPassword = 0
    /// Cookies left out because their value could not be read at all, with why.
    public var unreadableCookies = 0
    /// Origins whose localStorage items were imported.
    public var localStorageOrigins = 0
    /// localStorage items read and imported (an item the store holds with the same value counts too).
    public var localStorageItems = 0
    /// Origins whose localStorage the store refused (its quota), one line each with why; their
    /// items were not imported, the other origins' were.
    public var localStorageRefusals: [String] = []
    /// One line for each thing a user should know: what was left out and how to get it.
    public var notes: [String] = []

    /// Creates an empty summary for a profile.
    ///
    /// - Parameter profile: the profile read.
    public init(profile: BrowserProfile) {
        self.profile = profile
    }

    /// Whether anything the profile holds was left out.
    public var hasOmissions: Bool {
        cookies.hasRefusals || cookiesNeedingKeyringPassword > 0 || unreadableCookies > 0
            || !localStorageRefusals.isEmpty
    }
}

extension BrowserProfileImportSummary: CustomStringConvertible {
    /// `chromium Default: read 9 cookies: imported 9; 2 origins: 5 localStorage items`.
    public var description: String {
        var text = "\(profile.installation) \(profile.name): \(cookies.description)"
        if localStorageOrigins > 0 || !localStorageRefusals.isEmpty {
            text +=
                "; \(localStorageOrigins) origin\(localStorageOrigins == 1 ? "" : "s"): \(localStorageItems) localStorage item\(localStorageItems == 1 ? "" : "s")"
            if !localStorageRefusals.isEmpty { text += ", \(localStorageRefusals.count) refused" }
        }
        return text
    }
}
