-- gen-durable schema, version 3: the indexes of the operations API's search
-- (DurableOperations.search; docs/operations.md "Operations API", docs/internals.md "Indexes").
--
-- A search pages in id order (keyset: id < or > the cursor's id), so each index ends with id:
-- an equality on its leading column then reads the page straight off the index, already in
-- order, and stops after it, however many rows match and wherever they sit in the table.
--
-- Every one leaves out the 'executing' rows. Those are few (the claims in flight) and churn
-- most: a claim flips a row to 'executing' and each heartbeat rewrites it, and none of those
-- updates is HOT (status and lease_expires_at are indexed), so each would add an entry to every
-- index of the table. Left out, they cost these indexes nothing; the search reads them through
-- gen_durable_lease instead, in a second statement whose rows it merges into the page.
-- The search's statement repeats the predicate (status <> 'executing') literally, so that the
-- planner can use these partial indexes whatever the parameters.

-- status = ANY(…): one range per status.
CREATE INDEX gen_durable_ops_status ON gen_durable (status, id)
    WHERE status <> 'executing';

-- fsm (a version and a step are filtered on these entries).
CREATE INDEX gen_durable_ops_fsm ON gen_durable (fsm, id)
    WHERE status <> 'executing';

-- queue (any status: the pick index holds runnable rows only, in pick order).
CREATE INDEX gen_durable_ops_queue ON gen_durable (queue, id)
    WHERE status <> 'executing';

-- correlation key, exact or by prefix (text_pattern_ops: LIKE 'prefix%' is a range on it), in
-- any status: gen_durable_correlation holds the key only while the row holds it.
CREATE INDEX gen_durable_ops_correlation ON gen_durable (correlation_key text_pattern_ops, id)
    WHERE correlation_key IS NOT NULL AND status <> 'executing';

-- concurrency key, in any status (gen_durable_concurrency_active holds executing K = 1 rows only).
CREATE INDEX gen_durable_ops_concurrency ON gen_durable (concurrency_key, id)
    WHERE concurrency_key IS NOT NULL AND status <> 'executing';

-- error text: the rows that have one, in id order; the text is filtered on them.
CREATE INDEX gen_durable_ops_error ON gen_durable (id)
    WHERE last_error IS NOT NULL AND status <> 'executing';

-- No index for the inserted/updated time ranges: every index here costs each insert and each
-- transition out of 'executing' one more entry (about 2 per job), and the ranges are served well
-- enough without one — ids follow insertion, so a recent inserted range is the head of the id
-- walk, and an updated range mostly comes with a status (the GC's indexes hold done, failed and
-- cancelled rows by updated_at). An old range alone walks the table (docs/performance.md).
