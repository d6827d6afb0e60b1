package io.gendurable.impl;

import io.gendurable.GenDurable;
import io.gendurable.impl.config.ConfigKey;
import io.gendurable.impl.config.ConfigCatalogue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@code docs/errors.md} honest: every table row names at least one test, every named
 * test method exists (as a {@code @Test} or {@code @ParameterizedTest} in a test source of this
 * repository), every {@code gendurable.*} key and every {@link GenDurable} method has a row.
 */
class ErrorsCatalogueTest {
    private static final Pattern TEST_REF = Pattern.compile("`([A-Z][A-Za-z0-9]*Test|[A-Z][A-Za-z0-9]*IT)\\.([a-z][A-Za-z0-9_]*)`");

    static Path root;
    static String page;
    static List<String> rows;

    @BeforeAll
    static void read() throws IOException {
        Path here = Path.of("").toAbsolutePath();
        root = Files.exists(here.resolve("docs/errors.md")) ? here : here.getParent();
        page = Files.readString(root.resolve("docs/errors.md"));
        rows = new ArrayList<>();
        for (String line : page.split("\n")) {
            if (line.startsWith("|") && !line.startsWith("|---") && !line.startsWith("| Entry point")
                    && !line.startsWith("| Key ")) {
                rows.add(line);
            }
        }
    }

    private static List<Path> testSources(String className) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.getFileName().toString().equals(className + ".java"))
                    .filter(p -> p.toString().contains("/src/test/java/") && !p.toString().contains("/target/")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return whether the source declares {@code void method(} right after a @Test or @ParameterizedTest */
    private static boolean declaresTest(Path source, String method) {
        String text;
        try {
            text = Files.readString(source);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Matcher m = Pattern.compile("\\bvoid\\s+" + Pattern.quote(method) + "\\s*\\(").matcher(text);
        if (!m.find()) {
            return false;
        }
        // the annotations between the previous member's end and this declaration
        String before = text.substring(0, m.start());
        int previous = Math.max(before.lastIndexOf("\n    }\n"), before.lastIndexOf(";\n"));
        String head = before.substring(Math.max(0, previous));
        return head.contains("@Test") || head.contains("@ParameterizedTest");
    }

    @Test
    void the_catalogue_has_rows_and_every_row_names_at_least_one_test() {
        assertThat(rows).hasSizeGreaterThan(60);
        for (String row : rows) {
            assertThat(TEST_REF.matcher(row).find()).as("a row without a test: %s", row).isTrue();
        }
    }

    @Test
    void every_test_the_catalogue_names_exists_as_a_test_method() {
        Set<String> missing = new LinkedHashSet<>();
        Matcher m = TEST_REF.matcher(page);
        int named = 0;
        while (m.find()) {
            named++;
            String cls = m.group(1);
            String method = m.group(2);
            List<Path> sources = testSources(cls);
            if (sources.stream().noneMatch(p -> declaresTest(p, method))) {
                missing.add(cls + "." + method + (sources.isEmpty() ? " (no such test class)" : ""));
            }
        }
        assertThat(named).isGreaterThan(60);
        assertThat(missing).as("tests named in docs/errors.md that do not exist").isEmpty();
    }

    @Test
    void every_configuration_key_has_a_row() {
        Set<String> missing = new LinkedHashSet<>();
        for (String key : ConfigCatalogue.plainNames()) {
            if (!page.contains("`" + key + "`") && !page.contains("`" + key + ",") && !page.contains(" `" + key + "`")) {
                missing.add(key);
            }
        }
        for (ConfigKey.Family family : ConfigCatalogue.families()) {
            String pattern = family.template().replace("<name>", "<n>");  // the page writes rate-limits.<n>
            if (!page.contains(pattern)) {
                missing.add(pattern);
            }
        }
        assertThat(missing).as("gendurable.* keys without a row in docs/errors.md").isEmpty();
    }

    @Test
    void every_gendurable_method_has_a_row() {
        Set<String> missing = new LinkedHashSet<>();
        for (Method method : GenDurable.class.getMethods()) {
            String name = method.getName();
            boolean found = rows.stream().anyMatch(r -> r.startsWith("| `" + name + "`") || r.startsWith("| `" + name + "(")
                    || r.contains("`" + name + "`,") || r.contains(", `" + name + "`"));
            if (!found) {
                missing.add(name);
            }
        }
        assertThat(missing).as("GenDurable methods without a row in docs/errors.md").isEmpty();
    }
}
