import Foundation

/// Where Firefox keeps its profiles on Linux: `profiles.ini` in `~/.mozilla/firefox` (Firefox
/// and Debian's `firefox-esr` alike) or `$XDG_CONFIG_HOME/mozilla/firefox`.
enum FirefoxProfiles {
    /// The folders that may hold `profiles.ini`, in the order searched.
    static func roots(_ environment: [String: String]) -> [URL] {
        [
            BrowserProfileDiscovery.home(environment).appendingPathComponent(".mozilla/firefox", isDirectory: true),
            BrowserProfileDiscovery.configHome(environment).appendingPathComponent(
                "mozilla/firefox", isDirectory: true),
        ]
    }

    /// The profiles `profiles.ini` lists; the default is the one an `[Install…]` section names,
    /// else the one marked `Default=1`, else the first.
    static func profiles(_ environment: [String: String]) -> [BrowserProfile] {
        var found: [BrowserProfile] = []
        for root in roots(environment) {
            guard let text = try? String(contentsOf: root.appendingPathComponent("profiles.ini"), encoding: .utf8)
            else { continue }
            let sections = ini(text)
            let installDefault = sections.first { $0.name.hasPrefix("Install") }?.values["Default"]
            let entries = sections.filter { $0.name.hasPrefix("Profile") }.compactMap {
                section -> (name: String, path: String, directory: URL, marked: Bool)? in
                guard let path = section.values["Path"], !path.isEmpty else { return nil }
                let relative = section.values["IsRelative"] != "0"
                let directory =
                    relative
                    ? root.appendingPathComponent(path, isDirectory: true)
                    : URL(fileURLWithPath: path, isDirectory: true)
                return (section.values["Name"] ?? path, path, directory, section.values["Default"] == "1")
            }
            let chosen =
                entries.first { $0.path == installDefault }?.path ?? entries.first { $0.marked }?.path
                ?? entries.first?.path
            found += entries.map {
                BrowserProfile(
                    browser: .firefox, installation: "firefox", name: $0.name, directory: $0.directory,
                    isDefault: $0.path == chosen)
            }
        }
        return found
    }

    /// The sections of an INI file, in order, with their `key=value` lines.
    static func ini(_ text: String) -> [(name: String, values: [String: String])] {
        var sections: [(name: String, values: [String: String])] = []
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") && line.hasSuffix("]") {
                sections.append((String(line.dropFirst().dropLast()), [:]))
            } else if let equals = line.firstIndex(of: "="), !sections.isEmpty, !line.hasPrefix(";") {
                sections[sections.count - 1].values[String(line[..<equals])] = String(
                    line[line.index(after: equals)...])
            }
        }
        return sections
    }

    /// Whether a folder looks like a Firefox profile.
    static func isProfile(_ directory: URL) -> Bool {
        ["cookies.sqlite", "prefs.js", "times.json", "storage"].contains {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
        }
    }

    /// The profile a user named, or the default one.
    static func profile(at path: String?, environment: [String: String]) throws(BrowserProfileError)
        -> BrowserProfile
    {
        guard let path else {
            return try BrowserProfileDiscovery.defaultProfile(
                of: profiles(environment), named: "Firefox",
                lookedIn: roots(environment).map { $0.appendingPathComponent("profiles.ini").path })
        }
        let directory = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        try BrowserProfileDiscovery.requireDirectory(directory)
        guard isProfile(directory) else {
            throw BrowserProfileError(
                .notAProfile, path: directory.path,
                reason: "not a Firefox profile (no cookies.sqlite, prefs.js, times.json or storage in it)")
        }
        let known = profiles(environment).first { $0.directory.standardizedFileURL == directory }
        return BrowserProfile(
            browser: .firefox, installation: "firefox", name: known?.name ?? directory.lastPathComponent,
            directory: directory, isDefault: known?.isDefault ?? false)
    }
}
