package io.gendurable.impl.await;

import io.gendurable.AwaitUntil;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The callers of {@code GenDurable.await} on this node, by instance id. Completing a waiter
 * only says "read the row again": the answer always comes from the row.
 */
public final class Awaiters {
    /** One waiting caller. */
    static final class Waiter {
        final long id;
        final AwaitUntil until;
        final CompletableFuture<Void> changed = new CompletableFuture<>();

        Waiter(long id, AwaitUntil until) {
            this.id = id;
            this.until = until;
        }
    }

    private final Map<Long, List<Waiter>> byId = new ConcurrentHashMap<>();

    /** Test hook: runs in {@link #register} once the id's list is read, before the waiter joins it. */
    volatile Runnable afterListRead = () -> { };

    Waiter register(long id, AwaitUntil until) {
        Waiter w = new Waiter(id, until);
        // Read and add under the map's atomic operation: an unregister of the same id that empties
        // and removes the list cannot run between them and leave this waiter in a detached list.
        byId.compute(id, (k, list) -> {
            List<Waiter> l = list == null ? new CopyOnWriteArrayList<>() : list;
            afterListRead.run();
            l.add(w);
            return l;
        });
        return w;
    }

    void unregister(Waiter w) {
        byId.computeIfPresent(w.id, (k, list) -> {
            list.remove(w);
            return list.isEmpty() ? null : list;
        });
    }

    boolean isEmpty() {
        return byId.isEmpty();
    }

    /** @return the ids someone waits for */
    Set<Long> ids() {
        return Set.copyOf(byId.keySet());
    }

    /**
     * Wakes the waiters the new statuses satisfy.
     *
     * @param statuses id → status database name; an id mapped to null no longer exists
     */
    public void observed(Map<Long, String> statuses) {
        statuses.forEach((id, status) -> {
            List<Waiter> list = byId.get(id);
            if (list != null) {
                for (Waiter w : list) {
                    if (status == null || satisfies(status, w.until)) {
                        w.changed.complete(null);
                    }
                }
            }
        });
    }

    /** Wakes every waiter (the engine is stopping: each reads its row a last time and answers). */
    void wakeAll() {
        byId.values().forEach(list -> list.forEach(w -> w.changed.complete(null)));
    }

    /** Wakes the waiters of ids that vanished (deleted rows). */
    void vanished(Collection<Long> ids) {
        for (Long id : ids) {
            List<Waiter> list = byId.get(id);
            if (list != null) {
                list.forEach(w -> w.changed.complete(null));
            }
        }
    }

    /** @return whether a row in {@code status} answers a caller waiting {@code until} */
    static boolean satisfies(String status, AwaitUntil until) {
        return switch (status) {
            case "done", "failed", "cancelled" -> true;
            case "awaiting_signal", "awaiting_children" -> until == AwaitUntil.SETTLED;
            default -> false;
        };
    }
}
