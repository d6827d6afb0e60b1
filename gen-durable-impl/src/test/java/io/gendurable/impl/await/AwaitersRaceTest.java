package io.gendurable.impl.await;

import io.gendurable.AwaitUntil;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The awaiters' registry under concurrent register and unregister of one id. */
class AwaitersRaceTest {

    /**
     * Two callers await one instance on one node. Caller A is registered and leaving; caller B
     * registers. Interleaving (forced through {@link Awaiters#afterListRead}): B reads A's list
     * from the map; A unregisters, empties that list and removes it from the map; B adds its
     * waiter to the list the map no longer holds. A commit on the instance then finds no list
     * and wakes nobody: B waits out its whole timeout. Register must add under the map's atomic
     * operation, so A's unregister cannot remove the list between B's read and B's add.
     */
    @Test
    void a_register_racing_an_unregister_of_the_same_id_is_not_lost() throws Exception {
        Awaiters awaiters = new Awaiters();
        Awaiters.Waiter a = awaiters.register(7L, AwaitUntil.SETTLED);
        CountDownLatch unregisterStarted = new CountDownLatch(1);
        CountDownLatch unregisterDone = new CountDownLatch(1);
        Thread leaving = new Thread(() -> {
            unregisterStarted.countDown();
            awaiters.unregister(a);
            unregisterDone.countDown();
        });
        awaiters.afterListRead = () -> {
            leaving.start();
            try {
                assertThat(unregisterStarted.await(5, TimeUnit.SECONDS)).as("precondition").isTrue();
                // With the race open, the unregister completes here; closed, it waits for this
                // register's atomic operation to end (so this wait times out).
                unregisterDone.await(500, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
        Awaiters.Waiter b = awaiters.register(7L, AwaitUntil.SETTLED);
        awaiters.afterListRead = () -> { };
        leaving.join(5_000);
        assertThat(unregisterDone.getCount()).as("precondition").isZero();

        awaiters.observed(Map.of(7L, "done"));

        assertThat(b.changed).as("B's waiter is woken by the commit").isDone();
        assertThat(awaiters.ids()).containsExactly(7L);
    }
}
