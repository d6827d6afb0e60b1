-- gen-durable schema, version 8: recurring schedules (@DurableSchedule and
-- DurableOperations.defineSchedule; docs/schedules.md).
--
-- One row per schedule. A node fires a schedule by locking its row (FOR UPDATE SKIP LOCKED),
-- inserting one instance per due fire time and moving next_fire_at, all in one transaction: a
-- fire time is taken by exactly one node. The instances' correlation keys
-- (schedule:<name>:<fire time>, held in every status) make a second insert of one fire time a
-- duplicate whatever happens to this table.
CREATE TABLE gen_durable_schedules (
    name             text        PRIMARY KEY,
    fsm              text        NOT NULL,
    cron             text        NOT NULL,
    zone             text        NOT NULL,
    state            jsonb       NOT NULL,
    misfire          text        NOT NULL,
    max_catch_up     integer     NOT NULL DEFAULT 1,
    origin           text        NOT NULL,
    next_fire_at     timestamptz NOT NULL,
    last_fire_at     timestamptz,
    last_instance_id bigint,
    paused           boolean     NOT NULL DEFAULT false,
    paused_by        text,
    reason           text,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT gen_durable_schedules_misfire CHECK (misfire IN ('skip', 'catch_up')),
    CONSTRAINT gen_durable_schedules_origin CHECK (origin IN ('annotation', 'api')),
    CONSTRAINT gen_durable_schedules_catch_up CHECK (max_catch_up >= 1)
);

-- The firing loop's scan: due, unpaused schedules.
CREATE INDEX gen_durable_schedules_due ON gen_durable_schedules (next_fire_at) WHERE NOT paused;
