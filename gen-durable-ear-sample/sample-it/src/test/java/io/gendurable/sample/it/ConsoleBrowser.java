package io.gendurable.sample.it;

import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One headless Chromium (Debian's, through its chromedriver: Selenium Manager is never invoked)
 * on the web console of the server under test, with a fresh profile. Client side only: it is
 * never added to the WAR, and only {@code @RunAsClient} tests reach it.
 */
final class ConsoleBrowser implements AutoCloseable {
    /** Where the console is, from the server's root. */
    static final String CONSOLE = AdminHttp.ADMIN + "/console/";
    static final Dimension LAPTOP = new Dimension(1366, 900);
    static final Dimension PHONE = new Dimension(390, 844);

    final ChromeDriver driver;
    private final WebDriverWait wait;
    private final List<String> errors = new ArrayList<>();

    private ConsoleBrowser(ChromeDriver driver) {
        this.driver = driver;
        this.wait = new WebDriverWait(driver, Duration.ofSeconds(45), Duration.ofMillis(100));
    }

    static ConsoleBrowser open(String... arguments) {
        try {
            Path profiles = Path.of(System.getProperty("console.profiles", "target/chromium-profiles"));
            Files.createDirectories(profiles);
            Path profile = Files.createTempDirectory(profiles, "profile-");
            ChromeOptions options = new ChromeOptions();
            options.setBinary(System.getProperty("console.chromium", "/usr/bin/chromium"));
            options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                    "--hide-scrollbars", "--window-size=" + LAPTOP.width + "," + LAPTOP.height,
                    "--user-data-dir=" + profile.toAbsolutePath());
            options.addArguments(arguments);
            LoggingPreferences logs = new LoggingPreferences();
            logs.enable(LogType.BROWSER, Level.ALL);
            options.setCapability("goog:loggingPrefs", logs);
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(new File(System.getProperty("console.chromedriver", "/usr/bin/chromedriver")))
                    .usingAnyFreePort().build();
            ConsoleBrowser b = new ConsoleBrowser(new ChromeDriver(service, options));
            b.driver.manage().window().setSize(LAPTOP);
            return b;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a browser profile", e);
        }
    }

    static String url(String hash) {
        return "http://localhost:" + System.getProperty("it.http.port", "9081") + CONSOLE + hash;
    }

    /** Opens a view by its address (a hash such as {@code #/queues}) and waits until its data is drawn. */
    void go(String hash) {
        driver.get(url(hash));
    }

    /** Signs in through the console's own form (the console is open on the sign-in page or any page). */
    void signIn(String user) {
        signInAt(url("#/queues"), user);
    }

    /** Signs in through the console's form at that address (the console's page, over HTTP or HTTPS). */
    void signInAt(String consoleUrl, String user) {
        driver.get(consoleUrl);
        WebElement name = until(ExpectedConditions.visibilityOfElementLocated(By.id("sign-in-user")));
        name.clear();
        name.sendKeys(user);
        WebElement password = driver.findElement(By.id("sign-in-password"));
        password.clear();
        password.sendKeys(user + "-sample-only");
        driver.findElement(By.id("sign-in-submit")).click();
        until(ExpectedConditions.textToBePresentInElementLocated(By.id("whoami"), user));
    }

    void signOut() {
        until(ExpectedConditions.elementToBeClickable(By.id("sign-out"))).click();
        until(ExpectedConditions.visibilityOfElementLocated(By.id("sign-in")));
    }

    <T> T until(Function<? super org.openqa.selenium.WebDriver, T> condition) {
        try {
            return wait.until(condition);
        } catch (TimeoutException e) {
            // what the page showed, for the report
            String page;
            try {
                Path shot = Path.of(System.getProperty("console.profiles", "target")).resolve("timeout-" + System.nanoTime() + ".png");
                Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), shot, StandardCopyOption.REPLACE_EXISTING);
                page = driver.getCurrentUrl() + " (" + shot + "):\n" + driver.findElement(By.tagName("body")).getText();
            } catch (RuntimeException | IOException ignored) {
                page = "(no page)";
            }
            throw new TimeoutException(e.getMessage() + "\nThe page at " + page, e);
        }
    }

    WebElement find(String css) {
        return until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(css)));
    }

    /**
     * Clicks the element, looking it up again when an auto-refresh redrew the view between the
     * look-up and the click.
     */
    void click(String css) {
        until(d -> {
            try {
                WebElement e = d.findElement(By.cssSelector(css));
                if (!e.isDisplayed() || !e.isEnabled()) {
                    return false;
                }
                e.click();
                return true;
            } catch (StaleElementReferenceException | NoSuchElementException e) {
                return false;
            }
        });
    }

    /** @return the element's text, looked up again when an auto-refresh redrew the view meanwhile */
    String text(String css) {
        return until(d -> {
            try {
                WebElement e = d.findElement(By.cssSelector(css));
                return e.isDisplayed() ? e.getText() : null;
            } catch (StaleElementReferenceException | NoSuchElementException e) {
                return null;
            }
        });
    }

    /** @return the element's attribute, looked up again when an auto-refresh redrew the view meanwhile */
    String attribute(String css, String name) {
        return until(d -> {
            try {
                return d.findElement(By.cssSelector(css)).getAttribute(name);
            } catch (StaleElementReferenceException | NoSuchElementException e) {
                return null;
            }
        });
    }

    /** Waits for the next auto-refresh of the view (the header's "Updated …" changes). */
    void awaitRefresh() {
        String before = driver.findElement(By.id("updated")).getText();
        until(d -> !d.findElement(By.id("updated")).getText().equals(before));
    }

    /** Asserts that the view does not refresh within {@code quiet} (auto-refresh paused). */
    void assertNoRefreshFor(Duration quiet) {
        String before = driver.findElement(By.id("updated")).getText();
        org.junit.jupiter.api.Assertions.assertThrows(org.openqa.selenium.TimeoutException.class,
                () -> new WebDriverWait(driver, quiet, Duration.ofMillis(200))
                        .until(d -> !d.findElement(By.id("updated")).getText().equals(before)),
                "no refresh while paused");
    }

    Object script(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(js, args);
    }

    Object asyncScript(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeAsyncScript(js, args);
    }

    void size(Dimension d) {
        driver.manage().window().setSize(d);
    }

    /**
     * Writes a PNG of the whole page (the window grown to the page's height for the shot) into the
     * screenshot folder ({@code console.screenshots}).
     */
    Path screenshot(String name) {
        Dimension before = driver.manage().window().getSize();
        script("const t = document.getElementById('toast'); if (t) t.hidden = true;");  // a passing notice
        try {
            long height = ((Number) script("return Math.max(document.documentElement.scrollHeight, window.innerHeight)"
                    + " + (window.outerHeight - window.innerHeight);")).longValue();
            if (height > before.height) {
                driver.manage().window().setSize(new Dimension(before.width, (int) Math.min(height, 3000)));
            }
            Path dir = Path.of(System.getProperty("console.screenshots", "target/console-screenshots"));
            Files.createDirectories(dir);
            Path to = dir.resolve(name + ".png");
            Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), to, StandardCopyOption.REPLACE_EXISTING);
            return to;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the screenshot " + name, e);
        } finally {
            driver.manage().window().setSize(before);
        }
    }

    /**
     * Asserts that the page logged no error since the last call: no script error, no failed
     * promise, no {@code console.error}. A refused API call (4xx) that a scenario provokes on
     * purpose is logged by the browser as a network line, which is not a page error.
     */
    void assertNoConsoleErrors() {
        for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() >= Level.SEVERE.intValue()
                    && !e.getMessage().matches("(?s).*Failed to load resource: the server responded with a status of 4\\d\\d.*")) {
                errors.add(e.getMessage());
            }
        }
        assertEquals(List.of(), errors, "errors in the browser's console");
    }

    @Override
    public void close() {
        driver.quit();
    }
}
