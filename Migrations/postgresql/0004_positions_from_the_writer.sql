-- wkstore PostgreSQL schema 4: the appending statement gives each change-log row its position.
--
-- Positions keep their rules: handed out under the log's transaction-level advisory lock
-- (PostgreSQLConnection.lockNamespace, 1), which every write transaction takes in its BEGIN, in
-- commit order, with no gap left by a rollback. The writer's INSERT numbers its rows from
-- change_log_head under that lock (StoreDatabase.appendToLog); a trigger call per row (a
-- function call, a setting read and written) cost more than the row itself.
--
-- The statement trigger checks what the rows claim, so no client can break the order: it takes
-- the lock (at once for a writer that holds it), and the statement's positions must continue the
-- head without a gap, or the statement fails. It then moves the head to the last of them and
-- notifies listeners, as before.

DROP TRIGGER change_log_assign ON change_log;
DROP FUNCTION wkstore_change_log_assign();
DROP TRIGGER change_log_notify ON change_log;

CREATE OR REPLACE FUNCTION wkstore_change_log_notify() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    head bigint;
    low bigint;
    high bigint;
    appended_rows bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(2004578163, 1);
    SELECT position INTO head FROM change_log_head WHERE id = 1;
    SELECT min(seq), max(seq), count(*) INTO low, high, appended_rows FROM appended;
    IF appended_rows > 0 THEN
        IF low <> head + 1 OR high - low + 1 <> appended_rows THEN
            RAISE EXCEPTION 'change-log positions % to % (% rows) do not continue the head %', low, high, appended_rows, head
                USING ERRCODE = 'check_violation';
        END IF;
        UPDATE change_log_head SET position = high WHERE id = 1;
        head := high;
    END IF;
    PERFORM pg_notify('wkstore_changes', TG_TABLE_SCHEMA || ' ' || head);
    RETURN NULL;
END
$$;

CREATE TRIGGER change_log_notify AFTER INSERT ON change_log
    REFERENCING NEW TABLE AS appended
    FOR EACH STATEMENT EXECUTE FUNCTION wkstore_change_log_notify();
