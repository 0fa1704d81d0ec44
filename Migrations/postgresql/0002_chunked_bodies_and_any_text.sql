-- wkstore PostgreSQL schema 2: large cache bodies in bounded chunks, and localStorage text
-- that may hold any character.
--
-- A disk-cache body over the inline limit (64 KiB) is kept in rows of http_cache_chunks, in
-- order, each at most 1 MiB, and its entry's body and body_file are both NULL: a body is
-- written and read a chunk at a time, so a body of any size never sits in memory whole. The
-- chunks go with their entry (ON DELETE CASCADE), so every removal of entries stays one DELETE.
CREATE TABLE http_cache_chunks (
    entry_id bigint NOT NULL REFERENCES http_cache (id) ON DELETE CASCADE,
    n        integer NOT NULL,
    bytes    bytea NOT NULL,
    PRIMARY KEY (entry_id, n)
);

-- A localStorage key or value is any string a page can make, NUL included, which text cannot
-- hold: both are kept as their UTF-8 bytes. bytea compares byte by byte, as COLLATE "C" did.
ALTER TABLE local_storage
    ALTER COLUMN key TYPE bytea USING convert_to(key, 'UTF8'),
    ALTER COLUMN value TYPE bytea USING convert_to(value, 'UTF8');
