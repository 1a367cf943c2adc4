package io.leasehold.lock.safety;

import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import java.time.Duration;
import java.util.List;

/**
 * The lock server killed and restarted empty (no RDB, no AOF) while workers hold locks: a Redis data
 * loss. Every holder must be told within one renewal period of the restart (or have ended its section
 * by then), and fencing tokens must still rise.
 */
final class RestartWithoutPersistence implements Scenario {

    private static final Duration RENEWAL_PERIOD = LEASE.dividedBy(3);

    private long start;
    private long restarted;

    @Override
    public String name() {
        return "restart-no-persistence";
    }

    @Override
    public String description() {
        return "Redis killed and restarted without persistence: holders told within one renewal period ("
                + RENEWAL_PERIOD.toMillis() + " ms) + " + RunContext.MARGIN.toMillis() + " ms; tokens still rise";
    }

    @Override
    public boolean losesData() {
        return true;
    }

    /** The targeted holder's sections outlast the lease, so it is still inside one when the fault bites. */
    @Override
    public java.util.Optional<Duration> targetHold() {
        return java.util.Optional.of(LEASE.multipliedBy(3).dividedBy(2));
    }

    @Override
    public void inject(RunContext run) throws Exception {
        run.awaitHolder(List.of(run.target()), Duration.ofSeconds(30));
        start = RunContext.now();
        run.lockServer().kill();
        run.lockServer().restart();
        restarted = RunContext.now();
        run.declare("restart-without-persistence", FaultEffect.DATA_LOSS, null, start, restarted);
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        long bound = restarted + RENEWAL_PERIOD.plus(RunContext.MARGIN).toNanos() / 1000;
        long slowest = 0;
        for (HistoryFacts.Span span : run.facts().openAt(start)) {
            boolean toldInTime = span.toldAt() != null && span.toldAt() <= bound;
            boolean endedInTime = span.end() != null && span.end() <= bound;
            run.expect(
                    toldInTime || endedInTime,
                    span.process() + "'s lease " + span.token() + " of " + span.lock()
                            + " held across the restart was neither told nor ended within "
                            + RunContext.millis(bound - restarted)
                            + " of it (told "
                            + (span.toldAt() == null
                                    ? "never"
                                    : RunContext.millis(span.toldAt() - restarted) + " after")
                            + ")");
            if (span.toldAt() != null) {
                slowest = Math.max(slowest, span.toldAt() - restarted);
            }
        }
        run.figure("restart took " + RunContext.millis(restarted - start) + "; holders told <= "
                + RunContext.millis(slowest) + " after");
    }
}
