package io.gendurable.bench;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Collection;
import java.util.Map;

/**
 * The bench's results (maps, lists, strings, numbers, booleans, nulls) as one line of JSON, through
 * JSON-P. Figures are rounded for reading: whole numbers print without a fraction, others with 1
 * decimal from 100 up and 3 below; NaN and infinities print as {@code null}.
 */
public final class Json {
    private Json() {
    }

    /** @return {@code value} as one line of JSON */
    public static String line(Object value) {
        return value(value).toString();
    }

    static JsonValue value(Object v) {
        if (v == null) {
            return JsonValue.NULL;
        } else if (v instanceof Map<?, ?> m) {
            JsonObjectBuilder b = jakarta.json.Json.createObjectBuilder();
            m.forEach((k, x) -> b.add(String.valueOf(k), value(x)));
            return b.build();
        } else if (v instanceof Collection<?> c) {
            JsonArrayBuilder b = jakarta.json.Json.createArrayBuilder();
            c.forEach(x -> b.add(value(x)));
            return b.build();
        } else if (v instanceof Double || v instanceof Float) {
            return figure(((Number) v).doubleValue());
        } else if (v instanceof Number n) {
            return jakarta.json.Json.createValue(n.longValue());
        } else if (v instanceof Boolean b) {
            return b ? JsonValue.TRUE : JsonValue.FALSE;
        }
        return jakarta.json.Json.createValue(v.toString());
    }

    private static JsonValue figure(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return JsonValue.NULL;
        } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return jakarta.json.Json.createValue((long) d);
        }
        return jakarta.json.Json.createValue(BigDecimal.valueOf(d).setScale(Math.abs(d) >= 100 ? 1 : 3, RoundingMode.HALF_UP));
    }
}
