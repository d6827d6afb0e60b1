package io.gendurable.impl.insert;

import io.gendurable.Debounce;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Status;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.runtime.ValueSize;

import io.gendurable.impl.trace.TraceContext;
import io.gendurable.impl.trace.Tracing;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Set;

/**
 * Turns a {@link NewInstance} into the row the insert statement writes: the FSM's newest
 * version and defaults, the state as JSON, the correlation scope. Shared by inserts and by
 * fan-out children; every check happens here, before any statement.
 */
public final class InstanceRows {
    private final FsmRegistry registry;
    private final Json json;
    private final LimitsConfig limits;
    private final ValueSize valueSize;
    private final Tracing tracing;

    /**
     * @param registry  the FSMs
     * @param json      serializes states
     * @param limits    the configured rate limits (weights are checked against their bursts)
     * @param valueSize the size limit on JSON values
     * @param tracing   reads the trace context each row carries ({@link io.gendurable.impl.trace.Tracing#NONE}: none)
     */
    public InstanceRows(FsmRegistry registry, Json json, LimitsConfig limits, ValueSize valueSize,
                        Tracing tracing) {
        this.tracing = tracing;
        this.registry = registry;
        this.json = json;
        this.limits = limits;
        this.valueSize = valueSize;
    }

    /** @return the size limit on JSON values, shared with the outcome encoder */
    public ValueSize valueSize() {
        return valueSize;
    }

    /**
     * Refuses a weight no bucket of a configured rate limit could ever hold (the row would stall
     * forever). An unconfigured name is allowed: it stalls and is counted, as documented.
     */
    public void checkWeight(String rateKey, int weight) {
        LimitsConfig.RateLimit r = limits.rateFor(rateKey);
        if (r != null && weight > r.burst()) {
            throw new IllegalArgumentException("weight " + weight + " exceeds the burst "
                    + BigDecimal.valueOf(r.burst()).stripTrailingZeros().toPlainString() + " of rate limit '"
                    + r.name() + "': it could never be admitted");
        }
    }

    /**
     * @param ni       the new instance
     * @param now      the insert's instant (the default eligible time)
     * @param parentId the parent's id for a fan-out child, else null
     * @return the validated row, carrying the trace context current in this thread (the inserting
     * request's span, or the parent's step span for a child)
     */
    public InsertSql.Row toRow(NewInstance ni, Instant now, Long parentId) {
        TraceContext trace = tracing.current();
        FsmDefinition def = registry.newest(ni.fsm()).orElseThrow(() -> new IllegalArgumentException(
                "fsm '" + ni.fsm() + "' is not registered on this node; registered: " + registry.describe()));
        InsertOptions o = ni.options();
        Debounce debounce = o.debounce();
        if (debounce != null && parentId != null) {
            throw new IllegalArgumentException("a child cannot be debounced (options.debounce of a new '" + ni.fsm()
                    + "'): its parent waits for every child it schedules; debounce the insert of the parent instead");
        }
        String state;
        try {
            state = json.write(ni.state());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the state of a new '" + ni.fsm() + "' cannot be serialized as JSON: "
                    + e.getMessage(), e);
        }
        valueSize.check("the state of a new '" + ni.fsm() + "'", state);
        checkWeight(o.rateLimit(), o.weight());
        Set<Status> scope = o.effectiveCorrelationScope();
        String scopeLiteral = o.correlationKey() == null ? null
                : InsertSql.scopeLiteral(scope.stream().map(Status::dbName).toList());
        return new InsertSql.Row(def.name(), def.version(), o.step() != null ? o.step() : def.initialStep(), state,
                o.queue() != null ? o.queue() : def.queue(), o.priority(),
                // a debounced row waits a window from its insert (debounce and scheduledAt exclude each other)
                debounce != null ? now.plus(debounce.window()) : o.scheduledAt() != null ? o.scheduledAt() : now,
                o.correlationKey(), scopeLiteral, o.concurrencyKey(),
                o.rateLimit(), o.weight(), parentId, trace.traceparent(), trace.tracestate(),
                o.stepTimeout() == null ? null : o.stepTimeout().toMillis(),
                debounce == null ? null : debounce.key(), debounce != null && debounce.state() == Debounce.State.FIRST);
    }
}
