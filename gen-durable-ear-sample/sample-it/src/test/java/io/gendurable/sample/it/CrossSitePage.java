package io.gendurable.sample.it;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Another site: pages served from {@code http://127.0.0.1:<port>}, which is a different site from
 * {@code http://localhost:<it.http.port>} where the sample runs, as an attacker's page would be.
 * Client side only (never added to the WAR).
 */
final class CrossSitePage implements AutoCloseable {
    private final HttpServer server;
    private final Map<String, String> pages = new ConcurrentHashMap<>();

    private CrossSitePage(HttpServer server) {
        this.server = server;
    }

    static CrossSitePage start() {
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            CrossSitePage page = new CrossSitePage(s);
            s.createContext("/", exchange -> {
                String html = page.pages.get(exchange.getRequestURI().getPath());
                byte[] bytes = (html == null ? "no such page" : html).getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
                exchange.sendResponseHeaders(html == null ? 404 : 200, bytes.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            });
            s.start();
            return page;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param name a page's path, e.g. {@code /cancel}
     * @param html what it serves
     * @return its address
     */
    String page(String name, String html) {
        pages.put(name, html);
        return "http://127.0.0.1:" + server.getAddress().getPort() + name;
    }

    /**
     * @return a page that, once loaded, submits a form to {@code action} at the top level: the
     * browser follows it, so the answer becomes the page (which the test can read)
     */
    static String autoSubmittingForm(String action, String enctype, String inputName, String inputValue) {
        return "<!doctype html><html><body><form id='f' method='POST' enctype='" + enctype + "' action='" + action + "'>"
                + (inputName == null ? "" : "<input type='hidden' name='" + attr(inputName) + "' value='" + attr(inputValue) + "'>")
                + "</form><script>document.getElementById('f').submit();</script></body></html>";
    }

    /** @return a page that POSTs {@code body} as text/plain with fetch(no-cors, credentials: include), then sets its title */
    static String noCorsFetch(String url, String body) {
        return "<!doctype html><html><head><title>sending</title></head><body><script>"
                + "fetch('" + url + "', {method: 'POST', mode: 'no-cors', credentials: 'include', body: '" + body + "'})"
                + ".then(() => document.title = 'sent', e => document.title = 'sent: ' + e);</script></body></html>";
    }

    private static String attr(String s) {
        return s.replace("&", "&amp;").replace("'", "&#39;").replace("<", "&lt;");
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
