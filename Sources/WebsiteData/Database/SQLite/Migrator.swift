import Foundation

/// One numbered SQL migration compiled into the binary from `Migrations/NNNN_name.sql`.
struct EmbeddedMigration: Sendable {
    let version: Int
    let name: String
    let sql: String
}

/// Applies the embedded migrations to a connection, each once, in its own transaction.
///
/// Applied versions are recorded in `wkstore_schema`. A database that records a version this
/// binary does not know was written by a newer wkstore: it is refused before anything is written.
struct Migrator {
    let migrations: [EmbeddedMigration]

    init(migrations: [EmbeddedMigration] = embeddedMigrations) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// The newest schema version this binary knows.
    var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The versions recorded in the database (empty for a new one). Reads only.
    func appliedVersions(_ db: DatabaseConnection) throws -> [Int] {
        let exists =
            try db.scalar(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'wkstore_schema'")?.int64 ?? 0
        guard exists > 0 else {
            // A database with tables but no schema record is not a wkstore store.
            let tables = try db.scalar("SELECT count(*) FROM sqlite_master")?.int64 ?? 0
            if tables > 0 { throw StoreError.notAStore(detail: "it has tables but no wkstore schema record") }
            return []
        }
        return try db.rows("SELECT version FROM wkstore_schema ORDER BY version") { Int($0.int(0)) }
    }

    /// Checks that the database's schema is one this binary can use, without writing anything.
    ///
    /// - Throws: `StoreError.newerSchema` when the store was written by a newer wkstore.
    func check(_ db: DatabaseConnection, path: String) throws {
        let applied = try appliedVersions(db)
        if let newest = applied.last, newest > latestVersion {
            throw StoreError.newerSchema(path: path, found: newest, supported: latestVersion)
        }
    }

    /// Applies every migration the database has not recorded yet.
    func migrate(_ db: DatabaseConnection, path: String) throws {
        try check(db, path: path)
        if try appliedVersions(db).isEmpty {
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS wkstore_schema (
                    version    INTEGER PRIMARY KEY NOT NULL,
                    name       TEXT NOT NULL,
                    applied_at REAL NOT NULL
                )
                """)
        }
        for migration in migrations {
            try db.transaction {
                // Read again inside the write lock: another process may have migrated meanwhile.
                let done =
                    try db.scalar(
                        "SELECT count(*) FROM wkstore_schema WHERE version = ?",
                        [.integer(Int64(migration.version))])?.int64 ?? 0
                guard done == 0 else { return }
                try db.execute(migration.sql)
                try db.execute(
                    "INSERT INTO wkstore_schema (version, name, applied_at) VALUES (?, ?, ?)",
                    [
                        .integer(Int64(migration.version)), .text(migration.name),
                        .real(Date().timeIntervalSince1970),
                    ])
            }
        }
    }
}
