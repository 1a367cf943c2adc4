package io.leasehold.lock;

import io.leasehold.lock.spi.support.Checks;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How a lock is held: lease time, auto-renewal, a max-hold bound, a min-hold time and the default wait.
 * Built with {@link #builder()}; every setter validates at once and {@link Builder#build()}
 * checks combinations.
 *
 * <p>This class is immutable and threadsafe.
 *
 * @see LockClient#lock(String, LockOptions)
 */
public final class LockOptions {

    /** Default lease: 30 s. With auto-renew the lock is renewed every third of it. */
    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);
    /** Shortest lease accepted: below it the drift margin would eat the whole validity. */
    public static final Duration MIN_LEASE_TIME = Duration.ofMillis(50);
    /** Auto-renew is on by default: a holder keeps the lock as long as it runs and reaches Redis. */
    public static final boolean DEFAULT_AUTO_RENEW = true;
    /** Default wait for the overloads and Kotlin functions that take no wait: 30 s. */
    public static final Duration DEFAULT_WAIT = Duration.ofSeconds(30);

    private static final LockOptions DEFAULTS = new Builder().build();

    private final Duration leaseTime;
    private final boolean autoRenew;
    private final @Nullable Duration maxHoldTime;
    private final Duration minHoldTime;
    private final Duration defaultWait;

    private LockOptions(Builder builder) {
        this.leaseTime = builder.leaseTime;
        this.autoRenew = builder.autoRenew;
        this.maxHoldTime = builder.maxHoldTime;
        this.minHoldTime = builder.minHoldTime;
        this.defaultWait = builder.defaultWait;
    }

    public static LockOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder that starts from these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.leaseTime = leaseTime;
        b.autoRenew = autoRenew;
        b.maxHoldTime = maxHoldTime;
        b.minHoldTime = minHoldTime;
        b.defaultWait = defaultWait;
        return b;
    }

    /** How long Redis keeps the lock without renewal. */
    public Duration leaseTime() {
        return leaseTime;
    }

    /** Whether the engine's watchdog renews the lease while it is held. */
    public boolean autoRenew() {
        return autoRenew;
    }

    /** The longest a lease may be held, counted from acquisition; empty means no bound. */
    public Optional<Duration> maxHoldTime() {
        return Optional.ofNullable(maxHoldTime);
    }

    /**
     * The shortest time the lock stays taken, counted from acquisition (when the acquire was sent):
     * a release before then ends the lease but leaves the lock taken in Redis until then, so that no
     * one else can take it sooner. Zero (the default) means none: a release frees the lock at once.
     *
     * <p>For jobs that several nodes start on the same schedule (ShedLock's {@code lockAtLeastFor}): a
     * job that finishes fast on one node is not run again by a node whose clock is a little behind.
     * The lease ends {@link LeaseState#RELEASED} as usual, with no loss signal for the time left; the
     * hold needs no process after the release (Redis keeps it, with a TTL of the time left, and the
     * lease's owner value, so the next lease's token still rises). The release sets that TTL with an
     * owner-checked command of the same kind as {@link Lease#extend}, so a renewal of the lease still
     * in flight cannot shorten it; and it publishes a release message, so that waiters ask again, learn
     * the time left, and take the lock when it ends.
     */
    public Duration minHoldTime() {
        return minHoldTime;
    }

    /** The wait used where a call takes none. */
    public Duration defaultWait() {
        return defaultWait;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof LockOptions)) {
            return false;
        }
        LockOptions that = (LockOptions) o;
        return autoRenew == that.autoRenew
                && leaseTime.equals(that.leaseTime)
                && Objects.equals(maxHoldTime, that.maxHoldTime)
                && minHoldTime.equals(that.minHoldTime)
                && defaultWait.equals(that.defaultWait);
    }

    @Override
    public int hashCode() {
        return Objects.hash(leaseTime, autoRenew, maxHoldTime, minHoldTime, defaultWait);
    }

    @Override
    public String toString() {
        return "LockOptions{leaseTime=" + leaseTime + ", autoRenew=" + autoRenew + ", maxHoldTime="
                + (maxHoldTime == null ? "none" : maxHoldTime) + ", minHoldTime=" + minHoldTime + ", defaultWait="
                + defaultWait + "}";
    }

    /** Builds {@link LockOptions}. Not threadsafe. */
    public static final class Builder {

        private Duration leaseTime = DEFAULT_LEASE_TIME;
        private boolean autoRenew = DEFAULT_AUTO_RENEW;
        private @Nullable Duration maxHoldTime;
        private Duration minHoldTime = Duration.ZERO;
        private Duration defaultWait = DEFAULT_WAIT;
        private @Nullable String lockName;

        private Builder() {}

        /**
         * Names the lock these options are built for, so that every message of this builder names it
         * too: {@code leaseTime must be greater than 0, but was PT0S (lock 'orders:42')}. Optional, and
         * only for messages: the options built are not tied to that lock.
         */
        public Builder forLock(String lockName) {
            this.lockName = Checks.lockName(lockName);
            return this;
        }

        /** Lease time: greater than 0, at least {@link #MIN_LEASE_TIME}, at most 365 days. */
        public Builder leaseTime(Duration leaseTime) {
            Checks.positive("leaseTime", leaseTime, lockName);
            this.leaseTime = Checks.atLeast("leaseTime", leaseTime, MIN_LEASE_TIME, lockName);
            return this;
        }

        public Builder autoRenew(boolean autoRenew) {
            this.autoRenew = autoRenew;
            return this;
        }

        /** Max hold time: greater than 0 and at least the lease time (checked by {@link #build()}). */
        public Builder maxHoldTime(Duration maxHoldTime) {
            this.maxHoldTime = Checks.positive("maxHoldTime", maxHoldTime, lockName);
            return this;
        }

        /** Removes the max-hold bound (the default). */
        public Builder noMaxHoldTime() {
            this.maxHoldTime = null;
            return this;
        }

        /**
         * Min hold time (see {@link LockOptions#minHoldTime()}): 0 (none, the default) or more, at most
         * 365 days; checked by {@link #build()}: at most the max hold time, and at most the lease time when
         * auto-renew is off (which then bounds how long a crashed holder keeps the lock).
         */
        public Builder minHoldTime(Duration minHoldTime) {
            this.minHoldTime = Checks.notNegative("minHoldTime", minHoldTime, lockName);
            return this;
        }

        /** Default wait: 0 (try once) or more, at most 365 days. */
        public Builder defaultWait(Duration defaultWait) {
            this.defaultWait = Checks.notNegative("defaultWait", defaultWait, lockName);
            return this;
        }

        public LockOptions build() {
            if (maxHoldTime != null && maxHoldTime.compareTo(leaseTime) < 0) {
                throw new IllegalArgumentException("maxHoldTime must be at least leaseTime (" + leaseTime
                        + "), but was " + maxHoldTime + Checks.where(lockName));
            }
            if (maxHoldTime != null && minHoldTime.compareTo(maxHoldTime) > 0) {
                throw new IllegalArgumentException("minHoldTime must be at most maxHoldTime (" + maxHoldTime
                        + "), but was " + minHoldTime + Checks.where(lockName));
            }
            if (!autoRenew && minHoldTime.compareTo(leaseTime) > 0) {
                throw new IllegalArgumentException("minHoldTime must be at most leaseTime (" + leaseTime
                        + ") when autoRenew is off, but was " + minHoldTime + Checks.where(lockName));
            }
            return new LockOptions(this);
        }
    }
}
