package io.gendurable.impl.step;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.support.EngineHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With SLF4J bound to a provider that keeps an MDC (Logback here, as WildFly's logging would), the
 * lines a step logs carry {@code gendurable.id}, {@code gendurable.fsm}, {@code gendurable.step}
 * and {@code gendurable.attempt} through a pattern's {@code %X{…}}, in {@code onError} too; a line
 * the same thread logs afterwards carries none of them, after a step that returned or one that threw.
 */
class StepLogContextTest {
    static final String PATTERN = "%X{gendurable.id}|%X{gendurable.fsm}|%X{gendurable.step}|%X{gendurable.attempt}|%msg";

    /** "start" logs and goes on to "second", which logs and throws; onError logs and stops. */
    public static class Logged implements Fsm<Map<String, String>> {
        private static final Logger LOG = LoggerFactory.getLogger("gendurable.test.steps");

        @Override
        public Outcome step(String step, Map<String, String> state, StepContext ctx) {
            LOG.info("in " + step);
            if (step.equals("start")) {
                return Outcome.next("second", state);
            }
            throw new IllegalStateException("boom");
        }

        @Override
        public Outcome onError(String step, Map<String, String> state, StepContext ctx, Throwable error) {
            LOG.info("onError of " + step);
            return Outcome.stop(error.getMessage());
        }
    }

    /** Formats each line as it is logged, on the logging thread (Logback reads the MDC lazily otherwise). */
    static final class Lines extends AppenderBase<ILoggingEvent> {
        final List<String> lines = new CopyOnWriteArrayList<>();
        final PatternLayout layout = new PatternLayout();

        @Override
        protected void append(ILoggingEvent event) {
            lines.add(layout.doLayout(event));
        }
    }

    EngineHarness h;
    ScheduledExecutorService timer;
    ExecutorService steps;
    Engine engine;
    Lines lines;
    ch.qos.logback.classic.Logger logger;

    @BeforeEach
    void up() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        lines = new Lines();
        lines.setContext(context);
        lines.layout.setContext(context);
        lines.layout.setPattern(PATTERN);
        lines.layout.start();
        lines.start();
        logger = context.getLogger("gendurable.test");
        logger.addAppender(lines);

        h = new EngineHarness("steplog");
        timer = Executors.newScheduledThreadPool(4);
        steps = Executors.newSingleThreadExecutor();  // one thread: the lines after a step are logged where it ran
        FsmRegistry registry = new FsmRegistry();
        registry.register(FsmDefinition.of(new Logged()));
        engine = Engine.builder().dataSource(h.dataSource()).config(h.configBuilder("n1").queues(Map.of("default", 1)).build())
                .registry(registry).timer(timer).steps(steps).build();
        engine.start();
    }

    @AfterEach
    void down() {
        engine.close();
        h.close();
        timer.shutdownNow();
        steps.shutdownNow();
        logger.detachAppender(lines);
    }

    @Test
    void a_steps_log_lines_carry_the_instance_and_the_next_line_on_its_thread_does_not() throws Exception {
        assertThat(StepLogContext.active()).as("Logback keeps an MDC").isTrue();
        long id = engine.insert(Logged.class, Map.of("k", "v")).id();
        await().atMost(Duration.ofSeconds(15)).until(() -> engine.find(id).orElseThrow().status() == Status.FAILED);
        String fsm = engine.find(id).orElseThrow().fsm();

        assertThat(lines.lines).contains(
                id + "|" + fsm + "|start|1|in start",
                id + "|" + fsm + "|second|1|in second",
                id + "|" + fsm + "|second|1|onError of second");

        // the thread that ran both steps (the second one threw) logs a line of its own
        steps.submit(() -> {
            LoggerFactory.getLogger("gendurable.test.after").info("after");
            assertThat(MDC.getCopyOfContextMap() == null ? Map.of() : MDC.getCopyOfContextMap())
                    .doesNotContainKeys(StepLogContext.ID, StepLogContext.FSM, StepLogContext.STEP, StepLogContext.ATTEMPT);
        }).get(10, TimeUnit.SECONDS);
        assertThat(lines.lines).contains("||||after");
    }
}
