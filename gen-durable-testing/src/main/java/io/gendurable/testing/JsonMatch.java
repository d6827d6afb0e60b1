package io.gendurable.testing;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;

import java.io.StringReader;

/**
 * Compares two JSON texts as values: objects by their members in any order, numbers by value
 * ({@code 1} equals {@code 1.0}), so a result stored as {@code jsonb} matches the object it came from.
 */
final class JsonMatch {
    private JsonMatch() {
    }

    static boolean sameValue(String a, String b) {
        return same(parse(a), parse(b));
    }

    private static JsonValue parse(String text) {
        if (text == null) {
            return JsonValue.NULL;
        }
        try (JsonReader r = Json.createReader(new StringReader(text))) {
            return r.readValue();
        }
    }

    private static boolean same(JsonValue a, JsonValue b) {
        if (a instanceof JsonNumber x && b instanceof JsonNumber y) {
            return x.bigDecimalValue().compareTo(y.bigDecimalValue()) == 0;
        }
        if (a instanceof JsonObject x && b instanceof JsonObject y) {
            if (!x.keySet().equals(y.keySet())) {
                return false;
            }
            return x.keySet().stream().allMatch(k -> same(x.get(k), y.get(k)));
        }
        if (a instanceof JsonArray x && b instanceof JsonArray y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!same(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }
}
