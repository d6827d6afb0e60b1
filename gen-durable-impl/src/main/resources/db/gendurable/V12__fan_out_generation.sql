-- A child counts toward its parent's join once, and only toward the fan-out that created it.
-- fan_out: a parent's generation, bumped by each of its fan-outs. parent_fan_out: the generation
-- of the fan-out that inserted this child (NULL: inserted by a node of the previous release still
-- running: such a child counts toward whatever its parent awaits, as before). joined: this
-- child has ended and counted (or ended while its parent awaited nothing): it never counts again,
-- whatever an operator retries. Expand-only; constant defaults add no rewrite.
ALTER TABLE gen_durable ADD COLUMN fan_out integer NOT NULL DEFAULT 0;
ALTER TABLE gen_durable ADD COLUMN parent_fan_out integer;
ALTER TABLE gen_durable ADD COLUMN joined boolean NOT NULL DEFAULT false;
-- The children that already ended under a parent that can still join (not done, so it may be
-- retried or still waits) have counted, or ended while their parent was not waiting: mark them,
-- so a retry of either does not count them a second time. Children only (gen_durable_parent).
UPDATE gen_durable c SET joined = true
FROM gen_durable p
WHERE c.parent_id IS NOT NULL AND c.parent_id = p.id AND c.status IN ('done', 'failed', 'cancelled')
  AND p.status <> 'done';
-- The live children belong to their parent's fan-out of before this version, generation 0 (every
-- parent's fan_out is 0 now): a parent that fans out again after the upgrade (retried after a
-- cancel that left them running) waits for its new round only, not for them.
UPDATE gen_durable SET parent_fan_out = 0
WHERE parent_id IS NOT NULL AND status NOT IN ('done', 'failed', 'cancelled');
