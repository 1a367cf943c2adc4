package io.leasehold.lock.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Clock} that stands still until a test moves it, for driving key expiry in an
 * {@link InMemoryLockBackend} without waiting:
 *
 * <pre>{@code
 * ManualClock clock = new ManualClock();
 * InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock);
 * // ... acquire a lock with a 30 s lease ...
 * clock.advance(Duration.ofSeconds(30)); // the lock key is gone for every script from now on
 * }</pre>
 *
 * <p>The clock only moves forward. It starts at the current system time (so fencing tokens seeded
 * from it look like those of a real server) or at a given instant, and keeps nanosecond precision.
 *
 * <p>This class is threadsafe.
 *
 * @see InMemoryLockBackend#withClock(Clock)
 */
public final class ManualClock extends Clock {

    private final AtomicReference<Instant> now;
    private final ZoneId zone;

    /** A clock standing at the current system time. */
    public ManualClock() {
        this(Instant.now());
    }

    /** A clock standing at {@code start}. */
    public ManualClock(Instant start) {
        this(new AtomicReference<>(Objects.requireNonNull(start, "start")), ZoneOffset.UTC);
    }

    private ManualClock(AtomicReference<Instant> now, ZoneId zone) {
        this.now = now;
        this.zone = zone;
    }

    /**
     * Moves the clock forward by {@code amount} and returns this clock.
     *
     * @throws IllegalArgumentException when {@code amount} is negative: the clock never goes back
     */
    public ManualClock advance(Duration amount) {
        Objects.requireNonNull(amount, "amount");
        if (amount.isNegative()) {
            throw new IllegalArgumentException(
                    "amount must not be negative (a ManualClock only moves forward), but was " + amount);
        }
        now.updateAndGet(instant -> instant.plus(amount));
        return this;
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public long millis() {
        return now.get().toEpochMilli();
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    /** A view of this clock in another zone; advancing either moves both. */
    @Override
    public ManualClock withZone(ZoneId zone) {
        return new ManualClock(now, Objects.requireNonNull(zone, "zone"));
    }

    @Override
    public String toString() {
        return "ManualClock[" + now.get() + ", " + zone + "]";
    }
}
