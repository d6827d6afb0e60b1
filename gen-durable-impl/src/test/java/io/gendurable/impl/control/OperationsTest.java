package io.gendurable.impl.control;

import io.gendurable.AwaitResult;
import io.gendurable.BulkResult;
import io.gendurable.Cancellation;
import io.gendurable.CorrelationKeyHeldException;
import io.gendurable.DurableOperations;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.InstanceQuery;
import io.gendurable.InstanceStateException;
import io.gendurable.NewInstance;
import io.gendurable.NoSuchInstanceException;
import io.gendurable.Outcome;
import io.gendurable.RetryOptions;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.testing.DrainOptions;
import io.gendurable.testing.DrainResult;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.RanStep;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The operator's actions, deterministically: one engine that runs no thread, driven by
 * {@link DurableTesting#drain()} (issue 15). Races with running engines are in
 * {@code OperationsAcrossNodesTest}.
 */
class OperationsTest {
    public record Job(String name, boolean ok) {
    }

    /** "start" parks for signal "go", then finishes. */
    public static class Waits implements Fsm<Job> {
        @Override
        public Outcome step(String step, Job job, StepContext ctx) {
            return step.equals("start") ? Outcome.await(Set.of("go"), "woken", job) : Outcome.done(job.name());
        }
    }

    /** "charge" stops with an error unless the state says ok; "refund" finishes with "refunded". */
    public static class Charges implements Fsm<Job> {
        @Override
        public Outcome step(String step, Job job, StepContext ctx) {
            return switch (step) {
                case "start" -> Outcome.next("charge", job);
                case "charge" -> job.ok() ? Outcome.done("charged " + ctx.attempt()) : Outcome.stop("card declined");
                default -> Outcome.done("refunded");
            };
        }
    }

    /** Fans out two Waits children, then finishes with their statuses. */
    public static class Parent implements Fsm<Job> {
        @Override
        public Outcome step(String step, Job job, StepContext ctx) {
            if (step.equals("start")) {
                return Outcome.scheduleChildren(List.of(
                        new NewInstance(Waits.class.getName(), new Job("c1", true), InsertOptions.defaults()),
                        new NewInstance(Waits.class.getName(), new Job("c2", true), InsertOptions.defaults())),
                        "joined", job);
            }
            return Outcome.done(ctx.children().stream().map(c -> c.status().name()).sorted().toList());
        }
    }

    /** Its step cancels its own instance while it runs (the operator acting mid-step), then moves on. */
    public static class CancelledMidStep implements Fsm<Job> {
        static final AtomicReference<DurableOperations> OPS = new AtomicReference<>();

        @Override
        public Outcome step(String step, Job job, StepContext ctx) {
            if (step.equals("start")) {
                OPS.get().cancel(ctx.id(), "stop it now");
                return Outcome.next("after", job);
            }
            return Outcome.done("should never run");
        }
    }

    DurableTesting t;
    GenDurable durable;
    DurableOperations ops;

    @BeforeEach
    void up() {
        t = DurableTesting.builder().fsm(new Waits(), new Charges(), new Parent(), new CancelledMidStep())
                .config("gendurable.concurrency-limits.api.limit", "1")
                .config("gendurable.queues", "default:4,slow:1")
                .build();
        durable = t.durable();
        ops = t.operations();
        CancelledMidStep.OPS.set(ops);
    }

    @AfterEach
    void down() {
        t.close();
    }

    @Test
    void a_cancel_while_awaiting_a_signal_ends_it_cancelled_and_signals_find_no_target() {
        long id = durable.insert(Waits.class, new Job("w", true)).id();
        t.drain();
        t.assertAwaiting(id, "go");

        Cancellation c = ops.cancel(id, "customer left");

        assertThat(c.instance().status()).isEqualTo(Status.CANCELLED);
        assertThat(c.instance().lastError()).isEqualTo("customer left");
        assertThat(c.instance().awaits()).isEmpty();
        assertThat(c.childrenCancelled()).isZero();
        assertThat(durable.signal(SignalTarget.id(id), "go", null)).isEqualTo(SignalResult.NO_TARGET);
        assertThat(durable.await(id, Duration.ofMillis(1))).isEqualTo(new AwaitResult.Cancelled(id, "customer left"));
        assertThat(t.drain().count()).isZero();
    }

    @Test
    void a_cancel_while_executing_commits_nothing_of_the_running_step_and_returns_its_gate_slot() {
        InsertOptions gated = InsertOptions.builder().concurrencyKey("api:acct").build();
        long id = durable.insert(CancelledMidStep.class, new Job("x", true), gated).id();
        long next = durable.insert(Charges.class, new Job("y", true), gated).id();

        DrainResult r = t.drain();

        List<RanStep> steps = r.stepsOf(id);
        assertThat(steps).extracting(RanStep::step).as("only the step that was running when it was cancelled")
                .containsExactly("start");
        assertThat(t.instance(id).status()).isEqualTo(Status.CANCELLED);
        assertThat(t.instance(id).step()).as("the step's next was not applied").isEqualTo("start");
        // the gate's one slot came back with the cancel: the other instance behind the same key ran
        t.assertDone(next, "charged 1");
    }

    @Test
    void a_cancelled_child_counts_as_finished_and_wakes_its_parent_with_the_last_one() {
        long parent = durable.insert(Parent.class, new Job("p", true)).id();
        t.drain();
        t.assertStatus(parent, Status.AWAITING_CHILDREN);
        List<Long> kids = t.instances(Waits.class).stream().map(s -> s.id()).sorted().toList();
        assertThat(kids).hasSize(2);

        ops.cancel(kids.get(0), "not needed");
        assertThat(t.instance(parent).childrenPending()).isEqualTo(1);
        t.assertStatus(parent, Status.AWAITING_CHILDREN);
        durable.signal(SignalTarget.id(kids.get(1)), "go", null);
        t.drain();

        t.assertDone(parent, List.of("CANCELLED", "DONE"));
    }

    @Test
    void a_cancel_while_waiting_for_children_leaves_them_running_unless_asked() {
        long p1 = durable.insert(Parent.class, new Job("p1", true)).id();
        long p2 = durable.insert(Parent.class, new Job("p2", true)).id();
        t.drain();

        Cancellation alone = ops.cancel(p1, null);
        Cancellation family = ops.cancel(p2, "the whole order", true);

        assertThat(alone.instance().status()).isEqualTo(Status.CANCELLED);
        assertThat(alone.instance().lastError()).isEqualTo("cancelled by an operator");
        assertThat(alone.childrenCancelled()).isZero();
        assertThat(family.childrenCancelled()).isEqualTo(2);
        List<Status> kidsOfP1 = t.instances(Waits.class).stream().filter(s -> s.parentId() != null && s.parentId() == p1)
                .map(s -> s.status()).toList();
        List<Status> kidsOfP2 = t.instances(Waits.class).stream().filter(s -> s.parentId() != null && s.parentId() == p2)
                .map(s -> s.status()).toList();
        assertThat(kidsOfP1).containsExactly(Status.AWAITING_SIGNAL, Status.AWAITING_SIGNAL);
        assertThat(kidsOfP2).containsExactly(Status.CANCELLED, Status.CANCELLED);
    }

    @Test
    void cancel_refuses_an_ended_or_unknown_instance_and_writes_nothing() {
        long id = durable.insert(Charges.class, new Job("c", true)).id();
        t.drain();
        t.assertDone(id, "charged 1");

        assertThatThrownBy(() -> ops.cancel(id, "too late")).isInstanceOf(InstanceStateException.class)
                .hasMessageContaining("DONE").hasMessageContaining("RUNNABLE");
        assertThatThrownBy(() -> ops.cancel(987_654_321L, "who")).isInstanceOf(NoSuchInstanceException.class)
                .hasMessageContaining("987654321");
        assertThatThrownBy(() -> ops.cancel(id, " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reason");
        t.assertDone(id, "charged 1");
    }

    @Test
    void a_retry_runs_a_failed_instance_again_with_attempts_from_one_and_a_replacement_state() {
        long id = durable.insert(Charges.class, new Job("c", false)).id();
        t.drain();
        assertThat(t.assertFailed(id)).contains("card declined");

        assertThatThrownBy(() -> ops.retry(id, RetryOptions.defaults().withState("not a Job")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Job.class.getName());
        t.assertStatus(id, Status.FAILED);

        var s = ops.retry(id, RetryOptions.defaults().withState(new Job("c", true)));
        assertThat(s.status()).isEqualTo(Status.RUNNABLE);
        assertThat(s.step()).isEqualTo("charge");
        assertThat(s.attempt()).isEqualTo(1);
        t.drain();
        t.assertDone(id, "charged 1");
    }

    @Test
    void a_retry_can_start_from_a_named_step_and_resumes_a_cancelled_instance() {
        long id = durable.insert(Waits.class, new Job("w", true)).id();
        t.drain();
        ops.cancel(id, "paused by hand");

        ops.retry(id, RetryOptions.defaults().fromStep("woken"));
        t.drain();

        t.assertDone(id, "w");
    }

    @Test
    void a_retry_refuses_a_live_instance_and_a_taken_correlation_key() {
        InsertOptions keyed = InsertOptions.builder().correlationKey("order-7").build();
        long first = durable.insert(Charges.class, new Job("a", false), keyed).id();
        t.drain();
        t.assertFailed(first);
        long second = durable.insert(Waits.class, new Job("b", true), keyed).id();
        assertThat(second).isNotEqualTo(first);

        assertThatThrownBy(() -> ops.retry(first)).isInstanceOfSatisfying(CorrelationKeyHeldException.class, e -> {
            assertThat(e.holderId()).isEqualTo(second);
            assertThat(e.correlationKey()).isEqualTo("order-7");
        });
        t.assertStatus(first, Status.FAILED);
        assertThatThrownBy(() -> ops.retry(second)).isInstanceOf(InstanceStateException.class)
                .hasMessageContaining("RUNNABLE").hasMessageContaining("FAILED");
    }

    @Test
    void reschedule_moves_a_runnable_instance_in_time_and_priority() {
        long id = durable.insert(Charges.class, new Job("c", true)).id();

        ops.reschedule(id, t.now().plus(Duration.ofDays(3)));
        assertThat(t.drain(DrainOptions.defaults().collapseDelays(false)).count()).isZero();
        assertThat(ops.changePriority(id, 5).priority()).isEqualTo(5);
        assertThatThrownBy(() -> ops.changePriority(id, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("priority");

        ops.runNow(id);
        t.drain(DrainOptions.defaults().collapseDelays(false));
        t.assertDone(id, "charged 1");
        assertThatThrownBy(() -> ops.runNow(id)).isInstanceOf(InstanceStateException.class);
    }

    @Test
    void a_paused_queue_is_not_claimed_until_it_is_resumed() {
        InsertOptions slow = InsertOptions.builder().queue("slow").build();
        long a = durable.insert(Charges.class, new Job("a", true), slow).id();
        long b = durable.insert(Charges.class, new Job("b", true)).id();

        ops.pauseQueue("slow", "maintenance window");
        t.drain(DrainOptions.defaults().queues("default", "slow"));

        t.assertDone(b, "charged 1");
        t.assertStatus(a, Status.RUNNABLE);
        assertThat(ops.pausedQueues()).singleElement().satisfies(p -> {
            assertThat(p.queue()).isEqualTo("slow");
            assertThat(p.reason()).isEqualTo("maintenance window");
        });
        assertThat(ops.summary().queues()).filteredOn(q -> q.queue().equals("slow")).singleElement()
                .satisfies(q -> {
                    assertThat(q.paused()).isTrue();
                    assertThat(q.count(Status.RUNNABLE)).isEqualTo(1);
                });
        ops.pauseQueue("empty-queue", null);
        assertThat(ops.summary().queues()).filteredOn(q -> q.queue().equals("empty-queue")).singleElement()
                .satisfies(q -> assertThat(q.paused()).isTrue());
        assertThat(ops.resumeQueue("empty-queue")).isTrue();
        assertThatThrownBy(() -> ops.pauseQueue("no spaces", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("queue");

        assertThat(ops.resumeQueue("slow")).isTrue();
        assertThat(ops.resumeQueue("slow")).isFalse();
        t.drain(DrainOptions.defaults().queues("default", "slow"));
        t.assertDone(a, "charged 1");
        assertThat(ops.pausedQueues()).isEmpty();
    }

    @Test
    void operations_acting_for_an_operator_record_it_as_who_acted() {
        java.util.List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Logger log = java.util.logging.Logger.getLogger("io.gendurable.operations");
        java.util.logging.Handler h = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                lines.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(h);
        try {
            ops.actingFor("console-user").pauseQueue("slow", "night");
            assertThat(ops.pausedQueues()).singleElement().satisfies(p -> assertThat(p.pausedBy()).isEqualTo("console-user"));
            assertThat(lines).anySatisfy(l -> assertThat(l).contains("slow").endsWith("by \"console-user\" — reason \"night\""));
            // a reason cannot write a line of its own into the log
            lines.clear();
            ops.pauseQueue("slow", "x\r\ngen-durable operator action RESUME_QUEUE on \"slow\" by \"admin\"\u0007");
            assertThat(lines).singleElement().satisfies(l -> assertThat(l).doesNotContain("\n", "\r", "\u0007")
                    .endsWith("reason \"x\\r\\ngen-durable operator action RESUME_QUEUE on \\\"slow\\\" by \\\"admin\\\"\\u0007\""));
            // without it, the caller's principal (none in this kit)
            ops.pauseQueue("slow", "again");
            assertThat(ops.pausedQueues()).singleElement().satisfies(p -> assertThat(p.pausedBy()).isNull());
        } finally {
            log.removeHandler(h);
        }
        assertThatThrownBy(() -> ops.actingFor(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("operator");
        assertThatThrownBy(() -> ops.actingFor(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("operator");
    }

    @Test
    void bulk_actions_page_through_their_search_and_count_what_they_did() {
        for (int i = 0; i < 5; i++) {
            durable.insert(Waits.class, new Job("w" + i, true));
            durable.insert(Charges.class, new Job("c" + i, false));
        }
        t.drain();
        InstanceQuery waiting = InstanceQuery.builder().fsm(Waits.class).pageSize(2).build();
        InstanceQuery failed = InstanceQuery.builder().status(Status.FAILED).pageSize(2).build();

        assertThat(ops.cancelAll(InstanceQuery.builder().fsm("no-such-fsm").build(), "none"))
                .as("a bulk action on an empty search").isEqualTo(new BulkResult(0, 0, 0));
        assertThat(ops.cancelAll(waiting, "closing down")).isEqualTo(new BulkResult(5, 5, 0));
        assertThat(ops.cancelAll(waiting, "again")).as("all ended already").isEqualTo(new BulkResult(5, 0, 5));
        assertThat(t.instances(Waits.class)).extracting(s -> s.status()).containsOnly(Status.CANCELLED);

        assertThat(ops.retryAll(failed)).isEqualTo(new BulkResult(5, 5, 0));
        assertThat(t.instances(Charges.class)).extracting(s -> s.status()).containsOnly(Status.RUNNABLE);
        t.drain();

        assertThat(ops.purge(InstanceQuery.builder().status(Status.CANCELLED, Status.FAILED).build()))
                .isEqualTo(new BulkResult(10, 10, 0));
        assertThat(t.instances(Waits.class)).isEmpty();
        assertThat(t.instances(Charges.class)).as("failed again, purged").isEmpty();
        assertThatThrownBy(() -> ops.purge(InstanceQuery.builder().build())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one filter");
    }

    @Test
    void a_purge_keeps_a_finished_child_whose_parent_still_waits_and_never_deletes_a_live_row() {
        long parent = durable.insert(Parent.class, new Job("p", true)).id();
        t.drain();
        List<Long> kids = t.instances(Waits.class).stream().map(s -> s.id()).sorted().toList();
        ops.cancel(kids.get(0), "one");

        assertThat(ops.purge(InstanceQuery.builder().fsm(Waits.class).build())).isEqualTo(new BulkResult(2, 0, 2));
        assertThat(ops.purge(InstanceQuery.builder().fsm(Parent.class).build())).isEqualTo(new BulkResult(1, 0, 1));
        t.assertStatus(parent, Status.AWAITING_CHILDREN);
    }
}
