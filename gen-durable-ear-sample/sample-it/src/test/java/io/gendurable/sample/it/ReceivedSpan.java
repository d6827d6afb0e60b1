package io.gendurable.sample.it;

/**
 * One span the tests' {@link OtlpReceiver} received (ids in lower-case hex, empty when absent).
 * Top-level and free of test-runner types: {@link SampleIT}, which refers to it, is also loaded in
 * the server, where this class is added to the WAR.
 *
 * @param traceId      the trace id
 * @param spanId       the span id
 * @param parentSpanId the parent's span id
 * @param name         the span's name
 */
public record ReceivedSpan(String traceId, String spanId, String parentSpanId, String name) {
}
