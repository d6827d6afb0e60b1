package io.gendurable.sample.it;

import java.util.Map;

/**
 * One metric point the tests' {@link OtlpReceiver} received. Top-level and free of test-runner
 * types, like {@link ReceivedSpan}.
 *
 * @param metric     the metric's name
 * @param unit       its unit (empty when none)
 * @param attributes the point's string attributes, sorted by key
 * @param value      a gauge's or sum's value; a histogram's count
 */
public record ReceivedPoint(String metric, String unit, Map<String, String> attributes, double value) {
}
