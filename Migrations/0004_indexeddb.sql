-- wkstore schema 4: IndexedDB-style databases, object stores, indexes and records.
--
-- A database belongs to an origin and carries its site (display name) and its modification
-- time (its last write), both indexed: databases are what is listed and removed by site and
-- date, whole. Keys are BLOBs in an order-preserving encoding (see Docs/indexeddb.md), so
-- SQLite's memcmp order is the IndexedDB key order and ranges are plain comparisons.
-- Deleting a database, store or index deletes what it holds (triggers), so removal by date
-- is one DELETE on idb_databases.

CREATE TABLE idb_databases (
    id        INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: a stale handle cannot reach a new database
    origin    TEXT NOT NULL,                     -- scheme://host[:port]
    name      TEXT NOT NULL,
    version   INTEGER NOT NULL,
    site      TEXT NOT NULL,
    modified  REAL NOT NULL,                     -- Unix seconds of the last write
    size      INTEGER NOT NULL DEFAULT 0,        -- bytes of record keys and values
    UNIQUE (origin, name)
);
CREATE INDEX idb_databases_site ON idb_databases (site);
CREATE INDEX idb_databases_modified ON idb_databases (modified);

CREATE TABLE idb_object_stores (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    database_id    INTEGER NOT NULL,
    name           TEXT NOT NULL,
    key_path       TEXT,                 -- JSON: "a.b" or ["a","b"]; NULL for out-of-line keys
    auto_increment INTEGER NOT NULL,
    current_key    INTEGER NOT NULL DEFAULT 1, -- the key generator's current number
    UNIQUE (database_id, name)
);

CREATE TABLE idb_indexes (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    store_id    INTEGER NOT NULL,
    name        TEXT NOT NULL,
    key_path    TEXT NOT NULL,           -- JSON, as for stores
    is_unique   INTEGER NOT NULL,
    multi_entry INTEGER NOT NULL,
    UNIQUE (store_id, name)
);

CREATE TABLE idb_records (
    store_id INTEGER NOT NULL,
    key      BLOB NOT NULL,              -- encoded key
    value    BLOB NOT NULL,              -- encoded value
    PRIMARY KEY (store_id, key)
) WITHOUT ROWID;

-- Index order is (index key, primary key), as the specification orders index records.
CREATE TABLE idb_index_records (
    index_id    INTEGER NOT NULL,
    key         BLOB NOT NULL,
    primary_key BLOB NOT NULL,
    PRIMARY KEY (index_id, key, primary_key)
) WITHOUT ROWID;
CREATE INDEX idb_index_records_primary ON idb_index_records (index_id, primary_key);

CREATE TRIGGER idb_databases_cascade AFTER DELETE ON idb_databases BEGIN
    DELETE FROM idb_object_stores WHERE database_id = OLD.id;
END;
CREATE TRIGGER idb_object_stores_cascade AFTER DELETE ON idb_object_stores BEGIN
    DELETE FROM idb_indexes WHERE store_id = OLD.id;
    DELETE FROM idb_records WHERE store_id = OLD.id;
END;
CREATE TRIGGER idb_indexes_cascade AFTER DELETE ON idb_indexes BEGIN
    DELETE FROM idb_index_records WHERE index_id = OLD.id;
END;
