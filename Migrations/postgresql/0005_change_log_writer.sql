-- wkstore PostgreSQL schema 5: each change-log row may name the store object that wrote it.
--
-- A store object recognises its own commits among the log's rows so that it does not apply
-- them a second time. It can know the positions of a commit before the commit only by asking
-- for them in a round trip of their own; a commit sent whole, in one round trip, learns them
-- after the rows are visible to others. The writer's number, random per store object, marks
-- those rows as its own instead. NULL: rows of a writer that records its positions before
-- committing.

ALTER TABLE change_log ADD COLUMN writer bigint;
