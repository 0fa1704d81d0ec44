-- wkstore schema 3: localStorage, the WebSQL catalog and offline application caches.
-- Every row of website data carries its site (display name) and its modification time, both indexed.

-- sessionStorage lives in process memory only. A removal of it is recorded here (and in
-- change_log) so every process holding namespaces removes the same on its next call; unlike
-- change_log, which keeps only its newest entries, these rows stay until 10000 newer ones exist,
-- so a process that was idle while other data types changed a lot still sees every clear.
CREATE TABLE session_storage_clears (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    writer   TEXT NOT NULL,       -- the store object that cleared (it has applied the clear itself)
    site     TEXT NOT NULL,       -- a display name, or '*' for every site
    since    REAL,                -- items modified at or after this time; NULL for any time
    modified REAL NOT NULL        -- when the clear was made
);

-- One row per localStorage item. `size` is what the item counts against its origin's quota,
-- as browsers count it: the UTF-16 code units of key and value, two bytes each.
-- Items are listed in rowid order, the order they were first set.
CREATE TABLE local_storage (
    id       INTEGER PRIMARY KEY,
    origin   TEXT NOT NULL,               -- scheme://host[:port]
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    size     INTEGER NOT NULL,
    site     TEXT NOT NULL,
    modified REAL NOT NULL,
    UNIQUE (origin, key)
);
CREATE INDEX local_storage_origin_size ON local_storage (origin, size);
CREATE INDEX local_storage_site ON local_storage (site);
CREATE INDEX local_storage_modified ON local_storage (modified);

-- One row per WebSQL-style database. Its data is a SQLite file of its own,
-- websql/<file> in the store directory, named by a random identifier and never by the
-- origin or the database name; a non-persistent store keeps it in memory.
CREATE TABLE websql_databases (
    id             INTEGER PRIMARY KEY,
    origin         TEXT NOT NULL,
    name           TEXT NOT NULL,
    file           TEXT NOT NULL UNIQUE,
    version        TEXT NOT NULL,
    display_name   TEXT NOT NULL,
    estimated_size INTEGER NOT NULL,
    site           TEXT NOT NULL,
    created        REAL NOT NULL,
    modified       REAL NOT NULL,     -- the last write transaction's time
    UNIQUE (origin, name)
);
CREATE INDEX websql_databases_site ON websql_databases (site);
CREATE INDEX websql_databases_modified ON websql_databases (modified);

-- Application cache groups, keyed by manifest URL; an update replaces a group's row and
-- all its entries in one transaction.
CREATE TABLE appcache_groups (
    id           INTEGER PRIMARY KEY,
    manifest_url TEXT NOT NULL UNIQUE,
    origin       TEXT NOT NULL,
    manifest     BLOB NOT NULL,
    site         TEXT NOT NULL,
    created      REAL NOT NULL,
    modified     REAL NOT NULL
);
CREATE INDEX appcache_groups_origin ON appcache_groups (origin);
CREATE INDEX appcache_groups_site ON appcache_groups (site);
CREATE INDEX appcache_groups_modified ON appcache_groups (modified);

-- The entries of a group: a URL and the response stored for it.
-- `headers` is a JSON array of [name, value] pairs, in the order received; `size` is the
-- UTF-8 bytes of the URL and of each header name and value, plus the body's bytes.
CREATE TABLE appcache_entries (
    group_id INTEGER NOT NULL,
    url      TEXT NOT NULL,
    kind     TEXT NOT NULL,              -- master, explicit, fallback, manifest
    status   INTEGER NOT NULL,
    headers  TEXT NOT NULL,
    body     BLOB NOT NULL,
    size     INTEGER NOT NULL,
    site     TEXT NOT NULL,
    modified REAL NOT NULL,
    PRIMARY KEY (group_id, url)
);
CREATE INDEX appcache_entries_url ON appcache_entries (url);
CREATE INDEX appcache_entries_site ON appcache_entries (site);
CREATE INDEX appcache_entries_modified ON appcache_entries (modified);
