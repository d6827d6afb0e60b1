package io.gendurable.chaos;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The suite's own tables, in schema {@code chaos}, beside the engine's schema {@link #ENGINE}:
 * the step log the FSMs append to, and three logs a trigger on the engine's instances table
 * appends to, in the transaction of the change:
 * <ul>
 * <li>{@code chaos.claims}: every claim (a row entering {@code executing}, or changing hands or
 *     fencing token while executing) and every inline continue (a row that stays executing with a
 *     new {@code seq}): the worker, its node, attempt, step and, when the engine has the column,
 *     the row's {@code claim_token};</li>
 * <li>{@code chaos.commits}: every committed step outcome (a row leaving {@code executing} with a
 *     new {@code seq} in its state, or reaching a terminal status): the execution that produced it
 *     (the {@code by} the chaos FSMs put in every state and result they return), the row's latest
 *     claim at that moment, and the claim tokens before and after;</li>
 * <li>{@code chaos.leaves}: every other way out of {@code executing} (reaper, start-up reclaim,
 *     drain release, admission denial, retry), with the same claim columns.</li>
 * </ul>
 * The claim token ({@code claim_token}, Flyway V2 of the engine) is read through
 * {@code to_jsonb(row)}, so the trigger works on a V1 schema (the token columns stay NULL) and on
 * V2 alike; {@link #hasClaimToken} tells the checks which one they face.
 */
public final class ChaosSchema {
    /** The engine's schema. */
    public static final String ENGINE = "chaos_gd";
    /** The step log table. */
    public static final String LOG = "chaos.step_log";
    /** The commit log table. */
    public static final String COMMITS = "chaos.commits";
    /** The claim log table. */
    public static final String CLAIMS = "chaos.claims";
    /** The log of non-progress exits from executing. */
    public static final String LEAVES = "chaos.leaves";
    /** The worker pauses, written by the checks. */
    public static final String PAUSES = "chaos.pauses";

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
                CREATE INDEX IF NOT EXISTS step_log_instance ON chaos.step_log (instance_id);
                CREATE INDEX IF NOT EXISTS step_log_node ON chaos.step_log (node, at);
                CREATE TABLE IF NOT EXISTS chaos.claims (
                    seq         bigserial PRIMARY KEY,
                    instance_id bigint      NOT NULL,
                    kind        text        NOT NULL CHECK (kind IN ('claim', 'continue')),
                    worker      text        NOT NULL,
                    node        text        NOT NULL,
                    attempt     integer     NOT NULL,
                    step        text        NOT NULL,
                    token       bigint,
                    at          timestamptz NOT NULL DEFAULT clock_timestamp()
                );
                CREATE INDEX IF NOT EXISTS claims_instance ON chaos.claims (instance_id, seq);
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
                    attempt     integer,
                    exec        text,
                    claim_seq   bigint,
                    old_token   bigint,
                    new_token   bigint,
                    at          timestamptz NOT NULL DEFAULT clock_timestamp()
                );
                CREATE TABLE IF NOT EXISTS chaos.leaves (
                    seq         bigserial PRIMARY KEY,
                    instance_id bigint      NOT NULL,
                    to_status   text        NOT NULL,
                    worker      text,
                    attempt     integer,
                    claim_seq   bigint,
                    old_token   bigint,
                    new_token   bigint,
                    at          timestamptz NOT NULL DEFAULT clock_timestamp()
                );
                -- the live-claim check probes it per commit (without it, hours on a 20-minute run)
                CREATE INDEX IF NOT EXISTS leaves_claim ON chaos.leaves (instance_id, claim_seq);
                CREATE TABLE IF NOT EXISTS chaos.pauses (
                    node        text        NOT NULL,
                    since       timestamptz NOT NULL,
                    started_at  timestamptz NOT NULL,
                    ended_at    timestamptz NOT NULL,
                    undeploy    boolean     NOT NULL,
                    reaped      boolean     NOT NULL
                );
                CREATE OR REPLACE FUNCTION chaos.log_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                DECLARE
                    progress boolean;
                    latest   bigint;
                    old_tok  bigint;
                    new_tok  bigint;
                BEGIN
                    IF OLD.status = 'executing' THEN
                        progress := (NEW.state ->> 'seq') IS DISTINCT FROM (OLD.state ->> 'seq')
                                    OR NEW.status IN ('done', 'failed');
                        IF progress OR NEW.status <> 'executing' THEN
                            SELECT max(seq) INTO latest FROM chaos.claims WHERE instance_id = NEW.id;
                            old_tok := (to_jsonb(OLD) ->> 'claim_token')::bigint;
                            new_tok := (to_jsonb(NEW) ->> 'claim_token')::bigint;
                            IF progress THEN
                                INSERT INTO chaos.commits (instance_id, fsm, from_step, from_seq, to_step, to_seq, to_status,
                                                           worker, attempt, exec, claim_seq, old_token, new_token)
                                VALUES (NEW.id, NEW.fsm, OLD.step, (OLD.state ->> 'seq')::int, NEW.step,
                                        (NEW.state ->> 'seq')::int, NEW.status::text, OLD.locked_by, OLD.attempt,
                                        coalesce(NEW.result ->> 'by', NEW.state ->> 'by'), latest, old_tok, new_tok);
                            ELSE
                                INSERT INTO chaos.leaves (instance_id, to_status, worker, attempt, claim_seq, old_token, new_token)
                                VALUES (NEW.id, NEW.status::text, OLD.locked_by, OLD.attempt, latest, old_tok, new_tok);
                            END IF;
                        END IF;
                    END IF;
                    IF NEW.status = 'executing' AND (OLD.status <> 'executing'
                            OR OLD.locked_by IS DISTINCT FROM NEW.locked_by
                            OR (NEW.state ->> 'seq') IS DISTINCT FROM (OLD.state ->> 'seq')
                            OR (to_jsonb(OLD) ->> 'claim_token') IS DISTINCT FROM (to_jsonb(NEW) ->> 'claim_token')) THEN
                        INSERT INTO chaos.claims (instance_id, kind, worker, node, attempt, step, token)
                        VALUES (NEW.id, CASE WHEN OLD.status = 'executing' THEN 'continue' ELSE 'claim' END, NEW.locked_by,
                                split_part(NEW.locked_by, ':', 1), NEW.attempt, NEW.step,
                                (to_jsonb(NEW) ->> 'claim_token')::bigint);
                    END IF;
                    RETURN NEW;
                END $$;
                DROP TRIGGER IF EXISTS chaos_commits ON %1$s.gen_durable;
                CREATE TRIGGER chaos_commits AFTER UPDATE ON %1$s.gen_durable
                    FOR EACH ROW EXECUTE FUNCTION chaos.log_commit();
                """.formatted(ENGINE));
    }

    /** @return whether the engine's table has the fencing token column {@code claim_token} (Flyway V2) */
    public static boolean hasClaimToken(DataSource ds) {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT count(*) FROM information_schema.columns
                WHERE table_schema = ? AND table_name = 'gen_durable' AND column_name = 'claim_token'
                """)) {
            ps.setString(1, ENGINE);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("chaos schema: " + e.getMessage(), e);
        }
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
