-- A cancel of an executing row is a request: the row keeps its claim, its K = 1 key and its gate
-- slot until its step's code returns (or its lease lapses); the flush (or the reaper) then ends it
-- cancelled, with this reason as its last error. NULL: no cancel requested. Expand-only.
ALTER TABLE gen_durable ADD COLUMN cancel_requested text;
-- the reaper finds the requests whose lease lapsed (their step presumed dead): a few rows at most
CREATE INDEX gen_durable_cancel_requested ON gen_durable (id) WHERE cancel_requested IS NOT NULL;
