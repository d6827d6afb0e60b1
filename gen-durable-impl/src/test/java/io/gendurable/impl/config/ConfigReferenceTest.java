package io.gendurable.impl.config;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration reference (docs/configuration.md, section "Keys") and the catalogue
 * ({@link ConfigKeys}) agree: every key the catalogue declares has a row, every row names a key
 * the catalogue declares, each row's Meaning starts with the key's documentation line, each
 * literal default of a row is the key's default, and a key set to the default its row documents
 * reads as the defaults.
 */
class ConfigReferenceTest {

    private static final Path PAGE = Path.of("../docs/configuration.md");
    /** The first cell of a row of the keys table: {@code | `gendurable.x` | …}. */
    private static final Pattern ROW = Pattern.compile("(?m)^\\|\\s*`gendurable\\.([^`]+)`\\s*\\|");
    /** A row whose Default cell starts with a literal: {@code | `gendurable.x` | `PT60S` …|}. */
    private static final Pattern DEFAULT_CELL =
            Pattern.compile("(?m)^\\|\\s*`gendurable\\.([^`]+)`\\s*\\|\\s*`([^`]+)`[^|]*\\|");
    /** A whole row: key, default, accepted, meaning. */
    private static final Pattern FULL_ROW =
            Pattern.compile("(?m)^\\|\\s*`gendurable\\.([^`]+)`\\s*\\|[^|]*\\|[^|]*\\|(.*)\\|\\s*$");
    /** A Markdown link, {@code [text](target)}. */
    private static final Pattern LINK = Pattern.compile("\\[([^\\]]+)]\\([^)]+\\)");

    @Test
    void everyKeyTheCodeReadsHasARowInTheReferenceTable() throws Exception {
        assertThat(documentedKeys()).as("keys in docs/configuration.md")
                .containsAll(codeKeys());
    }

    @Test
    void everyRowOfTheReferenceTableNamesAKeyTheCodeReads() throws Exception {
        assertThat(codeKeys()).as("keys of the catalogue, as the docs write them")
                .containsAll(documentedKeys());
    }

    @Test
    void theTemplatesOfTheDocsAreAcceptedKeysOnceFilledIn() throws Exception {
        for (String template : documentedKeys()) {
            String key = template.replace("[i]", "[0]").replace("<name>", "psp");
            assertThat(ConfigCatalogue.isKnown(key)).as("gendurable." + key + " is accepted by ConfigReader").isTrue();
        }
    }

    @Test
    void everyRowsMeaningStartsWithTheDocumentationLineOfItsKey() throws IOException {
        Map<String, String> meanings = new TreeMap<>();
        Matcher m = FULL_ROW.matcher(keysSection());
        while (m.find()) {
            meanings.put(m.group(1), LINK.matcher(m.group(2).trim()).replaceAll("$1"));
        }
        for (ConfigKey<?> key : ConfigCatalogue.all()) {
            assertThat(meanings.get(key.name())).as("the Meaning of gendurable." + key.name())
                    .startsWith(key.doc());
        }
    }

    @Test
    void everyLiteralDefaultOfTheReferenceTableIsTheDefaultOfItsKey() throws IOException {
        Map<String, String> documented = documentedDefaults(true);
        for (ConfigKey<?> key : ConfigCatalogue.all()) {
            if (documented.containsKey(key.name())) {
                assertThat(key.parse("0", documented.get(key.name()))).as("the default of gendurable." + key.name())
                        .isEqualTo(key.defaultValue());
            }
        }
        assertThat(documented).as("rows whose default is one literal value").hasSizeGreaterThanOrEqualTo(25);
    }

    @Test
    void settingAKeyToItsDocumentedDefaultChangesNothing() throws IOException {
        EngineConfig defaults = ConfigReader.of(Map.of()).read();
        Map<String, String> documented = documentedDefaults(false);
        assertThat(documented).as("rows whose default is one literal value").hasSizeGreaterThanOrEqualTo(20);
        for (Map.Entry<String, String> e : documented.entrySet()) {
            String key = "gendurable." + e.getKey().replace("[i]", "[0]");
            assertThat(ConfigReader.of(Map.of(key, e.getValue())).read())
                    .as(key + "=" + e.getValue() + " (its documented default)")
                    .isEqualTo(defaults);
        }
    }

    /**
     * Key to default, for the rows whose Default cell starts with one literal value in backticks.
     *
     * @param withNamed whether to include the rows of rate limits and gates (setting one alone declares a limit)
     */
    private static Map<String, String> documentedDefaults(boolean withNamed) throws IOException {
        Map<String, String> defaults = new TreeMap<>();
        Matcher m = DEFAULT_CELL.matcher(keysSection());
        while (m.find()) {
            if (withNamed || !m.group(1).contains("<name>")) {
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

    /** Every key of the catalogue, as the docs write it ({@code flushers[i].max-batch}, {@code rate-limits.<name>.allowed}). */
    private static Set<String> codeKeys() {
        Set<String> keys = new TreeSet<>();
        ConfigCatalogue.all().forEach(k -> keys.add(k.name()));
        return keys;
    }
}
