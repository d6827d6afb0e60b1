-- gen-durable schema, version 7: node beacons (docs/operations.md "Nodes").
--
-- One row per running node, upserted by its beacon every gendurable.nodes.beacon-interval: what it
-- serves (FSMs, queues, rate-limit and gate names) and what it did recently (steps in flight,
-- done and failed outcomes per queue per minute, step durations), as JSON in `info`. A clean stop
-- deletes the row; every beacon deletes the rows not seen for gendurable.nodes.retention. A handful
-- of rows: no index beyond the primary key.
CREATE TABLE gen_durable_nodes (
    node       text        PRIMARY KEY,
    started_at timestamptz NOT NULL,
    seen_at    timestamptz NOT NULL,
    info       jsonb       NOT NULL
);
