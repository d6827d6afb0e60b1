package io.gendurable.impl.schedule;

import io.gendurable.DurableSchedule;
import io.gendurable.MisfirePolicy;
import io.gendurable.ScheduleDefinition;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.json.Json;

import java.time.Instant;
import java.util.regex.Pattern;

/**
 * A validated schedule: its expression parsed, its state read into its FSM's state type and
 * written back as the JSON each fired instance starts from.
 *
 * @param name      the schedule's name
 * @param fsm       the FSM's name
 * @param cron      the parsed expression
 * @param cronText  the expression as given
 * @param zone      the zone id as given
 * @param stateJson the state, as JSON
 * @param misfire   what a missed fire time does
 * @param maxCatchUp at most this many missed fire times with catch-up
 * @param origin    {@code annotation} or {@code api}
 */
record ScheduleSpec(String name, String fsm, Cron cron, String cronText, String zone, String stateJson,
                    MisfirePolicy misfire, int maxCatchUp, String origin) {
    /** Schedule names become part of correlation keys ({@code schedule:<name>:<instant>}, at most 255 characters). */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,200}");
    static final String ANNOTATION = "annotation";
    static final String API = "api";

    /** @param def an FSM @param a one of its schedules @param json JSON-B @return the spec, validated */
    static ScheduleSpec of(FsmDefinition def, DurableSchedule a, Json json) {
        String where = "@DurableSchedule on " + def.beanClass().getName();
        String name = a.name().isEmpty() ? def.name() : a.name();
        checkName(where, name);
        Cron cron = Cron.parse(where, a.cron(), a.zone());
        if (a.maxCatchUp() < 1) {
            throw new IllegalArgumentException(where + ": maxCatchUp must be 1 or more, got " + a.maxCatchUp());
        }
        String state = normalized(where, a.state(), def, json);
        return new ScheduleSpec(name, def.name(), cron, a.cron(), a.zone(), state, a.misfire(), a.maxCatchUp(), ANNOTATION);
    }

    /** @param def the FSM @param d a definition given at run time @param json JSON-B @return the spec, validated */
    static ScheduleSpec of(FsmDefinition def, ScheduleDefinition d, Json json) {
        String where = "schedule '" + d.name() + "'";
        checkName(where, d.name());
        Cron cron = Cron.parse(where, d.cron(), d.zone().getId());
        String written;
        try {
            written = json.write(d.state());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(where + ": state cannot be serialized as JSON: " + e.getMessage(), e);
        }
        String state = normalized(where, written, def, json);
        return new ScheduleSpec(d.name(), def.name(), cron, d.cron(), d.zone().getId(), state, d.misfire(), d.maxCatchUp(), API);
    }

    /** @param now the time of the definition @return its first fire time */
    ScheduleSql.Upsert upsert(Instant now) {
        return new ScheduleSql.Upsert(name, fsm, cronText, zone, stateJson, misfire, maxCatchUp, origin, cron.after(now));
    }

    private static void checkName(String where, String name) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(where + ": name must be 1 to 200 letters, digits, '_', '.' or '-', got '"
                    + name + "'");
        }
    }

    private static String normalized(String where, String state, FsmDefinition def, Json json) {
        try {
            return json.write(json.read(state, def.stateType()));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(where + ": state must be JSON that reads as "
                    + def.stateType().getTypeName() + " (the state type of " + def.name() + "), got '" + state + "': "
                    + e.getMessage(), e);
        }
    }
}
