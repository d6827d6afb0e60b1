package io.gendurable.testing;

import io.gendurable.DurableValue;
import io.gendurable.Fsm;
import io.gendurable.FsmNames;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Status;
import io.gendurable.impl.engine.DrainRunner;
import io.gendurable.impl.json.Json;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** The assertions of {@link DurableTesting}: each reads the row, and fails with what it found. */
final class InstanceAssertions {
    private final GenDurable durable;
    private final DrainRunner runner;
    private final Json json;

    InstanceAssertions(GenDurable durable, DrainRunner runner, Json json) {
        this.durable = durable;
        this.runner = runner;
        this.json = json;
    }

    InstanceSnapshot instance(long id) {
        return durable.find(id).orElseThrow(() -> new AssertionError("no instance " + id
                + " (never inserted, or deleted by the GC)"));
    }

    InstanceSnapshot assertStatus(long id, Status expected) {
        Objects.requireNonNull(expected, "expected status must not be null; accepted: " + List.of(Status.values()));
        InstanceSnapshot s = instance(id);
        if (s.status() != expected) {
            throw new AssertionError("expected instance " + id + " to be " + expected + ", but it is " + describe(s));
        }
        return s;
    }

    DurableValue assertDone(long id) {
        return assertStatus(id, Status.DONE).result();
    }

    DurableValue assertDone(long id, Object expectedResult) {
        DurableValue result = assertDone(id);
        String expected = json.write(expectedResult);
        if (!JsonMatch.sameValue(expected, result.json())) {
            throw new AssertionError("instance " + id + " is DONE with result " + result.json()
                    + ", expected " + expected);
        }
        return result;
    }

    String assertFailed(long id) {
        return assertStatus(id, Status.FAILED).lastError();
    }

    String assertFailed(long id, String expectedErrorPart) {
        Objects.requireNonNull(expectedErrorPart, "expectedErrorPart must not be null");
        String error = assertFailed(id);
        if (error == null || !error.contains(expectedErrorPart)) {
            throw new AssertionError("instance " + id + " FAILED with error '" + error + "', expected it to contain '"
                    + expectedErrorPart + "'");
        }
        return error;
    }

    InstanceSnapshot assertAwaiting(long id, String... signalNames) {
        InstanceSnapshot s = assertStatus(id, Status.AWAITING_SIGNAL);
        Set<String> expected = new TreeSet<>(List.of(signalNames));
        if (!expected.isEmpty() && !expected.equals(new TreeSet<>(s.awaits()))) {
            throw new AssertionError("instance " + id + " awaits " + new TreeSet<>(s.awaits()) + ", expected " + expected);
        }
        return s;
    }

    InstanceSnapshot assertInserted(Class<? extends Fsm<?>> fsm, Object state, InsertOptions options) {
        Objects.requireNonNull(fsm, "fsm must not be null");
        if (options != null && (options.rateLimit() != null || options.weight() != 1 || options.correlationScope() != null)) {
            throw new IllegalArgumentException("assertInserted matches queue, priority, scheduledAt, step, "
                    + "correlationKey and concurrencyKey; rateLimit, weight and correlationScope are not in a snapshot: "
                    + "leave them unset");
        }
        String name = FsmNames.nameOf(fsm);
        String stateJson = state == null ? null : json.write(state);
        Predicate<InstanceSnapshot> matches = s -> (stateJson == null || JsonMatch.sameValue(stateJson, s.state().json()))
                && (options == null || matchesOptions(s, options));
        List<InstanceSnapshot> all = runner.instances(name);
        return all.stream().filter(matches).findFirst().orElseThrow(() -> new AssertionError(
                "no instance of FSM '" + name + "'" + (stateJson == null ? "" : " with state " + stateJson)
                        + (options == null ? "" : " and " + options) + "; found " + (all.isEmpty() ? "none"
                        : all.stream().map(s -> "#" + s.id() + " " + s.status() + " step '" + s.step() + "' queue '"
                        + s.queue() + "' priority " + s.priority() + " state " + s.state().json()
                        + (s.correlationKey() == null ? "" : " correlationKey '" + s.correlationKey() + "'")
                        + (s.concurrencyKey() == null ? "" : " concurrencyKey '" + s.concurrencyKey() + "'"))
                        .collect(Collectors.joining("; ")))));
    }

    private static boolean matchesOptions(InstanceSnapshot s, InsertOptions o) {
        return (o.queue() == null || o.queue().equals(s.queue()))
                && o.priority() == s.priority()
                && (o.scheduledAt() == null || o.scheduledAt().equals(s.eligibleAt()))
                && (o.step() == null || o.step().equals(s.step()))
                && (o.correlationKey() == null || o.correlationKey().equals(s.correlationKey()))
                && (o.concurrencyKey() == null || o.concurrencyKey().equals(s.concurrencyKey()));
    }

    static String describe(InstanceSnapshot s) {
        StringBuilder b = new StringBuilder().append(s.status()).append(" (FSM '").append(s.fsm()).append("', step '")
                .append(s.step()).append("', attempt ").append(s.attempt());
        if (!s.awaits().isEmpty()) {
            b.append(", awaits ").append(s.awaits());
        }
        if (s.childrenPending() > 0) {
            b.append(", ").append(s.childrenPending()).append(" children pending");
        }
        if (s.status() == Status.DONE) {
            b.append(", result ").append(s.result().json());
        }
        if (s.lastError() != null) {
            b.append(", last error '").append(s.lastError()).append("'");
        }
        if (s.status() == Status.RUNNABLE) {
            b.append(", eligible at ").append(s.eligibleAt());
        }
        return b.append(')').toString();
    }
}
