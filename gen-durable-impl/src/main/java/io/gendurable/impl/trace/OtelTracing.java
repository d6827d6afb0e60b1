package io.gendurable.impl.trace;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;

import java.util.HashMap;
import java.util.Map;

/**
 * Tracing through the OpenTelemetry API (MicroProfile Telemetry on Liberty and WildFly): one
 * {@code INTERNAL} span per step named {@code gendurable.step <fsm>.<step>}, a child of the
 * context stored with the instance at insert, with a link to the sender's context of each signal
 * in the step's inbox; the only class that touches the API.
 */
public final class OtelTracing implements Tracing {
    /** The instrumentation scope of the engine's spans. */
    public static final String SCOPE = "io.gendurable";

    private static final AttributeKey<String> FSM = AttributeKey.stringKey("gendurable.fsm");
    private static final AttributeKey<String> STEP = AttributeKey.stringKey("gendurable.step");
    private static final AttributeKey<Long> ID = AttributeKey.longKey("gendurable.id");
    private static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("gendurable.attempt");
    private static final AttributeKey<String> QUEUE = AttributeKey.stringKey("gendurable.queue");
    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("gendurable.outcome");
    private static final AttributeKey<String> SIGNAL = AttributeKey.stringKey("gendurable.signal");
    private static final AttributeKey<Long> SIGNAL_ID = AttributeKey.longKey("gendurable.signal.id");
    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
    private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final Tracer tracer;

    /** @param otel the application's OpenTelemetry (the server's, injected) */
    public OtelTracing(OpenTelemetry otel) {
        this.tracer = otel.getTracer(SCOPE);
    }

    @Override
    public TraceContext current() {
        return of(Context.current());
    }

    /** @return the W3C form of {@code context}'s span, {@link TraceContext#NONE} when it has no valid span */
    static TraceContext of(Context context) {
        SpanContext sc = Span.fromContext(context).getSpanContext();
        if (!sc.isValid()) {
            return TraceContext.NONE;
        }
        Map<String, String> carrier = new HashMap<>(2);
        W3C.inject(context, carrier, Map::put);
        return new TraceContext(carrier.get("traceparent"), carrier.get("tracestate"));
    }

    /** @return the context a stored traceparent/tracestate describes (root when null or malformed) */
    static Context parse(String traceparent, String tracestate) {
        if (traceparent == null) {
            return Context.root();
        }
        Map<String, String> carrier = new HashMap<>(2);
        carrier.put("traceparent", traceparent);
        if (tracestate != null) {
            carrier.put("tracestate", tracestate);
        }
        return W3C.extract(Context.root(), carrier, GETTER);
    }

    @Override
    public StepSpan startStep(StepAttributes row) {
        SpanBuilder builder = tracer.spanBuilder("gendurable.step " + row.fsm() + "." + row.step())
                .setSpanKind(SpanKind.INTERNAL)
                .setParent(parse(row.stored().traceparent(), row.stored().tracestate()))
                .setAttribute(FSM, row.fsm())
                .setAttribute(STEP, row.step())
                .setAttribute(ID, row.id())
                .setAttribute(ATTEMPT, (long) row.attempt())
                .setAttribute(QUEUE, row.queue());
        for (StepAttributes.SignalLink signal : row.signals()) {
            SpanContext sent = Span.fromContext(parse(signal.sent().traceparent(), signal.sent().tracestate()))
                    .getSpanContext();
            if (sent.isValid()) {
                builder.addLink(sent, Attributes.of(SIGNAL, signal.name(), SIGNAL_ID, signal.id()));
            }
        }
        Span span = builder.startSpan();
        Scope scope = span.makeCurrent();
        return new StepSpan() {
            @Override
            public void leave() {
                scope.close();
            }

            @Override
            public void end(String outcome, String error) {
                span.setAttribute(OUTCOME, outcome);
                if (error != null) {
                    span.setStatus(StatusCode.ERROR, error);
                }
                span.end();
            }
        };
    }
}
