package io.gendurable.impl.ops;

import io.gendurable.DurableFsm;
import io.gendurable.DurableOperations;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.InstanceDetails;
import io.gendurable.Job;
import io.gendurable.NewInstance;
import io.gendurable.OperationsSummary;
import io.gendurable.Outcome;
import io.gendurable.Signal;
import io.gendurable.SignalTarget;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.support.OwnSchema;
import io.gendurable.testing.DurableTesting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code inspect} of a parent, its children, a parked child's inbox, a gated and rate-limited row; {@code summary}. */
class InspectAndSummaryTest {
    public record Kid(int n) {
    }

    @DurableFsm(name = "ops-parent", queue = "parents")
    public static class Parent implements Fsm<Integer> {
        @Override
        public Outcome step(String step, Integer n, StepContext ctx) {
            return switch (step) {
                case "start" -> Outcome.scheduleChildren(IntStream.range(0, n).mapToObj(i -> NewInstance.of(Child.class,
                        new Kid(i))).toList(), "finish", n);
                default -> Outcome.done();
            };
        }
    }

    @DurableFsm(name = "ops-child", queue = "kids")
    public static class Child implements Fsm<Kid> {
        @Override
        public Outcome step(String step, Kid k, StepContext ctx) {
            return switch (k.n() % 3) {
                case 0 -> Outcome.done(k.n());
                case 1 -> Outcome.stop("kid " + k.n() + " failed");
                default -> step.equals("start") ? Outcome.await(Set.of("go"), "end", k) : Outcome.done();
            };
        }
    }

    @DurableFsm(name = "ops-job", queue = "jobs")
    public static class Work implements Job<Integer> {
        @Override
        public Object perform(Integer n, StepContext ctx) {
            return n;
        }
    }

    DurableTesting t;
    DurableOperations ops;

    @RegisterExtension
    final OwnSchema own = OwnSchema.perTest("ops_inspect");

    @BeforeEach
    void up() {
        t = DurableTesting.builder().dataSource(own.dataSource()).schema(own.schema()).fsms(Parent.class, Child.class, Work.class)
                .config("gendurable.queues", "default:1,parents:1,kids:1,jobs:1")
                .config("gendurable.concurrency-limits.g.limit", "2")
                .config("gendurable.rate-limits.r.allowed", "5")
                .config("gendurable.rate-limits.r.burst", "10")
                .build();
        ops = t.operations();
    }

    @AfterEach
    void down() {
        t.close();
    }

    @Test
    void a_parent_shows_its_children_per_status_and_a_child_its_parent_and_pending_inbox() {
        long parent = t.durable().insert(Parent.class, 6).id();
        t.drain();
        InstanceDetails p = ops.inspect(parent).orElseThrow();
        assertThat(p.instance().status()).isEqualTo(Status.AWAITING_CHILDREN);
        assertThat(p.children()).containsEntry(Status.DONE, 2L).containsEntry(Status.FAILED, 2L)
                .containsEntry(Status.AWAITING_SIGNAL, 2L).containsEntry(Status.RUNNABLE, 0L).hasSize(Status.values().length);
        assertThat(p.childrenTotal()).isEqualTo(6);
        assertThat(p.parent()).isEmpty();
        assertThat(p.pendingSignals()).isEmpty();
        assertThat(p.claim()).isEmpty();
        assertThat(p.gate()).isEmpty();
        assertThat(p.rateLimit()).isEmpty();

        long parked = t.instances(Child.class).stream().filter(s -> s.status() == Status.AWAITING_SIGNAL)
                .findFirst().orElseThrow().id();
        t.durable().signal(SignalTarget.id(parked), "note", Map.of("a", 1), "dedup-1");
        t.durable().signal(SignalTarget.id(parked), "note", null);
        InstanceDetails c = ops.inspect(parked).orElseThrow();
        assertThat(c.parent()).hasValueSatisfying(s -> assertThat(s.id()).isEqualTo(parent));
        assertThat(c.pendingSignalCount()).isEqualTo(2);
        assertThat(c.pendingSignals()).extracting(Signal::name).containsExactly("note", "note");
        assertThat(c.pendingSignals().get(0).dedupKey()).isEqualTo("dedup-1");
        assertThat(c.pendingSignals().get(0).payload().json()).isEqualTo("{\"a\": 1}");
        assertThat(c.pendingSignals().get(1).dedupKey()).isNull();
        assertThat(c.childrenTotal()).isZero();

        InstanceDetails failed = ops.inspect(t.instances(Child.class).stream().filter(s -> s.status() == Status.FAILED)
                .findFirst().orElseThrow().id()).orElseThrow();
        assertThat(failed.lastError()).hasValueSatisfying(e -> assertThat(e).contains("failed"));
        assertThat(ops.inspect(999_999)).isEmpty();
    }

    @Test
    void the_pending_inbox_lists_the_first_hundred_and_counts_all() {
        long parent = t.durable().insert(Parent.class, 3).id();
        t.drain();
        long parked = t.instances(Child.class).stream().filter(s -> s.status() == Status.AWAITING_SIGNAL)
                .findFirst().orElseThrow().id();
        own.sql("INSERT INTO signals (target_id, name) SELECT " + parked + ", 's' || i FROM generate_series(1, 130) i");
        InstanceDetails c = ops.inspect(parked).orElseThrow();
        assertThat(c.pendingSignalCount()).isEqualTo(130);
        assertThat(c.pendingSignals()).hasSize(InstanceDetails.MAX_PENDING_SIGNALS);
        assertThat(c.pendingSignals().get(0).name()).isEqualTo("s1");
        assertThat(parent).isPositive();
    }

    @Test
    void a_gated_rate_limited_row_shows_its_gate_and_bucket_and_an_executing_row_its_claim() {
        long waiting = t.durable().insert(Work.class, 1, InsertOptions.builder().concurrencyKey("g:tenant-1")
                .rateLimit("r").weight(3).build()).id();
        List<Long> running = IntStream.range(0, 2).mapToObj(i -> t.durable().insert(Work.class, 1,
                InsertOptions.builder().concurrencyKey("g:tenant-1").build()).id()).toList();
        own.sql("UPDATE gen_durable SET status = 'executing', locked_by = 'node-a:jobs@1', lease_expires_at = now() + interval '1 minute', "
                + "claim_token = id, concurrency_shard = 0 WHERE id IN (" + running.get(0) + ", " + running.get(1) + ");"
                + "INSERT INTO gen_durable_buckets (kind, key, shard, capacity, available, last_refill) "
                + "VALUES ('conc', 'g:tenant-1', 0, 2, 0, NULL), ('rate', 'r', 0, 10, 4.5, now())");
        InstanceDetails d = ops.inspect(waiting).orElseThrow();
        assertThat(d.gate()).hasValue(new InstanceDetails.Gate("g:tenant-1", "g", true, 2, 2, 0.0));
        assertThat(d.rateLimit()).hasValueSatisfying(r -> {
            assertThat(r.key()).isEqualTo("r");
            assertThat(r.configured()).isTrue();
            assertThat(r.weight()).isEqualTo(3);
            assertThat(r.perSecond()).isEqualTo(5.0);
            assertThat(r.burst()).isEqualTo(10.0);
            assertThat(r.available()).isEqualTo(4.5);
            assertThat(r.lastRefill()).isNotNull();
        });
        assertThat(d.claim()).isEmpty();
        InstanceDetails e = ops.inspect(running.get(0)).orElseThrow();
        assertThat(e.claim()).hasValueSatisfying(c -> assertThat(c.worker()).isEqualTo("node-a:jobs@1"));

        long solo = t.durable().insert(Work.class, 1, InsertOptions.builder().concurrencyKey("solo:1")
                .rateLimit("unknown", "p").build()).id();
        InstanceDetails s = ops.inspect(solo).orElseThrow();
        assertThat(s.gate()).hasValue(new InstanceDetails.Gate("solo:1", "solo", false, 1, 0, null));
        assertThat(s.rateLimit()).hasValue(new InstanceDetails.RateLimit("unknown:p", "unknown", 1, false, null, null, null, null));
    }

    @Test
    void the_summary_counts_per_queue_and_status_and_ages_the_oldest_due_runnable_row() {
        var now = t.now();
        for (int i = 0; i < 3; i++) {
            t.durable().insert(Work.class, i, InsertOptions.builder().scheduleAt(now.minus(Duration.ofMinutes(5 + i))).build());
        }
        t.durable().insert(Work.class, 9, InsertOptions.builder().scheduleAt(now.plus(Duration.ofHours(1))).build());
        t.durable().insert(Work.class, 9, InsertOptions.builder().queue("other").build());
        long parent = t.durable().insert(Parent.class, 3).id();
        t.drain("parents");
        t.drain("kids");
        OperationsSummary s = ops.summary();
        assertThat(s.at()).isEqualTo(t.now());
        assertThat(s.queues()).extracting(q -> q.queue()).containsExactly("jobs", "kids", "other", "parents");
        var jobs = s.queue("jobs").orElseThrow();
        assertThat(jobs.count(Status.RUNNABLE)).isEqualTo(4);
        assertThat(jobs.total()).isEqualTo(4);
        assertThat(jobs.oldestRunnableSince()).isEqualTo(now.minus(Duration.ofMinutes(7)));
        assertThat(jobs.oldestRunnableAge()).isEqualTo(Duration.between(now.minus(Duration.ofMinutes(7)), t.now()));
        var kids = s.queue("kids").orElseThrow();
        assertThat(kids.count(Status.DONE)).isEqualTo(1);
        assertThat(kids.count(Status.FAILED)).isEqualTo(1);
        assertThat(kids.count(Status.AWAITING_SIGNAL)).isEqualTo(1);
        assertThat(kids.oldestRunnableAge()).isEqualTo(Duration.ZERO);
        assertThat(s.queue("parents").orElseThrow().count(Status.AWAITING_CHILDREN)).isEqualTo(1);
        assertThat(s.count(Status.RUNNABLE)).isEqualTo(5);
        assertThat(s.queue("nope")).isEmpty();
        assertThat(parent).isPositive();
    }
}
