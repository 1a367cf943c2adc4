package io.leasehold.lock.safety;

import io.leasehold.lock.testkit.history.FaultEffect;
import java.time.Duration;

/** {@code kill -9} of a worker inside a section: its lock must be free within its lease (plus a margin). */
final class KillHolder implements Scenario {

    @Override
    public String name() {
        return "kill-holder";
    }

    @Override
    public String description() {
        return "kill -9 of a holder mid-section: the lock is free within the lease + " + RunContext.MARGIN.toMillis() + " ms";
    }

    @Override
    public void inject(RunContext run) throws Exception {
        Holder holder = run.awaitHolder(Duration.ofSeconds(30));
        long start = RunContext.now();
        holder.worker().kill();
        run.declare("kill-9", FaultEffect.KILL, holder.worker().name(), start, RunContext.now());
        Long free = run.awaitLockFree(holder.lock(), holder.token(), LEASE.multipliedBy(5));
        long bound = LEASE.plus(RunContext.MARGIN).toNanos() / 1000;
        run.expect(free != null && free - start <= bound, holder.lock() + " held by the killed " + holder.worker().name()
                + " must be free within " + RunContext.millis(bound) + ", but was "
                + (free == null ? "still held after " + LEASE.multipliedBy(5) : "free after " + RunContext.millis(free - start)));
        if (free != null) {
            run.figure("lock free " + RunContext.millis(free - start) + " after kill -9");
        }
    }
}
