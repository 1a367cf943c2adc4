package io.leasehold.lock.internal;

import java.util.Arrays;
import java.util.Locale;

/**
 * How many leases one renew call may carry: as many as the Redis server runs in
 * {@link #BUDGET_MICROS}, by what the latest calls cost it, measured. A renew call runs on the
 * server's only command thread, so every other client of a shared Redis waits while it runs; the
 * batch is sized by that wait, not by a fixed count.
 *
 * <p><b>Rule.</b> Each renew call answered gives a reading: the server time of the call (as the
 * script measured it, or an upper bound of it) over its lease count, µs per lease. The estimate of
 * what a lease costs is the median of the last {@value #WINDOW} readings (before there are that many,
 * the missing ones count as the start estimate, {@code BUDGET_MICROS / START_BATCH}): a server that
 * slowed down moves it within a few calls, while a few outliers (the server descheduled in the middle
 * of a script, which the clock counts) do not move it at all. The size that fits the budget is
 * <pre>   target = clamp(floor(BUDGET_MICROS / estimate), MIN_BATCH, MAX_BATCH)</pre>
 * and each renewal round takes the target if it is smaller than the last round's batch (a slower
 * server shrinks the very next round), or else at most a quarter more than the last round's
 * ({@link #GROWTH}), so that batches grow back over several rounds. A reading of no leases or of no
 * time says nothing (a server whose clock stands still during a script answers 0) and is ignored:
 * nothing but a measured cost ever grows a batch.
 *
 * <p><b>Numbers.</b> The budget, {@value #BUDGET_MICROS} µs of script time, leaves a margin to the
 * 1 ms that no renew call may exceed: the server also spends about a third more than the script sees
 * on receiving the arguments (SLOWLOG counts it: 1.3 to 1.5 times the script's own figure on
 * redis-server 7.0, so 520-600 µs), and the estimate lags a server that just slowed down. The first
 * batch is {@value #START_BATCH}, Redisson's. So on a healthy server, where a lease costs at most
 * {@code BUDGET_MICROS / START_BATCH} = 4 µs (renew.lua measured 1.7-2.5 µs per lease of script time
 * on a busy two-core machine, alone or beside a client renewing 10,000 leases), a batch holds at least 100 leases and n leases take at most n / 100 calls per renewal
 * period, Redisson's count; only a slower server gets more calls, each still within the budget. At
 * least {@value #MIN_BATCH} leases ride in a call, so a server 10 times slower than that still costs
 * no more than a tenth of the calls an unbatched watchdog makes; at most {@value #MAX_BATCH}, the keys
 * renew.lua reads in one MGET.
 *
 * <p>This class is threadsafe: readings arrive on the driver's I/O threads while the renewal round
 * asks for its batch size on the timer thread.
 */
public final class RenewalBatchSizer {

    /** Server time, µs of script time, that one renew call aims at (the limit is 1 ms). */
    public static final long BUDGET_MICROS = 400;
    /** The batch of the first round: Redisson's, 100 leases. */
    public static final int START_BATCH = 100;
    /** The fewest leases a call carries, however slow the server. */
    public static final int MIN_BATCH = 10;
    /** The most leases a call carries, however fast the server (one MGET in renew.lua). */
    public static final int MAX_BATCH = 1000;
    /** How many of the latest readings the estimate is the median of (odd). */
    static final int WINDOW = 9;
    /** How much larger than the last round's batch the next round's may be. */
    static final double GROWTH = 1.25;

    /** The latest readings, µs per lease, oldest overwritten first. */
    private final double[] readings = new double[WINDOW];

    private int next;
    /** The last round's batch; before the first round, the start (the first round takes no more). */
    private int lastBatch = START_BATCH;

    /** A sizer with no reading yet: the estimate is {@code BUDGET_MICROS / START_BATCH}. */
    public RenewalBatchSizer() {
        Arrays.fill(readings, (double) BUDGET_MICROS / START_BATCH);
    }

    /**
     * The most leases a call of the renewal round about to start may carry, between
     * {@link #MIN_BATCH} and {@link #MAX_BATCH}: the target the readings give, but at most
     * {@link #GROWTH} times the last round's. Call it once per round.
     */
    public synchronized int nextBatchSize() {
        int target = target();
        lastBatch = target <= lastBatch ? target : Math.min(target, (int) Math.ceil(lastBatch * GROWTH));
        return lastBatch;
    }

    /** The estimate of the server time one lease costs, µs: the median of the window. */
    synchronized double microsPerLease() {
        double[] sorted = readings.clone();
        Arrays.sort(sorted);
        return sorted[WINDOW / 2];
    }

    /**
     * A renew call of {@code leases} leases took {@code micros} µs on the server (or at most that).
     * Readings of no lease or no time are ignored.
     */
    synchronized void record(int leases, long micros) {
        if (leases <= 0 || micros <= 0) {
            return;
        }
        readings[next] = (double) micros / leases;
        next = (next + 1) % WINDOW;
    }

    private int target() {
        return (int) Math.max(MIN_BATCH, Math.min(MAX_BATCH, Math.floor(BUDGET_MICROS / microsPerLease())));
    }

    @Override
    public synchronized String toString() {
        return String.format(
                Locale.ROOT,
                "RenewalBatchSizer[last batch=%d, µs per lease=%.2f, target=%d]",
                lastBatch,
                microsPerLease(),
                target());
    }
}
