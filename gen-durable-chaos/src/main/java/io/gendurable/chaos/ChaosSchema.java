package io.gendurable.chaos;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The suite's own tables, in schema {@code chaos}, beside the engine's schema {@link #ENGINE}:
 * the step log the FSMs append to, and the commit log a trigger on the engine's instances table
 * appends to on every committed step outcome (a row leaving {@code executing} with a new
 * {@code seq} in its state, or reaching a terminal status). Reaps, releases and retries keep
 * the state and are not outcomes of progress, so they are not logged.
 */
public final class ChaosSchema {
    /** The engine's schema. */
    public static final String ENGINE = "chaos_gd";
    /** The step log table. */
    public static final String LOG = "chaos.step_log";
    /** The commit log table. */
    public static final String COMMITS = "chaos.commits";

    private ChaosSchema() {
    }

    /** Creates the chaos tables and the commit trigger; run after the engine's migration. */
    public static void create(DataSource ds) {
        exec(ds, """
                CREATE SCHEMA IF NOT EXISTS chaos;
                CREATE TABLE IF NOT EXISTS chaos.step_log (
                    seq         bigserial PRIMARY KEY,
                    exec        uuid        NOT NULL,
                    instance_id bigint      NOT NULL,
                    fsm         text        NOT NULL,
                    step        text        NOT NULL,
                    attempt     integer     NOT NULL,
                    node        text        NOT NULL,
                    phase       text        NOT NULL CHECK (phase IN ('begin', 'end')),
                    key         text,
                    at          timestamptz NOT NULL,
                    UNIQUE (exec, phase)
                );
                CREATE TABLE IF NOT EXISTS chaos.commits (
                    seq         bigserial PRIMARY KEY,
                    instance_id bigint      NOT NULL,
                    fsm         text        NOT NULL,
                    from_step   text        NOT NULL,
                    from_seq    integer,
                    to_step     text        NOT NULL,
                    to_seq      integer,
                    to_status   text        NOT NULL,
                    worker      text,
                    at          timestamptz NOT NULL DEFAULT clock_timestamp()
                );
                CREATE OR REPLACE FUNCTION chaos.log_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF OLD.status = 'executing' AND (
                           (NEW.state ->> 'seq') IS DISTINCT FROM (OLD.state ->> 'seq')
                        OR NEW.status IN ('done', 'failed')) THEN
                        INSERT INTO chaos.commits (instance_id, fsm, from_step, from_seq, to_step, to_seq, to_status, worker)
                        VALUES (NEW.id, NEW.fsm, OLD.step, (OLD.state ->> 'seq')::int, NEW.step,
                                (NEW.state ->> 'seq')::int, NEW.status::text, OLD.locked_by);
                    END IF;
                    RETURN NEW;
                END $$;
                DROP TRIGGER IF EXISTS chaos_commits ON %1$s.gen_durable;
                CREATE TRIGGER chaos_commits AFTER UPDATE ON %1$s.gen_durable
                    FOR EACH ROW EXECUTE FUNCTION chaos.log_commit();
                """.formatted(ENGINE));
    }

    static void exec(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("chaos schema: " + e.getMessage(), e);
        }
    }
}
