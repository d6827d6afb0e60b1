package io.gendurable.impl.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy to the tests' database that a test can cut: {@link Mode#FORWARD} passes bytes,
 * {@link Mode#REFUSE} closes every connection and each new one at once (the database is gone),
 * {@link Mode#BLACKHOLE} keeps the sockets open and passes nothing (a dead network: reads hang).
 */
public final class TcpProxy implements AutoCloseable {
    /** What the proxy does with traffic. */
    public enum Mode { FORWARD, REFUSE, BLACKHOLE }

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile Mode mode = Mode.FORWARD;
    // the client sockets open at silenceExisting(): nothing passes either way, and no close reaches them
    private final java.util.Set<Socket> silenced = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final java.util.Set<Socket> clients = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Listens on an ephemeral port of 127.0.0.1 and forwards to the target. */
    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::acceptLoop, "tcp-proxy-accept");
        t.setDaemon(true);
        t.start();
    }

    /** @return the port to connect to */
    public int port() {
        return server.getLocalPort();
    }

    /** @param jdbcUrl a PostgreSQL JDBC URL @return the same URL through a new proxy */
    public static TcpProxy to(String jdbcUrl) throws IOException {
        var m = java.util.regex.Pattern.compile("//([^:/]+)(?::(\\d+))?/").matcher(jdbcUrl);
        if (!m.find()) {
            throw new IllegalArgumentException("no host in " + jdbcUrl);
        }
        return new TcpProxy(m.group(1), m.group(2) == null ? 5432 : Integer.parseInt(m.group(2)));
    }

    /** @param jdbcUrl a PostgreSQL JDBC URL @return it, pointed at this proxy */
    public String rewrite(String jdbcUrl) {
        return jdbcUrl.replaceFirst("//[^/]+/", "//127.0.0.1:" + port() + "/");
    }

    /** @param m the new mode; {@link Mode#REFUSE} also closes every open connection */
    public void mode(Mode m) {
        mode = m;
        if (m == Mode.REFUSE) {
            sockets.forEach(TcpProxy::closeQuietly);
            sockets.clear();
        }
    }

    /**
     * A silent cut of the connections open now (a firewall or NAT that dropped them): nothing passes
     * on them either way and their clients see no close, while new connections are forwarded.
     */
    public void silenceExisting() {
        silenced.addAll(clients);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (mode == Mode.REFUSE) {
                    closeQuietly(client);
                    continue;
                }
                sockets.add(client);
                clients.add(client);
                if (mode == Mode.BLACKHOLE) {
                    continue;  // held open, never answered
                }
                Socket upstream = new Socket(targetHost, targetPort);
                sockets.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                // closed, or one connection failed: go on while the server is open
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    while ((mode == Mode.BLACKHOLE || silenced.contains(from) || silenced.contains(to)) && !from.isClosed()) {
                        Thread.sleep(20);  // hold the bytes: the peer waits
                    }
                    if (mode == Mode.REFUSE) {
                        break;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // a side closed
            } finally {
                // a silenced client sees no close: its connection just goes quiet
                if (!silenced.contains(from)) {
                    closeQuietly(from);
                }
                if (!silenced.contains(to)) {
                    closeQuietly(to);
                }
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // already closed
        }
        sockets.forEach(TcpProxy::closeQuietly);
    }
}
