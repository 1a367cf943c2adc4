package io.leasehold.lock.inmemory;

import io.leasehold.lock.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Clock} that stands still until a test moves it, for driving key expiry in an
 * {@link InMemoryLockBackend} and the engine's own deadlines without waiting. It is also a
 * {@link Ticker}: give it to both, and the store's TTLs and the engine's lease validity, waits and
 * timeouts all run on the same hand-moved time:
 *
 * <pre>{@code
 * ManualClock clock = new ManualClock();
 * InMemoryLockBackend redis = InMemoryLockBackend.withClock(clock);
 * LockClient locks = LockClient.builder(redis).ticker(clock).build();
 * // ... acquire a lock with a 30 s lease, auto-renew off ...
 * clock.advance(Duration.ofSeconds(30)); // the key is gone, and the lease is declared EXPIRED
 * }</pre>
 *
 * <p>The clock only moves forward. It starts at the current system time (so fencing tokens seeded
 * from it look like those of a real server) or at a given instant, and keeps nanosecond precision.
 *
 * <p>This class is threadsafe.
 *
 * @see InMemoryLockBackend#withClock(Clock)
 */
public final class ManualClock extends Clock implements Ticker {

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

    /** As a {@link Ticker}: the clock's instant in nanoseconds since the epoch (exact until the year 2262). */
    @Override
    public long read() {
        Instant instant = now.get();
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
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
