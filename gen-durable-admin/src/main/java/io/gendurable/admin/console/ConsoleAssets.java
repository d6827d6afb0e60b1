package io.gendurable.admin.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The web console's static files, read from this jar's classpath under
 * {@value #ROOT}. Only flat names of known kinds are served ({@code console.js}, {@code index.html}…),
 * and the modules of the one folder {@code views/} ({@code views/queues.js}): no other folder, no {@code ..},
 * no other resource of the class path can be reached through the console's path.
 */
final class ConsoleAssets {
    /** Where the files are, on the class path. */
    static final String ROOT = "io/gendurable/admin/console/";

    private static final Pattern NAME = Pattern.compile(
            "[a-z0-9][a-z0-9-]{0,63}\\.(html|js|css|svg|png|ico)|views/[a-z0-9][a-z0-9-]{0,63}\\.js");
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=UTF-8",
            "js", "text/javascript; charset=UTF-8",
            "css", "text/css; charset=UTF-8",
            "svg", "image/svg+xml",
            "png", "image/png",
            "ico", "image/x-icon");

    private final Map<String, Asset> cache = new ConcurrentHashMap<>();

    /**
     * One file.
     *
     * @param bytes       its content
     * @param contentType its media type
     * @param etag        a strong validator: a hash of the content
     */
    record Asset(byte[] bytes, String contentType, String etag) {
    }

    /**
     * @param name a file name, e.g. {@code console.js} or {@code views/queues.js}
     * @return the file, or empty when the name is not one the console serves or no such file exists
     */
    Optional<Asset> find(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            return Optional.empty();
        }
        Asset cached = cache.get(name);
        if (cached != null) {
            return Optional.of(cached);
        }
        try (InputStream in = ConsoleAssets.class.getClassLoader().getResourceAsStream(ROOT + name)) {
            if (in == null) {
                return Optional.empty();
            }
            byte[] bytes = in.readAllBytes();
            String ext = name.substring(name.lastIndexOf('.') + 1);
            Asset asset = new Asset(bytes, TYPES.get(ext), hash(bytes));
            cache.put(name, asset);
            return Optional.of(asset);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the console file " + ROOT + name, e);
        }
    }

    private static String hash(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
