package io.gendurable.docs.samples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Checks of {@code README.md} and {@code docs/} that a careful reader would otherwise make by hand:
 * every page is listed, no page names an internal tracking number, a sentence that announces "six
 * things:" lists six, the Open Liberty download is given the same size everywhere, and every
 * relative link (to a file, and to a heading of a Markdown file) leads somewhere; every table,
 * index and sequence name a page gives is in the migrations; and every class, member and method
 * signature docs/internals.md quotes is declared in the code.
 *
 * <p>JDK only, so that it runs as a single source file against any checkout. From the repository
 * root: {@code java gen-durable-docs-samples/src/test/java/io/gendurable/docs/samples/DocsChecks.java .}
 * lists the problems (exit status 1 when there are some); {@code --counts} also prints every
 * counted announcement it checked. {@code DocsChecksTest} runs it under {@code mvn verify}.
 */
public final class DocsChecks {

    /** A link to a page of docs/ from the README. */
    private static final Pattern README_LINK = Pattern.compile("\\]\\(docs/([\\w.-]+\\.md)");
    /** A link to a sibling page from a page of docs/. */
    private static final Pattern PAGE_LINK = Pattern.compile("\\]\\(([\\w.-]+\\.md)");
    /** "issue 7", "issues #12", "defect 3", "ticket 9": numbers that only mean something inside the project. */
    static final Pattern TRACKING_NUMBER = Pattern.compile("(?i)\\b(?:issues?|defects?|tickets?)\\s+#?\\d+");
    /**
     * "needs the same six things as in Liberty:" — a count, a noun, a few words, a colon. Not right
     * after "the" ("do not mix the two ways on one database: …" refers back; it does not list).
     */
    static final Pattern COUNTED = Pattern.compile(
            "(?i)(?<!\\bthe )\\b(two|three|four|five|six|seven|eight|nine|ten) (?:things|ways|rules|cases|reasons|parts|kinds|checks)\\b([^.:]{0,120}):");
    private static final List<String> NUMBERS = List.of("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten");
    private static final Pattern LIST_ITEM = Pattern.compile("^(?:[-*] |\\d+\\. )");
    private static final Pattern MEGABYTES = Pattern.compile("(\\d[\\d,.]*) ?MB\\b");

    private DocsChecks() {
    }

    /**
     * Everything these checks find in a checkout.
     *
     * @param root the repository root (holding {@code README.md} and {@code docs/})
     * @return one line per problem, empty when there is none
     */
    public static List<String> problems(Path root) {
        List<String> problems = new ArrayList<>();
        problems.addAll(unlistedPages(root));
        Map<String, String> texts = texts(root);
        texts.forEach((name, text) -> {
            problems.addAll(trackingNumbers(name, text));
            problems.addAll(miscounts(name, text));
        });
        problems.addAll(libertySizes(texts));
        problems.addAll(brokenLinks(root));
        problems.addAll(schemaNames(root, texts));
        problems.addAll(quotedSignatures(root, "docs/internals.md"));
        problems.addAll(unmappedPackages(root));
        return problems;
    }

    /**
     * Pages of docs/ that the README's "Documentation" section or docs/index.md does not link.
     *
     * @param root the repository root
     * @return one line per missing link
     */
    public static List<String> unlistedPages(Path root) {
        List<String> problems = new ArrayList<>();
        Set<String> pages = new TreeSet<>();
        try (Stream<Path> s = Files.list(root.resolve("docs"))) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".md")).forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String readme = read(root.resolve("README.md"));
        int start = readme.indexOf("\n## Documentation");
        if (start < 0) {
            problems.add("README.md: no '## Documentation' section");
        } else {
            int end = readme.indexOf("\n## ", start + 1);
            Set<String> listed = links(README_LINK, readme.substring(start, end < 0 ? readme.length() : end));
            for (String page : pages) {
                if (!listed.contains(page)) {
                    problems.add("README.md: the Documentation section does not link docs/" + page);
                }
            }
        }
        Set<String> indexed = links(PAGE_LINK, read(root.resolve("docs/index.md")));
        for (String page : pages) {
            if (!page.equals("index.md") && !indexed.contains(page)) {
                problems.add("docs/index.md: does not link " + page);
            }
        }
        return problems;
    }

    /**
     * Mentions of an internal tracking number.
     *
     * @param name the file's name, for the message
     * @param text its text
     * @return one line per mention
     */
    public static List<String> trackingNumbers(String name, String text) {
        List<String> problems = new ArrayList<>();
        Matcher m = TRACKING_NUMBER.matcher(text);
        while (m.find()) {
            problems.add(name + ":" + line(text, m.start()) + ": names an internal tracking number: '" + m.group() + "'");
        }
        return problems;
    }

    /**
     * Sentences that announce a number of things and then list another number: "five things:"
     * followed by a bullet list, or by an inline list up to the end of the sentence ("A, B, and C.").
     *
     * @param name the file's name, for the message
     * @param text its text
     * @return one line per miscount
     */
    public static List<String> miscounts(String name, String text) {
        List<String> problems = new ArrayList<>();
        Matcher m = COUNTED.matcher(text);
        while (m.find()) {
            if (m.group(2).contains("\n\n")) {
                continue;
            }
            int announced = NUMBERS.indexOf(m.group(1).toLowerCase()) + 2;
            int listed = countListed(text.substring(m.end()));
            if (listed > 0 && listed != announced) {
                problems.add(name + ":" + line(text, m.start()) + ": announces " + m.group(1).toLowerCase() + " ("
                        + announced + ") but lists " + listed + ": '" + m.group().replaceAll("\\s+", " ") + "'");
            }
        }
        return problems;
    }

    /** The items after a colon: a bullet list's top-level items, or an inline list's; 0 when neither is clear. */
    static int countListed(String after) {
        String rest = after.stripLeading();
        if (LIST_ITEM.matcher(rest).find() && after.substring(0, after.length() - rest.length()).contains("\n")) {
            int items = 0;
            for (String line : rest.split("\n", -1)) {
                if (LIST_ITEM.matcher(line).find()) {
                    items++;
                } else if (!line.isBlank() && !Character.isWhitespace(line.charAt(0))) {
                    break;
                }
            }
            return items;
        }
        Matcher end = Pattern.compile("\\.(\\s|$)").matcher(rest);
        if (!end.find()) {
            return 0;
        }
        String sentence = rest.substring(0, end.start()).replaceAll("\\s+", " ");
        List<String> parts = new ArrayList<>();
        int depth = 0;
        boolean code = false;
        StringBuilder part = new StringBuilder();
        for (char c : sentence.toCharArray()) {
            if (c == '`') {
                code = !code;
            } else if (!code && (c == '(' || c == '[')) {
                depth++;
            } else if (!code && (c == ')' || c == ']')) {
                depth--;
            } else if (!code && depth == 0 && c == ',') {
                parts.add(part.toString().strip());
                part.setLength(0);
                continue;
            }
            part.append(c);
        }
        parts.add(part.toString().strip());
        String last = parts.get(parts.size() - 1);
        if (parts.size() > 1 && (last.startsWith("and ") || last.startsWith("or "))) {
            return parts.size();
        }
        return last.contains(" and ") || last.contains(" or ") ? parts.size() + 1 : parts.size();
    }

    /**
     * Paragraphs that give the Open Liberty runtime a size in MB must all give the same figures.
     *
     * @param texts file name to text
     * @return one line per paragraph that differs from the first, or nothing
     */
    public static List<String> libertySizes(Map<String, String> texts) {
        List<String> problems = new ArrayList<>();
        String first = null;
        String firstFigures = null;
        for (Map.Entry<String, String> e : texts.entrySet()) {
            for (String paragraph : e.getValue().split("\n\\s*\n")) {
                if (!paragraph.contains("Liberty")) {
                    continue;
                }
                List<String> figures = new ArrayList<>();
                Matcher m = MEGABYTES.matcher(paragraph);
                while (m.find()) {
                    figures.add(m.group(1) + " MB");
                }
                if (figures.isEmpty()) {
                    continue;
                }
                String where = e.getKey() + ":" + line(e.getValue(), e.getValue().indexOf(paragraph));
                if (first == null) {
                    first = where;
                    firstFigures = figures.toString();
                } else if (!figures.toString().equals(firstFigures)) {
                    problems.add(where + ": gives the Liberty runtime " + figures + ", but " + first + " gives "
                            + firstFigures);
                }
            }
        }
        return problems;
    }


    private static final Path MIGRATIONS = Path.of("gen-durable-impl/src/main/resources/db/gendurable");
    /** A schema object's name in backticks: {@code gen_durable_pick}, {@code signals_dedup}, or a suffix after one ({@code _fsm}). */
    private static final Pattern SCHEMA_NAME = Pattern.compile("`((?:gen_durable|signals)(?:_[a-z0-9]+)*|_[a-z0-9_]+)`");

    /**
     * Table, index and sequence names the pages give that no migration creates. A suffix in
     * backticks after a full name on the same line ({@code `gen_durable_ops_status`, `_fsm`}) is
     * read with the full name's prefix ({@code gen_durable_ops_fsm}).
     *
     * @param root  the repository root
     * @param texts file name to text
     * @return one line per unknown name
     */
    public static List<String> schemaNames(Path root, Map<String, String> texts) {
        Set<String> known = schemaObjects(root);
        List<String> problems = new ArrayList<>();
        texts.forEach((name, text) -> {
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String prefix = null;
                Matcher m = SCHEMA_NAME.matcher(lines[i]);
                while (m.find()) {
                    String n = m.group(1);
                    if (n.startsWith("_")) {
                        if (prefix == null) {
                            continue;
                        }
                        n = prefix + n;
                    } else if (n.lastIndexOf('_') > "gen_durable".length()) {
                        prefix = n.substring(0, n.lastIndexOf('_'));
                    }
                    if (!known.contains(n)) {
                        problems.add(name + ":" + (i + 1) + ": names " + n + ", which the migrations do not leave");
                    }
                }
            }
        });
        return problems;
    }

    /** A statement that drops a schema object: the name in group 1. */
    private static final Pattern DROP = Pattern.compile(
            "(?i)\\bDROP\\s+(?:INDEX|TABLE|SEQUENCE|TYPE|CONSTRAINT|FUNCTION|TRIGGER|VIEW)\\s+(?:CONCURRENTLY\\s+)?(?:IF\\s+EXISTS\\s+)?(\\w+)");

    /**
     * The schema objects the migrations leave, read in version order: a name the scripts mention
     * exists from its first mention on, until a {@code DROP} removes it.
     *
     * @param root the repository root
     * @return the names of the tables, indexes, sequences, constraints and types that exist at the latest version
     */
    static Set<String> schemaObjects(Path root) {
        List<Path> scripts;
        try (Stream<Path> s = Files.list(root.resolve(MIGRATIONS))) {
            scripts = s.filter(p -> p.getFileName().toString().matches("V\\d+__.*\\.sql"))
                    .sorted(java.util.Comparator.comparingInt(
                            p -> Integer.parseInt(p.getFileName().toString().replaceAll("^V(\\d+)__.*", "$1"))))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Set<String> known = new TreeSet<>();
        Pattern name = Pattern.compile("\\b(?:gen_durable|signals)\\w*");
        for (Path script : scripts) {
            String sql = read(script).replaceAll("--[^\\n]*", "");
            for (String statement : sql.split(";")) {
                Matcher drop = DROP.matcher(statement);
                Set<String> dropped = new TreeSet<>();
                while (drop.find()) {
                    dropped.add(drop.group(1));
                }
                Matcher w = name.matcher(statement);
                while (w.find()) {
                    if (!dropped.contains(w.group())) {
                        known.add(w.group());
                    }
                }
                known.removeAll(dropped);
            }
        }
        return known;
    }

    /** A quoted member: {@code Type.member}, {@code Type.Nested#member}, with or without its arguments. */
    private static final Pattern QUOTED_MEMBER = Pattern.compile("`([A-Z][A-Za-z0-9]*(?:\\.[A-Z][A-Za-z0-9]*)*)[.#]([a-zA-Z][A-Za-z0-9_]*)(\\([^`()]*(?:\\([^`()]*\\))?[^`()]*\\))?`");
    /** A quoted call with no type: {@code admit(candidates, queue)}. */
    private static final Pattern QUOTED_CALL = Pattern.compile("`([a-z][A-Za-z0-9]*)\\(([^`()]*)\\)`");
    /** A quoted type alone, perhaps after its package: {@code Scheduler}, {@code claim.Scheduler}. */
    private static final Pattern QUOTED_TYPE = Pattern.compile("`(?:[a-z][a-z0-9]*\\.)*([A-Z][a-z][A-Za-z0-9]*)`");
    private static final Pattern TYPE_DECL = Pattern.compile("\\b(?:class|interface|record|enum|@interface)\\s+([A-Z]\\w*)");
    /** Types of the libraries the engine uses that a page quotes as such. */
    private static final Set<String> LIBRARY_TYPES = Set.of("OpenTelemetry", "DataSource", "MeterRegistry", "MetricRegistry");
    /** SQL functions a page quotes as calls. */
    private static final Set<String> SQL_FUNCTIONS = Set.of("unnest", "count", "now", "coalesce", "greatest", "least", "nextval");

    /**
     * Types, members and calls a page quotes that the code does not declare: a type in backticks
     * must be declared in some module's sources (tests included); {@code Type.member} must be
     * declared in the file that declares {@code Type} (a method, field, constant, nested type or
     * record component), with as many parameters as the quote gives arguments; a bare
     * {@code method(a, b)} must be a method some main source declares with that many parameters.
     *
     * @param root the repository root
     * @param page the page, relative to the root
     * @return one line per quote the code does not hold
     */
    public static List<String> quotedSignatures(Path root, String page) {
        Map<String, List<String>> typeFiles = new LinkedHashMap<>();
        Map<String, Map<String, Set<Integer>>> declared = new java.util.IdentityHashMap<>();
        Map<String, Set<Integer>> mainMethods = new LinkedHashMap<>();
        for (Path p : javaSources(root)) {
            {
                String src = read(p);
                Matcher t = TYPE_DECL.matcher(src);
                while (t.find()) {
                    typeFiles.computeIfAbsent(t.group(1), k -> new ArrayList<>()).add(src);
                }
                if (p.toString().contains("/src/main/java/")) {
                    declaredMethods(src).forEach((m, arities) -> mainMethods.computeIfAbsent(m, k -> new TreeSet<>()).addAll(arities));
                }
            }
        }
        List<String> problems = new ArrayList<>();
        String text = withoutCode(read(root.resolve(page)));
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String where = page + ":" + (i + 1);
            Matcher t = QUOTED_TYPE.matcher(lines[i]);
            while (t.find()) {
                if (!typeFiles.containsKey(t.group(1)) && !LIBRARY_TYPES.contains(t.group(1))) {
                    problems.add(where + ": quotes `" + t.group(1) + "`, a type the code does not declare");
                }
            }
            Matcher m = QUOTED_MEMBER.matcher(lines[i]);
            while (m.find()) {
                String[] types = m.group(1).split("\\.");
                String type = types[types.length - 1];
                List<String> files = typeFiles.get(types[0]);
                if (files == null || types.length > 1 && !typeFiles.containsKey(type)) {
                    problems.add(where + ": quotes `" + m.group(1) + "`, a type the code does not declare");
                    continue;
                }
                String member = m.group(2);
                Integer arity = m.group(3) == null ? null : arity(m.group(3).substring(1, m.group(3).length() - 1));
                boolean found = false;
                for (String src : files) {
                    Set<Integer> arities = declared.computeIfAbsent(src, DocsChecks::declaredMethods).get(member);
                    if (arities != null && (arity == null || arity < 0 || arities.contains(arity))) {
                        found = true;
                    } else if (arity == null && Pattern.compile("\\b(?:class|interface|record|enum)\\s+" + member + "\\b|\\b"
                            + member + "\\s*(?:=|;|,|\\()|[(,]\\s*[\\w<>\\[\\]?, ]+\\s" + member + "\\s*[,)]").matcher(src).find()) {
                        found = true;
                    }
                }
                if (!found) {
                    problems.add(where + ": quotes `" + m.group() .replace("`", "") + "`, which " + types[0]
                            + (arity == null || arity < 0 ? " does not declare" : " does not declare with " + arity + " parameters"));
                }
            }
            Matcher c = QUOTED_CALL.matcher(lines[i]);
            while (c.find()) {
                String method = c.group(1);
                if (SQL_FUNCTIONS.contains(method) || method.contains("_")) {
                    continue;
                }
                int arity = arity(c.group(2));
                Set<Integer> arities = mainMethods.get(method);
                if (arities == null || arity >= 0 && !arities.contains(arity)) {
                    problems.add(where + ": quotes `" + c.group().replace("`", "") + "`, a method no source declares"
                            + (arities == null ? "" : " with " + arity + " parameters"));
                }
            }
        }
        return problems;
    }

    /**
     * Packages of the engine that the "Where things are" table of docs/internals.md does not list.
     *
     * @param root the repository root
     * @return one line per package without a row
     */
    public static List<String> unmappedPackages(Path root) {
        Path impl = root.resolve("gen-durable-impl/src/main/java/io/gendurable/impl");
        String page = read(root.resolve("docs/internals.md"));
        List<String> problems = new ArrayList<>();
        try (Stream<Path> s = Files.list(impl)) {
            s.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().forEach(pkg -> {
                if (!page.contains("\n| `" + pkg + "` |")) {
                    problems.add("docs/internals.md: 'Where things are' has no row for the package impl." + pkg);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return problems;
    }

    /** Every .java file under a src folder of the checkout, build output and version control left out. */
    private static List<Path> javaSources(Path root) {
        List<Path> files = new ArrayList<>();
        try {
            Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
                @Override
                public java.nio.file.FileVisitResult preVisitDirectory(Path dir, java.nio.file.attribute.BasicFileAttributes a) {
                    String n = dir.getFileName() == null ? "" : dir.getFileName().toString();
                    return !dir.equals(root) && (n.equals("target") || n.startsWith(".") || n.equals("node_modules"))
                            ? java.nio.file.FileVisitResult.SKIP_SUBTREE : java.nio.file.FileVisitResult.CONTINUE;
                }

                @Override
                public java.nio.file.FileVisitResult visitFile(Path f, java.nio.file.attribute.BasicFileAttributes a) {
                    if (f.toString().endsWith(".java") && f.toString().contains("/src/")) {
                        files.add(f);
                    }
                    return java.nio.file.FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** Method name to the parameter counts it is declared with in a source; a record's components count as methods of none. */
    static Map<String, Set<Integer>> declaredMethods(String src) {
        Map<String, Set<Integer>> methods = new LinkedHashMap<>();
        Matcher d = Pattern.compile("(?m)^\\s*(?:@\\w+(?:\\([^)]*\\))?\\s+)*(?:(?:public|protected|private|static|final|default|abstract|synchronized)\\s+)*"
                + "(?:<[^>]+>\\s+)?[\\w.<>\\[\\],?]+(?:<[^;{}()]*>)?(?:\\[])*\\s+(\\w+)\\s*\\(").matcher(src);
        while (d.find()) {
            int close = closing(src, d.end() - 1);
            if (close < 0) {
                continue;
            }
            String after = src.substring(close + 1, Math.min(src.length(), close + 200)).stripLeading();
            if (after.startsWith("{") || after.startsWith(";") || after.startsWith("throws")) {
                methods.computeIfAbsent(d.group(1), k -> new TreeSet<>()).add(arity(src.substring(d.end(), close)));
            }
        }
        Matcher r = Pattern.compile("\\brecord\\s+\\w+\\s*(?:<[^>]*>)?\\s*\\(").matcher(src);
        while (r.find()) {
            int close = closing(src, r.end() - 1);
            for (String component : splitTop(src.substring(r.end(), close))) {
                String[] words = component.strip().split("\\s+");
                if (!component.isBlank()) {
                    methods.computeIfAbsent(words[words.length - 1], k -> new TreeSet<>()).add(0);
                }
            }
        }
        return methods;
    }

    /** The number of parameters or arguments of a list; -1 when it holds an ellipsis (any number). */
    static int arity(String list) {
        if (list.contains("…") || list.contains("...")) {
            return -1;
        }
        return list.isBlank() ? 0 : splitTop(list).size();
    }

    private static List<String> splitTop(String list) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        StringBuilder part = new StringBuilder();
        for (char ch : list.toCharArray()) {
            if (ch == '<' || ch == '(' || ch == '[' || ch == '{') {
                depth++;
            } else if (ch == '>' || ch == ')' || ch == ']' || ch == '}') {
                depth--;
            } else if (ch == ',' && depth == 0) {
                parts.add(part.toString());
                part.setLength(0);
                continue;
            }
            part.append(ch);
        }
        parts.add(part.toString());
        return parts;
    }

    private static int closing(String s, int open) {
        int depth = 0;
        for (int i = open; i < s.length(); i++) {
            if (s.charAt(i) == '(') {
                depth++;
            } else if (s.charAt(i) == ')' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    /** A Markdown link's target, outside code: {@code [text](target)}. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern FENCED = Pattern.compile("(?ms)^\\s*```.*?^\\s*```");
    /** The Markdown files whose links are followed, from the repository root; missing ones are skipped. */
    static final List<String> LINKED_FILES = List.of("README.md", "CONTRIBUTING.md", "CHANGELOG.md",
            "gen-durable-bench/results/LOG.md", "gen-durable-chaos/results/LOG.md");

    /**
     * Relative links that lead nowhere: to a missing file, or to a heading a Markdown file does not
     * have (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens, "-1" for a repeat).
     *
     * @param root the repository root
     * @return one line per broken link
     */
    public static List<String> brokenLinks(Path root) {
        List<Path> files = new ArrayList<>();
        for (String name : LINKED_FILES) {
            if (Files.exists(root.resolve(name))) {
                files.add(root.resolve(name));
            }
        }
        try (Stream<Path> s = Files.list(root.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            String text = withoutCode(read(file));
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue;
                }
                int hash = target.indexOf('#');
                String path = hash < 0 ? target : target.substring(0, hash);
                Path to = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                String where = root.relativize(file) + ":" + line(text, m.start());
                if (!Files.exists(to)) {
                    problems.add(where + ": links " + target + ", which does not exist");
                } else if (hash >= 0 && to.toString().endsWith(".md") && !anchors(read(to)).contains(target.substring(hash + 1))) {
                    problems.add(where + ": links " + target + ", a heading " + root.relativize(to) + " does not have");
                }
            }
        }
        return problems;
    }

    /** The text with each fenced code block replaced by its line breaks, so that line numbers still hold. */
    private static String withoutCode(String markdown) {
        return FENCED.matcher(markdown).replaceAll(r -> r.group().replaceAll("[^\\n]", ""));
    }

    /** The anchors GitHub gives the headings of a Markdown text. */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new TreeSet<>();
        Map<String, Integer> seen = new LinkedHashMap<>();
        for (String line : FENCED.matcher(markdown).replaceAll("").split("\n")) {
            Matcher h = Pattern.compile("^#{1,6}\\s+(.*)").matcher(line);
            if (!h.find()) {
                continue;
            }
            String a = h.group(1).strip().toLowerCase(java.util.Locale.ROOT)
                    .replaceAll("\\[([^\\]]*)]\\([^)]*\\)", "$1")
                    .replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
            Integer n = seen.merge(a, 0, (old, zero) -> old + 1);
            anchors.add(n == 0 ? a : a + "-" + n);
        }
        return anchors;
    }

    /** @return README.md and every page of docs/, by name, in a stable order */
    static Map<String, String> texts(Path root) {
        Map<String, String> texts = new LinkedHashMap<>();
        texts.put("README.md", read(root.resolve("README.md")));
        try (Stream<Path> s = Files.list(root.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted()
                    .forEach(p -> texts.put("docs/" + p.getFileName(), read(p)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return texts;
    }

    /**
     * Prints the problems of a checkout.
     *
     * @param args the repository root (default {@code .}), optionally {@code --counts}
     */
    public static void main(String[] args) {
        Path root = Path.of(List.of(args).stream().filter(a -> !a.startsWith("--")).findFirst().orElse("."));
        if (List.of(args).contains("--counts")) {
            texts(root).forEach((name, text) -> {
                Matcher m = COUNTED.matcher(text);
                while (m.find()) {
                    System.out.println(name + ":" + line(text, m.start()) + ": '" + m.group().replaceAll("\\s+", " ")
                            + "' lists " + countListed(text.substring(m.end())));
                }
            });
        }
        List<String> problems = problems(root);
        problems.forEach(System.err::println);
        System.exit(problems.isEmpty() ? 0 : 1);
    }

    private static Set<String> links(Pattern link, String text) {
        Set<String> found = new TreeSet<>();
        Matcher m = link.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    private static int line(String text, int offset) {
        int n = 1;
        for (int i = 0; i < offset && i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
