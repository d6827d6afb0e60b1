package io.gendurable.admin.console;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ConsoleAssetsTest {
    private final ConsoleAssets assets = new ConsoleAssets();

    @Test
    void servesTheConsoleFilesWithTheirTypes() {
        assertThat(assets.find("index.html")).hasValueSatisfying(a -> {
            assertThat(a.contentType()).isEqualTo("text/html; charset=UTF-8");
            assertThat(new String(a.bytes(), StandardCharsets.UTF_8)).contains("console.js");
            assertThat(a.etag()).hasSize(32);
        });
        assertThat(assets.find("console.js")).hasValueSatisfying(a ->
                assertThat(a.contentType()).isEqualTo("text/javascript; charset=UTF-8"));
        assertThat(assets.find("console.css")).hasValueSatisfying(a ->
                assertThat(a.contentType()).isEqualTo("text/css; charset=UTF-8"));
        assertThat(assets.find("favicon.svg")).hasValueSatisfying(a ->
                assertThat(a.contentType()).isEqualTo("image/svg+xml"));
        for (String module : new String[]{"api.js", "router.js", "dom.js", "views/queues.js", "views/search.js",
                "views/instance.js", "views/fsms.js", "views/not-found.js"}) {
            assertThat(assets.find(module)).as(module).hasValueSatisfying(a ->
                    assertThat(a.contentType()).isEqualTo("text/javascript; charset=UTF-8"));
        }
    }

    @Test
    void nothingOutsideTheConsoleFolderIsReachable() {
        for (String name : new String[]{"../ConsoleAssets.class", "..%2FConsoleAssets.class", "ConsoleAssets.class",
                "/index.html", "sub/index.html", "..\\index.html", ".index.html", "index.html ", "missing.js",
                "META-INF/beans.xml", "", "INDEX.HTML"}) {
            assertThat(assets.find(name)).as(name).isEmpty();
        }
        assertThat(assets.find(null)).isEmpty();
    }

    @Test
    void theViewsFolderServesItsModulesOnly() {
        assertThat(assets.find("views/queues.js")).isPresent();  // the name below would reach it, were it not refused
        for (String name : new String[]{"views/../console.js", "views/../../ConsoleAssets.class", "views/..%2Fconsole.js",
                "views//queues.js", "views/./queues.js", "views/sub/queues.js", "views/", "views", "views/.js",
                "views\\queues.js", "VIEWS/queues.js", "view/queues.js", "other/queues.js", "/views/queues.js",
                "views/queues.css", "views/index.html", "views/queues.js/", "views/missing.js", "console.js/../views/queues.js"}) {
            assertThat(assets.find(name)).as(name).isEmpty();
        }
    }

    @Test
    void theEtagFollowsTheContent() {
        assertThat(assets.find("console.js").orElseThrow().etag())
                .isNotEqualTo(assets.find("console.css").orElseThrow().etag());
        assertThat(assets.find("console.js").orElseThrow().etag()).isEqualTo(new ConsoleAssets().find("console.js").orElseThrow().etag());
    }
}
