/// The "did you mean 'X'?" of a message about a mistyped command or option.
enum Suggestion {
    /// The candidate `given` most likely meant: the closest within two edits (a swap of two
    /// neighbouring letters is one), else the only one that `given` begins (`dry` for `dry-run`);
    /// `nil` when none is near. Ties go to the earlier candidate.
    static func closest(to given: String, among candidates: [String]) -> String? {
        let typed = Array(given.lowercased())
        guard typed.count >= 2 else { return nil }
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != given {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            // Two edits turn a word of two or three letters into almost anything.
            guard distance == 1 || (distance == 2 && typed.count >= 4) else { continue }
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        if let best { return best.candidate }
        let longer = candidates.filter { $0.count > typed.count && $0.lowercased().hasPrefix(String(typed)) }
        return longer.count == 1 ? longer[0] : nil
    }

    /// What goes between a message's first part and the rest: `; did you mean 'X'? ` for the
    /// closest of `candidates`, shown through `form` (`--\($0)` for an option), else `; `.
    static func separator(
        for given: String, among candidates: [String], form: (String) -> String = { $0 }
    ) -> String {
        closest(to: given, among: candidates).map { "; did you mean '\(form($0))'? " } ?? "; "
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions, and swaps of
    /// two neighbouring characters, each one edit.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    value = min(value, table[i - 2][j - 2] + 1)
                }
                table[i][j] = value
            }
        }
        return table[a.count][b.count]
    }
}
