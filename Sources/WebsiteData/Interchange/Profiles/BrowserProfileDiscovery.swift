import Foundation

/// Where browsers keep their profiles on Linux, and how a folder given by a user is read as one.
enum BrowserProfileDiscovery {
    /// Chromium-family user-data-dirs under `$XDG_CONFIG_HOME` (`~/.config`), by installation.
    static let chromiumInstallations = ["chromium", "google-chrome", "google-chrome-beta", "google-chrome-unstable"]

    /// `$XDG_CONFIG_HOME`, or `$HOME/.config`.
    static func configHome(_ environment: [String: String]) -> URL {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return URL(fileURLWithPath: config, isDirectory: true)
        }
        return home(environment).appendingPathComponent(".config", isDirectory: true)
    }

    /// `$HOME`, or the account's home directory.
    static func home(_ environment: [String: String]) -> URL {
        if let home = environment["HOME"], !home.isEmpty { return URL(fileURLWithPath: home, isDirectory: true) }
        return FileManager.default.homeDirectoryForCurrentUser
    }

    // MARK: - Chromium

    /// The profiles of every Chromium-family installation found.
    static func chromiumProfiles(_ environment: [String: String]) -> [BrowserProfile] {
        chromiumInstallations.flatMap { installation in
            chromiumProfiles(
                userDataDir: configHome(environment).appendingPathComponent(installation, isDirectory: true),
                installation: installation)
        }
    }

    /// The profiles of one user-data-dir: the folders `Local State` lists, or else the `Default`
    /// and `Profile N` folders; the last used one (`profile.last_used`, else `Default`) is the default.
    static func chromiumProfiles(userDataDir: URL, installation: String) -> [BrowserProfile] {
        let fm = FileManager.default
        guard fm.fileExists(atPath: userDataDir.path) else { return [] }
        let state = localState(userDataDir)
        let lastUsed = state.lastUsed ?? "Default"
        var names = state.profiles
        if names.isEmpty {
            names = ((try? fm.contentsOfDirectory(atPath: userDataDir.path)) ?? []).filter {
                $0 == "Default" || $0.hasPrefix("Profile ")
            }
        }
        return names.sorted().compactMap { name in
            let directory = userDataDir.appendingPathComponent(name, isDirectory: true)
            guard isChromiumProfile(directory) else { return nil }
            return BrowserProfile(
                browser: .chromium, installation: installation, name: name, directory: directory,
                isDefault: name == lastUsed)
        }
    }

    /// What `Local State` says: the last used profile and the profiles it knows.
    static func localState(_ userDataDir: URL) -> (lastUsed: String?, profiles: [String]) {
        guard let data = try? Data(contentsOf: userDataDir.appendingPathComponent("Local State")),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let profile = object["profile"] as? [String: Any]
        else { return (nil, []) }
        let lastUsed = (profile["last_used"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        let known = (profile["info_cache"] as? [String: Any]).map { Array($0.keys) } ?? []
        // A name from the file is a folder name: one path component, never `..`.
        let safe = known.filter { !$0.contains("/") && $0 != "." && $0 != ".." }
        return (lastUsed.flatMap { $0.contains("/") || $0 == ".." ? nil : $0 }, safe)
    }

    /// Whether a folder looks like a Chromium profile: it has a cookie database or preferences.
    static func isChromiumProfile(_ directory: URL) -> Bool {
        let fm = FileManager.default
        return ["Cookies", "Network/Cookies", "Preferences", "Local Storage"].contains {
            fm.fileExists(atPath: directory.appendingPathComponent($0).path)
        }
    }

    /// The Chromium profile a user named: a profile folder, or a user-data-dir (then its last
    /// used profile); with no path, the default profile of the first installation found.
    static func chromiumProfile(at path: String?, environment: [String: String]) throws(BrowserProfileError)
        -> BrowserProfile
    {
        guard let path else {
            return try defaultProfile(
                of: chromiumProfiles(environment), named: "Chromium",
                lookedIn: chromiumInstallations.map { configHome(environment).appendingPathComponent($0).path })
        }
        let directory = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        try requireDirectory(directory)
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Local State").path) {
            let lastUsed = localState(directory).lastUsed ?? "Default"
            let profile = directory.appendingPathComponent(lastUsed, isDirectory: true)
            guard isChromiumProfile(profile) else {
                throw BrowserProfileError(
                    .notAProfile, path: profile.path,
                    reason: "the user-data-dir's last used profile '\(lastUsed)' is not a Chromium profile")
            }
            return BrowserProfile(
                browser: .chromium, installation: directory.lastPathComponent, name: lastUsed, directory: profile,
                isDefault: true)
        }
        guard isChromiumProfile(directory) else {
            throw BrowserProfileError(
                .notAProfile, path: directory.path,
                reason: "not a Chromium profile (no Cookies, Preferences or Local Storage in it)")
        }
        let parent = directory.deletingLastPathComponent()
        let lastUsed = localState(parent).lastUsed ?? "Default"
        return BrowserProfile(
            browser: .chromium, installation: parent.lastPathComponent, name: directory.lastPathComponent,
            directory: directory, isDefault: directory.lastPathComponent == lastUsed)
    }

    /// The cookie database of a Chromium profile: `Network/Cookies` where newer layouts keep
    /// it, else `Cookies`; `nil` when it has none.
    static func chromiumCookies(_ profile: URL) -> URL? {
        ["Network/Cookies", "Cookies"].map { profile.appendingPathComponent($0) }.first {
            FileManager.default.fileExists(atPath: $0.path)
        }
    }

    /// The default one of the profiles found (else the first), or the error saying where none was found.
    static func defaultProfile(of profiles: [BrowserProfile], named browser: String, lookedIn places: [String])
        throws(BrowserProfileError) -> BrowserProfile
    {
        guard let chosen = profiles.first(where: \.isDefault) ?? profiles.first else {
            throw BrowserProfileError(
                .notFound, path: places[0],
                reason:
                    "no \(browser) profile found (looked in \(places.joined(separator: ", "))); name one with --profile DIR"
            )
        }
        return chosen
    }

    /// Throws unless `directory` is a folder.
    static func requireDirectory(_ directory: URL) throws(BrowserProfileError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            throw BrowserProfileError(.notFound, path: directory.path, reason: "no such folder")
        }
        guard isDirectory.boolValue else {
            throw BrowserProfileError(.notAProfile, path: directory.path, reason: "not a folder")
        }
    }
}
