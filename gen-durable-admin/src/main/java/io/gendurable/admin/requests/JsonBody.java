package io.gendurable.admin.requests;

import io.gendurable.admin.problems.AdminProblem;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParsingException;

import java.io.StringReader;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A request body: one JSON object whose fields are read one by one, each wrong one failing with an
 * {@link AdminProblem} (400) naming it. Fields it does not know are refused (a misspelt
 * {@code withDescendents} must not silently mean false).
 */
public final class JsonBody {
    /** The largest body accepted, in characters. */
    public static final int MAX_LENGTH = 1 << 20;
    /**
     * The deepest nesting of objects and arrays accepted, the body's own object being level 1:
     * below the JSON parser's own limit (Parsson's is 1,000), and deep enough for any state.
     */
    static final int MAX_DEPTH = 100;

    private final JsonObject object;

    private JsonBody(JsonObject object) {
        this.object = object;
    }

    /**
     * @param body   the request body: exactly one JSON object ({@code {}} when there is nothing to say)
     * @param fields the fields accepted
     * @return the body
     * @throws AdminProblem when it is not exactly one JSON object of known fields (empty, another
     *                      value, trailing content, a duplicate key, nested too deep)
     */
    public static JsonBody parse(String body, Set<String> fields) {
        JsonObject object = strictObject(body);
        for (String key : object.keySet()) {
            if (!fields.contains(key)) {
                throw AdminProblem.invalidInput("unknown field " + Input.shown(key) + " in the body; accepted: " + new TreeSet<>(fields));
            }
        }
        return new JsonBody(object);
    }

    /**
     * Reads a body strictly: exactly one JSON object and nothing after it but white space, no
     * object with the same key twice (at any depth: which of two values a reader keeps differs
     * between implementations), at most {@value #MAX_LENGTH} characters.
     *
     * @param body the request body
     * @return the object
     * @throws AdminProblem (400) otherwise, with a fixed detail that echoes nothing of the body
     */
    public static JsonObject strictObject(String body) {
        if (body == null || body.isBlank()) {
            throw AdminProblem.invalidInput("the body must be a JSON object ({} when there is nothing to say), got nothing");
        }
        if (body.length() > MAX_LENGTH) {
            throw AdminProblem.invalidInput("the body must be at most " + MAX_LENGTH + " characters, got " + body.length());
        }
        try (JsonParser parser = Json.createParser(new StringReader(body))) {
            JsonParser.Event first = parser.next();
            if (first != JsonParser.Event.START_OBJECT) {
                throw AdminProblem.invalidInput("the body must be a JSON object, got " + switch (first) {
                    case START_ARRAY -> "an array";
                    case VALUE_STRING -> "a string";
                    case VALUE_NUMBER -> "a number";
                    case VALUE_TRUE, VALUE_FALSE -> "a boolean";
                    case VALUE_NULL -> "null";
                    default -> "something else";
                });
            }
            JsonObject object = readObject(parser, 1);
            if (parser.hasNext()) {  // Parsson throws here instead
                throw AdminProblem.invalidInput("the body must be a JSON object with nothing after it");
            }
            return object;
        } catch (AdminProblem e) {
            throw e;
        } catch (RuntimeException e) {
            // JsonException, JsonParsingException, NoSuchElementException, or what a parser throws
            // at its own limits: the parser's message may quote the body, so it is not repeated
            throw AdminProblem.invalidInput(notJson(e));
        }
    }

    private static String notJson(RuntimeException e) {
        if (e instanceof JsonParsingException p && p.getLocation() != null) {
            return "the body must be a JSON object: not JSON at line " + p.getLocation().getLineNumber()
                    + ", column " + p.getLocation().getColumnNumber();
        }
        return "the body must be a JSON object: not JSON";
    }

    /** Reads the object whose START_OBJECT was just read. */
    private static JsonObject readObject(JsonParser parser, int depth) {
        JsonObjectBuilder b = Json.createObjectBuilder();
        Set<String> seen = new HashSet<>();
        while (true) {
            JsonParser.Event e = parser.next();
            if (e == JsonParser.Event.END_OBJECT) {
                return b.build();
            }
            if (e != JsonParser.Event.KEY_NAME) {
                throw AdminProblem.invalidInput("the body must be a JSON object: not JSON");
            }
            String key = parser.getString();
            if (!seen.add(key)) {
                throw AdminProblem.invalidInput("the body has the key " + Input.shown(key) + " twice in one object");
            }
            b.add(key, readValue(parser, parser.next(), depth));
        }
    }

    private static JsonArray readArray(JsonParser parser, int depth) {
        JsonArrayBuilder b = Json.createArrayBuilder();
        while (true) {
            JsonParser.Event e = parser.next();
            if (e == JsonParser.Event.END_ARRAY) {
                return b.build();
            }
            b.add(readValue(parser, e, depth));
        }
    }

    private static JsonValue readValue(JsonParser parser, JsonParser.Event e, int depth) {
        return switch (e) {
            case START_OBJECT -> readObject(parser, deeper(depth));
            case START_ARRAY -> readArray(parser, deeper(depth));
            case VALUE_STRING, VALUE_NUMBER -> parser.getValue();
            case VALUE_TRUE -> JsonValue.TRUE;
            case VALUE_FALSE -> JsonValue.FALSE;
            case VALUE_NULL -> JsonValue.NULL;
            default -> throw AdminProblem.invalidInput("the body must be a JSON object: not JSON");
        };
    }

    private static int deeper(int depth) {
        if (depth >= MAX_DEPTH) {
            throw AdminProblem.invalidInput("the body nests objects and arrays more than " + MAX_DEPTH + " levels deep");
        }
        return depth + 1;
    }

    /** @return whether the field is present and not JSON null */
    boolean has(String field) {
        return object.containsKey(field) && object.get(field).getValueType() != JsonValue.ValueType.NULL;
    }

    /**
     * @param field the field's name
     * @return the field's text, or null when absent or null
     * @throws AdminProblem when it holds a control character ({@link Input#text})
     */
    public String string(String field) {
        if (!has(field)) {
            return null;
        }
        JsonValue v = object.get(field);
        if (v instanceof JsonString s) {
            return Input.text(field, s.getString());
        }
        throw AdminProblem.invalidInput(field + " must be a string, got " + kind(v));
    }

    /**
     * @param field     the field's name
     * @param otherwise the value when absent or null
     * @return the field's boolean, or {@code otherwise} when absent or null
     */
    public boolean bool(String field, boolean otherwise) {
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

    /**
     * @param field the field's name
     * @return the field's whole number, or null when absent or null
     */
    public Long wholeNumber(String field) {
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

    /**
     * @param field the field's name
     * @return the field's whole number within the int range, or null when absent or null
     */
    public Integer intNumber(String field) {
        Long n = wholeNumber(field);
        if (n == null) {
            return null;
        }
        if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
            throw AdminProblem.invalidInput(field + " is out of range, got " + n);
        }
        return n.intValue();
    }

    /**
     * @param field the field's name
     * @return the field's ISO-8601 instant ({@code 2026-05-01T12:00:00Z}), or null when absent or null
     */
    public Instant instant(String field) {
        String text = string(field);
        return text == null ? null : Input.instant(field, text);
    }

    /**
     * @param field the field's name
     * @return the field's JSON value as sent (JSON null included), or empty when absent
     */
    public Optional<JsonValue> value(String field) {
        return Optional.ofNullable(object.get(field));
    }

    /**
     * @param field the field's name
     * @return a field that must be there
     */
    public static AdminProblem missing(String field) {
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
