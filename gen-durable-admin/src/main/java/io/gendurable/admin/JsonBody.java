package io.gendurable.admin;

import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.io.StringReader;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A request body: one JSON object whose fields are read one by one, each wrong one failing with an
 * {@link AdminProblem} (400) naming it. Fields it does not know are refused (a misspelt
 * {@code withDescendents} must not silently mean false).
 */
final class JsonBody {
    /** The largest body accepted, in characters. */
    static final int MAX_LENGTH = 1 << 20;

    private final JsonObject object;

    private JsonBody(JsonObject object) {
        this.object = object;
    }

    /**
     * @param body   the request body, possibly null or blank
     * @param fields the fields accepted
     * @return the body; an empty one for a null or blank body
     * @throws AdminProblem when it is not one JSON object of known fields
     */
    static JsonBody parse(String body, Set<String> fields) {
        if (body == null || body.isBlank()) {
            return new JsonBody(JsonValue.EMPTY_JSON_OBJECT);
        }
        if (body.length() > MAX_LENGTH) {
            throw AdminProblem.invalidInput("the body must be at most " + MAX_LENGTH + " characters, got " + body.length());
        }
        JsonValue value;
        try (JsonReader reader = Json.createReader(new StringReader(body))) {
            value = reader.readValue();
        } catch (JsonException | IllegalStateException e) {
            throw AdminProblem.invalidInput("the body must be a JSON object: " + e.getMessage());
        }
        if (value.getValueType() != JsonValue.ValueType.OBJECT) {
            throw AdminProblem.invalidInput("the body must be a JSON object, got " + kind(value));
        }
        JsonObject object = value.asJsonObject();
        for (String key : object.keySet()) {
            if (!fields.contains(key)) {
                throw AdminProblem.invalidInput("unknown field '" + key + "' in the body; accepted: " + new TreeSet<>(fields));
            }
        }
        return new JsonBody(object);
    }

    /** @return whether the field is present and not JSON null */
    boolean has(String field) {
        return object.containsKey(field) && object.get(field).getValueType() != JsonValue.ValueType.NULL;
    }

    /** @return the field's text, or null when absent or null */
    String string(String field) {
        if (!has(field)) {
            return null;
        }
        JsonValue v = object.get(field);
        if (v instanceof JsonString s) {
            return s.getString();
        }
        throw AdminProblem.invalidInput(field + " must be a string, got " + kind(v));
    }

    /** @return the field's boolean, or {@code otherwise} when absent or null */
    boolean bool(String field, boolean otherwise) {
        if (!has(field)) {
            return otherwise;
        }
        JsonValue v = object.get(field);
        if (v.getValueType() == JsonValue.ValueType.TRUE) {
            return true;
        }
        if (v.getValueType() == JsonValue.ValueType.FALSE) {
            return false;
        }
        throw AdminProblem.invalidInput(field + " must be true or false, got " + kind(v));
    }

    /** @return the field's whole number, or null when absent or null */
    Long wholeNumber(String field) {
        if (!has(field)) {
            return null;
        }
        JsonValue v = object.get(field);
        if (v instanceof JsonNumber n && n.isIntegral()) {
            try {
                return n.bigIntegerValueExact().longValueExact();
            } catch (ArithmeticException e) {
                throw AdminProblem.invalidInput(field + " is out of range, got " + n);
            }
        }
        throw AdminProblem.invalidInput(field + " must be a whole number, got " + kind(v));
    }

    /** @return the field's whole number within the int range, or null when absent or null */
    Integer intNumber(String field) {
        Long n = wholeNumber(field);
        if (n == null) {
            return null;
        }
        if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
            throw AdminProblem.invalidInput(field + " is out of range, got " + n);
        }
        return n.intValue();
    }

    /** @return the field's ISO-8601 instant ({@code 2026-05-01T12:00:00Z}), or null when absent or null */
    Instant instant(String field) {
        String text = string(field);
        return text == null ? null : Input.instant(field, text);
    }

    /** @return the field's JSON value as sent (JSON null included), or empty when absent */
    Optional<JsonValue> value(String field) {
        return Optional.ofNullable(object.get(field));
    }

    /** @return a field that must be there */
    static AdminProblem missing(String field) {
        return AdminProblem.invalidInput(field + " is required in the body");
    }

    private static String kind(JsonValue v) {
        return switch (v.getValueType()) {
            case OBJECT -> "an object";
            case ARRAY -> "an array";
            case STRING -> "a string";
            case NUMBER -> "the number " + v;
            case TRUE, FALSE -> v.toString();
            case NULL -> "null";
        };
    }

}
