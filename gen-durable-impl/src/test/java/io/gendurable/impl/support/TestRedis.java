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
        Server s = new Server(freePort());
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

    /** A redis-server process: no persistence, on 127.0.0.1. */
    public static final class Server {
        private final int port;
        private Process process;

        Server(int port) {
            this.port = port;
        }

        /** @return its URL */
        public String url() {
            return "redis://127.0.0.1:" + port;
        }

        /** Starts it and waits until it answers. */
        public synchronized void start() {
            try {
                Path log = Files.createTempFile("gendurable-redis-" + port, ".log");
                process = new ProcessBuilder(List.of("redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1",
                        "--save", "", "--appendonly", "no"))
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
