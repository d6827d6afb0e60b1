-- gen-durable schema, version 9: the W3C trace context (docs/tracing.md).
--
-- traceparent/tracestate hold the context of the span that was current when the row was
-- inserted (a request, a parent's step for a fan-out child) or when the signal was sent. NULL
-- when no span was current (telemetry off or no OpenTelemetry API): nothing is written then.
-- The step runner starts each step's span with the instance's context as its parent.
ALTER TABLE gen_durable ADD COLUMN traceparent text, ADD COLUMN tracestate text;
ALTER TABLE signals ADD COLUMN traceparent text, ADD COLUMN tracestate text;
