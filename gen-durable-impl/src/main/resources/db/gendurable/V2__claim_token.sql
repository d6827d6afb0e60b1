-- gen-durable schema, version 2: the fencing token. See docs/internals.md ("The fencing token")
-- and docs/operations.md ("Upgrading") for the order in which nodes and this migration meet.

-- One value per claim. Uniqueness is all that matters (cached blocks per session are fine).
CREATE SEQUENCE gen_durable_claim_token AS bigint CACHE 32;

-- Stamped with a fresh value by every claim and every inline continue, cleared by every
-- transition out of 'executing' (flush, reaper, start-up reclaim, release); required by the
-- flush, the heartbeat, the releases and the admission's shard stamp. (locked_by, attempt)
-- could repeat across claims of one row: claim at attempt 1, reaped (2), re-claimed by the same
-- worker, next resets the attempt to 1, re-claimed again: a late outcome of the first claim
-- matched. A token never repeats.
ALTER TABLE gen_durable ADD COLUMN claim_token bigint;

-- Claims taken before this migration (by version-1 code) get a token too, so the CHECK below
-- holds; their holders still finish them with the version-1 guard (locked_by, attempt).
UPDATE gen_durable SET claim_token = nextval('gen_durable_claim_token') WHERE status = 'executing';

-- An executing row is always fenced. Version-1 code, which claims without a token, cannot claim
-- on a version-2 schema: its claim fails on this CHECK and changes nothing.
ALTER TABLE gen_durable ADD CONSTRAINT gen_durable_executing_is_fenced
    CHECK (status <> 'executing' OR claim_token IS NOT NULL);
