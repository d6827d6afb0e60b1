package io.gendurable;

/**
 * One FSM (or job) a node has registered, as its beacon reported it ({@link NodeStatus#fsms()}).
 *
 * @param name    the FSM's name, as stored in rows
 * @param version its version
 * @param queue   its default queue
 * @param kind    {@link Kind#JOB} for a {@link Job}, else {@link Kind#FSM}
 */
public record FsmRegistration(String name, int version, String queue, Kind kind) {
    /** What the registered class is. */
    public enum Kind {
        /** a multi-step {@link Fsm} */
        FSM,
        /** a one-step {@link Job} */
        JOB
    }
}
