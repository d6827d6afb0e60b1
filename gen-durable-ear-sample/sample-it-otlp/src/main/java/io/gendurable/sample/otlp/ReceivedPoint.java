package io.gendurable.sample.otlp;

import java.util.Map;

/**
 * One metric point the tests' {@link OtlpReceiver} received. Free of test-runner types, so a
 * test deployment can carry it.
 *
 * @param metric     the metric's name
 * @param unit       its unit (empty when none)
 * @param attributes the point's attributes as text, sorted by key
 * @param value      a gauge's or sum's value; a histogram's count
 */
public record ReceivedPoint(String metric, String unit, Map<String, String> attributes, double value) {
}
