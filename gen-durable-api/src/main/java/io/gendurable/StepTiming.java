package io.gendurable;

import java.time.Duration;

/**
 * How long one step of one FSM took on one node over a recent window ({@link NodeStatus#stepTimings()}):
 * the time its code ran, from the step's start to its outcome, without the flush.
 *
 * @param fsm   the FSM
 * @param step  the step
 * @param count the steps measured in the window
 * @param p50   the median
 * @param p90   the 90th percentile
 * @param p99   the 99th percentile
 * @param max   the longest
 */
public record StepTiming(String fsm, String step, long count, Duration p50, Duration p90, Duration p99, Duration max) {
}
