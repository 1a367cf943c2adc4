package io.leasehold.lock.history.checker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the {@link HistoryChecker} needs to know beyond the history itself: when Redis lost data (to
 * add to the {@code DATA_LOSS} faults the history declares), and the bounds of progress.
 *
 * <p>This class is immutable and threadsafe; build it with {@link #builder()}.
 */
public final class CheckOptions {

    /** A worker silent for longer than this (no record at all) is reported as hung. */
    public static final Duration DEFAULT_MAX_SILENCE = Duration.ofSeconds(60);
    /** A worker that tried and acquired fewer leases than this is reported as starved. */
    public static final int DEFAULT_MIN_ACQUISITIONS = 1;

    private final List<TimeWindow> dataLossWindows;
    private final Duration maxSilence;
    private final int minAcquisitions;

    private CheckOptions(Builder builder) {
        this.dataLossWindows = List.copyOf(builder.dataLossWindows);
        this.maxSilence = builder.maxSilence;
        this.minAcquisitions = builder.minAcquisitions;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** No extra data-loss windows, {@link #DEFAULT_MAX_SILENCE}, {@link #DEFAULT_MIN_ACQUISITIONS}. */
    public static CheckOptions defaults() {
        return builder().build();
    }

    /** Windows in which Redis lost data, beyond the {@code DATA_LOSS} fault records of the history. */
    public List<TimeWindow> dataLossWindows() {
        return dataLossWindows;
    }

    public Duration maxSilence() {
        return maxSilence;
    }

    public int minAcquisitions() {
        return minAcquisitions;
    }

    @Override
    public String toString() {
        return "CheckOptions{dataLossWindows=" + dataLossWindows + ", maxSilence=" + maxSilence + ", minAcquisitions="
                + minAcquisitions + "}";
    }

    /** Builds {@link CheckOptions}; each setter checks its value at once. */
    public static final class Builder {

        private final List<TimeWindow> dataLossWindows = new ArrayList<>();
        private Duration maxSilence = DEFAULT_MAX_SILENCE;
        private int minAcquisitions = DEFAULT_MIN_ACQUISITIONS;

        private Builder() {}

        /** Adds a window in which Redis lost data (restart without persistence, failover to a lagging replica). */
        public Builder dataLoss(TimeWindow window) {
            dataLossWindows.add(Objects.requireNonNull(window, "window"));
            return this;
        }

        /**
         * The longest a worker may go without writing any record; set it above the longest acquire wait
         * plus section a healthy worker can take.
         */
        public Builder maxSilence(Duration maxSilence) {
            Objects.requireNonNull(maxSilence, "maxSilence");
            if (maxSilence.isZero() || maxSilence.isNegative()) {
                throw new IllegalArgumentException("maxSilence must be greater than 0, but was " + maxSilence);
            }
            this.maxSilence = maxSilence;
            return this;
        }

        /** The fewest leases a worker that tried must have got; 0 turns the starvation check off. */
        public Builder minAcquisitions(int minAcquisitions) {
            if (minAcquisitions < 0) {
                throw new IllegalArgumentException("minAcquisitions must be >= 0, but was " + minAcquisitions);
            }
            this.minAcquisitions = minAcquisitions;
            return this;
        }

        public CheckOptions build() {
            return new CheckOptions(this);
        }
    }
}
