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
     * makes it current in this thread until {@link StepSpan#leave}.
     *
     * @param step the claimed step
     * @return the running span; {@link StepSpan#NONE} when tracing is off
     */
    StepSpan startStep(StepAttributes step);

    /**
     * One step's span: current in the step's thread until {@link #leave} (its code is done), ended
     * by {@link #end} once its outcome's fate is known (written, stale, or not written at all),
     * possibly on another thread.
     */
    interface StepSpan {
        /** A span that records nothing. */
        StepSpan NONE = new StepSpan() {
            @Override
            public void leave() {
            }

            @Override
            public void end(String outcome, String error) {
            }
        };

        /** The step's code is done: restores the step thread's previous context. Call on the step's thread, once. */
        void leave();

        /**
         * Records the outcome as the flush wrote it, the error if any, and ends the span. Call once, after {@link #leave}.
         *
         * @param outcome the outcome's label ({@code next}, {@code retry}, ...), {@code stale} when the flush
         *                found the claim gone, {@code error} when it was not written
         * @param error   the step's error as stored (or why nothing was written), or null
         */
        void end(String outcome, String error);
    }
}
