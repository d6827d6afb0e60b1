package io.gendurable.admin;

import io.gendurable.Cancellation;
import io.gendurable.DurableValue;
import io.gendurable.InstanceDetails;
import io.gendurable.InstancePage;
import io.gendurable.InstanceSnapshot;
import io.gendurable.NodeStatus;
import io.gendurable.OperationsSummary;
import io.gendurable.PausedQueue;
import io.gendurable.QueueAlert;
import io.gendurable.QueueSummary;
import io.gendurable.Signal;
import io.gendurable.SignalResult;
import io.gendurable.Status;
import jakarta.json.Json;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.json.bind.annotation.JsonbNillable;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.io.StringReader;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The JSON answers of the admin API, written by the application's JSON-B. Instants are ISO-8601
 * UTC, durations ISO-8601 ({@code PT1M30S}), statuses the names of {@link Status}; state, result
 * and payloads are the stored JSON as it is. Absent scalar values are written as {@code null}
 * (absent parts of the details are left out). New
 * members may be added in later versions (the step history among them); clients must ignore
 * members they do not know.
 */
public final class Views {
    private Views() {
    }

    /** @return the stored JSON as a JSON value, or null */
    static JsonValue json(DurableValue value) {
        if (value == null || value.isNull() || value.json() == null) {
            return null;
        }
        try (JsonReader r = Json.createReader(new StringReader(value.json()))) {
            return r.readValue();
        }
    }

    /**
     * One instance as committed ({@link InstanceSnapshot}).
     *
     * @param id              the id
     * @param fsm             the FSM name
     * @param fsmVersion      its version
     * @param step            the current (or last) step
     * @param status          the status
     * @param attempt         the attempt of the current step
     * @param queue           the queue
     * @param priority        the priority, lower first
     * @param eligibleAt      not picked before this instant
     * @param correlationKey  the correlation key
     * @param concurrencyKey  the concurrency key
     * @param awaits          the awaited signal names while parked
     * @param awaitDeadline   the await deadline
     * @param parentId        the parent's id for a child
     * @param childrenPending children not yet terminal
     * @param state           the state, as stored
     * @param result          the result, as stored (null until done)
     * @param lastError       the last error
     * @param insertedAt      when it was inserted
     * @param updatedAt       when it last changed
     */
    @JsonbNillable
    @Schema(name = "Instance")
    public record Instance(long id, String fsm, int fsmVersion, String step, Status status, int attempt, String queue,
                           int priority, Instant eligibleAt, String correlationKey, String concurrencyKey,
                           List<String> awaits, Instant awaitDeadline, Long parentId, int childrenPending,
                           @Schema(description = "the state, as stored (any JSON)") JsonValue state,
                           @Schema(description = "the result, as stored (any JSON; null until done)") JsonValue result,
                           String lastError, Instant insertedAt, Instant updatedAt) {
        static Instance of(InstanceSnapshot s) {
            return s == null ? null : new Instance(s.id(), s.fsm(), s.fsmVersion(), s.step(), s.status(), s.attempt(),
                    s.queue(), s.priority(), s.eligibleAt(), s.correlationKey(), s.concurrencyKey(), s.awaits(),
                    s.awaitDeadline(), s.parentId(), s.childrenPending(), json(s.state()), json(s.result()),
                    s.lastError(), s.insertedAt(), s.updatedAt());
        }
    }

    /**
     * One page of a search.
     *
     * @param items      the instances, in the query's order
     * @param nextCursor the next page's {@code cursor} parameter; null on the last page
     */
    @JsonbNillable
    @Schema(name = "InstancePage")
    public record Page(List<Instance> items, String nextCursor) {
        static Page of(InstancePage p) {
            return new Page(p.items().stream().map(Instance::of).toList(), p.nextCursor());
        }
    }

    /**
     * A pending signal.
     *
     * @param id         its id
     * @param name       its name
     * @param payload    its payload, as stored
     * @param dedupKey   its dedup key
     * @param insertedAt when it was delivered
     */
    @JsonbNillable
    @Schema(name = "PendingSignal")
    public record PendingSignal(long id, String name, @Schema(description = "any JSON") JsonValue payload,
                                String dedupKey, Instant insertedAt) {
        static PendingSignal of(Signal s) {
            return new PendingSignal(s.id(), s.name(), json(s.payload()), s.dedupKey(), s.insertedAt());
        }
    }

    /**
     * One instance and what it waits for ({@link InstanceDetails}). {@code parent}, {@code claim},
     * {@code gate} and {@code rateLimit} are left out when they do not apply.
     *
     * @param instance           the instance
     * @param pendingSignals     signals delivered and not consumed, oldest first, at most 100
     * @param pendingSignalCount how many are pending in all
     * @param children           its children per status (every status present)
     * @param childrenTotal      its children in all
     * @param parent             its parent, for a child whose parent still exists
     * @param claim              who holds it while executing
     * @param gate               its concurrency key's gate
     * @param rateLimit          its current step's rate limit
     */
    @JsonbNillable
    @Schema(name = "InstanceDetails")
    public record Details(Instance instance, List<PendingSignal> pendingSignals, long pendingSignalCount,
                          Map<Status, Long> children, long childrenTotal, Instance parent,
                          InstanceDetails.Claim claim, InstanceDetails.Gate gate, InstanceDetails.RateLimit rateLimit,
                          List<Step> history) {
        static Details of(InstanceDetails d) {
            return new Details(Instance.of(d.instance()), d.pendingSignals().stream().map(PendingSignal::of).toList(),
                    d.pendingSignalCount(), d.children(), d.childrenTotal(), d.parent().map(Instance::of).orElse(null),
                    d.claim().orElse(null), d.gate().orElse(null), d.rateLimit().orElse(null),
                    d.history().stream().map(Step::of).toList());
        }
    }

    /**
     * One record of the step history (empty unless the history is on for the instance's FSM).
     *
     * @param step       the step that ran
     * @param attempt    its attempt
     * @param outcome    what it decided
     * @param startedAt  when it started
     * @param finishedAt when it returned
     * @param node       the node that ran it
     * @param error      the failure handed to onError, or null
     * @param state      the committed state (with gendurable.history.include-state), or null
     */
    @Schema(name = "StepRecord")
    public record Step(String step, int attempt, String outcome, Instant startedAt, Instant finishedAt, String node,
                       String error, @Schema(description = "the committed state, when recorded (any JSON)") JsonValue state) {
        static Step of(io.gendurable.StepRecord r) {
            return new Step(r.step(), r.attempt(), r.outcome(), r.startedAt(), r.finishedAt(), r.node(), r.error(),
                    json(r.state()));
        }
    }

    /**
     * What a cancel did.
     *
     * @param instance          the cancelled instance, as committed
     * @param childrenCancelled how many descendants were cancelled with it
     */
    @JsonbNillable
    @Schema(name = "Cancellation")
    public record Cancelled(Instance instance, int childrenCancelled) {
        static Cancelled of(Cancellation c) {
            return new Cancelled(Instance.of(c.instance()), c.childrenCancelled());
        }
    }

    /**
     * One queue's line of the summary.
     *
     * @param queue               the queue
     * @param counts              its instances per status (every status present)
     * @param total               its instances in all
     * @param oldestRunnableSince since when its oldest due runnable instance has been due
     * @param oldestRunnableAge   how long that is, at the summary's instant
     * @param paused              whether the queue is paused
     */
    @JsonbNillable
    @Schema(name = "QueueSummary")
    public record Queue(String queue, Map<Status, Long> counts, long total, Instant oldestRunnableSince,
                        @Schema(description = "ISO-8601 duration") Duration oldestRunnableAge, boolean paused) {
        static Queue of(QueueSummary q, boolean paused) {
            return new Queue(q.queue(), q.counts(), q.total(), q.oldestRunnableSince(), q.oldestRunnableAge(), paused);
        }
    }

    /**
     * The summary: counts per queue and status, the oldest runnable age per queue, the paused
     * queues, the alerts.
     *
     * @param at     the instant the ages are measured at (the engine's clock)
     * @param queues one line per queue that has instances, by name
     * @param paused the paused queues (a paused queue with no instance is listed here only)
     * @param alerts what needs an operator's eye ({@code NO_NODE_SERVES}, {@code UNKNOWN_RATE_LIMIT}), by queue
     */
    @JsonbNillable
    @Schema(name = "Summary")
    public record Summary(Instant at, List<Queue> queues, List<PausedQueue> paused, List<QueueAlert> alerts) {
        static Summary of(OperationsSummary s, List<PausedQueue> paused) {
            return new Summary(s.at(), s.queues().stream().map(q -> Queue.of(q, q.paused())).toList(), paused,
                    s.alerts());
        }
    }

    /**
     * The nodes, as their beacons last described them.
     *
     * @param at    when they were read
     * @param nodes the nodes seen within the retention, by id: {@code node}, {@code startedAt},
     *              {@code seenAt}, {@code live}, {@code fsms}, {@code queues}, {@code rateLimits},
     *              {@code gates}, {@code inFlight}, {@code throughput}, {@code stepTimings}
     */
    @JsonbNillable
    @Schema(name = "Nodes")
    public record Nodes(Instant at, List<NodeStatus> nodes) {
    }

    /**
     * The application's engines.
     *
     * @param engines their names, {@code default} first, then the named engines of {@code gendurable.engines} by name;
     *                each is a value of the {@code engine} query parameter every admin call accepts
     */
    @Schema(name = "Engines")
    public record Engines(List<String> engines) {
    }

    /**
     * The answer to a resume.
     *
     * @param queue     the queue
     * @param wasPaused whether it was paused
     */
    @Schema(name = "Resumed")
    public record Resumed(String queue, boolean wasPaused) {
    }

    /**
     * The answer to a signal.
     *
     * @param result {@code DELIVERED}, {@code DUPLICATE} (same dedup key) or {@code NO_TARGET}
     *               (no live instance: unknown, finished, or no live holder of the key)
     */
    @Schema(name = "SignalAnswer")
    public record Signalled(SignalResult result) {
    }
}
