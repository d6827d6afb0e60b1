-- gen-durable schema, version 14: debounce (InsertOptions.debounce; docs/fsm.md "Debounce"): run once after a burst.
--
-- debounce_key: the key an instance was inserted with (per FSM); NULL for every other row.
-- debounce_at: the instant of the latest insert that wrote the instance (its own, or a debounced
-- one); NULL for every other row.
--
-- An instance is waiting for its first start while it is runnable and nothing but an insert of
-- its key has written it since: every other write (a claim by any node, this release's or the
-- previous one, an operator's action) stamps updated_at with its own instant, later than
-- debounce_at (a claim happens at or after eligible_at, a window after it), and takes the row out
-- of the index for good. A debounced insert is one INSERT … ON CONFLICT on this index: two nodes
-- inserting one key meet here (one inserts, the other waits for its commit and updates it), and an
-- insert that meets a row being claimed waits for the claim and then inserts a new instance.
--
-- Expand-only: two nullable columns (no rewrite), and an index partial on them: every existing row
-- and every row a previous-release node writes is outside it (that code never sets debounce_key),
-- so it cannot refuse their writes. Building it reads the table once, holding off writes meanwhile
-- (as V11's index did): seconds on millions of rows, enter it in a quiet moment.
ALTER TABLE gen_durable ADD COLUMN debounce_key text, ADD COLUMN debounce_at timestamptz;
CREATE UNIQUE INDEX gen_durable_debounce ON gen_durable (fsm, debounce_key)
    WHERE debounce_key IS NOT NULL AND status = 'runnable' AND updated_at = debounce_at;
