package io.gendurable.impl.poke;

import io.gendurable.impl.claim.Scheduler;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Pokes the schedulers of this JVM's engine: the {@code local} transport. */
public final class LocalPoke implements Poke {
    private final Map<String, Scheduler> schedulers = new ConcurrentHashMap<>();

    public void register(Scheduler scheduler) {
        schedulers.put(scheduler.queue(), scheduler);
    }

    public void unregister(Scheduler scheduler) {
        schedulers.remove(scheduler.queue(), scheduler);
    }

    @Override
    public void poke(String queue) {
        Scheduler s = schedulers.get(queue);
        if (s != null) {
            s.poke();
        }
    }
}
