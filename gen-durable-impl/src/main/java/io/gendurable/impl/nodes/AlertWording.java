package io.gendurable.impl.nodes;

import java.time.Duration;

/** How an alert's detail writes counts and ages for an operator: "1 runnable instance", "1 min 35 s". */
final class AlertWording {
    private AlertWording() {
    }

    /** @return {@code "1 runnable instance"} or {@code "3 runnable instances"} */
    static String runnable(long count) {
        return count + (count == 1 ? " runnable instance" : " runnable instances");
    }

    /** @return the verb agreeing with {@code count}: {@code "carries"} or {@code "carry"} */
    static String carry(long count) {
        return count == 1 ? "carries" : "carry";
    }

    /**
     * @param age a non-negative age
     * @return its two largest units, truncated: {@code "850 ms"}, {@code "35 s"}, {@code "1 min 35 s"},
     * {@code "2 h 5 min"}, {@code "3 d 4 h"}
     */
    static String age(Duration age) {
        if (age.isNegative()) {
            age = Duration.ZERO;
        }
        long s = age.toSeconds();
        if (s < 1) {
            return age.toMillis() + " ms";
        }
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return two(s / 60, "min", s % 60, "s");
        }
        if (s < 86_400) {
            return two(s / 3600, "h", s % 3600 / 60, "min");
        }
        return two(s / 86_400, "d", s % 86_400 / 3600, "h");
    }

    private static String two(long big, String bigUnit, long small, String smallUnit) {
        return small == 0 ? big + " " + bigUnit : big + " " + bigUnit + " " + small + " " + smallUnit;
    }
}
