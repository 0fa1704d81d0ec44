import Foundation

extension LocalStorage {
    /// Sets several items of an origin in one transaction, in order, as a `setItem` call for
    /// each would (a storage-state import): a key set again keeps its place, a value equal to the
    /// stored one changes nothing, and growth past the quota is refused.
    ///
    /// All or nothing: when one item would take the origin past its quota, none is stored.
    ///
    /// - Parameters:
    ///   - items: keys and values, in the order to set them (a repeated key: the last value wins).
    ///   - origin: the origin whose storage to write.
    /// - Returns: how many items were new or changed.
    /// - Throws: `StorageQuotaError` when the origin would hold more than its quota;
    ///   `StoreError.database` when the write cannot be committed. Nothing is changed then.
    @discardableResult
    func setItems(_ items: [(key: String, value: String)], origin: SecurityOrigin) throws -> Int {
        guard !items.isEmpty else { return 0 }
        let now = clock().timeIntervalSince1970
        let originText = origin.description
        let site = origin.site
        do {
            return try database.writeNow(changes: [ChangeLogEntry(.localStorage, site: site, cause: .importing)]) {
                db in
                let quota = try StorageQuota.bytes(db)
                var used =
                    try db.scalar(
                        "SELECT coalesce(sum(size), 0) FROM local_storage WHERE origin = ?", [.text(originText)])?.int64
                    ?? 0
                var changed = 0
                for (key, value) in items {
                    let stored = try db.rows(
                        "SELECT value, size FROM local_storage WHERE origin = ? AND key = ?",
                        [.text(originText), db.engine.anyText(key)]
                    ) { ($0.string(0), $0.int(1)) }.first
                    if stored?.0 == value { continue }
                    let size = StorageItem.size(key: key, value: value)
                    let replaced = stored?.1 ?? 0
                    let required = try StorageQuota.usage(
                        storing: size, replacing: replaced, in: used, quota: quota, origin: origin)
                    try db.execute(
                        """
                        INSERT INTO local_storage (origin, key, value, size, site, modified) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT (origin, key) DO UPDATE SET value = excluded.value, size = excluded.size, modified = excluded.modified
                        """,
                        [
                            .text(originText), db.engine.anyText(key), db.engine.anyText(value), .integer(size),
                            .text(site), .real(now),
                        ])
                    used = required
                    changed += 1
                }
                return changed
            }
        } catch {
            throw StorageRemoval.storeError(error)
        }
    }
}
