package io.leasehold.lock.history;

import java.time.Instant;
import java.util.Objects;

/**
 * The clock of a history: wall-clock microseconds since the epoch, read from the host's real-time
 * clock ({@link Instant#now()}).
 *
 * <p><b>Why this clock.</b> The checker compares times written by different processes (did one
 * section start before another ended? was a holder told before the next one began?), so all of them
 * must read one clock. Every process on one host reads the same kernel real-time clock, at
 * microsecond resolution on Linux; a per-process monotonic clock ({@code System.nanoTime}) has an
 * arbitrary origin per JVM, and a shared counter on a server would add a network round trip (and
 * its delays) to every record. It is also the clock of {@link io.leasehold.lock.LeaseLoss#detectedAt()}
 * and of Redis's {@code TIME}, so loss signals and the fenced resource's own log line up with the
 * workers' records without conversion.
 *
 * <p><b>What it needs.</b> All processes of one run on one host, and no step of the clock during the
 * run (a run on several hosts would need their clocks synchronised far below the delays checked).
 *
 * <p>This class is threadsafe.
 */
public final class HistoryClock {

    private HistoryClock() {}

    /** Now, in microseconds since the epoch. */
    public static long nowMicros() {
        return micros(Instant.now());
    }

    /** {@code instant} in microseconds since the epoch (truncated below the microsecond). */
    public static long micros(Instant instant) {
        Objects.requireNonNull(instant, "instant");
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
    }

    /** The instant of {@code micros} microseconds since the epoch. */
    public static Instant instant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }
}
