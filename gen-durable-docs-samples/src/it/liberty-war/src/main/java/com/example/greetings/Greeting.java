package com.example.greetings;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Map;

@DurableFsm(name = "greeting")
@ApplicationScoped
public class Greeting implements Fsm<Greeting.Hello> {
    public record Hello(String name, int waves) {}

    @Override
    public Outcome step(String step, Hello h, StepContext ctx) {
        return switch (step) {
            case "start" -> Outcome.next("wave", h);
            case "wave" -> h.waves() < 3
                    ? Outcome.retry(Duration.ofSeconds(1), new Hello(h.name(), h.waves() + 1))  // wave again in 1 s
                    : Outcome.next("greet", h);
            case "greet" -> Outcome.done(Map.of("greeting", "Hello, " + h.name() + "!", "waves", h.waves()));
            default -> Outcome.stop("unknown step " + step);
        };
    }
}
