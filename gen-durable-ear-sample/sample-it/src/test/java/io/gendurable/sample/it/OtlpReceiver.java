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
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A minimal OTLP/HTTP receiver in the test JVM, up before Arquillian starts the server:
 * {@code POST /v1/traces} and {@code POST /v1/metrics} on {@code it.otlp.port} (the server exports
 * there: the failsafe configuration sets {@code OTEL_EXPORTER_OTLP_ENDPOINT}), protobuf bodies
 * decoded just far enough for the tests: each span's trace id, span id, parent span id and name;
 * each metric point's name, unit, attributes and value (the latest export of each series).
 */
public class OtlpReceiver implements LauncherSessionListener {
    static final List<ReceivedSpan> SPANS = new CopyOnWriteArrayList<>();
    /** The latest point of each metric series (name and attributes), as the server last exported it. */
    static final Map<String, ReceivedPoint> POINTS = new ConcurrentHashMap<>();
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
        server.createContext("/v1/metrics", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                points(in.readAllBytes()).forEach(pt -> POINTS.put(pt.metric() + pt.attributes(), pt));
                exchange.sendResponseHeaders(200, -1);
            } catch (RuntimeException e) {
                System.err.println("OtlpReceiver: an undecodable metrics export: " + e);
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

    /**
     * Decodes an {@code ExportMetricsServiceRequest}: resource_metrics (1) → scope_metrics (2) →
     * metrics (2), each with name (1), unit (3) and one of gauge (5), sum (7) or histogram (9), whose
     * data_points (1) carry attributes (7; 9 in a histogram point) and as_double (4) or as_int (6) (a
     * histogram point: count (4)).
     */
    static List<ReceivedPoint> points(byte[] body) {
        List<ReceivedPoint> out = new ArrayList<>();
        for (byte[] resourceMetrics : fields(body, 1)) {
            for (byte[] scopeMetrics : fields(resourceMetrics, 2)) {
                for (byte[] metric : fields(scopeMetrics, 2)) {
                    String name = new String(first(metric, 1), StandardCharsets.UTF_8);
                    String unit = new String(first(metric, 3), StandardCharsets.UTF_8);
                    for (int kind : new int[]{5, 7}) {
                        for (byte[] data : fields(metric, kind)) {
                            for (byte[] point : fields(data, 1)) {
                                Long asInt = fixed64(point, 6);
                                Long asDouble = fixed64(point, 4);
                                double value = asInt != null ? asInt : asDouble != null ? Double.longBitsToDouble(asDouble) : 0;
                                out.add(new ReceivedPoint(name, unit, attributes(point, 7), value));
                            }
                        }
                    }
                    for (byte[] data : fields(metric, 9)) {
                        for (byte[] point : fields(data, 1)) {
                            Long count = fixed64(point, 4);
                            out.add(new ReceivedPoint(name, unit, attributes(point, 9), count == null ? 0 : count));
                        }
                    }
                }
            }
        }
        return out;
    }

    /** @return the string attributes (KeyValue: key (1), value (2) → string_value (1)), sorted by key */
    private static Map<String, String> attributes(byte[] point, int field) {
        Map<String, String> out = new TreeMap<>();
        for (byte[] kv : fields(point, field)) {
            out.put(new String(first(kv, 1), StandardCharsets.UTF_8),
                    new String(first(first(kv, 2), 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    /** @return the last 64-bit fixed value (wire type 1) of {@code field}, or null when absent */
    private static Long fixed64(byte[] m, int field) {
        Long found = null;
        int[] pos = {0};
        while (pos[0] < m.length) {
            long key = varint(m, pos);
            int wire = (int) (key & 7);
            int number = (int) (key >>> 3);
            switch (wire) {
                case 0 -> varint(m, pos);
                case 1 -> {
                    if (number == field) {
                        found = java.nio.ByteBuffer.wrap(m, pos[0], 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
                    }
                    pos[0] += 8;
                }
                case 5 -> pos[0] += 4;
                case 2 -> {
                    int len = (int) varint(m, pos);  // not pos[0] += varint(…): that adds to pos[0]'s value before the call
                    pos[0] += len;
                }
                default -> throw new IllegalArgumentException("unsupported wire type " + wire);
            }
        }
        return found;
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
