package io.gendurable.sample.otlp;

import java.util.List;
import java.util.Map;

/**
 * One span the suites' {@link OtlpReceiver} received (ids in lower-case hex, empty when absent).
 * Free of test-runner types: a suite class that refers to it may also be loaded in the server
 * (in-container tests), where this record is added to the deployment beside it.
 *
 * @param traceId      the trace id
 * @param spanId       the span id
 * @param parentSpanId the parent's span id
 * @param name         the span's name
 * @param attributes   the span's attributes, each value as text (strings as they are, integers in decimal)
 * @param links        the span's links, in order
 */
public record ReceivedSpan(String traceId, String spanId, String parentSpanId, String name,
                           Map<String, String> attributes, List<Link> links) {
    public ReceivedSpan {
        attributes = Map.copyOf(attributes);
        links = List.copyOf(links);
    }

    /** @return the attribute's value as text, or null when the span has none of that name */
    public String attribute(String key) {
        return attributes.get(key);
    }

    /**
     * A link to another span.
     *
     * @param traceId    the linked span's trace id
     * @param spanId     the linked span's id
     * @param attributes the link's attributes, as text
     */
    public record Link(String traceId, String spanId, Map<String, String> attributes) {
        public Link {
            attributes = Map.copyOf(attributes);
        }
    }
}
