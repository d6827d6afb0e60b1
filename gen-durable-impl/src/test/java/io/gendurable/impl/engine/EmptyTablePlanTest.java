package io.gendurable.impl.engine;

import java.util.List;

/**
 * The hot statements' generic plans on a table that has just been created: a first deployment,
 * whose idle claims run (and get server-prepared, then planned generically) while the table holds
 * a few rows, never analyzed. A server's pool keeps those connections, and their plans, for the
 * server's life; with autovacuum off nothing ever replans them. So every hot statement's generic
 * plan must go through the indexes even when the planner thinks the table is tiny.
 */
class EmptyTablePlanTest extends HotStatementPlanChecks {
    @Override
    List<String> modes() {
        return List.of("force_generic_plan");
    }

    @Override
    void fill() {
        h.exec("""
                INSERT INTO gen_durable (fsm, step, queue) SELECT 'f', 'start', 'default' FROM generate_series(1, 3);
                INSERT INTO gen_durable (fsm, step, status, updated_at)
                SELECT 'f', 'end', 'done', now() - interval '3 days' FROM generate_series(1, 3);
                INSERT INTO gen_durable (fsm, step, status, locked_by, claim_token, lease_expires_at, concurrency_key)
                SELECT 'f', 'run', 'executing', 'node:default@x', nextval('gen_durable_claim_token'),
                       now() + interval '30 seconds', CASE WHEN i = 1 THEN 'acct:1' END
                FROM generate_series(1, 3) i;
                INSERT INTO gen_durable (fsm, step, queue, concurrency_key) VALUES ('f', 'start', 'default', 'acct:1');
                INSERT INTO gen_durable (fsm, step, status, awaits) VALUES ('f', 'wait', 'awaiting_signal', ARRAY['go']);
                INSERT INTO signals (target_id, name, payload, dedup_key)
                SELECT id, 'item', '{}'::jsonb, 'k' FROM gen_durable WHERE status = 'awaiting_signal';
                INSERT INTO gen_durable (fsm, step, status, children_pending) VALUES ('p', 'joined', 'awaiting_children', 1);
                INSERT INTO gen_durable (fsm, step, parent_id)
                SELECT 'c', 'start', id FROM gen_durable WHERE status = 'awaiting_children';
                """);
    }
}
