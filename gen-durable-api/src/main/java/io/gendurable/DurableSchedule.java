package io.gendurable;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Inserts one instance of the annotated {@link Fsm} or {@link Job} bean per fire time of a cron
 * expression, exactly once across all nodes: the node that takes the schedule's row (locked,
 * {@code SKIP LOCKED}) inserts the instance and moves the next fire time in one transaction, and
 * the instance's correlation key {@code schedule:<name>:<fire time>} (held in every status) makes
 * a second insert of the same fire time a duplicate. Several schedules may sit on one class, each
 * with its own {@link #name}.
 *
 * <p>The expression is Unix cron's: five fields {@code minute hour day-of-month month
 * day-of-week}; e.g. {@code "0 2 * * *"} (02:00 every day), {@code "*&#47;15 * * * *"},
 * {@code "0 9 * * MON-FRI"}. Fire times are read in {@link #zone}: a local time that does not
 * exist (the hour a daylight-saving change skips) does not fire that day; a local time that
 * occurs twice fires once for a daily expression, and at each occurrence for an hourly one.
 *
 * <p>Pause, resume and "trigger now" are {@link DurableOperations} actions; a schedule can also be
 * defined at run time with {@link DurableOperations#defineSchedule}.
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Repeatable(DurableSchedule.List.class)
public @interface DurableSchedule {
    /**
     * @return the schedule's name, unique in the database (letters, digits, {@code _ . -});
     *         default: the FSM's name (give every schedule a name when a class has several)
     */
    String name() default "";

    /** @return the cron expression (5 fields) */
    String cron();

    /** @return the time zone the expression is read in, an {@link java.time.ZoneId} id */
    String zone() default "UTC";

    /**
     * @return the state each fired instance starts from, as JSON read into the FSM's state type;
     *         default {@code {}} (an empty record)
     */
    String state() default "{}";

    /** @return what a fire time missed by more than the misfire threshold does */
    MisfirePolicy misfire() default MisfirePolicy.SKIP;

    /** @return with {@link MisfirePolicy#CATCH_UP}: at most this many missed fire times, the latest ones */
    int maxCatchUp() default 1;

    /** The container of several {@link DurableSchedule}s on one class. */
    @Documented
    @Target(ElementType.TYPE)
    @Retention(RetentionPolicy.RUNTIME)
    @interface List {
        /** @return the schedules */
        DurableSchedule[] value();
    }
}
