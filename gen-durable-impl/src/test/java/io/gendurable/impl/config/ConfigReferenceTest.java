package io.gendurable.impl.config;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration reference (docs/configuration.md, section "Keys") and ConfigReader agree:
 * every key the code accepts has a row, every row names a key the code accepts, and a key set
 * to the default its row documents reads as the defaults.
 */
class ConfigReferenceTest {

    private static final Path PAGE = Path.of("../docs/configuration.md");
    /** The first cell of a row of the keys table: {@code | `gendurable.x` | …}. */
    private static final Pattern ROW = Pattern.compile("(?m)^\\|\\s*`gendurable\\.([^`]+)`\\s*\\|");
    /** A row whose Default cell starts with a literal: {@code | `gendurable.x` | `PT60S` …|}. */
    private static final Pattern DEFAULT_CELL =
            Pattern.compile("(?m)^\\|\\s*`gendurable\\.([^`]+)`\\s*\\|\\s*`([^`]+)`[^|]*\\|");
    /** A family of keys in ConfigReader: {@code family\.(…)\.(a|b|c)}, with its fixed alternatives. */
    private static final Pattern ALTERNATIVES = Pattern.compile("\\((\\w+(?:\\|[\\w-]+)+)\\)$");

    @Test
    void everyKeyTheCodeReadsHasARowInTheReferenceTable() throws Exception {
        assertThat(documentedKeys()).as("keys in docs/configuration.md")
                .containsAll(codeKeys());
    }

    @Test
    void everyRowOfTheReferenceTableNamesAKeyTheCodeReads() throws Exception {
        assertThat(codeKeys()).as("keys ConfigReader accepts, as the docs write them")
                .containsAll(documentedKeys());
    }

    @Test
    void theTemplatesOfTheDocsAreAcceptedKeysOnceFilledIn() throws Exception {
        for (String template : documentedKeys()) {
            String key = template.replace("[i]", "[0]").replace("<name>", "psp");
            boolean accepted = ConfigReader.KEYS.contains(key)
                    || families().stream().anyMatch(p -> p.matcher(key).matches());
            assertThat(accepted).as("gendurable." + key + " is accepted by ConfigReader").isTrue();
        }
    }

    @Test
    void settingAKeyToItsDocumentedDefaultChangesNothing() throws IOException {
        EngineConfig defaults = ConfigReader.of(Map.of()).read();
        Map<String, String> documented = documentedDefaults();
        assertThat(documented).as("rows whose default is one literal value").hasSizeGreaterThanOrEqualTo(20);
        for (Map.Entry<String, String> e : documented.entrySet()) {
            String key = "gendurable." + e.getKey().replace("[i]", "[0]");
            assertThat(ConfigReader.of(Map.of(key, e.getValue())).read())
                    .as(key + "=" + e.getValue() + " (its documented default)")
                    .isEqualTo(defaults);
        }
    }

    /** Key to default, for the rows whose Default cell starts with one literal value in backticks. */
    private static Map<String, String> documentedDefaults() throws IOException {
        Map<String, String> defaults = new TreeMap<>();
        Matcher m = DEFAULT_CELL.matcher(keysSection());
        while (m.find()) {
            if (!m.group(1).contains("<name>")) {
                defaults.put(m.group(1), m.group(2));
            }
        }
        return defaults;
    }

    /** The keys of the page's table, without the prefix, templates as written ({@code rate-limits.<name>.allowed}). */
    private static Set<String> documentedKeys() throws IOException {
        Matcher m = ROW.matcher(keysSection());
        Set<String> keys = new TreeSet<>();
        while (m.find()) {
            keys.add(m.group(1));
        }
        assertThat(keys).as("rows of the keys table").isNotEmpty();
        return keys;
    }

    private static String keysSection() throws IOException {
        String text = Files.readString(PAGE);
        int start = text.indexOf("\n## Keys");
        assertThat(start).as("docs/configuration.md has a '## Keys' section").isPositive();
        int end = text.indexOf("\n## ", start + 1);
        return text.substring(start, end < 0 ? text.length() : end);
    }

    /** ConfigReader.KEYS plus each key family expanded the way the docs write it. */
    private static Set<String> codeKeys() throws Exception {
        Set<String> keys = new TreeSet<>(ConfigReader.KEYS);
        for (Pattern family : families()) {
            String regex = family.pattern();
            Matcher alt = ALTERNATIVES.matcher(regex);
            assertThat(alt.find()).as("a family of keys ends with its alternatives: " + regex).isTrue();
            String head = regex.substring(0, alt.start())
                    .replace("\\[(\\d+)]", "[i]")
                    .replace("([^.]+)", "<name>")
                    .replace("\\.", ".");
            assertThat(head).as("a family ConfigReferenceTest knows how to write: " + regex).doesNotContain("(", "\\");
            for (String suffix : alt.group(1).split("\\|")) {
                keys.add(head + suffix);
            }
        }
        return keys;
    }

    /** The patterns of ConfigReader that accept families of keys (flushers[i].…, rate-limits.<name>.…, …). */
    private static List<Pattern> families() throws IllegalAccessException {
        List<Pattern> patterns = new java.util.ArrayList<>();
        for (Field f : ConfigReader.class.getDeclaredFields()) {
            if (f.getType() == Pattern.class && java.lang.reflect.Modifier.isStatic(f.getModifiers())
                    && f.getName().endsWith("_KEY")) {
                f.setAccessible(true);
                patterns.add((Pattern) f.get(null));
            }
        }
        assertThat(patterns).as("ConfigReader's key families").hasSizeGreaterThanOrEqualTo(3);
        return patterns;
    }
}
