package io.gendurable.impl.admission;

import io.gendurable.events.EngineEvent;
import io.gendurable.events.GateThrottled;
import io.gendurable.events.LimitContended;
import io.gendurable.events.RateLimitThrottled;
import io.gendurable.events.RateLimitUnknown;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.runtime.EngineEventBus;
import io.gendurable.impl.runtime.EventKind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The events of one admission, gathered while it runs and published once it has committed (an
 * attempt rolled back by a lost race publishes nothing of its own). With no listener of any of its
 * types it is {@link #NONE}, whose methods do nothing: the admission then builds nothing.
 */
public sealed class AdmissionEvents {
    /** Gathers nothing. */
    public static final AdmissionEvents NONE = new AdmissionEvents();

    private AdmissionEvents() {
    }

    /**
     * @param bus   the engine's events
     * @param queue the queue whose rows are admitted
     * @return a gatherer, or {@link #NONE} when no listener wants any admission event
     */
    public static AdmissionEvents of(EngineEventBus bus, String queue) {
        if (!bus.on(EventKind.GATE_THROTTLED) && !bus.on(EventKind.RATE_LIMIT_THROTTLED)
                && !bus.on(EventKind.RATE_LIMIT_UNKNOWN) && !bus.on(EventKind.LIMIT_CONTENDED)) {
            return NONE;
        }
        return new Gathering(bus, queue);
    }

    /** @param candidate a row naming a rate limit this node does not configure */
    public void unknown(Limiter.Candidate candidate) {
    }

    /** @param rateKey a rate-limit key a row wants a token of */
    public void rateWanted(String rateKey) {
    }

    /** @param rateKey a rate-limit key that granted a row */
    public void rateGranted(String rateKey) {
    }

    /** @param key a gate's key @param wanted rows of it in the admission @param admitted rows of it admitted */
    public void gateThrottled(String key, int wanted, int admitted) {
    }

    /** Publishes what was gathered, and the races lost before it. @param lost races the admission lost */
    public void publish(int lost) {
    }

    private static final class Gathering extends AdmissionEvents {
        private final EngineEventBus bus;
        private final String queue;
        private final List<EngineEvent> events = new ArrayList<>();
        private final Map<String, int[]> rates = new LinkedHashMap<>();  // key → {wanted, granted}

        Gathering(EngineEventBus bus, String queue) {
            this.bus = bus;
            this.queue = queue;
        }

        @Override
        public void unknown(Limiter.Candidate c) {
            if (bus.on(EventKind.RATE_LIMIT_UNKNOWN)) {
                events.add(new RateLimitUnknown(c.rateKey(), LimitsConfig.nameOf(c.rateKey()), c.fsm(), c.step()));
            }
        }

        @Override
        public void rateWanted(String rateKey) {
            rates.computeIfAbsent(rateKey, k -> new int[2])[0]++;
        }

        @Override
        public void rateGranted(String rateKey) {
            rates.computeIfAbsent(rateKey, k -> new int[2])[1]++;
        }

        @Override
        public void gateThrottled(String key, int wanted, int admitted) {
            if (bus.on(EventKind.GATE_THROTTLED)) {
                events.add(new GateThrottled(key, queue, wanted, admitted));
            }
        }

        @Override
        public void publish(int lost) {
            if (lost > 0 && bus.on(EventKind.LIMIT_CONTENDED)) {
                bus.publish(new LimitContended(queue, lost));
            }
            events.forEach(bus::publish);
            if (bus.on(EventKind.RATE_LIMIT_THROTTLED)) {
                rates.forEach((key, n) -> {
                    if (n[1] < n[0]) {
                        bus.publish(new RateLimitThrottled(key, queue, n[0], n[1]));
                    }
                });
            }
        }
    }
}
