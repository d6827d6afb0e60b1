package io.gendurable.impl.poke;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Pokes the schedulers of this JVM's engine: the {@code local} transport. */
public final class LocalPoke implements Poke {
    private final Map<String, Target> schedulers = new ConcurrentHashMap<>();

    /** What a local poke reaches: the scheduler of one queue. */
    public interface Target {
        /** @return the queue it serves */
        String queue();

        /** Asks it to claim now. */
        void poke();
    }

    /** @param scheduler starts receiving the pokes of its queue */
    public void register(Target scheduler) {
        schedulers.put(scheduler.queue(), scheduler);
    }

    /** @param scheduler stops receiving them (if it is still the one registered) */
    public void unregister(Target scheduler) {
        schedulers.remove(scheduler.queue(), scheduler);
    }

    @Override
    public void poke(String queue) {
        Target s = schedulers.get(queue);
        if (s != null) {
            s.poke();
        }
    }
}
