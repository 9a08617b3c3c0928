-- Plans of the statement-level triggers an import fires once per batch (issue 24).
--
-- require_rows (012_subscriber_children.sql) locks the parents a batch of subscriptions, attribute values or history
-- lines names, `id = ANY ($1)` with a thousand ids. While an import fills an empty table in its own transaction the
-- planner finds the table a few thousand pages long and judges a sequential scan cheaper than a thousand index
-- probes, so each batch read every subscriber written before it, three times: the import's cost grew with the square
-- of its size until the table passed some 20,000 pages. Through the primary key each batch costs the same.
ALTER FUNCTION require_rows(regclass, integer[]) SET enable_seqscan = off;
