package io.gendurable.sample.otlp;

import com.sun.net.httpserver.HttpServer;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;

/**
 * A minimal OTLP/HTTP receiver in the test JVM, up before Arquillian starts the server:
 * a {@code POST} on {@code 127.0.0.1:<it.otlp.port>/v1/metrics} is an {@code ExportMetricsServiceRequest},
 * any other (the exporters post spans to {@code /v1/traces}) an {@code ExportTraceServiceRequest},
 * in protobuf (gzipped or not), decoded just far enough for the suites: each span's ids, name,
 * attributes and links; each metric point's name, unit, attributes and value (the latest export
 * of each series). Registered as a JUnit
 * launcher session listener by this jar; without {@code it.otlp.port} it does nothing.
 */
public class OtlpReceiver implements LauncherSessionListener {
    private static final List<ReceivedSpan> SPANS = new CopyOnWriteArrayList<>();
    /** The latest point of each metric series (name and attributes), as the server last exported it. */
    private static final Map<String, ReceivedPoint> POINTS = new ConcurrentHashMap<>();
    private HttpServer server;

    /** @return every span received so far, in arrival order */
    public static List<ReceivedSpan> spans() {
        return List.copyOf(SPANS);
    }

    /** @return the latest point of each metric series received so far */
    public static List<ReceivedPoint> points() {
        return List.copyOf(POINTS.values());
    }

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
        server.createContext("/", exchange -> {
            byte[] body = new byte[0];
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
                if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                    body = new GZIPInputStream(new ByteArrayInputStream(body)).readAllBytes();  // WildFly's exporter may compress
                }
                if (exchange.getRequestURI().getPath().endsWith("/v1/metrics")) {
                    decodeMetrics(body).forEach(pt -> POINTS.put(pt.metric() + pt.attributes(), pt));
                } else {
                    SPANS.addAll(decode(body));
                }
                exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
                exchange.sendResponseHeaders(200, -1);  // an empty Export…ServiceResponse
            } catch (IOException | RuntimeException e) {
                System.err.println("OtlpReceiver: cannot decode a " + body.length + "-byte " + exchange.getRequestMethod() + " "
                        + exchange.getRequestURI() + " (" + exchange.getRequestHeaders().entrySet() + "): " + e
                        + "; starts with " + HexFormat.of().formatHex(body, 0, Math.min(64, body.length)));
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
     * Decodes an {@code ExportTraceServiceRequest}: resource_spans (1) → scope_spans (2) → spans
     * (2), each with trace_id (1), span_id (2), parent_span_id (4), name (5), attributes (9) and
     * links (13: trace_id 1, span_id 2, attributes 4).
     *
     * @param body the request's body
     * @return its spans
     */
    public static List<ReceivedSpan> decode(byte[] body) {
        List<ReceivedSpan> out = new ArrayList<>();
        for (Field resourceSpans : Field.all(body, 1)) {
            for (Field scopeSpans : Field.all(resourceSpans.bytes, 2)) {
                for (Field span : Field.all(scopeSpans.bytes, 2)) {
                    List<ReceivedSpan.Link> links = new ArrayList<>();
                    for (Field link : Field.all(span.bytes, 13)) {
                        links.add(new ReceivedSpan.Link(hex(link.bytes, 1), hex(link.bytes, 2), attributes(link.bytes, 4)));
                    }
                    out.add(new ReceivedSpan(hex(span.bytes, 1), hex(span.bytes, 2), hex(span.bytes, 4),
                            text(span.bytes, 5), attributes(span.bytes, 9), links));
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
     *
     * @param body the request's body
     * @return its points
     */
    public static List<ReceivedPoint> decodeMetrics(byte[] body) {
        List<ReceivedPoint> out = new ArrayList<>();
        for (Field resourceMetrics : Field.all(body, 1)) {
            for (Field scopeMetrics : Field.all(resourceMetrics.bytes, 2)) {
                for (Field metric : Field.all(scopeMetrics.bytes, 2)) {
                    String name = text(metric.bytes, 1);
                    String unit = text(metric.bytes, 3);
                    for (int kind : new int[]{5, 7}) {
                        for (Field data : Field.all(metric.bytes, kind)) {
                            for (Field point : Field.all(data.bytes, 1)) {
                                Field asInt = Field.first(point.bytes, 6);
                                Field asDouble = Field.first(point.bytes, 4);
                                double value = asInt != null ? asInt.value
                                        : asDouble != null ? Double.longBitsToDouble(asDouble.value) : 0;
                                out.add(new ReceivedPoint(name, unit, new TreeMap<>(attributes(point.bytes, 7)), value));
                            }
                        }
                    }
                    for (Field data : Field.all(metric.bytes, 9)) {
                        for (Field point : Field.all(data.bytes, 1)) {
                            Field count = Field.first(point.bytes, 4);
                            out.add(new ReceivedPoint(name, unit, new TreeMap<>(attributes(point.bytes, 9)),
                                    count == null ? 0 : count.value));
                        }
                    }
                }
            }
        }
        return out;
    }

    /** KeyValue: key (1), value (2, an AnyValue: string 1, bool 2, int 3, double 4; others as their bytes' length). */
    private static Map<String, String> attributes(byte[] message, int field) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Field kv : Field.all(message, field)) {
            String key = text(kv.bytes, 1);
            Field value = Field.first(kv.bytes, 2);
            String text = "";
            if (value != null) {
                List<Field> any = Field.all(value.bytes, 0);
                if (!any.isEmpty()) {
                    Field v = any.get(0);
                    text = switch (v.number) {
                        case 1 -> new String(v.bytes, StandardCharsets.UTF_8);
                        case 2 -> String.valueOf(v.value != 0);
                        case 3 -> String.valueOf(v.value);
                        case 4 -> String.valueOf(Double.longBitsToDouble(v.value));
                        default -> "<" + v.bytes.length + " bytes>";
                    };
                }
            }
            out.put(key, text);
        }
        return out;
    }

    private static String hex(byte[] message, int field) {
        Field f = Field.first(message, field);
        return f == null ? "" : HexFormat.of().formatHex(f.bytes);
    }

    private static String text(byte[] message, int field) {
        Field f = Field.first(message, field);
        return f == null ? "" : new String(f.bytes, StandardCharsets.UTF_8);
    }

    /** One protobuf field: its number, and its bytes (length-delimited) or value (varint, fixed64, fixed32). */
    private record Field(int number, byte[] bytes, long value) {
        static Field first(byte[] message, int number) {
            List<Field> all = all(message, number);
            return all.isEmpty() ? null : all.get(0);
        }

        /** @return the fields numbered {@code number} (0: every field), in order */
        static List<Field> all(byte[] m, int number) {
            List<Field> out = new ArrayList<>();
            int[] pos = {0};
            while (pos[0] < m.length) {
                long key = varint(m, pos);
                int wire = (int) (key & 7);
                int n = (int) (key >>> 3);
                Field f;
                switch (wire) {
                    case 0 -> f = new Field(n, new byte[0], varint(m, pos));
                    case 1 -> {
                        f = new Field(n, new byte[0], little(m, pos[0], 8));
                        pos[0] += 8;
                    }
                    case 5 -> {
                        f = new Field(n, new byte[0], little(m, pos[0], 4));
                        pos[0] += 4;
                    }
                    case 2 -> {
                        int len = (int) varint(m, pos);
                        byte[] v = new byte[len];
                        System.arraycopy(m, pos[0], v, 0, len);
                        pos[0] += len;
                        f = new Field(n, v, 0);
                    }
                    default -> throw new IllegalArgumentException("unsupported wire type " + wire);
                }
                if (number == 0 || n == number) {
                    out.add(f);
                }
            }
            return out;
        }

        private static long little(byte[] m, int at, int size) {
            long v = 0;
            for (int i = size - 1; i >= 0; i--) {
                v = (v << 8) | (m[at + i] & 0xffL);
            }
            return v;
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
}
