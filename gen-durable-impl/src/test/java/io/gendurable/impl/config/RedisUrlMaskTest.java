package io.gendurable.impl.config;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up line ({@link EngineConfig#describe()}) prints {@code gendurable.redis.url} with
 * every credential form the Redis client accepts masked. Before, only {@code user:password@} was:
 * a password-only URL ({@code redis://secret@host}, which Lettuce reads as a password) was printed
 * as it was. Each case asks Lettuce which password it would send, so the test follows the client.
 */
class RedisUrlMaskTest {

    private static String masked(String url) {
        return ValueType.URL.formatter().apply(url);
    }

    /** @return the password Lettuce sends for the URL */
    private static String passwordOf(String url) {
        RedisCredentials c = RedisURI.create(url).getCredentialsProvider().resolveCredentials().block();
        return c == null || !c.hasPassword() ? null : new String(c.getPassword());
    }

    @Test
    void everyCredentialFormTheClientAcceptsIsMasked() {
        String[][] cases = {
                // URL, what the line shows
                {"redis://s3cret@cache:6379/2", "redis://***@cache:6379/2"},
                {"redis://:s3cret@cache:6379", "redis://***@cache:6379"},
                {"redis://app:s3cret@cache:6379/2", "redis://app:***@cache:6379/2"},
                {"rediss://s3cret@cache", "rediss://***@cache"},
                {"rediss://app:s3cret@cache:6380?timeout=5s", "rediss://app:***@cache:6380?timeout=5s"},
                {"redis://app:s3c@ret@cache:6379", "redis://app:***@cache:6379"},
                {"redis://s3c%40ret@cache", "redis://***@cache"},
                {"redis://app:s3c:ret@cache", "redis://app:***@cache"},
        };
        for (String[] c : cases) {
            String password = passwordOf(c[0]);
            assertThat(password).as("Lettuce reads a password from %s", c[0]).isNotNull();
            assertThat(masked(c[0])).as(c[0]).isEqualTo(c[1]).doesNotContain(password).doesNotContain("s3c");
        }
    }

    @Test
    void aUrlWithoutCredentialsIsPrintedAsItIs() {
        for (String url : new String[]{"redis://127.0.0.1:6379", "redis://cache:6379/2?clientName=a@b", "rediss://cache"}) {
            assertThat(passwordOf(url)).as(url).isNull();
            assertThat(masked(url)).isEqualTo(url);
        }
    }
}
