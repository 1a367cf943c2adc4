package io.leasehold.lock.safety;

import io.leasehold.lock.history.AcquireOutcome;
import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import java.time.Duration;

/** {@code SCRIPT FLUSH} every 200 ms for 2 x the lease: every call falls back to EVAL; nothing fails, no lease is lost. */
final class ScriptFlushStorm implements Scenario {

    private static final Duration EVERY = Duration.ofMillis(200);

    @Override
    public String name() {
        return "script-flush";
    }

    @Override
    public String description() {
        return "SCRIPT FLUSH every " + EVERY.toMillis() + " ms for 2 x the lease: no acquire fails, no lease lost";
    }

    private long start;
    private long end;

    @Override
    public void inject(RunContext run) throws Exception {
        start = RunContext.now();
        long until = System.nanoTime() + LEASE.multipliedBy(2).toNanos();
        int flushes = 0;
        while (System.nanoTime() < until) {
            run.lockServer().command(Duration.ofSeconds(2), "SCRIPT", "FLUSH");
            flushes++;
            RunContext.sleep(EVERY);
        }
        end = RunContext.now();
        run.declare("script-flush", FaultEffect.OTHER, null, start, end);
        run.figure(flushes + " flushes");
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        long errors = run.facts().attempts(AcquireOutcome.ERROR);
        run.expect(errors == 0, errors + " acquire(s) failed after SCRIPT FLUSH");
        var losses = run.facts().lossesBetween(start, end + LEASE.toNanos() / 1000);
        run.expect(
                losses.isEmpty(),
                losses.size() + " lease(s) lost from the first SCRIPT FLUSH to a lease after the last: " + losses);
    }
}
