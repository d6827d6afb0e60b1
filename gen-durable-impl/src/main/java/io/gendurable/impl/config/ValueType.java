package io.gendurable.impl.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the text of a {@code gendurable.*} key parses, and how its value prints (in the start-up
 * line and in error messages). A text that does not parse fails naming the key, the text and the
 * accepted form.
 *
 * @param parser    (full key, trimmed non-blank text) → value
 * @param formatter value → text; never given null
 * @param <T>       the value's type
 */
public record ValueType<T>(BiFunction<String, String, T> parser, Function<T, String> formatter) {
    private static final Pattern QUEUE_PAIR = Pattern.compile("\\s*([A-Za-z0-9_.\\-]+)\\s*:\\s*(-?\\d+)\\s*");

    /** Text as written. */
    public static final ValueType<String> TEXT = new ValueType<>((k, v) -> v, String::valueOf);

    /**
     * A URL that may carry credentials: printed with the password masked in every form the Redis
     * client reads one from ({@code redis://user:secret@host}, {@code redis://:secret@host}, and
     * {@code redis://secret@host}, a password alone), a user name kept; see {@link #maskCredentials}.
     */
    public static final ValueType<String> URL = new ValueType<>((k, v) -> v, ValueType::maskCredentials);

    /**
     * @param url a URL
     * @return it with whatever stands between {@code ://} and the last {@code @} before its query
     * replaced by {@code ***}, or by {@code user:***} when that holds a colon after a user name (a
     * password may itself hold {@code @} or {@code :}); a URL without {@code @} there as it is
     */
    static String maskCredentials(String url) {
        int start = url.indexOf("://");
        if (start < 0) {
            return url;
        }
        start += 3;
        int end = url.length();
        for (char c : new char[]{'?', '#'}) {
            int i = url.indexOf(c, start);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        int at = url.lastIndexOf('@', end - 1);
        if (at < start) {
            return url;
        }
        String userInfo = url.substring(start, at);
        int colon = userInfo.indexOf(':');
        return url.substring(0, start) + (colon > 0 ? userInfo.substring(0, colon) + ":***" : "***") + url.substring(at);
    }

    /** ISO-8601 ({@code PT60S}, {@code P1D}) or plain milliseconds; see {@link Durations}. */
    public static final ValueType<Duration> DURATION = new ValueType<>(Durations::parse, Duration::toString);

    /** An {@code int}. */
    public static final ValueType<Integer> INTEGER = new ValueType<>((k, v) -> {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new ConfigException(k, v, "an integer");
        }
    }, String::valueOf);

    /** A finite number, decimals allowed. */
    public static final ValueType<Double> NUMBER = new ValueType<>((k, v) -> {
        try {
            double d = Double.parseDouble(v);
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new NumberFormatException();
            }
            return d;
        } catch (NumberFormatException e) {
            throw new ConfigException(k, v, "a number");
        }
    }, String::valueOf);

    /** {@code true} or {@code false}, in any case. */
    public static final ValueType<Boolean> BOOLEAN = new ValueType<>((k, v) -> switch (v.toLowerCase(Locale.ROOT)) {
        case "true" -> true;
        case "false" -> false;
        default -> throw new ConfigException(k, v, "true or false");
    }, String::valueOf);

    /** Names separated by commas, blanks dropped. */
    public static final ValueType<List<String>> LIST = new ValueType<>(
            (k, v) -> Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList(),
            l -> String.join(",", l));

    /** {@code name:concurrency} pairs separated by commas, in order, or {@code none}: see {@link #parseQueues}. */
    public static final ValueType<Map<String, Integer>> QUEUES = new ValueType<>(ValueType::parseQueues, String::valueOf);

    /**
     * @param values the constants
     * @param <E>    the enum
     * @return the constants by their lower-case names, in any case; the error names them all
     */
    public static <E extends Enum<E>> ValueType<E> oneOf(Class<E> values) {
        List<String> names = Arrays.stream(values.getEnumConstants()).map(e -> e.name().toLowerCase(Locale.ROOT)).toList();
        String accepted = String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
        return new ValueType<>((k, v) -> Arrays.stream(values.getEnumConstants())
                .filter(e -> e.name().equalsIgnoreCase(v)).findFirst()
                .orElseThrow(() -> new ConfigException(k, v, accepted)),
                e -> e.name().toLowerCase(Locale.ROOT));
    }

    /**
     * @param key  the full key, for the message
     * @param text the trimmed, non-blank text
     * @return the value
     * @throws ConfigException naming the key when the text does not parse
     */
    public T parse(String key, String text) {
        return parser.apply(key, text);
    }

    /** @param value a value, or null @return its text ({@code null} for null) */
    public String format(T value) {
        return value == null ? "null" : formatter.apply(value);
    }

    /**
     * @param key   the key, for messages
     * @param value {@code name:concurrency} pairs separated by commas ({@code default:10,checkout:5}), or {@code none}
     * @return queue → concurrency, in the given order
     */
    public static Map<String, Integer> parseQueues(String key, String value) {
        Map<String, Integer> out = new LinkedHashMap<>();
        if (value.trim().equalsIgnoreCase("none")) {
            return out;  // a node that only inserts and signals runs no scheduler
        }
        for (String part : value.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            Matcher m = QUEUE_PAIR.matcher(part);
            if (!m.matches()) {
                throw new ConfigException(key, value, "name:concurrency pairs separated by commas, e.g. default:10,checkout:5");
            }
            int concurrency;
            try {
                concurrency = Integer.parseInt(m.group(2));
            } catch (NumberFormatException e) {
                throw new ConfigException(key, value, "a concurrency that fits an int");
            }
            if (concurrency < 1) {
                throw new ConfigException(key, value, "a concurrency of 1 or more for queue " + m.group(1));
            }
            if (out.put(m.group(1), concurrency) != null) {
                throw new ConfigException(key, value, "each queue once (" + m.group(1) + " appears twice)");
            }
        }
        return out;
    }
}
