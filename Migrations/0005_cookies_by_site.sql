-- wkstore schema 5: cookies kept in site order, and a change log without AUTOINCREMENT.
--
-- Every call that changes cookies is a commit of its own, and a commit writes every page it
-- touched. A response's cookies belong to one site: with the rows clustered by site (a
-- WITHOUT ROWID table keyed by site first), a response's commit writes one page of the table,
-- where the rowid table with its unique, site and modification-time indexes wrote four or
-- more. Cookies are listed, looked up and removed (by site and by date) from the in-memory
-- index loaded at open, so the table needs no secondary index: a site's rows are read by the
-- key's prefix. Rows are identified as before by (name, domain, host_only, path,
-- partition_key); the site, which follows from the domain, leads the key.
CREATE TABLE cookies_by_site (
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
    PRIMARY KEY (site, domain, name, path, host_only, partition_key)
) WITHOUT ROWID;
INSERT INTO cookies_by_site (site, name, value, domain, path, host_only, secure, http_only, same_site,
                             partition_key, expires, created, last_access, modified)
    SELECT site, name, value, domain, path, host_only, secure, http_only, same_site,
           partition_key, expires, created, last_access, modified
    FROM cookies ORDER BY id;
DROP TABLE cookies;
ALTER TABLE cookies_by_site RENAME TO cookies;

-- The change log's sequence numbers only grow: its newest entries are never trimmed, so the
-- rowid alone (max + 1) keeps them growing without AUTOINCREMENT's extra table write per entry.
CREATE TABLE change_log_plain (
    seq        INTEGER PRIMARY KEY,
    data_type  TEXT NOT NULL,
    site       TEXT NOT NULL,
    since      REAL
);
INSERT INTO change_log_plain (seq, data_type, site, since) SELECT seq, data_type, site, since FROM change_log ORDER BY seq;
-- Keep the high-water mark AUTOINCREMENT held, should the log have been emptied.
INSERT INTO change_log_plain (seq, data_type, site, since)
    SELECT seq, 'schema', '*', NULL FROM sqlite_sequence
    WHERE name = 'change_log' AND seq > (SELECT coalesce(max(seq), 0) FROM change_log);
DROP TABLE change_log;
ALTER TABLE change_log_plain RENAME TO change_log;
