package io.leasehold.lock.safety;

import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.checker.CheckReport;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The Redis wait queue under faults aimed at its waiters, for {@code fairLock} (every worker's two
 * threads take the locks in the queue's order) and for {@code lock} (whose waiters take places in
 * the same queue once the lock is contended across workers, and are granted the lock directly by a
 * release): while one worker is inside a section, another worker is killed with
 * {@code kill -9} (its threads' places in the queues, and any grant made to them, are never taken
 * or given back) and a third is frozen with {@code SIGSTOP} for longer than a waiter lease (its
 * places lapse while it sleeps; on {@code SIGCONT} it must queue again and go on). The queues must
 * not stall: each lock is taken again within a lease (the killed worker's own leases) plus the
 * dead-waiter bound for each of the dead and frozen places, and nothing of the queues is left in
 * Redis after the run.
 */
final class WaitQueueKillAndPause implements Scenario {

    /** fairLock's waiter lease (GrantOrder.WAITER_LEASE_MS): a place lapses this long after its waiter's last call. */
    private static final Duration WAITER_LEASE = Duration.ofMillis(1500);
    /** How long one dead place may hold a queue up (fairLock's Javadoc: about 2 s). */
    private static final Duration DEAD_WAITER = Duration.ofSeconds(2);
    /** Longer than a waiter lease, so that the frozen worker's places lapse. */
    private static final Duration FROZEN = WAITER_LEASE.multipliedBy(2);

    private final boolean fair;
    private final boolean quorum;
    private WorkerProcess killed;
    private WorkerProcess frozen;
    private long killedAt;
    private long resumedAt;
    private String queuedAtKill = "";

    private WaitQueueKillAndPause(boolean fair, boolean quorum) {
        this.fair = fair;
        this.quorum = quorum;
    }

    /** The scenario on {@code fairLock}. */
    static WaitQueueKillAndPause fairLock() {
        return new WaitQueueKillAndPause(true, false);
    }

    /** The scenario on {@code lock}: a plain waiter's place lasts the holder's TTL plus a waiter lease. */
    static WaitQueueKillAndPause plainLock() {
        return new WaitQueueKillAndPause(false, false);
    }

    /**
     * The scenario on {@code fairLock} over a quorum of 3: each member queues the waiters by the
     * quorum's tickets, and no member hands a lock over, so the dead and frozen places must lapse on
     * every member (or be taken out) within the same bound.
     */
    static WaitQueueKillAndPause quorumFairLock() {
        return new WaitQueueKillAndPause(true, true);
    }

    @Override
    public String name() {
        return quorum
                ? "quorum-3-fair-kill-pause-waiters"
                : fair ? "fair-kill-pause-waiters" : "queue-kill-pause-waiters";
    }

    @Override
    public Topology topology() {
        return quorum ? Topology.QUORUM : Topology.STANDALONE;
    }

    @Override
    public String description() {
        return (quorum ? "quorum of 3, " : "") + (fair ? "fairLock" : "lock")
                + ", 2 threads per worker: kill -9 of one worker and SIGSTOP of another for "
                + FROZEN.toMillis() + " ms (their threads queued or holding): each lock is taken again within a lease"
                + " + " + DEAD_WAITER.toSeconds() + " s per dead place + " + RunContext.MARGIN.toMillis()
                + " ms, and no queue key is left after the run";
    }

    @Override
    public boolean fair() {
        return fair;
    }

    @Override
    public int threadsPerWorker() {
        return 2;
    }

    @Override
    public void inject(RunContext run) throws Exception {
        Holder holder = run.awaitHolder(Duration.ofSeconds(30));
        List<WorkerProcess> others =
                run.workers().stream().filter(w -> w != holder.worker()).toList();
        if (others.size() < 2) {
            throw new IllegalStateException(name() + " needs at least 3 workers, but has "
                    + run.workers().size());
        }
        killed = others.get(0);
        frozen = others.get(1);
        List<WorkerProcess> live =
                run.workers().stream().filter(w -> w != killed && w != frozen).toList();
        int[] liveLinesAtKill = live.stream().mapToInt(WorkerProcess::lineCount).toArray();
        queuedAtKill = run.queuedPlaces().toString();
        long pausedAt = RunContext.now();
        frozen.pause();
        killedAt = RunContext.now();
        killed.kill();
        run.declare("kill-9", FaultEffect.KILL, killed.name(), killedAt, RunContext.now());
        try {
            RunContext.sleep(FROZEN);
        } finally {
            resumedAt = RunContext.now(); // just before SIGCONT: no thread of it can run earlier
            frozen.resume();
        }
        run.declare("sigstop", FaultEffect.PAUSE, frozen.name(), pausedAt, RunContext.now());
        awaitEveryLockTakenByTheLive(live, liveLinesAtKill);
    }

    /**
     * Keeps the run going until a live worker (neither killed nor frozen) has entered a section of
     * every lock since the faults, or the bound of {@link #judge} has passed: the run may not end
     * before a stalled queue could show. (Its threads take the locks in turn, but both may wait for
     * the same lock for seconds after the faults, and the run's steady time alone is shorter than the
     * bound.)
     */
    private void awaitEveryLockTakenByTheLive(List<WorkerProcess> live, int[] from) throws InterruptedException {
        java.util.Set<String> left = new java.util.HashSet<>(SuiteSettings.LOCKS);
        long deadline = killedAt + bound() + RunContext.MARGIN.toNanos() / 1000;
        while (!left.isEmpty() && RunContext.now() < deadline) {
            for (int i = 0; i < live.size(); i++) {
                WorkerProcess worker = live.get(i);
                int index = worker.awaitLine(from[i], line -> line.startsWith("IN "), Duration.ZERO);
                while (index >= 0) {
                    String[] fields = worker.line(index).split(" "); // IN <lock> <token> <waiters>
                    if (Long.parseLong(fields[2]) >= killedAt) { // (tokens are the server's µs: granted since)
                        left.remove(fields[1]);
                    }
                    from[i] = index + 1;
                    index = worker.awaitLine(from[i], line -> line.startsWith("IN "), Duration.ZERO);
                }
            }
            Thread.sleep(20);
        }
    }

    /** How long after the faults each lock must be taken again, in µs: see {@link #judge}. */
    private long bound() {
        // Each of the dead worker's and the frozen worker's threads may head a queue once: 4 places at most.
        return Scenario.LEASE
                        .plus(DEAD_WAITER.multipliedBy(2L * threadsPerWorker()))
                        .plus(RunContext.MARGIN)
                        .toNanos()
                / 1000;
    }

    @Override
    public void afterStop(RunContext run) throws Exception {
        HandoffDemands.noLockLeft(run); // the locks, and their queues and waiter leases
    }

    @Override
    public void judge(RunContext run, CheckReport report) {
        run.figure("queue places when the faults began: " + queuedAtKill);
        long bound = bound();
        for (String lock : SuiteSettings.LOCKS) {
            Long taken = run.facts().spans().stream()
                    .filter(s -> s.lock().equals(lock)
                            && !s.process().equals(killed.name())
                            && !s.process().equals(frozen.name())
                            && s.start() >= killedAt)
                    .map(HistoryFacts.Span::start)
                    .min(Long::compare)
                    .orElse(null);
            run.expect(
                    taken != null && taken - killedAt <= bound,
                    lock + " must be taken by a live worker within " + RunContext.millis(bound) + " of the faults,"
                            + " but was "
                            + (taken == null ? "never taken" : "taken after " + RunContext.millis(taken - killedAt)));
            if (taken != null) {
                run.figure(lock + " taken " + RunContext.millis(taken - killedAt) + " after the faults");
            }
        }
        run.facts().spans().stream()
                .filter(s -> s.process().equals(frozen.name()) && s.start() >= resumedAt)
                .findFirst()
                .ifPresent(s -> run.figure(frozen.name() + " queued again and took " + s.lock() + " "
                        + RunContext.millis(s.start() - resumedAt) + " after SIGCONT"));
        HandoffDemands.noFalseLoss(run);
        HandoffDemands.tokensRise(run, Map.of(frozen.name(), resumedAt));
    }
}
