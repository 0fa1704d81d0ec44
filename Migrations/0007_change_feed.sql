-- wkstore schema 7: the change log names each change's type by a stable code and says why
-- it happened and when it was written, so observers can be told every change and resume
-- from a position after a restart.
--
-- type: what changed, by a code that never changes meaning (1 cookies, 2 disk cache, 3 memory
-- cache, 4 application caches, 5 sessionStorage, 6 localStorage, 7 WebSQL, 8 IndexedDB,
-- 9 settings). cause: 1 written, 2 removed on request, 3 imported, 4 the session ended,
-- 5 expired, 6 evicted, 7 a cookie's last access moved on. time: when the entry was
-- written (Unix seconds), for the retention settings changes.keep-seconds and
-- changes.keep-entries. Entries written before this schema take cause 1 and the time of
-- the upgrade. Positions stay as they were: the newest entry is never trimmed, so the rowid
-- alone keeps them growing.
CREATE TABLE change_log_new (
    seq           INTEGER PRIMARY KEY,
    type          INTEGER NOT NULL,
    site          TEXT NOT NULL,
    cause         INTEGER NOT NULL,
    time          REAL NOT NULL,
    since         REAL,
    op            INTEGER,
    name          TEXT,
    value         TEXT,
    domain        TEXT,
    path          TEXT,
    host_only     INTEGER,
    secure        INTEGER,
    http_only     INTEGER,
    same_site     TEXT,
    partition_key TEXT,
    expires       REAL,
    created       REAL,
    last_access   REAL,
    modified      REAL
);

INSERT INTO change_log_new (seq, type, site, cause, time, since, op, name, value, domain, path, host_only,
                            secure, http_only, same_site, partition_key, expires, created, last_access, modified)
SELECT seq,
       CASE data_type WHEN 'cookies' THEN 1 WHEN 'diskcache' THEN 2 WHEN 'memorycache' THEN 3
                      WHEN 'appcache' THEN 4 WHEN 'sessionstorage' THEN 5 WHEN 'localstorage' THEN 6
                      WHEN 'websql' THEN 7 WHEN 'indexeddb' THEN 8 ELSE 9 END,
       site, 1, CAST(strftime('%s', 'now') AS REAL), since, op, name, value, domain, path, host_only,
       secure, http_only, same_site, partition_key, expires, created, last_access, modified
FROM change_log ORDER BY seq;

DROP TABLE change_log;
ALTER TABLE change_log_new RENAME TO change_log;
