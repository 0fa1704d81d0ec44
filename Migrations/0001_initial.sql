-- wkstore schema 1: settings, the change log that keeps processes coherent, and cookies.
-- Every row of website data carries its site (display name) and its modification time,
-- both indexed, so listing by site is a GROUP BY and removal by date is a range delete.

PRAGMA application_id = 2004578163; -- 'wkst'

CREATE TABLE settings (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- One row per site changed by a transaction (site '*' for "every site"), per data type.
-- Processes sharing the store read it when PRAGMA data_version says another connection
-- committed, and reload only what changed. A clear of process-memory data (memory cache,
-- sessionStorage) is recorded here too, with the date it cleared from.
CREATE TABLE change_log (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    data_type  TEXT NOT NULL,
    site       TEXT NOT NULL,
    since      REAL
);

CREATE TABLE cookies (
    id            INTEGER PRIMARY KEY,
    site          TEXT NOT NULL,
    name          TEXT NOT NULL,
    value         TEXT NOT NULL,
    domain        TEXT NOT NULL,           -- lower case, no leading dot
    path          TEXT NOT NULL,
    host_only     INTEGER NOT NULL,
    secure        INTEGER NOT NULL,
    http_only     INTEGER NOT NULL,
    same_site     TEXT NOT NULL,           -- unspecified, none, lax, strict
    partition_key TEXT NOT NULL DEFAULT '', -- top-level site of a Partitioned cookie
    expires       REAL,                    -- Unix seconds; NULL for a session cookie
    created       REAL NOT NULL,
    last_access   REAL NOT NULL,
    modified      REAL NOT NULL,
    UNIQUE (name, domain, host_only, path, partition_key)
);
CREATE INDEX cookies_site ON cookies (site);
CREATE INDEX cookies_modified ON cookies (modified);
