package io.gendurable.impl.fencing;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fencing rule, checked over the engine's statements: every statement that writes rows while
 * they are {@code executing} (an {@code UPDATE} or {@code INSERT} whose text names that status)
 * either presents the claim's fencing token in its guard ({@code claim_token = <input>.token}) or
 * says in a {@code -- fence:} comment why it needs none (it takes a new claim and stamps a fresh
 * token; it takes lapsed claims back and clears their tokens; it writes no claimed row). A new
 * statement that writes claimed rows without either fails here, naming its file and line
 * (docs/internals.md, "Fencing").
 */
class FencingRuleTest {
    private static final Pattern TEXT_BLOCK = Pattern.compile("\"\"\"(.*?)\"\"\"", Pattern.DOTALL);
    private static final Pattern ROW_LOCK = Pattern.compile("FOR\\s+(NO\\s+KEY\\s+)?UPDATE");
    private static final Pattern WRITE = Pattern.compile("\\b(UPDATE|INSERT\\s+INTO)\\b");
    private static final Pattern TOKEN_GUARD = Pattern.compile("claim_token\\s*=\\s*\\w+\\.(token|claim_token)\\b");

    /** @return why the statement breaks the rule, or null when it keeps it */
    static String violation(String sql) {
        String text = ROW_LOCK.matcher(sql).replaceAll("");
        if (!WRITE.matcher(text).find() || !text.contains("'executing'")) {
            return null;
        }
        if (TOKEN_GUARD.matcher(text).find() || text.contains("-- fence:")) {
            return null;
        }
        return "writes executing rows with no claim_token guard and no '-- fence:' reason";
    }

    @Test
    void every_statement_that_writes_claimed_rows_names_its_fence() throws IOException {
        Path main = Path.of("src/main/java/io/gendurable/impl");
        List<String> broken = new ArrayList<>();
        int checked = 0;
        try (Stream<Path> files = Files.walk(main)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String source = Files.readString(f);
                Matcher m = TEXT_BLOCK.matcher(source);
                while (m.find()) {
                    String sql = m.group(1);
                    if (WRITE.matcher(ROW_LOCK.matcher(sql).replaceAll("")).find() && sql.contains("'executing'")) {
                        checked++;
                    }
                    String why = violation(sql);
                    if (why != null) {
                        int line = source.substring(0, m.start()).split("\n", -1).length;
                        broken.add(main.relativize(f) + ":" + line + " " + why);
                    }
                }
            }
        }
        assertThat(checked).as("statements that write executing rows (the rule checks something)").isGreaterThan(8);
        assertThat(broken).isEmpty();
    }

    @Test
    void the_rule_catches_an_unfenced_write_and_passes_a_fenced_one() {
        assertThat(violation("UPDATE %1$s g SET lease_expires_at = ? WHERE g.id = ? AND g.status = 'executing'"))
                .isNotNull();
        assertThat(violation("UPDATE %1$s g SET status = 'runnable' FROM mine m WHERE g.claim_token = m.token "
                + "AND g.status::text = 'executing'")).isNull();
        assertThat(violation("SELECT id FROM %1$s WHERE status = 'executing' FOR NO KEY UPDATE SKIP LOCKED")).isNull();
        assertThat(violation("-- fence: takes a new claim\nUPDATE %1$s SET status = 'executing', claim_token = nextval('s')"))
                .isNull();
    }
}
