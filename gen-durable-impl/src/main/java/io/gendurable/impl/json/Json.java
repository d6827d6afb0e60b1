package io.gendurable.impl.json;

import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.JsonbException;

import java.lang.reflect.Type;

/**
 * JSON-B for state, results and payloads. Values are stored as JSON (objects for records),
 * parsed server-side with {@code ::jsonb}, never as a JSON string holding JSON.
 */
public final class Json implements AutoCloseable {
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
        return text;
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
        return new JsonValue(text, this);
    }

    @Override
    public void close() throws Exception {
        jsonb.close();
    }
}
