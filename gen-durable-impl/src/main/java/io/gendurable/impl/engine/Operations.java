package io.gendurable.impl.engine;

import io.gendurable.BulkResult;
import io.gendurable.Cancellation;
import io.gendurable.CorrelationKeyHeldException;
import io.gendurable.DurableOperations;
import io.gendurable.InstanceDetails;
import io.gendurable.InstancePage;
import io.gendurable.InstanceQuery;
import io.gendurable.InstanceSnapshot;
import io.gendurable.InstanceStateException;
import io.gendurable.OperationsSummary;
import io.gendurable.NoSuchInstanceException;
import io.gendurable.NodeStatus;
import io.gendurable.PausedQueue;
import io.gendurable.RetryOptions;
import io.gendurable.Inserted;
import io.gendurable.ScheduleDefinition;
import io.gendurable.ScheduleStatus;
import io.gendurable.events.OperatorAction;
import io.gendurable.impl.control.Controls;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.nodes.NodeDirectory;
import io.gendurable.impl.ops.Queries;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.ValueSize;
import io.gendurable.impl.schedule.Schedules;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.regex.Pattern;

/**
 * {@link DurableOperations} over the engine: the reads go to {@link Queries} (the nodes and the
 * summary's alerts to {@link NodeDirectory}); an action validates
 * its arguments, runs ({@link Controls}), logs it with the caller's principal in {@code io.gendurable.operations} and
 * fires an {@link OperatorAction}.
 */
final class Operations implements DurableOperations {
    private static final Logger LOG = System.getLogger("io.gendurable.operations");
    private static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9_.\\-]{1,255}");
    /** The longest reason kept (it becomes the last error). */
    static final int MAX_REASON = 4000;
    static final String DEFAULT_CANCEL_REASON = "cancelled by an operator";

    private final EngineContext ctx;
    private final Controls controls;
    private final Queries queries;
    private final LongFunction<Optional<InstanceSnapshot>> find;
    private final Supplier<String> principal;
    private final ValueSize valueSize;
    private final Schedules schedules;
    private final NodeDirectory nodes;

    /**
     * What the operations run on.
     *
     * @param controls  the actions' statements
     * @param queries   the reads
     * @param schedules the recurring schedules
     * @param nodes     the node beacons and alerts
     */
    record Services(Controls controls, Queries queries, Schedules schedules, NodeDirectory nodes) {
    }

    Operations(EngineContext ctx, Services services, LongFunction<Optional<InstanceSnapshot>> find,
               Supplier<String> principal) {
        this.schedules = services.schedules();
        this.ctx = ctx;
        this.controls = services.controls();
        this.queries = services.queries();
        this.find = find;
        this.principal = principal;
        this.valueSize = new ValueSize(ctx.config().values().maxBytes());
        this.nodes = services.nodes();
    }

    /** The same operations with another principal. */
    private Operations(Operations o, Supplier<String> principal) {
        this.schedules = o.schedules;
        this.ctx = o.ctx;
        this.controls = o.controls;
        this.queries = o.queries;
        this.find = o.find;
        this.principal = principal;
        this.valueSize = o.valueSize;
        this.nodes = o.nodes;
    }

    @Override
    public DurableOperations actingFor(String operator) {
        if (operator == null || operator.isBlank()) {
            throw new IllegalArgumentException("operator must name who acts (not blank), got "
                    + (operator == null ? "null" : "'" + operator + "'"));
        }
        return new Operations(this, () -> operator);
    }

    @Override
    public InstancePage search(InstanceQuery query) {
        return queries.search(query);
    }

    @Override
    public Optional<InstanceDetails> inspect(long id) {
        return queries.inspect(id);
    }

    @Override
    public OperationsSummary summary() {
        OperationsSummary s = queries.summary();
        return s.withAlerts(nodes.alerts(s));
    }

    @Override
    public List<NodeStatus> nodes() {
        return nodes.nodes();
    }

    @Override
    public Cancellation cancel(long id, String reason) {
        return cancel(id, reason, false);
    }

    @Override
    public Cancellation cancel(long id, String reason, boolean withDescendants) {
        String why = reason == null ? DEFAULT_CANCEL_REASON : reason("reason", reason);
        Controls.Cancelled c = controls.cancel(id, why, withDescendants);
        int descendants = c.cancelled().size() + c.requested().size() - 1;
        done(OperatorAction.Action.CANCEL, String.valueOf(id), why, (descendants > 0 ? " with " + descendants + " descendants" : "")
                + (c.requested().contains(id) ? " (requested: its running step is interrupted; it ends cancelled when the step returns)" : ""));
        return new Cancellation(snapshot(id), descendants);
    }

    @Override
    public InstanceSnapshot retry(long id) {
        return retry(id, RetryOptions.defaults());
    }

    @Override
    public InstanceSnapshot retry(long id, RetryOptions options) {
        Objects.requireNonNull(options, "options must not be null; use RetryOptions.defaults()");
        Controls.StateCheck state = options.state().<Controls.StateCheck>map(s -> (fsm, version) -> encode(id, fsm, version, s))
                .orElse(null);
        controls.retry(id, options.step().orElse(null), state);
        done(OperatorAction.Action.RETRY, String.valueOf(id), null, options.step().map(s -> " from step " + s).orElse(""));
        return snapshot(id);
    }

    private String encode(long id, String fsm, int version, Object state) {
        Optional<FsmDefinition> def = ctx.registry().find(fsm, version);
        String json = ctx.json().write(state);
        valueSize.check("the replacement state of instance " + id, json);
        if (def.isPresent()) {
            try {
                ctx.json().read(json, def.get().stateType());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("retry of instance " + id + ": the replacement state does not read as "
                        + def.get().stateType().getTypeName() + ", the state type of " + fsm + " v" + version + ": " + e.getMessage(), e);
            }
        }
        return json;
    }

    @Override
    public InstanceSnapshot runNow(long id) {
        return reschedule(id, ctx.clock().instant(), null, " to run now");
    }

    @Override
    public InstanceSnapshot reschedule(long id, Instant at) {
        Objects.requireNonNull(at, "at must not be null");
        if (at.isBefore(Instant.parse("0001-01-01T00:00:00Z")) || at.isAfter(Instant.parse("9999-12-31T23:59:59Z"))) {
            throw new IllegalArgumentException("at must be within years 1 to 9999, got " + at);
        }
        return reschedule(id, at, null, " to run at " + at);
    }

    @Override
    public InstanceSnapshot changePriority(long id, int priority) {
        if (priority < 0) {
            throw new IllegalArgumentException("priority must be 0 or more (0 is picked first), got " + priority);
        }
        return reschedule(id, null, priority, " to priority " + priority);
    }

    private InstanceSnapshot reschedule(long id, Instant at, Integer priority, String detail) {
        controls.reschedule(id, at, priority);
        done(OperatorAction.Action.RESCHEDULE, String.valueOf(id), null, detail);
        return snapshot(id);
    }

    @Override
    public void pauseQueue(String queue, String reason) {
        String q = queue(queue);
        String why = reason == null ? null : reason("reason", reason);
        controls.pause(q, principal(), why);
        done(OperatorAction.Action.PAUSE_QUEUE, q, why, "");
    }

    @Override
    public boolean resumeQueue(String queue) {
        String q = queue(queue);
        boolean was = controls.resume(q);
        done(OperatorAction.Action.RESUME_QUEUE, q, null, was ? "" : " (it was not paused)");
        return was;
    }

    @Override
    public List<PausedQueue> pausedQueues() {
        return controls.paused();
    }

    @Override
    public BulkResult cancelAll(InstanceQuery query, String reason) {
        String why = reason == null ? DEFAULT_CANCEL_REASON : reason("reason", reason);
        return bulk(OperatorAction.Action.CANCEL, query, why, ids -> controls.cancelMany(ids, why));
    }

    @Override
    public BulkResult retryAll(InstanceQuery query) {
        return bulk(OperatorAction.Action.RETRY, query, null, ids -> {
            int n = 0;
            for (long id : ids) {
                try {
                    controls.retry(id, null, null);
                    n++;
                } catch (NoSuchInstanceException | InstanceStateException | CorrelationKeyHeldException e) {
                    LOG.log(Level.DEBUG, "gen-durable bulk retry skipped " + id + ": " + e.getMessage());
                }
            }
            return n;
        });
    }

    @Override
    public BulkResult purge(InstanceQuery query) {
        return bulk(OperatorAction.Action.PURGE, query, null, controls::purge);
    }

    /** Pages through the search (its page size is the batch), applying {@code action} to each page's ids. */
    private BulkResult bulk(OperatorAction.Action action, InstanceQuery query, String reason,
                            ToIntFunction<List<Long>> batch) {
        Objects.requireNonNull(query, "query must not be null");
        requireFilter(query);
        int matched = 0;
        int applied = 0;
        InstanceQuery q = query;
        while (true) {
            InstancePage page = queries.search(q);
            List<Long> ids = page.items().stream().map(InstanceSnapshot::id).toList();
            matched += ids.size();
            applied += ids.isEmpty() ? 0 : batch.applyAsInt(ids);
            if (page.next().isEmpty()) {
                break;
            }
            q = q.after(page.next().get());
        }
        done(action, matched + " instances", reason, " (bulk: " + applied + " of " + matched + " applied)");
        return new BulkResult(matched, applied, matched - applied);
    }

    /** A bulk action over every instance is refused: an empty filter is far more often a mistake than a wish. */
    private static void requireFilter(InstanceQuery q) {
        boolean any = q.fsm() != null || (q.statuses() != null && !q.statuses().isEmpty()) || q.queue() != null
                || q.step() != null || q.correlationKey() != null || q.correlationKeyPrefix() != null
                || q.concurrencyKey() != null || q.parentId() != null || q.insertedFrom() != null
                || q.insertedTo() != null || q.updatedFrom() != null || q.updatedTo() != null || q.errorContains() != null;
        if (!any) {
            throw new IllegalArgumentException("query: a bulk action needs at least one filter (fsm, status, queue, step, "
                    + "correlationKey, correlationKeyPrefix, concurrencyKey, parentId, inserted, updated, errorContains)");
        }
    }

    private InstanceSnapshot snapshot(long id) {
        return find.apply(id).orElseThrow(() -> new NoSuchInstanceException(id));
    }

    /** @return {@code text} in double quotes, its backslashes, quotes and control characters escaped */
    static String quoted(String text) {
        return "\"" + oneLine(text.replace("\\", "\\\\").replace("\"", "\\\"")) + "\"";
    }

    /** @return {@code text} with every control character written as an escape (a line feed as backslash-n, a bell as backslash-u0007) */
    static String oneLine(String text) {
        StringBuilder b = null;
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (Character.isISOControl(ch) || ch == (char) 0x2028 || ch == (char) 0x2029) {
                if (b == null) {
                    b = new StringBuilder(text.length() + 8).append(text, 0, i);
                }
                b.append(switch (ch) {
                    case '\n' -> "\\n";
                    case '\r' -> "\\r";
                    case '\t' -> "\\t";
                    default -> String.format("\\u%04x", (int) ch);
                });
            } else if (b != null) {
                b.append(ch);
            }
        }
        return b == null ? text : b.toString();
    }

    private void done(OperatorAction.Action action, String target, String reason, String detail) {
        String who = principal();
        // one line whatever the caller's strings hold: a reason, a step or a name with a line break
        // cannot write a line of its own into the log (the quoted parts escape \, " and controls)
        LOG.log(Level.INFO, oneLine("gen-durable operator action " + action + " on " + quoted(target) + detail + " by "
                + (who == null ? "(no principal)" : quoted(who)) + (reason == null ? "" : " — reason " + quoted(reason))));
        OperatorAction done = new OperatorAction(action, target, who, reason, ctx.clock().instant());
        ctx.bus().operated(done);  // the plain listeners (the CDI event is the container's, below)
        try {
            ctx.events().operated(done);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "gen-durable: an observer of operator actions failed: " + e);
        }
    }

    private String principal() {
        try {
            return principal.get();
        } catch (RuntimeException e) {
            return null;  // no security context on this thread
        }
    }

    private static String queue(String queue) {
        if (queue == null || !QUEUE.matcher(queue).matches()) {
            throw new IllegalArgumentException("queue must be 1 to 255 letters, digits, '_', '.' or '-' (as in "
                    + "gendurable.queues), got " + (queue == null ? "null" : "'" + queue + "'"));
        }
        return queue;
    }

    private static String reason(String field, String value) {
        if (value.isBlank() || value.length() > MAX_REASON || value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(field + " must be 1 to " + MAX_REASON
                    + " characters, not blank, without NUL; got " + (value.isBlank() ? "a blank text" : value.length() + " characters"));
        }
        return value;
    }

    // ---- schedules

    @Override
    public List<ScheduleStatus> schedules() {
        return schedules.list();
    }

    @Override
    public ScheduleStatus defineSchedule(ScheduleDefinition definition) {
        ScheduleStatus s = schedules.define(definition);
        done(OperatorAction.Action.DEFINE_SCHEDULE, s.name(), null, " (" + s.fsm() + ", " + s.cron() + " " + s.zone() + ")");
        return s;
    }

    @Override
    public boolean removeSchedule(String name) {
        boolean existed = schedules.remove(scheduleName(name));
        if (existed) {
            done(OperatorAction.Action.REMOVE_SCHEDULE, name, null, "");
        }
        return existed;
    }

    @Override
    public ScheduleStatus pauseSchedule(String name, String reason) {
        String why = reason == null ? null : reason("reason", reason);
        ScheduleStatus s = schedules.pause(scheduleName(name), principal(), why);
        done(OperatorAction.Action.PAUSE_SCHEDULE, name, why, "");
        return s;
    }

    @Override
    public ScheduleStatus resumeSchedule(String name) {
        ScheduleStatus s = schedules.resume(scheduleName(name));
        done(OperatorAction.Action.RESUME_SCHEDULE, name, null, "");
        return s;
    }

    @Override
    public Inserted triggerSchedule(String name) {
        Inserted inserted = schedules.trigger(scheduleName(name));
        done(OperatorAction.Action.TRIGGER_SCHEDULE, name, null, " (instance " + inserted.id() + ")");
        return inserted;
    }

    private static String scheduleName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must name a schedule, got " + (name == null ? "null" : "a blank text"));
        }
        return name;
    }
}
