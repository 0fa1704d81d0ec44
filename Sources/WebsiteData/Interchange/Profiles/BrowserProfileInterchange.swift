import Foundation

/// Moves a logged-in browser session into a store: the cookies and localStorage of a Chromium
/// or Firefox profile on disk.
///
/// A profile is read while its browser may be running: each database is copied, with its
/// journal and write-ahead log, to a private folder first (`ProfileSnapshot`), so the browser's
/// files are never locked or changed. A profile file is untrusted input: every cookie meets the
/// rules a `Set-Cookie` over HTTPS from its own domain would, in one transaction, and each one
/// refused is listed with its row and the reason. A profile that does not exist, is not a
/// profile, is damaged or has a layout newer than this version reads is refused whole, before
/// the store is touched. Docs/interchange.md describes the layouts read.
public enum BrowserProfileInterchange {
    /// The profiles of a browser found where it keeps them on Linux: Chromium's user-data-dirs
    /// under `$XDG_CONFIG_HOME` (`~/.config/chromium`, `~/.config/google-chrome`…), Firefox's
    /// `profiles.ini` (`~/.mozilla/firefox`).
    ///
    /// - Parameters:
    ///   - browser: the browser.
    ///   - environment: where `HOME` and `XDG_CONFIG_HOME` are read; this process's by default.
    /// - Returns: the profiles found, each installation's in name order; empty when none is.
    public static func profiles(
        of browser: BrowserKind, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [BrowserProfile] {
        switch browser {
        case .chromium: BrowserProfileDiscovery.chromiumProfiles(environment)
        case .firefox: FirefoxProfiles.profiles(environment)
        }
    }

    /// The profile a user named, or the browser's default one.
    ///
    /// - Parameters:
    ///   - browser: the browser.
    ///   - path: a profile folder; for Chromium also a user-data-dir (its `Local State`'s
    ///     `profile.last_used` profile is taken). `nil` for the default profile of the first
    ///     installation found.
    ///   - environment: where `HOME` and `XDG_CONFIG_HOME` are read; this process's by default.
    /// - Returns: the profile.
    /// - Throws: `BrowserProfileError` `.notFound` when the folder (or any profile) does not
    ///   exist, `.notAProfile` when the folder is not one of the browser's profiles.
    public static func profile(
        of browser: BrowserKind, at path: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(BrowserProfileError) -> BrowserProfile {
        switch browser {
        case .chromium: try BrowserProfileDiscovery.chromiumProfile(at: path, environment: environment)
        case .firefox: try FirefoxProfiles.profile(at: path, environment: environment)
        }
    }

    /// Imports the cookies and localStorage of a browser profile into a store: the cookies in one
    /// transaction, each origin's localStorage items in one.
    ///
    /// Everything is read and decrypted before the store is touched. An origin whose items would
    /// take it past the store's quota is left out whole and named in `localStorageRefusals`. Cookies whose value no
    /// password decrypts (Chromium `v11` without the keyring's password) are left out, counted,
    /// and named in one line of `notes`; the rest are imported.
    ///
    /// - Parameters:
    ///   - profile: the profile (from `profile(of:at:environment:)` or `profiles(of:environment:)`).
    ///   - store: the store to import into.
    ///   - options: the sites, the types and the keyring passwords.
    /// - Returns: what was read, imported and left out, with why.
    /// - Throws: `BrowserProfileError` for a profile file that is missing, damaged or too new;
    ///   `StoreError` when the store cannot commit. Nothing is imported in either case.
    @discardableResult
    public static func importProfile(
        _ profile: BrowserProfile, into store: WebsiteDataStore, options: BrowserProfileImportOptions = .init()
    ) throws -> BrowserProfileImportSummary {
        var summary = BrowserProfileImportSummary(profile: profile)
        let snapshot = try ProfileSnapshot()
        var items: [CookieImportItem] = []
        if options.types.contains(.cookies) {
            switch profile.browser {
            case .chromium:
                items = try chromiumCookies(profile, snapshot: snapshot, options: options, summary: &summary)
            case .firefox:
                items = try FirefoxCookies.items(profile, snapshot: snapshot, options: options, summary: &summary)
            }
        }
        var origins: ProfileLocalStorage.Origins = []
        if options.types.contains(.localStorage) {
            switch profile.browser {
            case .chromium: origins = try ProfileLocalStorage.chromium(profile.directory, snapshot: snapshot)
            case .firefox:
                let container = try FirefoxCookies.containerID(options.container, profile: profile)
                origins = try ProfileLocalStorage.firefox(profile.directory, container: container, snapshot: snapshot)
            }
            if let sites = options.sites { origins = origins.filter { sites.contains($0.origin.site) } }
        }
        // Everything is read; only now is the store written.
        if options.types.contains(.cookies) {
            var remaining = items[...]
            summary.cookies = try store.httpCookieStore.importCookies(options: .lenient) { remaining.popFirst() }
        }
        for (origin, originItems) in origins {
            do {
                try store.localStorage.setItems(originItems, origin: origin)
                summary.localStorageOrigins += 1
                summary.localStorageItems += originItems.count
            } catch let refusal as StorageQuotaError {
                summary.localStorageRefusals.append(
                    "localStorage of \(origin): \(originItems.count) item\(originItems.count == 1 ? "" : "s") refused: \(refusal.description)"
                )
            }
        }
        return summary
    }

    /// Writes the cookies of a store into a Chromium profile's `Cookies` (created when missing,
    /// schema 24, values `v10`-encrypted as Chromium's basic store keeps them), in one transaction.
    ///
    /// A cookie of the profile with the same domain, partition, name and path is replaced; the
    /// profile's other cookies are kept. Chromium must not be running on the profile: it would
    /// overwrite the file from memory. Its `SingletonLock` (a symbolic link in the user-data-dir)
    /// says it is, and the export is refused.
    ///
    /// - Parameters:
    ///   - store: the store.
    ///   - sites: display names whose cookies to write; `nil` for every cookie.
    ///   - directory: the profile folder (`…/chromium/Default`), or a user-data-dir (a folder
    ///     with `Local State`, or with a `Default` folder: its last used profile, which must exist).
    /// - Returns: how many cookies were written.
    /// - Throws: `BrowserProfileError` `.browserRunning` while Chromium runs on the profile,
    ///   `.notFound` for a folder that does not exist, `.schemaTooNew`/`.damaged` for a `Cookies`
    ///   of another schema; `StoreError` when the store cannot be read. Nothing is written then.
    @discardableResult
    public static func exportCookies(
        from store: WebsiteDataStore, sites: [String]? = nil, toChromiumProfile directory: URL
    ) throws -> Int {
        var profile = directory.standardizedFileURL
        try BrowserProfileDiscovery.requireDirectory(profile)
        var userDataDir = profile.deletingLastPathComponent()
        // A user-data-dir has `Local State`, or (before Chromium first ran) a `Default` profile in it.
        let fm = FileManager.default
        if fm.fileExists(atPath: profile.appendingPathComponent("Local State").path)
            || (!BrowserProfileDiscovery.isChromiumProfile(profile)
                && fm.fileExists(atPath: profile.appendingPathComponent("Default").path))
        {
            userDataDir = profile
            profile = profile.appendingPathComponent(BrowserProfileDiscovery.localState(profile).lastUsed ?? "Default")
            try BrowserProfileDiscovery.requireDirectory(profile)
        }
        let lock = userDataDir.appendingPathComponent("SingletonLock")
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: lock.path)) != nil {
            throw BrowserProfileError(
                .browserRunning, path: profile.path,
                reason: "Chromium is running on this profile (\(lock.path) exists); quit it first")
        }
        let cookies = try CookieInterchange.cookies(of: store.httpCookieStore, sites: sites)
        let file = BrowserProfileDiscovery.chromiumCookies(profile) ?? profile.appendingPathComponent("Cookies")
        try ChromiumCookiesFile.write(cookies, to: file, now: store.httpCookieStore.clock())
        return cookies.count
    }

    /// The cookies of a Chromium profile, decrypted and mapped, for the store's import.
    static func chromiumCookies(
        _ profile: BrowserProfile, snapshot: ProfileSnapshot, options: BrowserProfileImportOptions,
        summary: inout BrowserProfileImportSummary
    ) throws(BrowserProfileError) -> [CookieImportItem] {
        guard let file = BrowserProfileDiscovery.chromiumCookies(profile.directory) else { return [] }
        let copy = try snapshot.copySQLite(file)
        let (version, rows) = try ChromiumCookiesFile.read(copy: copy, original: file)
        var passwords = options.keyringPasswords
        // The keyring is asked only when a value needs it, and after the passwords given.
        if options.readsKeyring,
            rows.contains(where: { $0.encryptedValue.starts(with: ChromiumCookieDecryptor.v11Prefix) }),
            let stored = ChromiumKeyring.password(
                installation: profile.installation, environment: ProcessInfo.processInfo.environment)
        {
            passwords.append(stored)
        }
        let decryptor = ChromiumCookieDecryptor(keyringPasswords: passwords, version: version, rows: rows)
        var items: [CookieImportItem] = []
        var unreadable: [String] = []
        for (index, row) in rows.enumerated() {
            var domain = row.hostKey.lowercased()
            let isHostOnly = !domain.hasPrefix(".")
            if !isHostOnly { domain.removeFirst() }
            if let sites = options.sites, !sites.contains(Site.displayName(forHost: domain)) { continue }
            let value: String
            switch decryptor.value(of: row) {
            case .value(let text): value = text
            case .needsKeyringPassword:
                summary.cookiesNeedingKeyringPassword += 1
                continue
            case .unreadable(let why):
                summary.unreadableCookies += 1
                if unreadable.count < 3 { unreadable.append("'\(row.name)' (\(row.hostKey)\(row.path)): \(why)") }
                continue
            }
            // A cookie is persistent only with both flags; Chromium writes expires_utc 0 otherwise.
            let expires = row.isPersistent && row.hasExpires ? ChromiumCookiesFile.date(row.expiresUTC) : nil
            let cookie = Cookie(
                name: row.name, value: value, domain: domain, path: row.path, isHostOnly: isHostOnly,
                isSecure: row.isSecure, isHTTPOnly: row.isHTTPOnly,
                sameSite: ChromiumCookiesFile.sameSite(row.sameSite),
                partitionKey: row.topFrameSiteKey, expires: expires, created: ChromiumCookiesFile.date(row.creationUTC),
                lastAccess: ChromiumCookiesFile.date(row.lastAccessUTC))
            items.append(.cookie(cookie, line: index + 1))
        }
        if summary.cookiesNeedingKeyringPassword > 0 {
            let count = summary.cookiesNeedingKeyringPassword
            summary.notes.append(
                "\(profile.installation) \(profile.name): left out \(count) cookie\(count == 1 ? "" : "s") encrypted with the desktop keyring's password (v11), which no password tried decrypts (the keyring's, when reachable, included); give it with --keyring-password (secret-tool lookup xdg:schema chrome_libsecret_os_crypt_password_v2 application \(profile.installation == "chromium" ? "chromium" : "chrome"))"
            )
        }
        if summary.unreadableCookies > 0 {
            summary.notes.append(
                "\(profile.installation) \(profile.name): left out \(summary.unreadableCookies) cookie\(summary.unreadableCookies == 1 ? "" : "s") whose value cannot be read: "
                    + unreadable.joined(separator: "; ") + (summary.unreadableCookies > unreadable.count ? "; …" : ""))
        }
        return items
    }
}
