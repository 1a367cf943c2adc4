package io.leasehold.lock.safety;

import io.leasehold.lock.history.AcquireOutcome;
import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import java.time.Duration;

/**
 * {@code CLIENT KILL} of every connection (commands and pub/sub) every 100 ms for 2 x the lease:
 * waits are long (see {@link SuiteSettings#WAIT}), so a lost wake-up would show as a timed-out acquire,
 * and a transient error surfaced as {@code LockBackendException} while the wait had time left as a
 * failed one; neither may happen.
 */
final class ClientKillStorm implements Scenario {

    private static final Duration EVERY = Duration.ofMillis(100);

    private long start;

    @Override
    public String name() {
        return "client-kill-storm";
    }

    @Override
    public String description() {
        return "CLIENT KILL of every connection every " + EVERY.toMillis()
                + " ms for 2 x the lease: no acquire fails or times out (no spurious LockBackendException, no lost wake-up)";
    }

    @Override
    public void inject(RunContext run) throws Exception {
        start = RunContext.now();
        long until = System.nanoTime() + LEASE.multipliedBy(2).toNanos();
        long killed = 0;
        while (System.nanoTime() < until) {
            killed += (Long) run.lockServer().command(Duration.ofSeconds(2), "CLIENT", "KILL", "TYPE", "normal");
            killed += (Long) run.lockServer().command(Duration.ofSeconds(2), "CLIENT", "KILL", "TYPE", "pubsub");
            RunContext.sleep(EVERY);
        }
        run.declare("client-kill-storm", FaultEffect.OTHER, null, start, RunContext.now());
        run.figure(killed + " connections killed");
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        long errors = run.facts().attempts(AcquireOutcome.ERROR);
        long timeouts = run.facts().attempts(AcquireOutcome.TIMEOUT);
        run.expect(errors == 0, errors + " acquire(s) failed with LockBackendException while their wait had time left");
        run.expect(timeouts == 0, timeouts + " acquire(s) timed out after " + SuiteSettings.WAIT + ": a lost wake-up");
        run.figure(
                "longest acquire " + RunContext.millis(run.facts().longestAcquireMicros(start)) + " from the storm on");
    }
}
