package io.gendurable.impl.trace;

/**
 * Where the engine's traces go (docs/tracing.md): {@link #NONE} when the application has no
 * OpenTelemetry API or telemetry is off, else {@link OtelTracing}, the only class that touches
 * the API, so an application without it never loads it.
 */
public interface Tracing {
    /** No spans, no stored context. */
    Tracing NONE = new Tracing() {
        @Override
        public TraceContext current() {
            return TraceContext.NONE;
        }

        @Override
        public StepSpan startStep(StepAttributes step) {
            return StepSpan.NONE;
        }
    };

    /** @return the W3C context of the span current in this thread, {@link TraceContext#NONE} when there is none */
    TraceContext current();

    /**
     * Starts the span of one step with the instance's stored context as its parent and a link to
     * the sender's context of each signal in its inbox ({@link StepAttributes#signals()}), and
     * makes it current in this thread until {@link StepSpan#end}.
     *
     * @param step the claimed step
     * @return the running span; {@link StepSpan#NONE} when tracing is off
     */
    StepSpan startStep(StepAttributes step);

    /** One step's span, current in the step's thread until {@link #end}. */
    interface StepSpan {
        /** A span that records nothing. */
        StepSpan NONE = (outcome, error) -> { };

        /**
         * Records the outcome, the error if any, ends the span and restores the thread's previous context.
         *
         * @param outcome the outcome's label ({@code next}, {@code retry}, ...)
         * @param error   the step's error as stored, or null
         */
        void end(String outcome, String error);
    }
}
