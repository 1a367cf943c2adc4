package io.leasehold.lock.safety;

import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import java.time.Duration;
import java.util.List;

/**
 * The lock server frozen (SIGSTOP) for 1.5 x the lease, then resumed with its data: every holder must
 * be told by the end of its validity (the lease after its last renewal), no expired lease may be handed
 * out when the queued commands run on resume, and no overlap may go untold.
 */
final class OutageLongerThanLease implements Scenario {

    private long start;

    @Override
    public String name() {
        return "outage-longer-than-lease";
    }

    @Override
    public String description() {
        return "Redis frozen for 1.5 x the lease, then back: holders told by the end of their validity (+ "
                + RunContext.MARGIN.toMillis() + " ms); no untold overlap";
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
        run.lockServer().pause();
        try {
            RunContext.sleep(LEASE.multipliedBy(3).dividedBy(2));
        } finally {
            run.lockServer().resume();
        }
        run.declare("redis-outage", FaultEffect.OTHER, null, start, RunContext.now());
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        long bound = start + LEASE.plus(RunContext.MARGIN).toNanos() / 1000;
        long slowest = 0;
        for (HistoryFacts.Span span : run.facts().openAt(start)) {
            if (span.end() != null && span.end() <= bound) {
                // Its work ended in time; its release (sent to the frozen server) decides later what it
                // reports, a loss included if the lock had expired by then.
                continue;
            }
            run.expect(
                    span.toldAt() != null && span.toldAt() <= bound,
                    span.process() + "'s lease " + span.token()
                            + " of " + span.lock()
                            + " held when Redis froze must be told within the lease + margin, but was told "
                            + (span.toldAt() == null ? "never" : RunContext.millis(span.toldAt() - start) + " after"));
            if (span.toldAt() != null) {
                slowest = Math.max(slowest, span.toldAt() - start);
            }
        }
        run.figure("holders told <= " + RunContext.millis(slowest) + " after Redis froze");
    }
}
