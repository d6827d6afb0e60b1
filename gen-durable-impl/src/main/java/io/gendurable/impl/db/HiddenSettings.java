package io.gendurable.impl.db;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Hibernate copies every system property into its settings and prints them all at DEBUG when
 * the persistence unit starts. The engine's unit overrides the secret-looking ones (a
 * {@code gendurable.jdbc.password=…} passed as {@code -D}, a JDBC URL with {@code password=…})
 * with masked values, which Hibernate never reads, so a debug log holds no password.
 */
final class HiddenSettings {
    private static final Pattern SECRET_NAME = Pattern.compile("(?i).*(password|secret|credential).*");
    private static final Pattern SECRET_IN_VALUE = Pattern.compile("(?i)(password=)[^&;]*");

    private HiddenSettings() {
    }

    /** @return for each secret-looking property, its masked value */
    static Map<String, Object> masks(Properties properties) {
        Map<String, Object> out = new HashMap<>();
        for (String name : properties.stringPropertyNames()) {
            String value = properties.getProperty(name);
            if (SECRET_NAME.matcher(name).matches()) {
                out.put(name, "***");
            } else if (value != null && SECRET_IN_VALUE.matcher(value).find()) {
                out.put(name, SECRET_IN_VALUE.matcher(value).replaceAll("$1***"));
            }
        }
        return out;
    }
}
