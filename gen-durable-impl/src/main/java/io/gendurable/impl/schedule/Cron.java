package io.gendurable.impl.schedule;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;

/**
 * A Unix cron expression (five fields: {@code minute hour day-of-month month day-of-week}) in a
 * zone, read and evaluated by cron-utils. Not the platform's {@code CronTrigger}: its behaviour
 * is the API jar's of the server at hand, and the one in the Jakarta EE 10.0.0 API jar throws
 * {@code ArrayIndexOutOfBoundsException} for an expression as plain as {@code 0 6 * * *}; cron-utils
 * travels with the engine, so every server computes the same fire times.
 *
 * <p>Daylight saving: a local time the change skips does not fire that day; a local time that
 * occurs twice fires once for a daily expression (its first occurrence) and at each occurrence
 * for one whose hour field is {@code *}.
 */
final class Cron {
    private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

    private final String expression;
    private final ZoneId zone;
    private final ExecutionTime times;

    private Cron(String expression, ZoneId zone, ExecutionTime times) {
        this.expression = expression;
        this.zone = zone;
        this.times = times;
    }

    /**
     * @param where      names the schedule in messages
     * @param expression the expression
     * @param zone       the zone id
     * @return the expression
     * @throws IllegalArgumentException naming {@code cron} or {@code zone} and what is accepted
     */
    static Cron parse(String where, String expression, String zone) {
        ZoneId z;
        try {
            z = ZoneId.of(zone);
        } catch (DateTimeException | NullPointerException e) {
            throw new IllegalArgumentException(where + ": zone must be a time-zone id such as UTC or Europe/Berlin, got '"
                    + zone + "'");
        }
        try {
            return new Cron(expression, z, ExecutionTime.forCron(PARSER.parse(expression)));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(where + ": cron must be 5 fields (minute hour day-of-month month "
                    + "day-of-week), e.g. \"0 2 * * *\" or \"*/15 * * * MON-FRI\"; got '" + expression + "': "
                    + e.getMessage(), e);
        }
    }

    /** @param t an instant @return the first fire time strictly after {@code t} */
    Instant after(Instant t) {
        return times.nextExecution(t.atZone(zone)).map(ZonedDateTime::toInstant).orElseThrow(
                () -> new IllegalStateException("cron '" + expression + "' has no fire time after " + t));
    }

    /** @param t an instant @return the first fire time at or after {@code t} */
    Instant atOrAfter(Instant t) {
        Instant minute = t.truncatedTo(ChronoUnit.MINUTES);
        if (minute.equals(t) && times.isMatch(t.atZone(zone))) {
            return t;
        }
        return after(t);
    }

    @Override
    public String toString() {
        return expression + " " + zone;
    }
}
