package io.gendurable.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;

/**
 * The bench's command line: {@code [jdbc-url] [--key=value | --key value]... [scenario...]}
 * (picocli). Every key has a default tuned for a 2-core machine; {@link #usage()} lists them.
 * Integers may be written with underscores ({@code --backlog=1_000_000}); switches take
 * {@code on|off|true|false|1|0}.
 */
@Command(name = "bench.sh", sortOptions = false, usageHelpWidth = 120,
        customSynopsis = "bench.sh [jdbc-url] [--option=value]... scenario...")
final class Options {
    @Option(names = "--db", description = "JDBC URL (else $" + BenchDb.URL_ENV + ", else an embedded PostgreSQL)")
    String db = "";
    @Option(names = "--session-db", description = "JDBC URL of direct (or session-mode pooler) connections for the "
            + "engines' migrations and postgres pokes, when --db goes through a transaction-mode pooler (PgBouncer); "
            + "every engine of the bench")
    String sessionDb = "";
    @Option(names = "--fsync", arity = "1", defaultValue = "on",
            description = "embedded server only: fsync and synchronous_commit on|off [${DEFAULT-VALUE}]")
    boolean fsync;
    @Option(names = "--pg-config", description = "embedded server only: extra settings, name=value;name=value")
    String pgConfig = "";
    @Option(names = "--n", description = "jobs to burn down (jobs, limited, ceiling) [${DEFAULT-VALUE}]")
    int n = 20_000;
    @Option(names = "--ceiling-n", description = "rows per run of the bare SQL loop (ceiling) [${DEFAULT-VALUE}]")
    int ceilingN = 100_000;
    @Option(names = "--ceiling-runs",
            description = "measured runs per thread count (ceiling; 1, 4 and 8 threads); the median [${DEFAULT-VALUE}]")
    int ceilingRuns = 3;
    @Option(names = "--fsm-n", description = "FSM instances (fsm); steps = fsm-n x k [${DEFAULT-VALUE}]")
    int fsmN = 10_000;
    @Option(names = "--k", description = "steps per FSM instance (fsm) [${DEFAULT-VALUE}]")
    int k = 5;
    @Option(names = "--repeat",
            description = "runs of each burn-down (jobs, fsm, limited); the median is reported [${DEFAULT-VALUE}]")
    int repeat = 3;
    @Option(names = "--live-warm",
            description = "live: rounds of ten jobs the worker runs on the empty table before the live inserts [${DEFAULT-VALUE}]")
    int liveWarm = 30;
    @Option(names = "--live-loaders",
            description = "live: threads inserting the jobs, batches of 1,000 each (an application's request threads) [${DEFAULT-VALUE}]")
    int liveLoaders = 1;
    @Option(names = "--warmup",
            description = "no-op jobs burnt before the first scenario, in rounds of n (0: none) [${DEFAULT-VALUE}]")
    int warmup = 100_000;
    @Option(names = "--concurrency", description = "the queue's concurrency (steps in flight) [${DEFAULT-VALUE}]")
    int concurrency = 64;
    @Option(names = "--prefetch", description = "rows buffered beyond the running slots [${DEFAULT-VALUE}]")
    int prefetch = 192;
    @Option(names = "--min-demand", description = "pick only when at least this many slots are free [${DEFAULT-VALUE}]")
    int minDemand = 16;
    @Option(names = "--poll-ms", description = "idle poll interval [${DEFAULT-VALUE}]")
    int pollMs = 1000;
    @Option(names = "--max-poll-ms", description = "idle poll backoff ceiling [${DEFAULT-VALUE}]")
    int maxPollMs = 5000;
    @Option(names = "--start-at-insert", arity = "1",
            description = "an insert claims its own row for a free local slot (gendurable.start-at-insert) [${DEFAULT-VALUE}]")
    boolean startAtInsert = true;
    @Option(names = "--flush-batch", description = "flusher max-batch [${DEFAULT-VALUE}]")
    int flushBatch = 256;
    @Option(names = "--flush-delay-ms", description = "flusher max-delay [${DEFAULT-VALUE}]")
    int flushDelayMs = 0;
    @Option(names = "--flush-parallelism", description = "flush transactions open at once [${DEFAULT-VALUE}]")
    int flushParallelism = 2;
    @Option(names = "--history", description = "the step history: off, on, or state (on, with the committed state) [${DEFAULT-VALUE}]")
    History history = History.off;
    @Option(names = "--pool", description = "Hikari pool size [${DEFAULT-VALUE}]")
    int pool = 16;
    @Option(names = "--timer-threads",
            description = "threads of the engine's timer (fills, flushes, heartbeats) [${DEFAULT-VALUE}]")
    int timerThreads = 4;
    @Option(names = "--insert-threads", description = "threads of the insert scenario [${DEFAULT-VALUE}]")
    int insertThreads = 8;
    @Option(names = "--insert-rows", description = "rows per insertAll measurement (insert) [${DEFAULT-VALUE}]")
    int insertRows = 20_000;
    @Option(names = "--single-rows",
            description = "rows inserted one by one from the threads (insert) [${DEFAULT-VALUE}]")
    int singleRows = 8000;
    @Option(names = "--rate", description = "inserts per second (latency) [${DEFAULT-VALUE}]")
    int rate = 200;
    @Option(names = "--seconds", description = "seconds of inserts (latency) [${DEFAULT-VALUE}]")
    int seconds = 10;
    @Option(names = "--waiters", description = "instances parked on a signal (latency) [${DEFAULT-VALUE}]")
    int waiters = 1000;
    @Option(names = "--signal-rate", description = "signals per second (latency) [${DEFAULT-VALUE}]")
    int signalRate = 200;
    @Option(names = "--backlog", description = "rows waiting (backlog) [${DEFAULT-VALUE}]")
    int backlog = 1_000_000;
    @Option(names = "--search-rows", description = "instance rows of the search scenario [${DEFAULT-VALUE}]")
    int searchRows = 1_000_000;
    @Option(names = "--search-samples", description = "first pages timed per filter (search) [${DEFAULT-VALUE}]")
    int searchSamples = 40;
    @Option(names = "--backlog-batch", description = "rows per insertAll while loading the backlog [${DEFAULT-VALUE}]")
    int backlogBatch = 5000;
    @Option(names = "--backlog-burn", description = "rows burnt down of the backlog [${DEFAULT-VALUE}]")
    int backlogBurn = 50_000;
    @Option(names = "--fanout", description = "children of the one parent (fanout) [${DEFAULT-VALUE}]")
    int fanout = 10_000;
    @Option(names = "--gate-limit", description = "K of the gate (limited) [${DEFAULT-VALUE}]")
    int gateLimit = 50;
    @Option(names = "--gate-keys", description = "gated keys, round-robin over the jobs (limited) [${DEFAULT-VALUE}]")
    int gateKeys = 4;
    @Option(names = "--rate-limit",
            description = "starts per second of the rate limit (limited): high, not the bottleneck [${DEFAULT-VALUE}]")
    int rateLimit = 1_000_000;
    @Option(names = "--scaleout-nodes", split = ",",
            description = "engine JVMs per run (scaleout), comma-separated; the first is the base of the ratios [${DEFAULT-VALUE}]")
    List<Integer> scaleoutNodes = new ArrayList<>(List.of(1, 2, 4));
    @Option(names = "--scaleout-concurrency",
            description = "total queue concurrency split evenly over the JVMs (scaleout; 40 = 4 x the default 10) [${DEFAULT-VALUE}]")
    int scaleoutConcurrency = 40;
    @Option(names = "--scaleout-warmup",
            description = "no-op jobs per JVM burnt (unmeasured, all JVMs together) before the measured ones (scaleout) [${DEFAULT-VALUE}]")
    int scaleoutWarmup = 20_000;
    @Option(names = "--scaleout-step-ms",
            description = "how long each job's step sleeps in the scale-out nodes (0: no-op; e.g. 5 for a work-bound run) [${DEFAULT-VALUE}]")
    int scaleoutStepMs = 0;
    @Option(names = "--scaleout-heap", description = "-Xms and -Xmx of each engine JVM (scaleout) [${DEFAULT-VALUE}]")
    String scaleoutHeap = "512m";
    @Option(names = "--hot-backlog", description = "rows of the one hot K = 1 key, inserted before the jobs (hotkey) [${DEFAULT-VALUE}]")
    int hotBacklog = 50_000;
    @Option(names = "--far-backlog",
            description = "rows at the urgent priority due in a year, beside the jobs (farfuture) [${DEFAULT-VALUE}]")
    int farBacklog = 200_000;
    @Option(names = "--servers", split = ",",
            description = "ServerBench: the application servers to run the bench WAR in, comma-separated (liberty, wildfly) [${DEFAULT-VALUE}]")
    List<String> servers = new ArrayList<>(List.of("liberty", "wildfly"));
    @Option(names = "--server-dir",
            description = "ServerBench: where -Pbench-servers put the servers and bench.war [gen-durable-bench/server-war/target]")
    String serverDir = "";
    @Option(names = "--server-queues",
            description = "ServerBench: gendurable.queues of the bench WAR (GENDURABLE_QUEUES) [${DEFAULT-VALUE}]")
    String serverQueues = "default:32,blocking:32";
    @Option(names = "--server-jvm",
            description = "ServerBench: the server JVM's options (Liberty JVM_ARGS; WildFly JAVA_OPTS' heap) [${DEFAULT-VALUE}]")
    String serverJvm = "-Xms512m -Xmx1g";
    @Option(names = "--server-start-seconds", description = "ServerBench: give a server up when not ready by then [${DEFAULT-VALUE}]")
    int serverStartSeconds = 300;
    @Option(names = "--blocking-n", description = "ServerBench: jobs of the blocking burn-down (0: none) [${DEFAULT-VALUE}]")
    int blockingN = 3000;
    @Option(names = "--parked", description = "ServerBench: requests parked in await(id, 10 s) during a second no-op "
            + "burn-down, jobs_parked (0: no such run) [${DEFAULT-VALUE}]")
    int parked = 50;
    @Option(names = "--block-ms", description = "ServerBench: how long each blocking job's step waits [${DEFAULT-VALUE}]")
    int blockMs = 20;
    @Option(names = "--soak-minutes", description = "soak: minutes of paced inserts [${DEFAULT-VALUE}]")
    double soakMinutes = 60;
    @Option(names = "--soak-rate", description = "soak: jobs/s offered (paced inserts, one queue) [${DEFAULT-VALUE}]")
    int soakRate = 9000;
    @Option(names = "--soak-batch", description = "soak: rows per insertAll [${DEFAULT-VALUE}]")
    int soakBatch = 500;
    @Option(names = "--soak-loaders", description = "soak: threads inserting the paced batches [${DEFAULT-VALUE}]")
    int soakLoaders = 2;
    @Option(names = "--soak-sample-s", description = "soak: seconds between samples (one soak-sample line each) [${DEFAULT-VALUE}]")
    int soakSampleS = 60;
    @Option(names = "--soak-gc-retention",
            description = "soak: gendurable.gc.retention of the worker, an ISO-8601 duration (blank: the engine's default)")
    String soakGcRetention = "";
    @Option(names = "--backlog-done",
            description = "backlog: completed rows present in the table (preloaded by INSERT ... SELECT as copies of a "
                    + "real done row) while the backlog is burnt down [${DEFAULT-VALUE}]")
    int backlogDone = 0;
    @Option(names = "--backlog-vacuum", arity = "1", defaultValue = "false",
            description = "backlog: VACUUM (ANALYZE) the table once loaded instead of ANALYZE alone [${DEFAULT-VALUE}]")
    boolean backlogVacuum;
    @Option(names = "--tags",
            description = "name=value pairs, comma-separated, copied into every line as tags (envelope.sh: the cell)")
    String tags = "";
    @Option(names = "--require-autovacuum", arity = "1",
            description = "fail a scenario when the server's autovacuum is off (soak: on unless set off; others: off unless set on)")
    Boolean requireAutovacuum;
    @Option(names = "--stall-seconds",
            description = "give a scenario up when nothing commits for this long [${DEFAULT-VALUE}]")
    int stallSeconds = 60;
    @Option(names = "--keep-schemas", arity = "1", defaultValue = "false",
            description = "keep each scenario's schema instead of dropping it [${DEFAULT-VALUE}]")
    boolean keepSchemas;
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
    boolean help;
    @Parameters(paramLabel = "scenario", description = "what to run (below), or all; a jdbc: URL here is --db")
    List<String> words = new ArrayList<>();

    /** The scenarios named on the command line ({@code help} first when asked for). */
    final List<String> scenarios = new ArrayList<>();

    /** @throws CommandLine.ParameterException on an unknown option or a malformed value */
    static Options parse(String[] args) {
        Options o = new Options();
        command(o).parseArgs(args);
        for (String w : o.words) {
            if (w.startsWith("jdbc:")) {
                o.db = w;
            } else {
                o.scenarios.add(w);
            }
        }
        if (o.help) {
            o.scenarios.add(0, "help");
        }
        for (String server : o.servers) {
            if (!server.equals("liberty") && !server.equals("wildfly")) {
                throw new CommandLine.ParameterException(command(o), "--servers: liberty and/or wildfly, comma-separated, got "
                        + o.servers);
            }
        }
        if (o.scaleoutNodes.isEmpty() || o.scaleoutNodes.stream().anyMatch(k -> k < 1 || k > o.scaleoutConcurrency)) {
            throw new CommandLine.ParameterException(command(o), "--scaleout-nodes: node counts from 1 to "
                    + "--scaleout-concurrency (" + o.scaleoutConcurrency + "), comma-separated, got " + o.scaleoutNodes);
        }
        return o;
    }

    static String usage() {
        CommandLine cmd = command(new Options());
        cmd.getCommandSpec().usageMessage().footer(Scenario.help());
        return cmd.getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    /** @return a parser for {@code spec} that reads integers with underscores and switches as on|off */
    static CommandLine command(Object spec) {
        CommandLine.ITypeConverter<Integer> integer = s -> Integer.parseInt(s.replace("_", ""));
        CommandLine.ITypeConverter<Boolean> onOff = s -> switch (s.toLowerCase(java.util.Locale.ROOT)) {
            case "on", "true", "1" -> true;
            case "off", "false", "0" -> false;
            default -> throw new CommandLine.TypeConversionException("expected on|off|true|false, got " + s);
        };
        return new CommandLine(spec).setExpandAtFiles(false).setUsageHelpLongOptionsMaxWidth(30)
                .registerConverter(Integer.class, integer).registerConverter(int.class, integer)
                .registerConverter(Boolean.class, onOff).registerConverter(boolean.class, onOff);
    }

    /** The step history's setting in a bench run. */
    enum History {
        off, on, state
    }
}
