package io.gendurable.sample.it;

import com.sun.net.httpserver.HttpServer;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A minimal OTLP/HTTP trace receiver in the test JVM, up before Arquillian starts the server:
 * {@code POST /v1/traces} on {@code it.otlp.port} (the server exports there: the failsafe
 * configuration sets {@code OTEL_EXPORTER_OTLP_ENDPOINT}), protobuf bodies decoded just far enough
 * for the tests: each span's trace id, span id, parent span id and name.
 */
public class OtlpReceiver implements LauncherSessionListener {
    static final List<ReceivedSpan> SPANS = new CopyOnWriteArrayList<>();
    private HttpServer server;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        String port = System.getProperty("it.otlp.port");
        if (port == null || port.isBlank()) {
            return;
        }
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(port)), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("the tests' OTLP receiver cannot listen on " + port, e);
        }
        server.createContext("/v1/traces", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                SPANS.addAll(spans(in.readAllBytes()));
                exchange.sendResponseHeaders(200, -1);
            } catch (RuntimeException e) {
                exchange.sendResponseHeaders(400, -1);
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    @Override
    public void launcherSessionClosed(LauncherSession session) {
        if (server != null) {
            server.stop(0);
        }
    }

    /**
     * Decodes an {@code ExportTraceServiceRequest}: resource_spans (1) → scope_spans (2) → spans (2),
     * each with trace_id (1), span_id (2), parent_span_id (4) and name (5).
     */
    static List<ReceivedSpan> spans(byte[] body) {
        List<ReceivedSpan> out = new ArrayList<>();
        for (byte[] resourceSpans : fields(body, 1)) {
            for (byte[] scopeSpans : fields(resourceSpans, 2)) {
                for (byte[] span : fields(scopeSpans, 2)) {
                    out.add(new ReceivedSpan(hex(first(span, 1)), hex(first(span, 2)), hex(first(span, 4)),
                            new String(first(span, 5), StandardCharsets.UTF_8)));
                }
            }
        }
        return out;
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    private static byte[] first(byte[] message, int field) {
        List<byte[]> f = fields(message, field);
        return f.isEmpty() ? new byte[0] : f.get(0);
    }

    /** @return the length-delimited values of {@code field} in a protobuf message, skipping the rest */
    private static List<byte[]> fields(byte[] m, int field) {
        List<byte[]> out = new ArrayList<>();
        int[] pos = {0};
        while (pos[0] < m.length) {
            long key = varint(m, pos);
            int wire = (int) (key & 7);
            int number = (int) (key >>> 3);
            switch (wire) {
                case 0 -> varint(m, pos);
                case 1 -> pos[0] += 8;
                case 5 -> pos[0] += 4;
                case 2 -> {
                    int len = (int) varint(m, pos);
                    if (number == field) {
                        byte[] v = new byte[len];
                        System.arraycopy(m, pos[0], v, 0, len);
                        out.add(v);
                    }
                    pos[0] += len;
                }
                default -> throw new IllegalArgumentException("unsupported wire type " + wire);
            }
        }
        return out;
    }

    private static long varint(byte[] m, int[] pos) {
        long v = 0;
        for (int shift = 0; ; shift += 7) {
            byte b = m[pos[0]++];
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
    }
}
