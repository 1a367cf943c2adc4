package io.leasehold.lock.safety;

import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code kill -9} of a worker in the middle of a handoff (another thread of it waits for the lock; its
 * connection (and every other worker's) has {@link HandoffDemands#LATENCY} each way, so the handoff is in flight, or has just
 * granted the lock to the local waiter, when it dies), while the other workers' threads wait too: each
 * lock is taken by another process within the lease + the margin, no overlap, tokens rise.
 */
final class KillMidHandoff implements Scenario {

    private RunContext.WorkerLine release;
    private long killed;

    @Override
    public String name() {
        return "kill-mid-handoff";
    }

    @Override
    public String description() {
        return "kill -9 of a worker while its handoff is in flight: every lock taken by another process within the"
                + " lease + " + RunContext.MARGIN.toMillis() + " ms, no overlap, tokens rise";
    }

    @Override
    public boolean proxied() {
        return true;
    }

    @Override
    public int threadsPerWorker() {
        return HandoffDemands.THREADS;
    }

    @Override
    public void inject(RunContext run) throws Exception {
        WorkerProcess target = run.target();
        // On every worker's link: a worker slower than the others may starve (see PauseReleasingHandoff).
        run.proxies().forEach(proxy -> proxy.latency(HandoffDemands.LATENCY));
        release = run.awaitLine(target, "RELEASING", 1, Duration.ofSeconds(30));
        RunContext.sleep(Duration.ofMillis(ThreadLocalRandom.current().nextLong(250)));
        Map<WorkerProcess, Integer> marks = HandoffDemands.lineMarks(run, target.name());
        killed = RunContext.now();
        target.kill();
        run.declare("kill-9", FaultEffect.KILL, target.name(), killed, RunContext.now());
        HandoffDemands.awaitTakenByOthers(marks); // the run must outlast the killed process's leases
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        HandoffDemands.takenByOthersWithin(run, release.worker().name(), killed);
        HandoffDemands.noFalseLoss(run);
        HandoffDemands.tokensRise(run, Map.of());
    }
}
