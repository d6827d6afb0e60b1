-- The step timeout an instance was inserted with (InsertOptions.stepTimeout), in milliseconds, for
-- every step of the instance: 0 none, NULL the step's, the FSM's or the configured one. Read by the
-- claims; never changed after the insert. Expand-only: no rewrite of the table, and no read of it
-- either: the check is NOT VALID (every row before it holds NULL, which passes; validating it would
-- read the whole table under this ALTER's exclusive lock), and it holds for every write after it.
ALTER TABLE gen_durable ADD COLUMN step_timeout_ms bigint;
ALTER TABLE gen_durable ADD CONSTRAINT gen_durable_step_timeout_ms_check CHECK (step_timeout_ms >= 0) NOT VALID;
