package io.gendurable;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One node as its last beacon described it ({@link DurableOperations#nodes()}). Each running
 * engine writes its beacon every {@code gendurable.nodes.beacon-interval}; a node that stops
 * cleanly removes it, and a node not heard from for {@code gendurable.nodes.retention} is
 * forgotten.
 *
 * @param node        the node's id ({@code gendurable.node-id})
 * @param startedAt   when its engine started
 * @param seenAt      when it last wrote its beacon
 * @param live        whether it wrote its beacon within the last three of its beacon intervals
 * @param fsms        the FSMs and jobs it has registered, by name and version
 * @param queues      the queues it claims from ({@code gendurable.queues})
 * @param rateLimits  the rate-limit names it configures ({@code gendurable.rate-limits.*})
 * @param gates       the gate names it configures ({@code gendurable.concurrency-limits.*})
 * @param inFlight    steps executing on it per queue when it wrote the beacon, by queue name
 * @param throughput  its committed done and failed outcomes per queue per minute, over the last 60
 *                    minutes (minutes with neither are left out), oldest first
 * @param stepTimings its step durations per FSM and step over a recent window (the last ten minutes)
 */
public record NodeStatus(String node, Instant startedAt, Instant seenAt, boolean live, List<FsmRegistration> fsms,
                         List<String> queues, List<String> rateLimits, List<String> gates, Map<String, Integer> inFlight,
                         List<ThroughputPoint> throughput, List<StepTiming> stepTimings) {
    /**
     * Copies the lists and the map (a null one reads as empty).
     *
     * @param node        the node's id
     * @param startedAt   when its engine started
     * @param seenAt      when it last wrote its beacon
     * @param live        whether it is live
     * @param fsms        its FSMs
     * @param queues      its queues
     * @param rateLimits  its rate-limit names
     * @param gates       its gate names
     * @param inFlight    steps executing per queue
     * @param throughput  outcomes per queue per minute
     * @param stepTimings step durations
     */
    public NodeStatus {
        Validation.requireName("node", node);
        fsms = fsms == null ? List.of() : List.copyOf(fsms);
        queues = queues == null ? List.of() : List.copyOf(queues);
        rateLimits = rateLimits == null ? List.of() : List.copyOf(rateLimits);
        gates = gates == null ? List.of() : List.copyOf(gates);
        inFlight = inFlight == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(inFlight));
        throughput = throughput == null ? List.of() : List.copyOf(throughput);
        stepTimings = stepTimings == null ? List.of() : List.copyOf(stepTimings);
    }
}
