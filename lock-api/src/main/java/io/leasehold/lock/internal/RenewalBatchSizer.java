package io.leasehold.lock.internal;

/**
 * How many leases one renew call may carry: as many as the Redis server runs in
 * {@link #BUDGET_MICROS}, by what the latest calls cost it, measured. A renew call runs on the
 * server's only command thread, so every other client of a shared Redis waits while it runs; the
 * batch is sized by that wait, not by a fixed count.
 *
 * <p><b>Rule.</b> The sizer keeps an estimate of the server time one lease costs, in µs. Each renew
 * call answered gives a reading: the time the call took on the server (as the script measured it,
 * or an upper bound of it), over its lease count. A reading above the estimate raises it at once
 * (a slower server shrinks the very next batches), by at most {@link #MAX_RISE} times per reading so
 * that one outlier (the server descheduled mid-script) cannot collapse the batch; a reading below
 * lowers it by an eighth of the difference ({@link #FALL_WEIGHT}), so a faster server grows the
 * batches back over tens of calls. Either step is scaled by the call's share of a full batch: a
 * call of a few leases, whose fixed cost weighs more per lease, moves the estimate little. Then
 * <pre>   batch = clamp(floor(BUDGET_MICROS / estimate), MIN_BATCH, MAX_BATCH)</pre>
 * A reading of no leases or of no time says nothing (a server whose clock stands still during a
 * script answers 0), and is ignored: nothing but a measured cost ever grows a batch.
 *
 * <p><b>Numbers.</b> The budget, {@value #BUDGET_MICROS} µs of script time, leaves a margin to the
 * 1 ms that no renew call may exceed: the server also spends about a third more than the script sees
 * on receiving the arguments (SLOWLOG counts it: about 1.3 times the script's own figure on
 * redis-server 7.0), and the estimate lags a server that just slowed down. The first batch is
 * {@value #START_BATCH}, Redisson's, which a lease costing up to 4 µs fits in the budget (renew.lua
 * measured 1.7-2.5 µs per lease of script time, 2.2-3.1 by SLOWLOG, on a busy two-core machine). So
 * on a healthy server (at most {@code BUDGET_MICROS / START_BATCH} = 4 µs per lease) a batch holds at
 * least 100 leases and n leases take at most n / 100 calls per renewal period, Redisson's count; only
 * a slower server gets more calls, each still within the budget. At least {@value #MIN_BATCH} leases
 * ride in a call, so a server 10 times slower than that still costs no more than a tenth of the
 * calls an unbatched watchdog makes; at most {@value #MAX_BATCH}, the keys renew.lua reads in one
 * MGET.
 *
 * <p>This class is threadsafe: readings arrive on the driver's I/O threads while the renewal round
 * asks for the batch size on the timer thread.
 */
public final class RenewalBatchSizer {

    /** Server time, µs of script time, that one renew call aims at (the limit is 1 ms). */
    public static final long BUDGET_MICROS = 400;
    /** The batch before any reading: Redisson's, 100 leases. */
    public static final int START_BATCH = 100;
    /** The fewest leases a call carries, however slow the server. */
    public static final int MIN_BATCH = 10;
    /** The most leases a call carries, however fast the server (one MGET in renew.lua). */
    public static final int MAX_BATCH = 1000;
    /** How many times a single reading can raise the estimate at most. */
    static final double MAX_RISE = 4;
    /** The share of the difference a lower reading (of a full batch) takes off the estimate. */
    static final double FALL_WEIGHT = 1.0 / 8;

    private double microsPerLease = (double) BUDGET_MICROS / START_BATCH;
    private int batch = START_BATCH;

    /** The most leases the next renew call may carry: between {@link #MIN_BATCH} and {@link #MAX_BATCH}. */
    public synchronized int batchSize() {
        return batch;
    }

    /** The estimate of the server time one lease costs, µs. */
    synchronized double microsPerLease() {
        return microsPerLease;
    }

    /**
     * A renew call of {@code leases} leases took {@code micros} µs on the server (or at most that).
     * Readings of no lease or no time are ignored.
     */
    synchronized void record(int leases, long micros) {
        if (leases <= 0 || micros <= 0) {
            return;
        }
        double reading = (double) micros / leases;
        double share = Math.min(1.0, (double) leases / batch);
        // (each step stays between the estimate and the reading, rounding included)
        double estimate = reading > microsPerLease
                ? Math.min(
                        Math.min(microsPerLease + (reading - microsPerLease) * share, microsPerLease * MAX_RISE),
                        reading)
                : Math.max(microsPerLease + (reading - microsPerLease) * share * FALL_WEIGHT, reading);
        microsPerLease = estimate;
        batch = (int) Math.max(MIN_BATCH, Math.min(MAX_BATCH, Math.floor(BUDGET_MICROS / estimate)));
    }

    @Override
    public synchronized String toString() {
        return String.format(
                java.util.Locale.ROOT, "RenewalBatchSizer[batch=%d, µs per lease=%.2f]", batch, microsPerLease);
    }
}
