package io.gendurable.impl.step;

import io.gendurable.Child;
import io.gendurable.Signal;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.step.InboxSql.SignalRow;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The {@link StepContext} of a claimed row. */
final class RunningContext implements StepContext {
    private final ClaimedRow row;
    private final int maxAttempts;
    private final List<Signal> awaited;
    private final List<Signal> inbox;
    private final List<Child> children;

    RunningContext(Claimed claimed, int maxAttempts, Json json) {
        this.row = claimed.row();
        this.maxAttempts = maxAttempts;
        this.awaited = signals(claimed.awaited(), json);
        this.inbox = signals(claimed.inbox(), json);
        // most steps have neither signals nor children: no stream pipeline for an empty list (JFR: 8 % of a
        // no-op job's allocation was these pipelines)
        this.children = claimed.children().isEmpty() ? List.of() : claimed.children().stream().map(c -> new Child(c.id(),
                c.fsm(), Status.fromDb(c.status()), json.value(c.resultJson()), c.lastError())).toList();
    }

    private static List<Signal> signals(List<SignalRow> rows, Json json) {
        if (rows.isEmpty()) {
            return List.of();
        }
        return rows.stream().map(s -> new Signal(s.id(), s.name(), json.value(s.payloadJson()), s.dedupKey(),
                s.insertedAt())).toList();
    }

    @Override public long id() { return row.id(); }
    @Override public String fsm() { return row.fsm(); }
    @Override public int fsmVersion() { return row.fsmVersion(); }
    @Override public String step() { return row.step(); }
    @Override public int attempt() { return row.attempt(); }
    @Override public int maxAttempts() { return maxAttempts; }
    @Override public String queue() { return row.queue(); }
    @Override public Instant insertedAt() { return row.insertedAt(); }
    @Override public Optional<String> correlationKey() { return Optional.ofNullable(row.correlationKey()); }
    @Override public Optional<String> concurrencyKey() { return Optional.ofNullable(row.concurrencyKey()); }
    @Override public List<Signal> awaited() { return awaited; }
    @Override public List<Signal> inbox() { return inbox; }
    @Override public List<Child> children() { return children; }

    @Override
    public String toString() {
        return "StepContext[id=" + row.id() + ", fsm=" + row.fsm() + ", step=" + row.step() + ", attempt="
                + row.attempt() + "]";
    }
}
