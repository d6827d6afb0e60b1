package io.gendurable.impl.json;

import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.JsonbException;

import java.lang.reflect.Type;
import java.util.function.BiFunction;

/**
 * JSON-B for state, results and payloads. Values are stored as JSON (objects for records),
 * parsed server-side with {@code ::jsonb}, never as a JSON string holding JSON.
 */
public final class Json implements AutoCloseable {
    // handed to each JsonValue, which reads through it (and so does not depend on this class)
    private final BiFunction<String, Type, Object> reader = this::read;
    private final Jsonb jsonb;

    public Json() {
        this(JsonbBuilder.create());
    }

    public Json(Jsonb jsonb) {
        this.jsonb = jsonb;
    }

    /**
     * @param value any value JSON-B can write, or null
     * @return its JSON text, or null for null
     * @throws JsonbException when it cannot be written
     */
    public String write(Object value) {
        if (value == null) {
            return null;
        }
        String text = jsonb.toJson(value);
        if (text == null) {
            throw new JsonbException("JSON-B wrote nothing for " + value.getClass().getName());
        }
        if (hasNulEscape(text)) {
            // jsonb refuses it ("unsupported Unicode escape sequence"): failing here sends an outcome
            // to onError and an insert back to its caller, instead of failing a whole flush batch.
            throw new JsonbException("the JSON of " + value.getClass().getName()
                    + " contains \\u0000 (a NUL character), which PostgreSQL jsonb cannot store");
        }
        return text;
    }

    /** @return whether {@code json} holds a backslash-u0000 escape (an escaped backslash before "u0000" is not one) */
    static boolean hasNulEscape(String json) {
        if (!json.contains("\\u0000")) {
            return false;
        }
        for (int i = 0; i < json.length() - 1; i++) {
            if (json.charAt(i) == '\\') {
                if (json.startsWith("u0000", i + 1)) {
                    return true;
                }
                i++;  // skip the escaped character
            }
        }
        return false;
    }

    /**
     * @param text JSON text, or null
     * @param type the target type
     * @return the value, or null
     */
    public Object read(String text, Type type) {
        if (text == null || "null".equals(text)) {
            return null;
        }
        return jsonb.fromJson(text, type);
    }

    /** @return a {@link io.gendurable.DurableValue} over the text */
    public JsonValue value(String text) {
        return new JsonValue(text, reader);
    }

    @Override
    public void close() throws Exception {
        jsonb.close();
    }
}
