package io.gendurable.impl.runtime;

import io.gendurable.events.AwaitsTimedOut;
import io.gendurable.events.ClaimsReclaimed;
import io.gendurable.events.EngineEvent;
import io.gendurable.events.GateThrottled;
import io.gendurable.events.GcSwept;
import io.gendurable.events.KeyContended;
import io.gendurable.events.LeasesReaped;
import io.gendurable.events.LimitContended;
import io.gendurable.events.OperatorAction;
import io.gendurable.events.OutcomeStale;
import io.gendurable.events.QueueDrained;
import io.gendurable.events.QueueSaturation;
import io.gendurable.events.RateLimitThrottled;
import io.gendurable.events.RateLimitUnknown;
import io.gendurable.events.RowsClaimed;
import io.gendurable.events.StepCompleted;
import io.gendurable.events.StepFailed;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The engine's event types ({@link EngineEvent}'s permitted records), each with a bit of the
 * {@link EngineEventBus}'s mask: the check before an event is built is one read and one AND.
 */
public enum EventKind {
    ROWS_CLAIMED(RowsClaimed.class, new RowsClaimed("", "", 0, 0)),
    QUEUE_SATURATION(QueueSaturation.class, new QueueSaturation("", 0, 0, 0, 0)),
    QUEUE_DRAINED(QueueDrained.class, new QueueDrained("", 0, 0)),
    CLAIMS_RECLAIMED(ClaimsReclaimed.class, new ClaimsReclaimed("", 0)),
    KEY_CONTENDED(KeyContended.class, new KeyContended("", 0, false)),
    LIMIT_CONTENDED(LimitContended.class, new LimitContended("", 0)),
    GATE_THROTTLED(GateThrottled.class, new GateThrottled("", "", 0, 0)),
    RATE_LIMIT_THROTTLED(RateLimitThrottled.class, new RateLimitThrottled("", "", 0, 0)),
    RATE_LIMIT_UNKNOWN(RateLimitUnknown.class, new RateLimitUnknown("", "", "", "")),
    OUTCOME_STALE(OutcomeStale.class, new OutcomeStale(0, "", "", "")),
    LEASES_REAPED(LeasesReaped.class, new LeasesReaped(0)),
    AWAITS_TIMED_OUT(AwaitsTimedOut.class, new AwaitsTimedOut(0)),
    GC_SWEPT(GcSwept.class, new GcSwept(0, 0, 0)),
    STEP_COMPLETED(StepCompleted.class, new StepCompleted(0, "", "", "", "", Duration.ZERO)),
    STEP_FAILED(StepFailed.class, new StepFailed(0, "", "", "", "", "", Duration.ZERO)),
    OPERATOR_ACTION(OperatorAction.class, new OperatorAction(OperatorAction.Action.CANCEL, "", null, null, Instant.EPOCH));

    private static final Map<Class<?>, EventKind> BY_TYPE = Stream.of(values())
            .collect(Collectors.toUnmodifiableMap(k -> k.type, Function.identity()));

    /** Every kind's bit. */
    public static final long ALL = (1L << values().length) - 1;

    /** This kind's bit in a mask. */
    public final long bit;
    /** Its record type. */
    public final Class<? extends EngineEvent> type;
    private final EngineEvent sample;

    EventKind(Class<? extends EngineEvent> type, EngineEvent sample) {
        this.bit = 1L << ordinal();
        this.type = type;
        this.sample = sample;
    }

    /** @return an instance of the type with empty data, to ask a container which observers it has */
    public EngineEvent sample() {
        return sample;
    }

    /** @param event an event @return its kind */
    public static EventKind of(EngineEvent event) {
        return BY_TYPE.get(event.getClass());
    }

    /**
     * @param type an event type, or {@link EngineEvent} itself for all
     * @return the mask of that type
     * @throws IllegalArgumentException when {@code type} is not an engine event type
     */
    public static long maskOf(Class<? extends EngineEvent> type) {
        if (type == EngineEvent.class) {
            return ALL;
        }
        EventKind k = BY_TYPE.get(type);
        if (k == null) {
            throw new IllegalArgumentException("not an engine event type: " + type + "; accepted: EngineEvent or one of "
                    + Stream.of(values()).map(v -> v.type.getSimpleName()).toList());
        }
        return k.bit;
    }
}
