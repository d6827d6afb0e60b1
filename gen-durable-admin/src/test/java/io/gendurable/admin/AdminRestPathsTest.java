package io.gendurable.admin;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The REST paths of the docs are the resources': the Endpoints table of docs/admin-rest.md lists
 * every method and path the JAX-RS resources of {@link GenDurableAdmin#classes()} serve, and no
 * other; and every path under {@code gendurable/} that any page or the README writes (a concrete
 * one such as {@code gendurable/instances/12/priority} included) is one the resources serve.
 */
class AdminRestPathsTest {

    private static final java.nio.file.Path ROOT = java.nio.file.Path.of("..");
    /** An endpoint in the first cell of a table row: method and path. */
    private static final Pattern ENDPOINT = Pattern.compile("`(GET|POST|PUT|DELETE|PATCH) (gendurable[^`?…]*)[^`]*`");
    /** A path under gendurable/ written anywhere, up to a character no path holds. */
    private static final Pattern PATH = Pattern.compile("(?<![\\w.])(?:[\\w:./<>-]*/)?(gendurable/[\\w{}.-]+(?:/[\\w{}.-]*)*)(?![\\w…])");

    @Test
    void theEndpointsTableListsEveryRouteOfTheResourcesAndNoOther() throws IOException {
        Set<String> routes = routes();
        assertThat(routes).as("routes of the resources").hasSizeGreaterThan(20).contains("POST gendurable/instances/{id}/cancel");
        Set<String> documented = documentedEndpoints(Files.readString(ROOT.resolve("docs/admin-rest.md")));
        assertThat(documented).as("endpoints of docs/admin-rest.md").containsAll(routes);
        assertThat(routes).as("routes of the resources, for docs/admin-rest.md's endpoints").containsAll(documented);
    }

    @Test
    void everyPathUnderGendurableOnAPageIsARouteOfTheResources() throws IOException {
        assertThat(unknownPaths(pages(), routes())).as("paths that no resource serves").isEmpty();
    }

    @Test
    void aPathTypedWrongIsFound() throws IOException {
        String page = "# P\n\n## Endpoints\n\n| `GET gendurable/instances?…` | viewer |\n| `POST gendurable/instances/{id}/rerun` | admin |\n\n"
                + "## Examples\n\ncurl -X POST http://h/sample/api/gendurable/instances/12/priority; see `gendurable/queue/paused`.\n";
        assertThat(documentedEndpoints(page)).containsExactly("GET gendurable/instances", "POST gendurable/instances/{id}/rerun");
        assertThat(unknownPaths(Map.of("p.md", page), routes())).containsExactly(
                "p.md:6: gendurable/instances/{id}/rerun", "p.md:10: gendurable/queue/paused");
    }

    /** Method and path of every resource method, the path as the docs write it ({@code gendurable/instances/{id}}). */
    static Set<String> routes() {
        Set<String> routes = new TreeSet<>();
        for (Class<?> c : GenDurableAdmin.classes()) {
            Path base = c.getAnnotation(Path.class);
            if (base == null) {
                continue;
            }
            for (Method m : c.getMethods()) {
                for (Annotation a : m.getAnnotations()) {
                    HttpMethod http = a.annotationType().getAnnotation(HttpMethod.class);
                    if (http != null) {
                        Path sub = m.getAnnotation(Path.class);
                        String path = base.value() + (sub == null ? "" : "/" + sub.value());
                        routes.add(http.value() + " " + normalize(path));
                    }
                }
            }
        }
        return routes;
    }

    /** Slashes collapsed, none at the end, a parameter's regular expression dropped ({@code {file: .+}} to {@code {file}}). */
    static String normalize(String path) {
        return path.replaceAll("\\{(\\w+)\\s*:[^}]*}", "{$1}").replaceAll("/+", "/").replaceAll("/$", "");
    }

    static Set<String> documentedEndpoints(String page) {
        int start = page.indexOf("\n## Endpoints");
        int end = page.indexOf("\n## ", start + 1);
        String section = page.substring(start, end < 0 ? page.length() : end);
        Set<String> endpoints = new TreeSet<>();
        for (String line : section.split("\n")) {
            if (!line.startsWith("| `")) {
                continue;
            }
            Matcher m = ENDPOINT.matcher(line.substring(0, line.indexOf('|', 1)));
            while (m.find()) {
                endpoints.add(m.group(1) + " " + normalize(m.group(2)));
            }
        }
        return endpoints;
    }

    static List<String> unknownPaths(Map<String, String> pages, Set<String> routes) {
        List<Pattern> templates = new ArrayList<>();
        for (String route : routes) {
            String path = route.substring(route.indexOf(' ') + 1);
            templates.add(Pattern.compile(Pattern.quote(path).replaceAll("\\{\\w+}", "\\\\E[^/]+\\\\Q")));
        }
        List<String> unknown = new ArrayList<>();
        pages.forEach((name, text) -> {
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                Matcher m = PATH.matcher(lines[i]);
                while (m.find()) {
                    String before = m.group().substring(0, m.group().length() - m.group(1).length());
                    if (before.endsWith("io/") || before.endsWith("db/")) {
                        continue;  // a Java package or the migrations' folder, not a URL
                    }
                    String path = normalize(m.group(1));
                    if (templates.stream().noneMatch(t -> t.matcher(path).matches())) {
                        unknown.add(name + ":" + (i + 1) + ": " + path);
                    }
                }
            }
        });
        return unknown;
    }

    private static Map<String, String> pages() throws IOException {
        Map<String, String> pages = new LinkedHashMap<>();
        pages.put("README.md", Files.readString(ROOT.resolve("README.md")));
        try (Stream<java.nio.file.Path> s = Files.list(ROOT.resolve("docs"))) {
            for (java.nio.file.Path p : s.filter(f -> f.toString().endsWith(".md")).sorted().toList()) {
                pages.put("docs/" + p.getFileName(), Files.readString(p));
            }
        }
        return pages;
    }
}
