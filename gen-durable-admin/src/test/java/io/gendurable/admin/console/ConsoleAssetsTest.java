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
    void theEtagFollowsTheContent() {
        assertThat(assets.find("console.js").orElseThrow().etag())
                .isNotEqualTo(assets.find("console.css").orElseThrow().etag());
        assertThat(assets.find("console.js").orElseThrow().etag()).isEqualTo(new ConsoleAssets().find("console.js").orElseThrow().etag());
    }
}
