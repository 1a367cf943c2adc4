package io.leasehold.bench;

import java.time.Duration;

/**
 * What keeping many leases alive costs: one client holds {@code leases} locks with automatic
 * renewal every {@code period}; over a few periods, counts the script calls per period (from the
 * server's counters) and finds the longest and the median script run (from the slow log; see
 * {@link RedisProbe#startScriptLog}), how many ran longer than 1 ms, and how often the operating
 * system preempted the server meanwhile (a script it was preempted in reads as long as the pause;
 * see {@link RedisProbe#serverPreemptions}); then releases them all and counts the locks it no longer held
 * (its renewal did not keep them: on a loaded machine, 50,000 leases of 3 s are more than either
 * library keeps), which the other figures must be read with.
 */
final class RenewalScenario implements Scenario {

    static final Duration PERIOD = Duration.ofSeconds(1);
    private static final int PERIODS = 3;
    private final int leases;

    RenewalScenario(int leases) {
        this.leases = leases;
    }

    @Override
    public String name() {
        return String.format("%,d leases held and renewed", leases);
    }

    @Override
    public int clients() {
        return 1;
    }

    @Override
    public Duration renewPeriod() {
        return PERIOD;
    }

    @Override
    public boolean appliesTo(Contender contender) {
        return contender instanceof ManyHolder && !contender.fair();
    }

    @Override
    public Measurement run(Contender contender, RedisProbe redis, Duration warmUp, Duration window) throws Exception {
        HeldLocks held = ((ManyHolder) contender).holdMany("bench:renewed:", leases, PERIOD);
        RedisProbe.ScriptRuns runs;
        try {
            Thread.sleep(PERIOD.toMillis()); // every lease's renewal cycle has begun
            redis.startScriptLog(leases * (PERIODS + 2) + 10_000);
            Thread.sleep(PERIOD.multipliedBy(PERIODS).toMillis());
            runs = redis.stopScriptLog();
        } catch (Exception | Error e) {
            held.release();
            throw e;
        }
        int lost = held.release();
        return Measurement.of(name(), contender.name())
                .put(Figures.SCRIPT_CALLS_PER_PERIOD, (double) runs.count() / PERIODS)
                .put(Figures.LONGEST_SCRIPT_MICROS, runs.longestMicros())
                .put(Figures.MEDIAN_SCRIPT_MICROS, runs.medianMicros())
                .put(Figures.SCRIPTS_OVER_1_MS, runs.overOneMs())
                .put(Figures.SERVER_PREEMPTED, runs.serverPreemptions() < 0 ? Double.NaN : runs.serverPreemptions())
                .put(Figures.LOCKS_LOST, lost)
                .build();
    }

    /** A contender that can hold many renewed leases through its first client. */
    interface ManyHolder {
        /** Acquires {@code count} keys starting with {@code prefix}, renewed every {@code period}. */
        HeldLocks holdMany(String prefix, int count, Duration period) throws Exception;
    }

    /** The locks a {@link ManyHolder} holds. */
    interface HeldLocks {
        /**
         * Releases every lock; returns how many were no longer held (their renewal did not keep them:
         * told lost, or, with Redisson, found someone else's or gone at unlock).
         */
        int release() throws Exception;
    }
}
