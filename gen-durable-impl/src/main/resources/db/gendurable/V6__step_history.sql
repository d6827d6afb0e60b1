-- gen-durable schema, version 6: the step history (opt-in: gendurable.history.enabled or
-- @DurableFsm(history = true); docs/operations.md "Step history").
--
-- One row per committed step, inserted by the flush in the transaction that commits the step's
-- outcome (one batched statement per flush). No foreign key to gen_durable: the GC deletes an
-- instance and its history on their own retentions, and a delete of a finished instance never
-- waits on its history.
CREATE TABLE gen_durable_history (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    instance_id bigint      NOT NULL,
    step        text        NOT NULL,
    attempt     integer     NOT NULL,
    outcome     text        NOT NULL,
    started_at  timestamptz NOT NULL,
    finished_at timestamptz NOT NULL,
    node        text        NOT NULL,
    error       text,
    state       jsonb
);

-- An instance's history, in order (inspect).
CREATE INDEX gen_durable_history_instance ON gen_durable_history (instance_id, id);

-- The GC's sweep, oldest first.
CREATE INDEX gen_durable_history_finished ON gen_durable_history (finished_at);
