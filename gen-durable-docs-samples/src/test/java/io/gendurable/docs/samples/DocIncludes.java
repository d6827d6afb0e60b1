package io.gendurable.docs.samples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Keeps the code blocks of the Markdown pages in {@code docs/} equal to the compiled samples.
 *
 * <p>A page includes a snippet with
 * <pre>
 * &lt;!-- include: ../gen-durable-docs-samples/src/main/java/.../Checkout.java#checkout --&gt;
 * ```java
 * (the snippet's text, written by this tool)
 * ```
 * &lt;!-- end include --&gt;
 * </pre>
 * where the path is relative to the page and the snippet lies between {@code // tag::checkout[]} and
 * {@code // end::checkout[]} in the source (other tag lines inside it are dropped, and the common
 * indentation is removed).
 *
 * <p>JDK only, so that it runs as a single source file. From the repository root:
 * {@code java gen-durable-docs-samples/src/test/java/io/gendurable/docs/samples/DocIncludes.java docs}
 * rewrites every include block from its source; add {@code --check} to only list the differences
 * (exit status 1 when there are some). {@code DocsIncludesTest} runs the check under {@code mvn verify}.
 */
public final class DocIncludes {

    /** An include region: the marker line, the body, the end marker. */
    static final Pattern INCLUDE = Pattern.compile(
            "<!-- include: (\\S+?)#(\\S+?) -->\\n(.*?)<!-- end include -->", Pattern.DOTALL);
    private static final Pattern JAVA_FENCE = Pattern.compile("(?m)^\\s*```java\\s*$");
    private static final Pattern TAG = Pattern.compile("(?:tag|end)::([\\w.-]+)\\[\\]");
    /** A line that opens a snippet: a comment holding only the marker. */
    private static final Pattern TAG_LINE = Pattern.compile("(?m)^\\s*(?://|#|<!--)\\s*tag::([\\w.-]+)\\[\\]");

    private DocIncludes() {
    }

    /**
     * The text between {@code tag::name[]} and {@code end::name[]} in a source file.
     *
     * @param source the file
     * @param name   the tag
     * @return the snippet, dedented, ending with a newline
     * @throws IllegalArgumentException when the tag is missing or unclosed
     */
    public static String snippet(Path source, String name) {
        List<String> lines = read(source).lines().toList();
        List<String> out = new ArrayList<>();
        boolean in = false;
        boolean closed = false;
        for (String line : lines) {
            if (line.contains("tag::" + name + "[]")) {
                in = true;
                continue;
            }
            if (line.contains("end::" + name + "[]")) {
                closed = in;
                break;
            }
            if (in && !TAG.matcher(line).find()) {
                out.add(line);
            }
        }
        if (!closed) {
            throw new IllegalArgumentException("no tag::" + name + "[] … end::" + name + "[] in " + source);
        }
        int indent = out.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        StringBuilder sb = new StringBuilder();
        for (String l : out) {
            sb.append(l.isBlank() ? "" : l.substring(indent).stripTrailing()).append('\n');
        }
        return sb.toString();
    }

    /**
     * A page with every include block rewritten from its source.
     *
     * @param page a Markdown file
     * @return its text with up-to-date blocks
     */
    public static String render(Path page) {
        String text = read(page);
        Matcher m = INCLUDE.matcher(text);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            Path source = page.toAbsolutePath().getParent().resolve(m.group(1)).normalize();
            String block = "<!-- include: " + m.group(1) + "#" + m.group(2) + " -->\n```" + language(source) + "\n"
                    + snippet(source, m.group(2)) + "```\n<!-- end include -->";
            m.appendReplacement(sb, Matcher.quoteReplacement(block));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    /**
     * Everything wrong with the pages of a folder: an include block that differs from its source, an
     * include naming a missing file or tag, a {@code java} code block outside an include.
     *
     * @param docs     the folder of Markdown pages
     * @param excluded file names whose plain {@code java} blocks are tolerated (their includes are still checked)
     * @return one line per problem, empty when the pages are up to date
     */
    public static List<String> problems(Path docs, Set<String> excluded) {
        List<String> problems = new ArrayList<>();
        for (Path page : pages(docs)) {
            String text = read(page);
            try {
                if (!render(page).equals(text)) {
                    problems.add(page + ": an include block differs from its source snippet; regenerate with "
                            + "java gen-durable-docs-samples/src/test/java/io/gendurable/docs/samples/DocIncludes.java docs");
                }
            } catch (IllegalArgumentException e) {
                problems.add(page + ": " + e.getMessage());
            }
            if (!excluded.contains(page.getFileName().toString())) {
                String outside = INCLUDE.matcher(text).replaceAll("");
                Matcher fence = JAVA_FENCE.matcher(outside);
                if (fence.find()) {
                    problems.add(page + ": a ```java block is not an include of a compiled sample: "
                            + outside.substring(fence.end(), Math.min(outside.length(), fence.end() + 80)).strip());
                }
            }
        }
        return problems;
    }

    /**
     * Every {@code path#tag} that the pages of a folder include, as paths relative to the repository.
     *
     * @param docs the folder of Markdown pages
     * @return normalized absolute {@code path#tag} strings
     */
    public static Set<String> included(Path docs) {
        Set<String> used = new TreeSet<>();
        for (Path page : pages(docs)) {
            Matcher m = INCLUDE.matcher(read(page));
            while (m.find()) {
                used.add(page.toAbsolutePath().getParent().resolve(m.group(1)).normalize() + "#" + m.group(2));
            }
        }
        return used;
    }

    /**
     * Every tag defined in the files under a folder.
     *
     * @param root a source folder
     * @return normalized absolute {@code path#tag} strings
     */
    public static Set<String> defined(Path root) {
        Set<String> tags = new TreeSet<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Matcher m = TAG_LINE.matcher(read(f));
                while (m.find()) {
                    tags.add(f.toAbsolutePath().normalize() + "#" + m.group(1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tags;
    }

    /**
     * Rewrites the include blocks of every page, or with {@code --check} only lists what differs.
     *
     * @param args the docs folder (default {@code docs}), optionally {@code --check}
     */
    public static void main(String[] args) {
        boolean check = List.of(args).contains("--check");
        Path docs = Path.of(List.of(args).stream().filter(a -> !a.startsWith("--")).findFirst().orElse("docs"));
        if (check) {
            List<String> problems = problems(docs, Set.of());
            problems.forEach(System.err::println);
            System.exit(problems.isEmpty() ? 0 : 1);
        }
        for (Path page : pages(docs)) {
            String text = read(page);
            String rendered = render(page);
            if (!rendered.equals(text)) {
                write(page, rendered);
                System.out.println("updated " + page);
            }
        }
    }

    private static String language(Path source) {
        String name = source.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(dot + 1);
    }

    private static List<Path> pages(Path docs) {
        try (Stream<Path> s = Files.list(docs)) {
            return s.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path p, String text) {
        try {
            Files.writeString(p, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
