package io.leasehold.lock.safety;

import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import io.leasehold.lock.testkit.faults.FaultProxy;
import java.time.Duration;

/**
 * Every worker's traffic delayed by {@value #LATENCY_MILLIS} ms each way (a round trip of a quarter
 * of the lease more) for 1.5 x the lease: slower, but no lease may be declared lost.
 */
final class LatencySpike implements Scenario {

    static final long LATENCY_MILLIS = 250;

    @Override
    public String name() {
        return "latency-spike";
    }

    @Override
    public String description() {
        return "+" + LATENCY_MILLIS + " ms each way for every worker for 1.5 x the lease: no lease lost";
    }

    @Override
    public boolean proxied() {
        return true;
    }

    private long start;
    private long end;

    @Override
    public void inject(RunContext run) throws Exception {
        start = RunContext.now();
        run.proxies().forEach(proxy -> proxy.latency(Duration.ofMillis(LATENCY_MILLIS)));
        try {
            RunContext.sleep(LEASE.multipliedBy(3).dividedBy(2));
        } finally {
            run.proxies().forEach(FaultProxy::resume);
        }
        end = RunContext.now();
        run.declare("latency-spike", FaultEffect.OTHER, null, start, end);
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        var losses = run.facts().lossesBetween(start, end + LEASE.toNanos() / 1000);
        run.expect(
                losses.isEmpty(),
                "no lease may be lost to a latency spike shorter than the lease, but " + losses.size()
                        + " were from its start to a lease after its end: " + losses);
        run.figure(losses.size() + " leases lost during the spike and a lease after");
    }
}
