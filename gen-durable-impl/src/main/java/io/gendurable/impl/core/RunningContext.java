package io.gendurable.impl.core;

import io.gendurable.StepContext;
import io.gendurable.impl.sql.ClaimedRow;

import java.time.Instant;
import java.util.Optional;

/** The {@link StepContext} of a claimed row. */
record RunningContext(ClaimedRow row, int maxAttempts) implements StepContext {
    @Override public long id() { return row.id(); }
    @Override public String fsm() { return row.fsm(); }
    @Override public int fsmVersion() { return row.fsmVersion(); }
    @Override public String step() { return row.step(); }
    @Override public int attempt() { return row.attempt(); }
    @Override public String queue() { return row.queue(); }
    @Override public Instant insertedAt() { return row.insertedAt(); }
    @Override public Optional<String> correlationKey() { return Optional.ofNullable(row.correlationKey()); }
    @Override public Optional<String> concurrencyKey() { return Optional.ofNullable(row.concurrencyKey()); }
}
