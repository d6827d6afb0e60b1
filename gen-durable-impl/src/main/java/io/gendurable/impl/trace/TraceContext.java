package io.gendurable.impl.trace;

/**
 * A W3C trace context as stored with a row: the {@code traceparent} header value and the
 * optional {@code tracestate}.
 *
 * @param traceparent {@code 00-<trace id>-<span id>-<flags>}, or null when no span was current
 * @param tracestate  the vendor state, or null
 */
public record TraceContext(String traceparent, String tracestate) {
    /** No context (nothing is stored). */
    public static final TraceContext NONE = new TraceContext(null, null);
}
