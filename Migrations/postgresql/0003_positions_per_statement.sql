-- wkstore PostgreSQL schema 3: change-log positions counted in the transaction, the counter
-- row written once per statement.
--
-- Positions keep their rules (schema 1): handed out under the log's transaction-level advisory
-- lock, in commit order, with no gap left by a rollback. What changes is the cost of each
-- appended row, which was about 100 µs: its trigger function switched search_path on every
-- call, and updating change_log_head for every row made each append walk the versions of that
-- row the transaction had made before (none can be pruned while it runs).
--
-- Now the transaction keeps its last position in a transaction-local setting named after the
-- schema (undone with the transaction or savepoint that set it, as the rows are), read from
-- change_log_head at its first append; the row trigger touches no table after that, so it needs
-- no search_path of its own (the schema is the trigger's table's). The statement's last
-- position is written to change_log_head once, by the statement trigger that also notifies.

DROP FUNCTION wkstore_change_log_position();

CREATE OR REPLACE FUNCTION wkstore_change_log_assign() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    name text := 'wkstore.position_' || TG_TABLE_SCHEMA;
    last bigint := nullif(current_setting(name, true), '')::bigint;
BEGIN
    IF last IS NULL THEN
        PERFORM pg_advisory_xact_lock(2004578163, 1);
        EXECUTE format('SELECT position FROM %I.change_log_head WHERE id = 1', TG_TABLE_SCHEMA) INTO last;
    END IF;
    PERFORM set_config(name, (last + 1)::text, true);
    NEW.seq := last + 1;
    RETURN NEW;
END
$$;
ALTER FUNCTION wkstore_change_log_assign() RESET ALL;

CREATE OR REPLACE FUNCTION wkstore_change_log_notify() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    last bigint := nullif(current_setting('wkstore.position_' || TG_TABLE_SCHEMA, true), '')::bigint;
BEGIN
    IF last IS NOT NULL THEN
        UPDATE change_log_head SET position = last WHERE id = 1 AND position <> last;
    END IF;
    PERFORM pg_notify('wkstore_changes', TG_TABLE_SCHEMA || ' ' || (SELECT position FROM change_log_head WHERE id = 1));
    RETURN NULL;
END
$$;
