package io.gendurable.impl.cdi;

import io.gendurable.events.EngineEvent;
import io.gendurable.impl.runtime.EventKind;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The event tables of docs/metrics.md are the API's: a row for every {@link EngineEvent} type with
 * its record's fields, in order, and no row for a type that is not one; and the engine's kinds
 * ({@link EventKind}) cover every type.
 */
class EngineEventsDocTest {

    /** A row whose first cell is a type name in backticks, and its second cell. */
    private static final Pattern ROW = Pattern.compile("(?m)^\\|\\s*`([A-Z][A-Za-z]+)`\\s*\\|([^|]*)\\|");

    static Map<String, String> apiFields() {
        Map<String, String> out = new TreeMap<>();
        for (Class<?> type : EngineEvent.class.getPermittedSubclasses()) {
            out.put(type.getSimpleName(), fields(type));
        }
        return out;
    }

    private static String fields(Class<?> record) {
        return Arrays.stream(record.getRecordComponents())
                .map((RecordComponent c) -> "`" + c.getType().getSimpleName() + " " + c.getName() + "`")
                .collect(Collectors.joining(", "));
    }

    static Map<String, String> docRows(String page) {
        Map<String, String> out = new TreeMap<>();
        Matcher m = ROW.matcher(page);
        while (m.find()) {
            out.put(m.group(1), m.group(2).strip());
        }
        return out;
    }

    @Test
    void metricsMdListsEveryEventTypeWithItsFieldsAndNoOther() throws IOException {
        Map<String, String> api = apiFields();
        assertThat(api).hasSizeGreaterThan(10);
        Map<String, String> docs = docRows(Files.readString(Path.of("../docs/metrics.md")));
        assertThat(docs).as("event rows of docs/metrics.md").isEqualTo(api);
    }

    @Test
    void aFieldMissingFromTheDocsIsFound() {
        Map<String, String> docs = docRows("| `GcSwept` | `int rows`, `int buckets` | a pass |\n");
        assertThat(docs.get("GcSwept")).isNotEqualTo(apiFields().get("GcSwept"));
        assertThat(apiFields().get("GcSwept")).isEqualTo("`int rows`, `int buckets`, `int gates`");
    }

    @Test
    void everyEventTypeHasAKind() {
        assertThat(Arrays.stream(EventKind.values()).map(k -> k.type.getSimpleName()).collect(Collectors.toSet()))
                .isEqualTo(apiFields().keySet());
    }
}
