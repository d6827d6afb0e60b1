-- gen-durable schema, version 10: the waiting rows of a busy K = 1 key leave the pick index
-- (docs/internals.md "Rows blocked by their key", docs/performance.md "One hot K = 1 key").
--
-- A runnable row whose unconfigured concurrency key (K = 1) has a row executing cannot be
-- claimed, yet it sat in gen_durable_pick in pick order: a key with a backlog made every claim
-- of its queue read the whole backlog before the rows it could take (75 ms a claim beside
-- 50,000 waiting rows of one key). Such rows may now be marked blocked (key_blocked): out of
-- the pick index, in gen_durable_key_blocked instead, in the order the claim would take them.
--
-- The protocol (io.gendurable.impl.keys.KeySql): a key's blocked rows always have a way in,
-- an unblocked runnable row of the key (its head) or a row executing.
-- - block: when a queue's claim ran long, its first due rows are walked; per K = 1 key, the first
--   is the head, held FOR SHARE (SKIP LOCKED) so that it stays runnable and unblocked until the
--   blocking commits, and the key's other walked rows are blocked.
-- - unblock: whatever takes a K = 1 row out of 'executing' (the flush, a cancel) then unblocks
--   the key's first blocked row, in a statement that starts after its own update and so sees
--   every blocking committed before it; a key with a row executing keeps its rows.
-- - the sweep (in the reaper's loop) unblocks the first row of any key with blocked rows and no
--   row executing: the backstop for a path that left one behind.
-- A blocked row is runnable in every other respect (gauges, drain, the operations API).
ALTER TABLE gen_durable ADD COLUMN key_blocked boolean NOT NULL DEFAULT false;

DROP INDEX gen_durable_pick;
CREATE INDEX gen_durable_pick ON gen_durable (queue, priority, eligible_at)
    WHERE status = 'runnable' AND NOT key_blocked;

-- queue included: the gauges count the blocked rows per queue from this index alone.
CREATE INDEX gen_durable_key_blocked ON gen_durable (concurrency_key, priority, eligible_at, id) INCLUDE (queue)
    WHERE status = 'runnable' AND key_blocked;
