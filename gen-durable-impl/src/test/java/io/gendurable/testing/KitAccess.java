package io.gendurable.testing;

import io.gendurable.impl.engine.Engine;

/** The project's own tests' reach into a kit: the engine behind a {@link DurableTesting} (package-private there). */
public final class KitAccess {
    private KitAccess() {
    }

    /** @return the engine behind {@code t} */
    public static Engine engine(DurableTesting t) {
        return t.engine();
    }

    /**
     * Makes {@code t} a node that is down while the clock moves: its schedules fire only at its own
     * ticks ({@code fireDueSchedules}, drains), at the clock's instant, so fire times the clock
     * passed meanwhile are missed (the misfire policies' tests).
     */
    public static void detachFromClock(DurableTesting t) {
        t.detachFromClock();
    }
}
