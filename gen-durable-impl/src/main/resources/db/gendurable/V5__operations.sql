-- gen-durable schema, version 5: what the operations API needs (docs/operations.md).

-- A paused queue: no node claims from it while its row exists (the claim's one-time filter);
-- running steps finish. Durable across restarts, the same on every node.
CREATE TABLE gen_durable_paused_queues (
    queue     text        PRIMARY KEY,
    paused_at timestamptz NOT NULL DEFAULT now(),
    paused_by text,
    reason    text
);

-- The GC, one scan per retention: `done` rows after gendurable.gc.retention, `failed` and
-- `cancelled` ones after gendurable.gc.failed-retention (longer by default). Each partial index
-- serves its sweep in termination order without stepping over the other's rows.
CREATE INDEX gen_durable_gc_done ON gen_durable (updated_at)
    WHERE status = 'done';
CREATE INDEX gen_durable_gc_failed ON gen_durable (updated_at)
    WHERE status IN ('failed', 'cancelled');
DROP INDEX gen_durable_gc;
