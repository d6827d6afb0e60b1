package io.gendurable.impl.support;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The tests' Redis, found like their PostgreSQL: {@code GENDURABLE_TEST_REDIS_URL} (environment
 * variable or system property) when set, else the one answering on 127.0.0.1:6379, else a
 * {@code redis-server} from the PATH started on a free port for this JVM (no persistence; stopped
 * when the JVM exits). Tests isolate themselves by key prefix (each test has its own schema).
 * {@link #startPrivate()} starts a server of a test's own, which that test may stop and restart.
 */
public final class TestRedis {
    /** The variable naming a running Redis ({@code redis://host:port}). */
    public static final String URL_VARIABLE = "GENDURABLE_TEST_REDIS_URL";
    private static String url;

    private TestRedis() {
    }

    /** @return the URL of the tests' Redis (started if need be) */
    public static synchronized String url() {
        if (url == null) {
            String v = System.getProperty(URL_VARIABLE, System.getenv(URL_VARIABLE));
            if (v != null && !v.isBlank()) {
                url = v;
            } else if (answers(6379)) {
                url = "redis://127.0.0.1:6379";
            } else {
                Server s = startPrivate();
                Runtime.getRuntime().addShutdownHook(new Thread(s::stop));
                url = s.url();
            }
        }
        return url;
    }

    /** @return a redis-server of the caller's own, on a free port */
    public static Server startPrivate() {
        Server s = new Server(freePort(), null);
        s.start();
        return s;
    }

    /**
     * @param dir where it keeps its snapshot ({@code dump.rdb}; written only by {@code SAVE}): a
     *            restart loads it, as a Redis restored from an older snapshot would
     * @return a redis-server of the caller's own, on a free port
     */
    public static Server startPrivate(Path dir) {
        Server s = new Server(freePort(), dir);
        s.start();
        return s;
    }

    static boolean answers(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 300);
            s.setSoTimeout(1000);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[16];
            int n = in.read(buf);
            return n > 0 && new String(buf, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A redis-server process on 127.0.0.1: no persistence, or a snapshot written only by {@code SAVE}. */
    public static final class Server {
        private final int port;
        private final Path dir;
        private Process process;

        Server(int port, Path dir) {
            this.port = port;
            this.dir = dir;
        }

        /** @return its URL */
        public String url() {
            return "redis://127.0.0.1:" + port;
        }

        /** Starts it and waits until it answers. */
        public synchronized void start() {
            try {
                Path log = Files.createTempFile("gendurable-redis-" + port, ".log");
                List<String> command = new java.util.ArrayList<>(List.of("redis-server", "--port", String.valueOf(port),
                        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"));
                if (dir != null) {
                    command.addAll(List.of("--dir", dir.toString(), "--dbfilename", "dump.rdb"));
                }
                process = new ProcessBuilder(command)
                        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            } catch (IOException e) {
                throw new IllegalStateException("no Redis for the tests: nothing answers on 127.0.0.1:6379, "
                        + URL_VARIABLE + " is not set, and redis-server could not start from the PATH ("
                        + System.getenv("PATH") + File.pathSeparator + "): " + e, e);
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!answers(port)) {
                if (System.nanoTime() > deadline || !process.isAlive()) {
                    throw new IllegalStateException("redis-server on port " + port + " did not answer within 10 s");
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        /** Kills it (SIGKILL: its data is gone, as after a crash). */
        public synchronized void stop() {
            if (process != null) {
                process.destroyForcibly();
                try {
                    process.waitFor();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                process = null;
            }
        }
    }
}
