package io.leasehold.lock.safety;

import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import io.leasehold.lock.testkit.faults.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A holder cut off from Redis (its proxy silent both ways) for 1.5 x the lease while the other
 * workers go on: it must be told before its validity ends, so before anyone else can acquire. The
 * holder is the worker whose sections last 1.5 x the lease, caught just after its read.
 */
final class PartitionHolder implements Scenario {

    private Holder holder;
    private long start;

    @Override
    public String name() {
        return "partition-holder";
    }

    @Override
    public String description() {
        return "a holder partitioned from Redis for 1.5 x the lease: told before its validity ends, so before the next"
                + " holder begins";
    }

    @Override
    public boolean proxied() {
        return true;
    }

    @Override
    public java.util.Optional<Duration> targetHold() {
        return java.util.Optional.of(LEASE.multipliedBy(3).dividedBy(2));
    }

    @Override
    public void inject(RunContext run) throws Exception {
        holder = run.awaitHolder(List.of(run.target()), Duration.ofSeconds(30));
        FaultProxy proxy = run.proxyOf(holder.worker());
        start = RunContext.now();
        proxy.partition();
        try {
            RunContext.sleep(LEASE.multipliedBy(3).dividedBy(2));
        } finally {
            proxy.resume();
        }
        run.declare("partition", FaultEffect.OTHER, holder.worker().name(), start, RunContext.now());
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        String who = holder.worker().name() + "'s lease " + holder.token() + " of " + holder.lock();
        Long told = run.facts()
                .span(holder.worker().name(), holder.lock(), holder.token())
                .map(HistoryFacts.Span::toldAt)
                .orElse(null);
        // Its validity counts from its last renewal's send, before the partition: it ends within a lease of it.
        long bound = start + LEASE.toNanos() / 1000;
        run.expect(
                told != null && told <= bound,
                who + " must be told within the lease (" + LEASE.toMillis()
                        + " ms) of the partition, but was "
                        + (told == null ? "never told" : "told " + RunContext.millis(told - start) + " after"));
        Optional<HistoryFacts.Span> next = run.facts().firstSectionFrom(holder.lock(), holder.seenAt());
        if (told != null && next.isPresent()) {
            run.expect(told <= next.get().start(), who + " must be told before the next holder begins");
            run.figure("told " + RunContext.millis(told - start) + " into the partition, "
                    + RunContext.millis(next.get().start() - told) + " before the next holder");
        } else if (told != null) {
            run.figure("told " + RunContext.millis(told - start) + " into the partition");
        }
    }
}
