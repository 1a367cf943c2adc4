package io.leasehold.lock.safety;

import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import java.time.Duration;

/**
 * {@code kill -9} of a worker inside a section: its lock must be free within its lease (plus a
 * margin). Free is seen either way, whichever comes first: the lock key on Redis gone or holding
 * another token (polled by the runner, whose own connections are slow on a loaded machine), or
 * another worker's section of that lock beginning (from the history).
 */
final class KillHolder implements Scenario {

    private Holder holder;
    private long start;
    private Long polledFree;

    @Override
    public String name() {
        return "kill-holder";
    }

    @Override
    public String description() {
        return "kill -9 of a holder mid-section: the lock is free within the lease + " + RunContext.MARGIN.toMillis()
                + " ms";
    }

    @Override
    public void inject(RunContext run) throws Exception {
        holder = run.awaitHolder(Duration.ofSeconds(30));
        start = RunContext.now();
        holder.worker().kill();
        run.declare("kill-9", FaultEffect.KILL, holder.worker().name(), start, RunContext.now());
        polledFree = run.awaitLockFree(holder.lock(), holder.token(), LEASE.multipliedBy(5));
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        Long taken = run.facts()
                .firstSectionFrom(holder.lock(), start)
                .map(HistoryFacts.Span::start)
                .orElse(null);
        Long free = polledFree == null ? taken : taken == null ? polledFree : Math.min(polledFree, taken);
        long bound = LEASE.plus(RunContext.MARGIN).toNanos() / 1000;
        run.expect(
                free != null && free - start <= bound,
                holder.lock() + " held by the killed " + holder.worker().name()
                        + " must be free within " + RunContext.millis(bound) + ", but was "
                        + (free == null
                                ? "still held after " + LEASE.multipliedBy(5)
                                : "free after " + RunContext.millis(free - start)));
        if (free != null) {
            run.figure("lock free " + RunContext.millis(free - start) + " after kill -9");
        }
    }
}
