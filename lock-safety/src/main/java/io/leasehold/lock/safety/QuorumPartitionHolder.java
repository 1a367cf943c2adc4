package io.leasehold.lock.safety;

import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import io.leasehold.lock.testkit.faults.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A quorum of 3 whose holder (the target worker) is cut off from a majority of the members (its proxies
 * to them silent both ways) for 1.5 x the lease while the other workers go on: its renewals reach a
 * minority only, so it must be told it lost the lease within the lease, and before another worker's
 * majority grants the lock (the checker judges the overlap; this scenario the bound).
 */
final class QuorumPartitionHolder implements Scenario {

    private static final int MEMBERS = 3;

    private Holder holder;
    private long start;

    @Override
    public String name() {
        return "quorum-3-partition-holder";
    }

    @Override
    public String description() {
        return "quorum of 3: a holder partitioned from 2 of the members for 1.5 x the lease: told within the"
                + " lease, before another worker's majority grants";
    }

    @Override
    public Topology topology() {
        return Topology.QUORUM;
    }

    @Override
    public int quorumMembers() {
        return MEMBERS;
    }

    @Override
    public boolean proxied() {
        return true;
    }

    @Override
    public Optional<Duration> targetHold() {
        return Optional.of(LEASE.multipliedBy(3).dividedBy(2));
    }

    @Override
    public void inject(RunContext run) throws Exception {
        holder = run.awaitHolder(List.of(run.target()), Duration.ofSeconds(30));
        // The first two members: a majority of three, leaving the holder one member it still reaches.
        List<FaultProxy> majority = run.proxiesOf(holder.worker()).subList(0, MEMBERS / 2 + 1);
        start = RunContext.now();
        majority.forEach(FaultProxy::partition);
        try {
            RunContext.sleep(LEASE.multipliedBy(3).dividedBy(2));
        } finally {
            majority.forEach(FaultProxy::resume);
        }
        run.declare(
                "partition-from-majority", FaultEffect.OTHER, holder.worker().name(), start, RunContext.now());
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
                who + " must be told within the lease (" + LEASE.toMillis() + " ms) of the partition, but was "
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
