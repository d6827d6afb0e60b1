package io.gendurable.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * An application server that {@code -Pbench-servers} provisioned under {@code gen-durable-bench/server-war/target}
 * from the shipped configuration (liberty-config's server.xml, wildfly-config's configure.cli), nothing
 * added: started in the background with the bench WAR deployed at start, stopped at close. The
 * environment carries the database and the engine's schema and queues, as the sample's tests pass them.
 */
abstract class AppServer implements AutoCloseable {
    final Path target;
    final Path log;
    long pid = -1;

    AppServer(Path target, Path log) {
        this.target = target;
        this.log = log;
    }

    /** @return the server {@code kind} ({@code liberty}, {@code wildfly}) of the provisioned folder {@code target} */
    static AppServer of(String kind, Path target) {
        return switch (kind) {
            case "liberty" -> new Liberty(target);
            case "wildfly" -> new WildFly(target);
            default -> throw new IllegalArgumentException("--servers: liberty or wildfly, got " + kind);
        };
    }

    /** @return the bench resource's base URL */
    abstract String base();

    /** @return what the line's {@code config.server} says: product and how it was configured */
    abstract String describe();

    /** Deploys {@code war} and starts the server with {@code env} added to this process's environment. */
    abstract void start(Path war, Map<String, String> env, String jvmOptions) throws Exception;

    /** Stops the server it started (and waits for its JVM to end). */
    abstract void stop() throws Exception;

    @Override
    public void close() {
        try {
            stop();
        } catch (Exception e) {
            Bench.log("could not stop the server cleanly: " + e);
        }
        if (pid > 0) {
            ProcessHandle.of(pid).ifPresent(h -> {
                h.destroy();
                try {
                    h.onExit().get(60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    h.destroyForcibly();
                }
            });
        }
    }

    static int run(List<String> cmd, Map<String, String> env, Path log, long timeoutSeconds) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", cmd) + ": not done after " + timeoutSeconds + " s (see " + log + ")");
        }
        return p.exitValue();
    }

    static void deleteMatching(Path dir, String prefix) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (f.getFileName().toString().startsWith(prefix)) {
                    if (Files.isDirectory(f)) {
                        try (Stream<Path> all = Files.walk(f)) {
                            all.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
                        }
                    } else {
                        Files.delete(f);
                    }
                }
            }
        }
    }

    /** Open Liberty: {@code target/liberty/wlp}, server {@code gendurable-bench}, HTTP 9082. */
    static final class Liberty extends AppServer {
        static final String NAME = "gendurable-bench";
        private final Path wlp;

        Liberty(Path target) {
            super(target, target.resolve("server-bench-liberty.log"));
            this.wlp = target.resolve("liberty/wlp");
        }

        @Override
        String base() {
            return "http://127.0.0.1:9082/bench/api/bench/";
        }

        @Override
        String describe() {
            return "Open Liberty (" + wlp + "), liberty-config's server.xml as shipped, bench.war in dropins";
        }

        @Override
        void start(Path war, Map<String, String> env, String jvmOptions) throws Exception {
            Path server = wlp.resolve("usr/servers/" + NAME);
            if (!Files.isRegularFile(server.resolve("server.xml"))) {
                throw new IllegalStateException("no Liberty server at " + server + ": build it with "
                        + "mvn -B verify -pl gen-durable-bench/server-war -am -DskipTests -Pbench-servers");
            }
            Path dropins = Files.createDirectories(server.resolve("dropins"));
            deleteMatching(dropins, "bench");
            Files.copy(war, dropins.resolve("bench.war"), StandardCopyOption.REPLACE_EXISTING);
            Map<String, String> all = new java.util.HashMap<>(env);
            all.put("JVM_ARGS", jvmOptions);
            int rc = run(List.of(wlp.resolve("bin/server").toString(), "start", NAME, "--clean"), all, log, 300);
            if (rc != 0) {
                throw new IllegalStateException("Liberty did not start (exit " + rc + "): see " + log + " and "
                        + server.resolve("logs/messages.log"));
            }
        }

        @Override
        void stop() throws Exception {
            run(List.of(wlp.resolve("bin/server").toString(), "stop", NAME), Map.of(), log, 120);
            deleteMatching(wlp.resolve("usr/servers/" + NAME + "/dropins"), "bench");
        }
    }

    /** WildFly: {@code target/wildfly-<version>}, standalone.xml, ports 200 above the defaults (HTTP 8280). */
    static final class WildFly extends AppServer {
        private static final int OFFSET = 200;
        private Process process;

        WildFly(Path target) {
            super(target, target.resolve("server-bench-wildfly.log"));
        }

        private Path home() throws IOException {
            try (Stream<Path> dirs = Files.list(target)) {
                return dirs.filter(d -> d.getFileName().toString().startsWith("wildfly-") && Files.isDirectory(d.resolve("bin")))
                        .findFirst().orElseThrow(() -> new IllegalStateException("no WildFly under " + target
                                + ": build it with mvn -B verify -pl gen-durable-bench/server-war -am -DskipTests -Pbench-servers"));
            }
        }

        @Override
        String base() {
            return "http://127.0.0.1:" + (8080 + OFFSET) + "/bench/api/bench/";
        }

        @Override
        String describe() {
            try {
                return "WildFly (" + home() + "), standalone.xml configured by wildfly-config's configure.cli as shipped, "
                        + "bench.war in standalone/deployments, port offset " + OFFSET;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        void start(Path war, Map<String, String> env, String jvmOptions) throws Exception {
            Path home = home();
            Path deployments = home.resolve("standalone/deployments");
            deleteMatching(deployments, "bench.war");
            Files.copy(war, deployments.resolve("bench.war"), StandardCopyOption.REPLACE_EXISTING);
            List<String> cmd = new ArrayList<>(List.of("sh", home.resolve("bin/standalone.sh").toString(), "-c", "standalone.xml",
                    "-Djboss.socket.binding.port-offset=" + OFFSET, "-Djboss.bind.address=127.0.0.1",
                    "-Djboss.bind.address.management=127.0.0.1"));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            pb.environment().putAll(env);
            pb.environment().put("JBOSS_HOME", home.toString());
            // standalone.conf's own JAVA_OPTS, the heap replaced by the bench's (as for Liberty and the plain-Java bench)
            pb.environment().put("JAVA_OPTS", jvmOptions + " -XX:MetaspaceSize=96M -XX:MaxMetaspaceSize=512m "
                    + "-Djava.net.preferIPv4Stack=true -Djboss.modules.system.pkgs=org.jboss.byteman -Djava.awt.headless=true");
            process = pb.start();
        }

        @Override
        void stop() throws Exception {
            if (process == null) {
                return;
            }
            if (pid > 0) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);  // SIGTERM: WildFly shuts down gracefully
            } else {
                process.descendants().forEach(ProcessHandle::destroy);
            }
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
            deleteMatching(home().resolve("standalone/deployments"), "bench.war");
        }
    }
}
