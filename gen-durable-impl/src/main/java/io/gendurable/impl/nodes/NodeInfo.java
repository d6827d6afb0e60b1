package io.gendurable.impl.nodes;

import io.gendurable.FsmRegistration;
import io.gendurable.StepTiming;
import io.gendurable.ThroughputPoint;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A beacon's {@code info} column (JSON-B): what the node serves and what it did recently.
 *
 * @param interval    the node's beacon interval (its liveness is measured in it)
 * @param fsms        its registered FSMs and jobs
 * @param queues      the queues it claims from
 * @param rateLimits  its configured rate-limit names
 * @param gates       its configured gate names
 * @param inFlight    steps executing per queue
 * @param throughput  done and failed outcomes per queue per minute, last hour
 * @param stepTimings step durations per FSM and step, recent window
 * @param maintenance the cluster-wide loops it runs ({@code reaper}, {@code gc}); null in the
 *                    beacon of a node older than the field (taken as running both)
 */
public record NodeInfo(Duration interval, List<FsmRegistration> fsms, List<String> queues, List<String> rateLimits,
                       List<String> gates, Map<String, Integer> inFlight, List<ThroughputPoint> throughput,
                       List<StepTiming> stepTimings, List<String> maintenance) {
}
