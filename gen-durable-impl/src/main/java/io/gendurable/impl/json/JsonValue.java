package io.gendurable.impl.json;

import io.gendurable.DurableValue;

/** A JSON value read from the database, read lazily through JSON-B. */
public final class JsonValue implements DurableValue {
    private final String json;
    private final Json codec;

    JsonValue(String json, Json codec) {
        this.json = json == null ? "null" : json;
        this.codec = codec;
    }

    @Override
    public String json() {
        return json;
    }

    @Override
    public <T> T as(Class<T> type) {
        return type.cast(codec.read(json, type));
    }

    @Override
    public boolean isNull() {
        return "null".equals(json);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DurableValue v && v.json().equals(json);
    }

    @Override
    public int hashCode() {
        return json.hashCode();
    }

    @Override
    public String toString() {
        return json;
    }
}
