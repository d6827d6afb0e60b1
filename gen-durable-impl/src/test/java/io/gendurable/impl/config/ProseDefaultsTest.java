package io.gendurable.impl.config;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every default a page names in prose is the default of its key in {@link ConfigKeys}: a key in
 * backticks ({@code `gendurable.gc.interval`}, or a name only one key ends with, {@code `max-batch`})
 * followed in the same sentence by "default V", "defaults to V", "(default V)", "V by default", or,
 * as a list item's lead, "**`key`**: V." or "leave at `V`". V is a literal in backticks, a number,
 * a duration in words ("30 s", "50 ms", "7 days") or true/false. The reference table of
 * docs/configuration.md is {@link ConfigReferenceTest}'s; this test reads every other line of every
 * page and of the README.
 */
class ProseDefaultsTest {

    private static final Path ROOT = Path.of("..");
    /** A key in backticks, possibly bold: the name in group 1. */
    private static final Pattern MENTION = Pattern.compile("`(?:gendurable\\.)?([a-z][a-z0-9.\\[\\]<>_-]*)`");
    private static final String VALUE = "(`[^`]+`|\\d[\\d,]*(?:\\.\\d+)?(?:\\s?(?:ms|s|min|minutes?|seconds?|hours?|h|days?|KiB|MiB)\\b)?|true\\b|false\\b)";
    /** The forms that name a default right after a mention, the value in group 1. */
    private static final List<Pattern> FORMS = List.of(
            Pattern.compile("^\\**,?\\s*\\(?(?:the\\s+)?default(?:s to|:| is| of)?\\s+" + VALUE),
            Pattern.compile("^\\**\\s*\\(?default(?:s to|:| is)?\\s+" + VALUE),
            Pattern.compile("^\\**,?\\s*(?:of\\s+|is\\s+)?" + VALUE + "\\s+by default"),
            Pattern.compile("^\\**\\s*\\(" + VALUE + " by default"),
            Pattern.compile("^\\*\\*:\\s+(?:leave (?:it )?at\\s+)?" + VALUE + "[.,]"));

    @Test
    void everyDefaultNamedInProseIsTheCataloguesDefault() throws IOException {
        List<Found> found = scan(pages());
        List<String> wrong = new ArrayList<>();
        for (Found f : found) {
            String problem = check(f);
            if (problem != null) {
                wrong.add(problem);
            }
        }
        assertThat(wrong).as("defaults named in prose that are not the catalogue's").isEmpty();
        assertThat(found).as("defaults named in prose (the scan is not empty)").hasSizeGreaterThanOrEqualTo(15);
    }

    @Test
    void aDefaultTypedWrongIsFound() {
        Map<String, String> pages = new LinkedHashMap<>();
        pages.put("p.md", "The GC runs every `gendurable.gc.interval` (default 45 s). "
                + "A `max-batch` of 100 by default.\n\n- **`flushers[i].parallelism`**: 3. More helps only…\n"
                + "- `gendurable.poke.window` (default `PT0.05S`) and `lease-ttl`, 60 s by default.\n");
        List<String> problems = scan(pages).stream().map(ProseDefaultsTest::check).filter(Objects::nonNull).toList();
        assertThat(problems).hasSize(3)
                .anySatisfy(p -> assertThat(p).contains("gc.interval").contains("45 s").contains("PT1M"))
                .anySatisfy(p -> assertThat(p).contains("flushers[i].max-batch").contains("100"))
                .anySatisfy(p -> assertThat(p).contains("flushers[i].parallelism").contains("3"));
    }

    /** A default named in prose: where, which key, the value as written. */
    record Found(String where, ConfigKey<?> key, String value) {
    }

    static List<Found> scan(Map<String, String> pages) {
        List<Found> found = new ArrayList<>();
        pages.forEach((name, text) -> {
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                Matcher m = MENTION.matcher(lines[i]);
                while (m.find()) {
                    ConfigKey<?> key = resolve(m.group(1));
                    if (key == null) {
                        continue;
                    }
                    String after = lines[i].substring(m.end()) + (i + 1 < lines.length ? " " + lines[i + 1] : "");
                    for (Pattern form : FORMS) {
                        Matcher v = form.matcher(after);
                        if (v.find()) {
                            found.add(new Found(name + ":" + (i + 1), key, v.group(1)));
                            break;
                        }
                    }
                }
            }
        });
        return found;
    }

    /** The key a mention names: its full name, or a last part only one key has. */
    static ConfigKey<?> resolve(String mention) {
        ConfigKey<?> suffix = null;
        int suffixes = 0;
        for (ConfigKey<?> key : ConfigCatalogue.all()) {
            if (key.name().equals(mention) || key.name().replace("[i]", "[0]").equals(mention)) {
                return key;
            }
            if (mention.contains("-") && (key.name().endsWith("." + mention) || key.name().endsWith("]." + mention))) {
                suffix = key;
                suffixes++;
            }
        }
        return suffixes == 1 ? suffix : null;
    }

    /** @return a problem, or null when the value is the key's default */
    static String check(Found f) {
        String literal = literal(f.value());
        Object value;
        try {
            value = f.key().parse("0", literal);
        } catch (RuntimeException e) {
            return f.where() + ": gendurable." + f.key().name() + " named with default '" + f.value() + "', which it does not accept";
        }
        if (!Objects.equals(value, f.key().defaultValue())) {
            return f.where() + ": gendurable." + f.key().name() + " named with default '" + f.value() + "', but its default is "
                    + cast(f.key()).format(cast(f.key()).defaultValue());
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private static ConfigKey<Object> cast(ConfigKey<?> key) {
        return (ConfigKey<Object>) key;
    }

    /** Prose to the key's text: "30 s" to PT30S, "1,024" to 1024, `x` to x. */
    static String literal(String prose) {
        String v = prose.strip();
        if (v.startsWith("`")) {
            return v.substring(1, v.length() - 1);
        }
        Matcher d = Pattern.compile("([\\d,.]+)\\s?(ms|s|min|minutes?|seconds?|hours?|h|days?|KiB|MiB)").matcher(v);
        if (d.matches()) {
            String n = d.group(1).replace(",", "");
            return switch (d.group(2)) {
                case "ms" -> n;
                case "s", "second", "seconds" -> "PT" + n + "S";
                case "min", "minute", "minutes" -> "PT" + n + "M";
                case "h", "hour", "hours" -> "PT" + n + "H";
                case "KiB" -> String.valueOf(Math.round(Double.parseDouble(n) * 1024));
                case "MiB" -> String.valueOf(Math.round(Double.parseDouble(n) * 1024 * 1024));
                default -> "P" + n + "D";
            };
        }
        return v.replace(",", "");
    }

    /** README.md and every page of docs/, without fenced code and without the reference table's rows. */
    private static Map<String, String> pages() throws IOException {
        Map<String, String> pages = new LinkedHashMap<>();
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        for (Path p : files) {
            String text = Pattern.compile("(?ms)^\\s*```.*?^\\s*```").matcher(Files.readString(p))
                    .replaceAll(r -> r.group().replaceAll("[^\\n]", ""));
            if (p.getFileName().toString().equals("configuration.md")) {
                text = text.replaceAll("(?m)^\\|\\s*`gendurable\\.[^\n]*", "");
            }
            pages.put(ROOT.relativize(p).toString(), text);
        }
        return pages;
    }
}
