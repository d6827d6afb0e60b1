package io.gendurable.testing;

import java.util.List;
import java.util.Objects;

/**
 * How {@link DurableTesting#drain(DrainOptions)} runs.
 *
 * @param maxSteps       the most steps one drain may run before it fails as a runaway
 *                       ({@link DrainException}); default {@value #DEFAULT_MAX_STEPS}
 * @param collapseDelays whether the test clock jumps ahead to the next scheduled start or retry
 *                       when nothing else is due (default true); false leaves future work for later
 * @param queues         the queues to drain; empty (the default) drains every queue the engine serves
 */
public record DrainOptions(int maxSteps, boolean collapseDelays, List<String> queues) {
    /** The default runaway limit. */
    public static final int DEFAULT_MAX_STEPS = 1000;

    /** Validates the fields. */
    public DrainOptions {
        if (maxSteps < 1) {
            throw new IllegalArgumentException("maxSteps must be 1 or more, got " + maxSteps);
        }
        queues = List.copyOf(Objects.requireNonNull(queues, "queues must not be null (empty: every queue)"));
    }

    /** @return up to {@value #DEFAULT_MAX_STEPS} steps, delays collapsed, every queue */
    public static DrainOptions defaults() {
        return new DrainOptions(DEFAULT_MAX_STEPS, true, List.of());
    }

    /** @param v the runaway limit @return a copy with it */
    public DrainOptions maxSteps(int v) {
        return new DrainOptions(v, collapseDelays, queues);
    }

    /** @param v whether delays collapse @return a copy with it */
    public DrainOptions collapseDelays(boolean v) {
        return new DrainOptions(maxSteps, v, queues);
    }

    /** @param v the queues to drain (none: every queue) @return a copy with them */
    public DrainOptions queues(String... v) {
        return new DrainOptions(maxSteps, collapseDelays, List.of(v));
    }
}
