package io.gendurable.impl.trace;

import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.support.EngineHarness;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Step spans through the OpenTelemetry SDK (the API the servers' MicroProfile Telemetry provides):
 * a step's span is a child of the span that inserted its instance, carries the step's attributes,
 * records errors, and is current while the step runs (so a fan-out child inherits it); without a
 * current span at insert nothing is stored. A signal keeps its sender's context, and the step
 * given the signal links to it.
 */
class TracingTest {
    public record Job(String kind) {
    }

    /** "fan" fans out one child; "child" and "ok" end; "fail" throws on its only attempt; "await" awaits "go", then ends. */
    public static class Traced implements Fsm<Job> {
        final List<String> seenTraceIds = new CopyOnWriteArrayList<>();
        final java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);

        @Override
        public Outcome step(String step, Job job, StepContext ctx) {
            seenTraceIds.add(Span.current().getSpanContext().getTraceId());
            switch (job.kind()) {
                case "fan":
                    if (step.equals("start")) {
                        return Outcome.scheduleChildren(List.of(new NewInstance(Traced.class.getName(), new Job("child"),
                                InsertOptions.defaults())), "joined", job);
                    }
                    return Outcome.done();
                case "fail":
                    throw new IllegalStateException("boom");
                case "await":
                    return step.equals("start") ? Outcome.await(Set.of("go"), "woken", job) : Outcome.done();
                case "hold":
                    held.countDown();
                    try {
                        release.await(10, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return Outcome.done();
                default:
                    return Outcome.done();
            }
        }

        @Override
        public Outcome onError(String step, Job job, StepContext ctx, Throwable error) {
            return Outcome.stop(error.getMessage());  // no retries
        }
    }

    static final class Collected implements SpanExporter {
        final List<SpanData> spans = new CopyOnWriteArrayList<>();

        @Override
        public CompletableResultCode export(Collection<SpanData> batch) {
            spans.addAll(batch);
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }

        List<SpanData> steps(long id) {
            return spans.stream().filter(s -> Long.valueOf(id).equals(s.getAttributes().get(AttributeKey.longKey("gendurable.id"))))
                    .toList();
        }
    }

    EngineHarness h;
    ScheduledExecutorService timer;
    ExecutorService steps;
    Collected exported;
    SdkTracerProvider provider;
    OpenTelemetry sdk;
    Traced fsm;
    Engine engine;

    @BeforeEach
    void up() {
        h = new EngineHarness("tracing");
        timer = Executors.newScheduledThreadPool(4);
        steps = Executors.newCachedThreadPool();
        exported = new Collected();
        provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exported)).build();
        sdk = new OpenTelemetry() {  // what MicroProfile Telemetry injects, over an in-memory exporter
            @Override
            public TracerProvider getTracerProvider() {
                return provider;
            }

            @Override
            public ContextPropagators getPropagators() {
                return ContextPropagators.noop();
            }
        };
        fsm = new Traced();
        FsmRegistry registry = new FsmRegistry();
        registry.register(FsmDefinition.of(fsm));
        engine = Engine.builder().dataSource(h.dataSource()).config(h.configBuilder("n1").queues(Map.of("default", 4)).build())
                .registry(registry).timer(timer).steps(steps).tracing(new OtelTracing(sdk)).build();
        engine.start();
    }

    @AfterEach
    void down() {
        engine.close();
        h.close();
        timer.shutdownNow();
        steps.shutdownNow();
        provider.close();
    }

    @Test
    void a_steps_span_is_a_child_of_the_span_that_inserted_its_instance() {
        Tracer tracer = sdk.getTracer("test");
        Span request = tracer.spanBuilder("POST /orders").startSpan();
        long id;
        try (Scope ignored = request.makeCurrent()) {
            id = engine.insert(Traced.class, new Job("ok")).id();
        } finally {
            request.end();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !exported.steps(id).isEmpty());
        SpanData step = exported.steps(id).get(0);
        assertThat(step.getTraceId()).isEqualTo(request.getSpanContext().getTraceId());
        assertThat(step.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
        assertThat(step.getName()).isEqualTo("gendurable.step " + Traced.class.getName() + ".start");
        assertThat(step.getAttributes().get(AttributeKey.stringKey("gendurable.fsm"))).isEqualTo(Traced.class.getName());
        assertThat(step.getAttributes().get(AttributeKey.stringKey("gendurable.step"))).isEqualTo("start");
        assertThat(step.getAttributes().get(AttributeKey.longKey("gendurable.attempt"))).isEqualTo(1L);
        assertThat(step.getAttributes().get(AttributeKey.stringKey("gendurable.queue"))).isEqualTo("default");
        assertThat(step.getAttributes().get(AttributeKey.stringKey("gendurable.outcome"))).isEqualTo("done");
        assertThat(fsm.seenTraceIds).as("the step's span is current in the step").contains(request.getSpanContext().getTraceId());
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + id + " AND traceparent = '00-"
                + request.getSpanContext().getTraceId() + "-" + request.getSpanContext().getSpanId() + "-01'")).isEqualTo(1);
    }

    @Test
    void a_fan_out_child_continues_its_parents_step_trace() {
        Span request = sdk.getTracer("test").spanBuilder("POST /fan").startSpan();
        long id;
        try (Scope ignored = request.makeCurrent()) {
            id = engine.insert(Traced.class, new Job("fan")).id();
        } finally {
            request.end();
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> engine.find(id).orElseThrow().status() == Status.DONE);
        long child = h.queryLong("SELECT id FROM gen_durable WHERE parent_id = " + id);
        await().atMost(Duration.ofSeconds(10)).until(() -> !exported.steps(child).isEmpty());
        SpanData parentStep = exported.steps(id).stream()
                .filter(s -> "start".equals(s.getAttributes().get(AttributeKey.stringKey("gendurable.step")))).findFirst().orElseThrow();
        SpanData childStep = exported.steps(child).get(0);
        assertThat(childStep.getTraceId()).isEqualTo(request.getSpanContext().getTraceId());
        assertThat(childStep.getParentSpanId()).as("the child's step hangs under the step that fanned it out")
                .isEqualTo(parentStep.getSpanId());
    }

    @Test
    void a_failing_step_records_its_error_and_no_span_at_insert_stores_nothing() {
        long id = engine.insert(Traced.class, new Job("fail")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.find(id).orElseThrow().status() == Status.FAILED);
        await().atMost(Duration.ofSeconds(10)).until(() -> !exported.steps(id).isEmpty());
        SpanData step = exported.steps(id).get(0);
        assertThat(step.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(step.getStatus().getDescription()).contains("boom");
        assertThat(step.getParentSpanContext().isValid()).as("a root span: nothing was current at insert").isFalse();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + id + " AND traceparent IS NULL")).isEqualTo(1);
    }

    /**
     * The span's outcome is the one the flush wrote. It was set when the step's code returned, so
     * a step whose claim was lost meanwhile showed as a successful {@code done} in the trace while
     * the metric said {@code stale}. Here the row's claim is taken from under the running step
     * (its fencing token replaced, as a re-claim elsewhere does).
     */
    @Test
    void a_step_whose_claim_was_lost_is_traced_stale_not_done() throws Exception {
        long id = engine.insert(Traced.class, new Job("hold")).id();
        assertThat(fsm.held.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        h.exec("UPDATE gen_durable SET claim_token = claim_token + 1000000 WHERE id = " + id);
        fsm.release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> !exported.steps(id).isEmpty());
        SpanData step = exported.steps(id).get(0);
        assertThat(step.getAttributes().get(AttributeKey.stringKey("gendurable.outcome"))).isEqualTo("stale");
        assertThat(engine.metrics().stale.sum()).isEqualTo(1);
    }

    @Test
    void the_step_given_a_signal_links_to_the_span_that_sent_it() {
        Tracer tracer = sdk.getTracer("test");
        Span insert = tracer.spanBuilder("POST /orders").startSpan();
        long id;
        try (Scope ignored = insert.makeCurrent()) {
            id = engine.insert(Traced.class, new Job("await")).id();
        } finally {
            insert.end();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.find(id).orElseThrow().status() == Status.AWAITING_SIGNAL);
        assertThat(engine.signal(SignalTarget.id(id), "note", "no span")).isEqualTo(SignalResult.DELIVERED);
        assertThat(h.queryLong("SELECT count(*) FROM signals WHERE target_id = " + id + " AND traceparent IS NULL"))
                .as("a signal sent with no span current stores no context").isEqualTo(1);
        Span approve = tracer.spanBuilder("POST /approve").startSpan();
        try (Scope ignored = approve.makeCurrent()) {
            assertThat(engine.signal(SignalTarget.id(id), "go", "approved")).isEqualTo(SignalResult.DELIVERED);
        } finally {
            approve.end();
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> engine.find(id).orElseThrow().status() == Status.DONE);
        await().atMost(Duration.ofSeconds(10)).until(() -> exported.steps(id).stream()
                .anyMatch(s -> "woken".equals(s.getAttributes().get(AttributeKey.stringKey("gendurable.step")))));
        SpanData first = exported.steps(id).stream()
                .filter(s -> "start".equals(s.getAttributes().get(AttributeKey.stringKey("gendurable.step")))).findFirst().orElseThrow();
        SpanData woken = exported.steps(id).stream()
                .filter(s -> "woken".equals(s.getAttributes().get(AttributeKey.stringKey("gendurable.step")))).findFirst().orElseThrow();
        assertThat(first.getLinks()).as("no signal in the first step's inbox").isEmpty();
        assertThat(woken.getParentSpanId()).as("still a child of the inserting span").isEqualTo(insert.getSpanContext().getSpanId());
        assertThat(woken.getTraceId()).isEqualTo(insert.getSpanContext().getTraceId());
        assertThat(woken.getLinks()).as("one link: the traced signal; the untraced note has none").hasSize(1);
        LinkData link = woken.getLinks().get(0);
        assertThat(link.getSpanContext().getTraceId()).isEqualTo(approve.getSpanContext().getTraceId());
        assertThat(link.getSpanContext().getSpanId()).isEqualTo(approve.getSpanContext().getSpanId());
        assertThat(link.getAttributes().get(AttributeKey.stringKey("gendurable.signal"))).isEqualTo("go");
        assertThat(link.getAttributes().get(AttributeKey.longKey("gendurable.signal.id"))).isPositive();
    }

    @Test
    void a_signal_stores_its_senders_context_which_the_inbox_load_reads_only_when_tracing() throws Exception {
        long id = engine.insert(Traced.class, new Job("await")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.find(id).orElseThrow().status() == Status.AWAITING_SIGNAL);
        Span sender = sdk.getTracer("test").spanBuilder("POST /notes").startSpan();
        try (Scope ignored = sender.makeCurrent()) {
            assertThat(engine.signal(SignalTarget.id(id), "note", "traced")).isEqualTo(SignalResult.DELIVERED);  // not awaited: stays
        } finally {
            sender.end();
        }
        String expected = "00-" + sender.getSpanContext().getTraceId() + "-" + sender.getSpanContext().getSpanId() + "-01";
        io.gendurable.impl.step.InboxSql inbox = new io.gendurable.impl.step.InboxSql(new io.gendurable.impl.db.SchemaName(h.schema()));
        try (java.sql.Connection c = h.dataSource().getConnection()) {
            assertThat(inbox.load(c, List.of(id), true).get(id)).singleElement()
                    .satisfies(s -> assertThat(s.traceparent()).isEqualTo(expected));
            assertThat(inbox.load(c, List.of(id), false).get(id)).as("tracing off: the two columns are not read")
                    .singleElement().satisfies(s -> assertThat(s.traceparent()).isNull());
        }
    }
}
