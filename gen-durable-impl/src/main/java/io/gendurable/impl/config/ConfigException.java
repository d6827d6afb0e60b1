package io.gendurable.impl.config;

/** Invalid engine configuration: names the key, the value and what is accepted. */
public class ConfigException extends IllegalArgumentException {
    private final String key;

    public ConfigException(String key, String value, String accepted) {
        super("invalid configuration " + key + "=" + value + ": accepted " + accepted);
        this.key = key;
    }

    public ConfigException(String key, String message) {
        super("invalid configuration " + key + ": " + message);
        this.key = key;
    }

    /** @return the offending key */
    public String key() {
        return key;
    }
}
