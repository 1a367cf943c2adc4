package io.leasehold.lock.safety;

import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisNode;
import io.leasehold.lock.testkit.redis.SentinelRedis;
import java.time.Duration;

/**
 * A Sentinel failover to a replica that lags: the replica is frozen for a while (it misses the
 * acquisitions, renewals and fencing counters written meanwhile), then the master is killed and the
 * replica resumed, and the Sentinels promote it. A Redis data loss: overlaps may go untold, under the
 * checker's separate rules; tokens must still rise (the hybrid token), and every worker must get locks
 * again after the failover.
 */
final class FailoverToLaggingReplica implements Scenario {

    private static final Duration LAG = Duration.ofMillis(1500);

    private long killed;

    @Override
    public String name() {
        return "failover-lagging-replica";
    }

    @Override
    public String description() {
        return "Sentinel failover to a replica " + LAG.toMillis()
                + " ms behind: tokens still rise, every worker acquires" + " again after it";
    }

    @Override
    public Topology topology() {
        return Topology.SENTINEL;
    }

    @Override
    public boolean losesData() {
        return true;
    }

    /** The targeted holder's sections outlast the lease: it holds a lock while Redis fails over under it. */
    @Override
    public java.util.Optional<Duration> targetHold() {
        return java.util.Optional.of(LEASE.multipliedBy(3).dividedBy(2));
    }

    @Override
    public void inject(RunContext run) throws Exception {
        SentinelRedis sentinel = run.sentinel();
        RedisNode master = sentinel.master();
        RedisNode replica = sentinel.replicas().get(0);
        run.awaitHolder(java.util.List.of(run.target()), Duration.ofSeconds(30));
        long start = RunContext.now();
        replica.pause();
        try {
            RunContext.sleep(LAG);
            master.kill();
            killed = RunContext.now();
        } finally {
            replica.resume();
        }
        RedisEndpoint promotedAt = sentinel.awaitFailover(master.endpoint(), Duration.ofSeconds(60));
        long promoted = RunContext.now();
        run.declare("failover-to-lagging-replica", FaultEffect.DATA_LOSS, null, start, promoted);
        run.figure("failover to " + promotedAt.port() + " took " + RunContext.millis(promoted - start));
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        for (WorkerProcess worker : run.workers()) {
            boolean again = run.facts().spans().stream()
                    .anyMatch(s -> s.process().equals(worker.name()) && s.start() >= killed);
            run.expect(again, worker.name() + " got no lock after the master was killed");
        }
    }
}
