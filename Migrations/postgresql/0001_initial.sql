-- wkstore PostgreSQL schema 1: the store's tables as the SQLite schema has them after its
-- migration 6, with the change log in columns, for a fleet of machines sharing one store.
--
-- The rules are the SQLite schema's (Migrations/*.sql); only the dialect differs. Times are
-- Unix seconds in double precision, as SQLite's REAL; flags are booleans; blobs are bytea.
-- Every row of website data carries its site (display name) and its modification time, both
-- indexed, so listing by site is a GROUP BY and removal by date is a range delete.
-- Nothing lives beside the database: cache bodies are inline, and a WebSQL-style database is
-- kept as its SQLite file's image.
--
-- Each store is a schema of its own (`wkstore` for the default store, `wkstore_` and the
-- identifier's 32 hex digits for another); its connections put that schema first in their
-- search_path, and the functions here are bound to the schema they were made in.
-- Text compares byte by byte (COLLATE "C"), as SQLite's text does, whatever the database's
-- collation: sites, origins and keys sort the same on both engines.

CREATE TABLE settings (
    key   text COLLATE "C" PRIMARY KEY,
    value text COLLATE "C" NOT NULL
);

-- The change feed: one row per change, in commit order (DESIGN.md, decision 10).
--
-- seq is the row's position. It is assigned by wkstore_change_log_position, under a
-- transaction-level advisory lock that the transaction holds until it commits, from a counter
-- row updated in the same transaction: a transaction that appends holds the next positions
-- until it commits or rolls back, so positions are in commit order, a reader that has seen
-- position n has seen every position before it, and a rolled-back transaction leaves no gap.
--
-- type: 1 cookies, 2 diskcache, 3 memorycache, 4 appcache, 5 sessionstorage, 6 localstorage,
--       7 websql, 8 indexeddb, 9 settings.
-- site: a display name, or '*' for every site.
-- cause: 1 write, 2 removal, 3 importing, 4 endSession, 5 expiry, 6 eviction, 7 access.
-- time: when the change was made; since: a removal's "modified since" date, NULL for any time.
-- op: NULL for an entry that names a site whose data changed; 1 a cookie set (inserted or
--     overwritten), 2 a cookie deleted, 3 a cookie's last access moved on; the columns after it
--     are that cookie's, as in the cookies table.
CREATE TABLE change_log (
    seq           bigint PRIMARY KEY,
    type          smallint NOT NULL,
    site          text COLLATE "C" NOT NULL,
    cause         smallint NOT NULL,
    time          double precision NOT NULL,
    since         double precision,
    op            smallint,
    name          text COLLATE "C",
    value         text COLLATE "C",
    domain        text COLLATE "C",
    path          text COLLATE "C",
    host_only     boolean,
    secure        boolean,
    http_only     boolean,
    same_site     text COLLATE "C",
    partition_key text COLLATE "C",
    expires       double precision,
    created       double precision,
    last_access   double precision,
    modified      double precision
);

-- The last position given out; one row.
CREATE TABLE change_log_head (
    id       smallint PRIMARY KEY CHECK (id = 1),
    position bigint NOT NULL
);
INSERT INTO change_log_head (id, position) VALUES (1, 0);

-- The next position, claimed for the calling transaction. The lock's key is
-- (PostgreSQLConnection.lockNamespace, 1); a transaction may take it any number of times.
CREATE FUNCTION wkstore_change_log_position() RETURNS bigint LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    claimed bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(2004578163, 1);
    UPDATE change_log_head SET position = position + 1 WHERE id = 1 RETURNING position INTO claimed;
    RETURN claimed;
END
$$;

CREATE FUNCTION wkstore_change_log_assign() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    NEW.seq := wkstore_change_log_position();
    RETURN NEW;
END
$$;

-- Every appended row gets its position here, whatever seq the INSERT or COPY gave it.
CREATE TRIGGER change_log_assign BEFORE INSERT ON change_log
    FOR EACH ROW EXECUTE FUNCTION wkstore_change_log_assign();

-- Listeners on channel wkstore_changes hear the store's schema and its newest position
-- ("wkstore 42") when a transaction that appended commits (nothing if it rolls back), so other
-- machines catch up without polling.
CREATE FUNCTION wkstore_change_log_notify() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM pg_notify('wkstore_changes', TG_TABLE_SCHEMA || ' ' || (SELECT position FROM change_log_head WHERE id = 1));
    RETURN NULL;
END
$$;

CREATE TRIGGER change_log_notify AFTER INSERT ON change_log
    FOR EACH STATEMENT EXECUTE FUNCTION wkstore_change_log_notify();

-- Cookies, clustered by site as SQLite's WITHOUT ROWID table is keyed.
CREATE TABLE cookies (
    site          text COLLATE "C" NOT NULL,
    name          text COLLATE "C" NOT NULL,
    value         text COLLATE "C" NOT NULL,
    domain        text COLLATE "C" NOT NULL,            -- lower case, no leading dot
    path          text COLLATE "C" NOT NULL,
    host_only     boolean NOT NULL,
    secure        boolean NOT NULL,
    http_only     boolean NOT NULL,
    same_site     text COLLATE "C" NOT NULL,            -- unspecified, none, lax, strict
    partition_key text COLLATE "C" NOT NULL DEFAULT '', -- top-level site of a Partitioned cookie
    expires       double precision,         -- NULL for a session cookie
    created       double precision NOT NULL,
    last_access   double precision NOT NULL,
    modified      double precision NOT NULL,
    PRIMARY KEY (site, domain, name, path, host_only, partition_key)
);
CREATE INDEX cookies_modified ON cookies (modified);

-- The HTTP disk cache: one row per stored response, keyed as a partitioned browser cache
-- keys it. The body is always inline (TOAST stores a large one out of line); body_file, which
-- names a SQLite store's body file, is always NULL here.
CREATE TABLE http_cache (
    id            bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    site          text COLLATE "C" NOT NULL,
    partition_key text COLLATE "C" NOT NULL,
    method        text COLLATE "C" NOT NULL,
    url           text COLLATE "C" NOT NULL,
    variant       text COLLATE "C" NOT NULL,
    status        integer NOT NULL,
    headers       text COLLATE "C" NOT NULL,
    request_time  double precision NOT NULL,
    response_time double precision NOT NULL,
    body          bytea,
    body_file     text COLLATE "C",
    body_size     bigint NOT NULL,
    size          bigint NOT NULL,
    created       double precision NOT NULL,
    modified      double precision NOT NULL,
    last_access   double precision NOT NULL,
    UNIQUE (partition_key, method, url, variant)
);
CREATE INDEX http_cache_site ON http_cache (site);
CREATE INDEX http_cache_modified ON http_cache (modified);
CREATE INDEX http_cache_last_access ON http_cache (last_access);
CREATE INDEX http_cache_url ON http_cache (url);

-- The bytes the disk cache holds, kept by a trigger so that a size check costs one row read.
CREATE TABLE http_cache_usage (
    id    smallint PRIMARY KEY CHECK (id = 1),
    bytes bigint NOT NULL
);
INSERT INTO http_cache_usage (id, bytes) VALUES (1, 0);

CREATE FUNCTION wkstore_http_cache_usage() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE http_cache_usage SET bytes = bytes + NEW.size WHERE id = 1;
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE http_cache_usage SET bytes = bytes - OLD.size WHERE id = 1;
    ELSE
        UPDATE http_cache_usage SET bytes = bytes - OLD.size + NEW.size WHERE id = 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER http_cache_usage AFTER INSERT OR DELETE OR UPDATE OF size ON http_cache
    FOR EACH ROW EXECUTE FUNCTION wkstore_http_cache_usage();

-- sessionStorage lives in process memory only; its removals are recorded so every process
-- holding namespaces removes the same.
CREATE TABLE session_storage_clears (
    seq      bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    writer   text COLLATE "C" NOT NULL,
    site     text COLLATE "C" NOT NULL,
    since    double precision,
    modified double precision NOT NULL
);

-- One row per localStorage item; `size` is what the item counts against its origin's quota
-- (the UTF-16 code units of key and value, two bytes each). Items are listed in id order, the
-- order they were first set.
CREATE TABLE local_storage (
    id       bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    origin   text COLLATE "C" NOT NULL,
    key      text COLLATE "C" NOT NULL,
    value    text COLLATE "C" NOT NULL,
    size     bigint NOT NULL,
    site     text COLLATE "C" NOT NULL,
    modified double precision NOT NULL,
    UNIQUE (origin, key)
);
CREATE INDEX local_storage_origin_size ON local_storage (origin, size);
CREATE INDEX local_storage_site ON local_storage (site);
CREATE INDEX local_storage_modified ON local_storage (modified);

-- One row per WebSQL-style database; its data is the image of its SQLite file, written back
-- whole by each write transaction.
CREATE TABLE websql_databases (
    id             bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    origin         text COLLATE "C" NOT NULL,
    name           text COLLATE "C" NOT NULL,
    version        text COLLATE "C" NOT NULL,
    display_name   text COLLATE "C" NOT NULL,
    estimated_size bigint NOT NULL,
    file           text COLLATE "C",          -- a SQLite store's file name; NULL here
    image          bytea,
    site           text COLLATE "C" NOT NULL,
    created        double precision NOT NULL,
    modified       double precision NOT NULL,
    UNIQUE (origin, name)
);
CREATE INDEX websql_databases_site ON websql_databases (site);
CREATE INDEX websql_databases_modified ON websql_databases (modified);

-- Application cache groups, keyed by manifest URL, and their entries.
CREATE TABLE appcache_groups (
    id           bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    manifest_url text COLLATE "C" NOT NULL UNIQUE,
    origin       text COLLATE "C" NOT NULL,
    manifest     bytea NOT NULL,
    site         text COLLATE "C" NOT NULL,
    created      double precision NOT NULL,
    modified     double precision NOT NULL
);
CREATE INDEX appcache_groups_origin ON appcache_groups (origin);
CREATE INDEX appcache_groups_site ON appcache_groups (site);
CREATE INDEX appcache_groups_modified ON appcache_groups (modified);

CREATE TABLE appcache_entries (
    group_id bigint NOT NULL REFERENCES appcache_groups (id) ON DELETE CASCADE,
    url      text COLLATE "C" NOT NULL,
    kind     text COLLATE "C" NOT NULL,     -- master, explicit, fallback, manifest
    status   integer NOT NULL,
    headers  text COLLATE "C" NOT NULL,     -- JSON array of [name, value] pairs
    body     bytea NOT NULL,
    size     bigint NOT NULL,
    site     text COLLATE "C" NOT NULL,
    modified double precision NOT NULL,
    PRIMARY KEY (group_id, url)
);
CREATE INDEX appcache_entries_url ON appcache_entries (url);
CREATE INDEX appcache_entries_site ON appcache_entries (site);
CREATE INDEX appcache_entries_modified ON appcache_entries (modified);

-- IndexedDB-style databases. Keys are bytea in the order-preserving encoding of
-- Docs/indexeddb.md: bytea compares byte by byte, so its order is the IndexedDB key order.
-- Deleting a database deletes what it holds (foreign keys with ON DELETE CASCADE), so removal
-- by date is one DELETE on idb_databases. Identifiers are never reused.
CREATE TABLE idb_databases (
    id       bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    origin   text COLLATE "C" NOT NULL,
    name     text COLLATE "C" NOT NULL,
    version  bigint NOT NULL,
    site     text COLLATE "C" NOT NULL,
    modified double precision NOT NULL,
    size     bigint NOT NULL DEFAULT 0,
    UNIQUE (origin, name)
);
CREATE INDEX idb_databases_site ON idb_databases (site);
CREATE INDEX idb_databases_modified ON idb_databases (modified);

CREATE TABLE idb_object_stores (
    id             bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    database_id    bigint NOT NULL REFERENCES idb_databases (id) ON DELETE CASCADE,
    name           text COLLATE "C" NOT NULL,
    key_path       text COLLATE "C",                      -- JSON; NULL for out-of-line keys
    auto_increment boolean NOT NULL,
    current_key    bigint NOT NULL DEFAULT 1, -- the key generator's current number
    UNIQUE (database_id, name)
);

CREATE TABLE idb_indexes (
    id          bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    store_id    bigint NOT NULL REFERENCES idb_object_stores (id) ON DELETE CASCADE,
    name        text COLLATE "C" NOT NULL,
    key_path    text COLLATE "C" NOT NULL,
    is_unique   boolean NOT NULL,
    multi_entry boolean NOT NULL,
    UNIQUE (store_id, name)
);

CREATE TABLE idb_records (
    store_id bigint NOT NULL REFERENCES idb_object_stores (id) ON DELETE CASCADE,
    key      bytea NOT NULL,
    value    bytea NOT NULL,
    PRIMARY KEY (store_id, key)
);

-- Index order is (index key, primary key), as the specification orders index records.
CREATE TABLE idb_index_records (
    index_id    bigint NOT NULL REFERENCES idb_indexes (id) ON DELETE CASCADE,
    key         bytea NOT NULL,
    primary_key bytea NOT NULL,
    PRIMARY KEY (index_id, key, primary_key)
);
CREATE INDEX idb_index_records_primary ON idb_index_records (index_id, primary_key);
