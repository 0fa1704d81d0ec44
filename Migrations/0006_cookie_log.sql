-- wkstore schema 6: cookie changes are appended to the change log, with the cookie.
--
-- A commit appends rows at the end of one table, so it writes the log's last page (and,
-- now and then, a new one), whatever sites its cookies belong to. The cookies table, keyed
-- by site, is brought up to date in bulk: when the log holds enough cookie changes, they are
-- folded into it in one transaction (the setting cookies.folded_through says how far), and a
-- store is read as the table plus the cookie changes after that point. Other processes apply
-- the logged cookies to their memory instead of reloading whole sites.
--
-- op: NULL for an entry that names a site (or '*') whose data changed, as before; 1 a cookie
-- set (inserted or overwritten), 2 a cookie deleted, 3 a cookie's last access moved on. The
-- other columns are the cookie's, as in the cookies table.
ALTER TABLE change_log ADD COLUMN op INTEGER;
ALTER TABLE change_log ADD COLUMN name TEXT;
ALTER TABLE change_log ADD COLUMN value TEXT;
ALTER TABLE change_log ADD COLUMN domain TEXT;
ALTER TABLE change_log ADD COLUMN path TEXT;
ALTER TABLE change_log ADD COLUMN host_only INTEGER;
ALTER TABLE change_log ADD COLUMN secure INTEGER;
ALTER TABLE change_log ADD COLUMN http_only INTEGER;
ALTER TABLE change_log ADD COLUMN same_site TEXT;
ALTER TABLE change_log ADD COLUMN partition_key TEXT;
ALTER TABLE change_log ADD COLUMN expires REAL;
ALTER TABLE change_log ADD COLUMN created REAL;
ALTER TABLE change_log ADD COLUMN last_access REAL;
ALTER TABLE change_log ADD COLUMN modified REAL;
