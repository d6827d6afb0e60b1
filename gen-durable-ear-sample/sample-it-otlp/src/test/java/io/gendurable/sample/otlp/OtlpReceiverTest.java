package io.gendurable.sample.otlp;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The decoder reads what an OTLP exporter writes: a request encoded here field by field. */
class OtlpReceiverTest {
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String LINKED = "0af7651916cd43dd8448eb211c80319c";

    @Test
    void aSpansIdsNameAttributesAndLinksAreDecoded() {
        byte[] span = concat(
                bytes(1, hex(TRACE)), bytes(2, hex("00f067aa0ba902b7")), bytes(4, hex("b7ad6b7169203331")),
                bytes(5, utf8("gendurable.step order.ship")),
                varint(6, 1), fixed64(7, 1_700_000_000_000_000_000L),  // kind, start time: skipped
                bytes(9, keyValue("gendurable.fsm", bytes(1, utf8("order")))),
                bytes(9, keyValue("gendurable.id", varint(3, 42))),
                bytes(9, keyValue("gendurable.ok", varint(2, 1))),
                bytes(13, concat(bytes(1, hex(LINKED)), bytes(2, hex("53995c3f42cd8ad8")),
                        bytes(4, keyValue("gendurable.signal", bytes(1, utf8("payment_settled")))))));
        byte[] request = bytes(1, concat(bytes(1, new byte[0]), bytes(2, concat(bytes(1, new byte[0]), bytes(2, span)))));

        List<ReceivedSpan> spans = OtlpReceiver.decode(request);

        assertEquals(1, spans.size());
        ReceivedSpan s = spans.get(0);
        assertEquals(TRACE, s.traceId());
        assertEquals("00f067aa0ba902b7", s.spanId());
        assertEquals("b7ad6b7169203331", s.parentSpanId());
        assertEquals("gendurable.step order.ship", s.name());
        assertEquals("order", s.attribute("gendurable.fsm"));
        assertEquals("42", s.attribute("gendurable.id"));
        assertEquals("true", s.attribute("gendurable.ok"));
        assertEquals(1, s.links().size());
        assertEquals(LINKED, s.links().get(0).traceId());
        assertEquals("53995c3f42cd8ad8", s.links().get(0).spanId());
        assertEquals("payment_settled", s.links().get(0).attributes().get("gendurable.signal"));
    }

    private static byte[] keyValue(String key, byte[] anyValue) {
        return concat(bytes(1, utf8(key)), bytes(2, anyValue));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }

    private static byte[] bytes(int field, byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeVarint(out, (long) field << 3 | 2);
        writeVarint(out, value.length);
        out.writeBytes(value);
        return out.toByteArray();
    }

    private static byte[] varint(int field, long value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeVarint(out, (long) field << 3);
        writeVarint(out, value);
        return out.toByteArray();
    }

    private static byte[] fixed64(int field, long value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeVarint(out, (long) field << 3 | 1);
        for (int i = 0; i < 8; i++) {
            out.write((int) (value >>> (8 * i)) & 0xff);
        }
        return out.toByteArray();
    }

    private static void writeVarint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7fL) != 0) {
            out.write((int) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
