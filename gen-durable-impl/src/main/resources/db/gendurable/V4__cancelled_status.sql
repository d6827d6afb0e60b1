-- gen-durable schema, version 4: the CANCELLED status (an operator's cancel, docs/operations.md).
-- Alone in its migration: a value added to an enum cannot be used in the transaction that adds
-- it, and version 5 uses it in index predicates.
ALTER TYPE durable_status ADD VALUE IF NOT EXISTS 'cancelled';
