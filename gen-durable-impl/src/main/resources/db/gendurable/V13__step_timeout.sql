-- The step timeout an instance was inserted with (InsertOptions.stepTimeout), in milliseconds, for
-- every step of the instance: 0 none, NULL the step's, the FSM's or the configured one. Read by the
-- claims; never changed after the insert. Expand-only: no rewrite of the table.
ALTER TABLE gen_durable ADD COLUMN step_timeout_ms bigint CONSTRAINT gen_durable_step_timeout_ms_check CHECK (step_timeout_ms >= 0);
