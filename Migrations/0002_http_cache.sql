-- wkstore schema 2: the HTTP disk cache.
-- One row per stored response, keyed as a partitioned browser cache keys it: the top-level
-- site the request was made under, the method, the URL and the Vary variant. Header fields
-- are kept here (without Set-Cookie, Set-Cookie2 and Clear-Site-Data unless the store's
-- cache.store-cookie-headers setting says otherwise); a body of up to 64 KiB is kept inline,
-- a larger one in a file of the cache/ folder beside store.sqlite, named by body_file.
-- Like every row of website data, a row carries its site (the display name of the URL) and
-- its modification time, both indexed.

CREATE TABLE http_cache (
    id            INTEGER PRIMARY KEY,
    site          TEXT NOT NULL,     -- display name of the URL's host
    partition_key TEXT NOT NULL,     -- schemeful top-level site, e.g. https://example.com
    method        TEXT NOT NULL,     -- GET
    url           TEXT NOT NULL,     -- without fragment
    variant       TEXT NOT NULL,     -- the Vary-nominated request header values, normalised; '' without Vary
    status        INTEGER NOT NULL,
    headers       TEXT NOT NULL,     -- "Name: value" lines, in order
    request_time  REAL NOT NULL,     -- Unix seconds
    response_time REAL NOT NULL,
    body          BLOB,              -- the body when inline
    body_file     TEXT,              -- the body's file name in cache/ when not inline
    body_size     INTEGER NOT NULL,
    size          INTEGER NOT NULL,  -- bytes counted against cache.max-size: URL, headers, body
    created       REAL NOT NULL,
    modified      REAL NOT NULL,
    last_access   REAL NOT NULL,
    UNIQUE (partition_key, method, url, variant)
);
CREATE INDEX http_cache_site ON http_cache (site);
CREATE INDEX http_cache_modified ON http_cache (modified);
CREATE INDEX http_cache_last_access ON http_cache (last_access);
CREATE INDEX http_cache_url ON http_cache (url);

-- The bytes the disk cache holds, kept by triggers so that a size check costs one row read.
CREATE TABLE http_cache_usage (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    bytes INTEGER NOT NULL
);
INSERT INTO http_cache_usage (id, bytes) VALUES (1, 0);

CREATE TRIGGER http_cache_usage_insert AFTER INSERT ON http_cache BEGIN
    UPDATE http_cache_usage SET bytes = bytes + new.size WHERE id = 1;
END;
CREATE TRIGGER http_cache_usage_delete AFTER DELETE ON http_cache BEGIN
    UPDATE http_cache_usage SET bytes = bytes - old.size WHERE id = 1;
END;
CREATE TRIGGER http_cache_usage_update AFTER UPDATE OF size ON http_cache BEGIN
    UPDATE http_cache_usage SET bytes = bytes - old.size + new.size WHERE id = 1;
END;
